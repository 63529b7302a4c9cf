"""functions evaluated on record batches: math, datetime, collections, generators, windows, aggregates, UDFs."""

from __future__ import annotations

import datetime as dt
import math
import statistics
from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException, PythonException
from dstream.sql.expressions.generators import Generator
from dstream.sql.expressions.windows import TimeWindow, duration_us
from dstream.sql.types import (
    ArrayType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructType,
    TimestampType,
)

from .expr_harness import CTX, LEGACY, Frame

UTC = dt.timezone.utc
SMALL = st.one_of(st.none(), st.integers(-1000, 1000))
FLOATS = st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False))


def test_every_listed_function_exists() -> None:
    names = ("col column lit expr when coalesce split explode explode_outer posexplode lower upper trim ltrim rtrim "
             "length concat concat_ws regexp_extract regexp_replace substring abs round bround sqrt count "
             "countDistinct count_distinct sum sum_distinct avg mean min max first last collect_list collect_set "
             "approx_count_distinct to_timestamp to_date current_timestamp current_date date_format unix_timestamp "
             "from_unixtime window session_window struct array from_json to_json udf asc desc isnull isnan greatest "
             "least year month dayofmonth hour minute second date_add date_sub datediff size element_at "
             "array_contains broadcast try_divide try_add").split()
    for name in names:
        assert callable(getattr(F, name)), name
        assert name in F.__all__, name


@given(st.lists(FLOATS, max_size=20))
def test_math_functions_match_the_model(values: list[float | None]) -> None:
    f = Frame(x=(DoubleType(), values))
    x = F.col("x")
    assert f.eval(F.sqrt(F.abs(x))) == [None if v is None else math.sqrt(abs(v)) for v in values]
    assert f.eval(F.log(x)) == [None if v is None or v <= 0 else math.log(v) for v in values]
    assert f.eval(F.floor(x)) == [None if v is None else math.floor(v) for v in values]
    assert f.eval(F.ceil(x)) == [None if v is None else math.ceil(v) for v in values]
    assert f.resolve(F.floor(x)).data_type() == LongType()


def test_round_is_half_up_and_bround_half_even() -> None:
    f = Frame(x=(DoubleType(), [2.5, -2.5, 0.125, None]), i=(IntegerType(), [15, 25, -15, None]))
    assert f.eval(F.round("x")) == [3.0, -3.0, 0.0, None]
    assert f.eval(F.bround("x")) == [2.0, -2.0, 0.0, None]
    assert f.eval(F.round("x", 2)) == [2.5, -2.5, 0.13, None]
    assert f.eval(F.round("i", -1)) == [20, 30, -20, None]
    assert f.resolve(F.round("i", -1)).data_type() == IntegerType()
    d = Frame(d=(DecimalType(5, 3), [Decimal("1.235")]))
    assert d.resolve(F.round("d", 2)).data_type() == DecimalType(5, 2)


def test_greatest_and_least_skip_nulls_and_widen() -> None:
    f = Frame(a=(IntegerType(), [1, None, None, 5]), b=(DoubleType(), [2.5, 3.0, None, float("nan")]))
    assert f.eval(F.greatest("a", "b"))[:3] == [2.5, 3.0, None]
    assert math.isnan(f.eval(F.greatest("a", "b"))[3])
    assert f.eval(F.least("a", "b")) == [1.0, 3.0, None, 5.0]
    assert f.resolve(F.greatest("a", "b")).data_type() == DoubleType()
    with pytest.raises(AnalysisException, match="WRONG_NUM_ARGS"):
        F.greatest("a")


def test_pow_and_operators() -> None:
    f = Frame(a=(IntegerType(), [2, None]))
    assert f.eval(F.col("a") ** 3) == [8.0, None]
    assert f.eval(F.pow("a", 0.5)) == [math.sqrt(2), None]


def test_datetime_fields_read_the_session_time_zone() -> None:
    ts = dt.datetime(2024, 3, 10, 23, 30, 15, tzinfo=UTC)
    f = Frame(t=(TimestampType(), [ts, None]), d=(DateType(), [dt.date(2024, 2, 29), None]))
    t = F.col("t")
    assert f.eval(F.year(t)) == [2024, None]
    assert f.eval(F.hour(t)) == [23, None]
    tokyo = CTX.__class__(ansi=True, time_zone="Asia/Tokyo", now_us=CTX.now_us)
    assert f.eval(F.hour(t), tokyo) == [8, None]
    assert f.eval(F.dayofmonth(t), tokyo) == [11, None]
    assert f.eval(F.minute(t)) == [30, None] and f.eval(F.second(t)) == [15, None]
    assert f.eval(F.month("d")) == [2, None] and f.eval(F.dayofmonth("d")) == [29, None]
    assert f.eval(F.dayofweek("d")) == [5, None]


def test_date_arithmetic() -> None:
    f = Frame(d=(DateType(), [dt.date(2024, 2, 28), None]), e=(DateType(), [dt.date(2024, 3, 1), dt.date(2024, 1, 1)]))
    assert f.eval(F.date_add("d", 2)) == [dt.date(2024, 3, 1), None]
    assert f.eval(F.date_sub("d", 28)) == [dt.date(2024, 1, 31), None]
    assert f.eval(F.datediff("e", "d")) == [2, None]
    assert F.date_add("d", 2).expr.sql() == "date_add(d, 2)"


def test_current_timestamp_and_date_come_from_the_context() -> None:
    f = Frame(a=(IntegerType(), [1, 2]))
    now = dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(microseconds=CTX.now_us)
    assert f.eval(F.current_timestamp()) == [now, now]
    assert f.eval(F.current_date()) == [now.date()] * 2
    assert not f.resolve(F.current_timestamp()).foldable


def test_unix_timestamp_of_timestamps() -> None:
    ts = dt.datetime(2024, 1, 1, 0, 0, 1, 500000, tzinfo=UTC)
    f = Frame(t=(TimestampType(), [ts, None]))
    assert f.eval(F.unix_timestamp("t")) == [int(ts.timestamp()), None]


def test_struct_array_size_element_at_contains() -> None:
    f = Frame(a=(IntegerType(), [1, None]), b=(LongType(), [2, 3]),
              arr=(ArrayType(IntegerType()), [[1, None, 3], None]))
    s = f.resolve(F.struct("a", F.col("b").alias("c"), F.col("a") + 1))
    assert isinstance(s.data_type(), StructType)
    assert [fl.name for fl in s.data_type().fields] == ["a", "c", "col3"]
    assert s.sql() == "struct(a, b AS c, (a + 1))"
    assert f.eval(F.struct("a", "b")) == [{"a": 1, "b": 2}, {"a": None, "b": 3}]
    assert f.eval(F.array("a", "b")) == [[1, 2], [None, 3]]
    assert f.resolve(F.array("a", "b")).data_type() == ArrayType(LongType(), True)
    assert f.eval(F.size("arr")) == [3, None]
    assert f.eval(F.size("arr"), LEGACY) == [3, -1]
    assert f.eval(F.element_at("arr", -1)) == [3, None]
    with pytest.raises(IndexError, match="INVALID_ARRAY_INDEX_IN_ELEMENT_AT"):
        f.eval(F.element_at("arr", 5))
    assert f.eval(F.element_at("arr", 5), LEGACY) == [None, None]
    assert f.eval(F.array_contains("arr", 3)) == [True, None]
    assert f.eval(F.array_contains("arr", 2)) == [None, None]
    assert f.eval(F.named_struct(F.lit("x"), F.col("a"))) == [{"x": 1}, {"x": None}]


def test_explode_family_generates_rows() -> None:
    f = Frame(arr=(ArrayType(StringType()), [["a", "b"], [], None, ["c"]]),
              m=(MapType(StringType(), IntegerType()), [[("k", 1)], [], None, [("x", 2), ("y", 3)]]))
    for col, fields, parents, values in (
            (F.explode("arr"), ["col"], [0, 0, 3], [["a", "b", "c"]]),
            (F.explode_outer("arr"), ["col"], [0, 0, 1, 2, 3], [["a", "b", None, None, "c"]]),
            (F.posexplode("arr"), ["pos", "col"], [0, 0, 3], [[0, 1, 0], ["a", "b", "c"]]),
            (F.explode("m"), ["key", "value"], [0, 3, 3], [["k", "x", "y"], [1, 2, 3]])):
        gen = f.resolve(col)
        assert isinstance(gen, Generator)
        assert [n for n, _, _ in gen.output_fields()] == fields
        got_parents, arrays = gen.generate(f.batch, CTX)
        assert got_parents.to_pylist() == parents
        assert [a.to_pylist() for a in arrays] == values
    with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH"):
        Frame(a=(IntegerType(), [1])).resolve(F.explode("a"))


def test_tumbling_and_sliding_windows() -> None:
    base = dt.datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
    times = [base + dt.timedelta(minutes=m) for m in (0, 7, 14)] + [None]
    f = Frame(t=(TimestampType(), times))
    w = f.resolve(F.window("t", "10 minutes"))
    assert w.sql() == "window" and not isinstance(w, TimeWindow) or not w.is_sliding
    got = f.eval(F.window("t", "10 minutes"))
    assert [g and (g["start"], g["end"]) for g in got] == [
        (base, base + dt.timedelta(minutes=10)), (base, base + dt.timedelta(minutes=10)),
        (base + dt.timedelta(minutes=10), base + dt.timedelta(minutes=20)), None]
    sliding = f.resolve(F.window("t", "10 minutes", "5 minutes"))
    assert isinstance(sliding, TimeWindow) and sliding.is_sliding
    parents, (structs,) = sliding.generate(f.batch, CTX)
    starts = [(base - v["start"].replace(tzinfo=UTC) if v["start"].tzinfo is None else v["start"] - base)
              for v in structs.to_pylist()]
    assert parents.to_pylist() == [0, 0, 1, 1, 2, 2]
    assert [s // dt.timedelta(minutes=1) for s in starts] == [-5, 0, 0, 5, 5, 10]
    assert duration_us("1 hour 30 minutes") == 90 * 60 * 10**6
    assert duration_us("interval 2 seconds") == 2 * 10**6
    with pytest.raises(ValueError):
        duration_us("3 fortnights")
    sess = f.eval(F.session_window("t", "5 minutes"))
    assert sess[0] == {"start": base, "end": base + dt.timedelta(minutes=5)} and sess[3] is None


@given(st.lists(st.tuples(st.sampled_from("xyz"), SMALL), max_size=40))
def test_aggregates_match_the_model(rows: list[tuple[str, int | None]]) -> None:
    f = Frame(k=(StringType(), [r[0] for r in rows]), v=(IntegerType(), [r[1] for r in rows]))
    groups: dict[str, list[int | None]] = {}
    for k, v in rows:
        groups.setdefault(k, []).append(v)
    keys = [F.col("k")]

    def model(fn: object) -> list[tuple[str, object]]:
        return sorted(((k, fn(vs)) for k, vs in groups.items()), key=repr)  # type: ignore[operator]

    def nn(vs: list[int | None]) -> list[int]:
        return [v for v in vs if v is not None]

    assert f.aggregate(F.count("v"), keys) == model(lambda vs: len(nn(vs)))
    assert f.aggregate(F.count("*"), keys) == model(len)
    assert f.aggregate(F.sum("v"), keys) == model(lambda vs: sum(nn(vs)) if nn(vs) else None)
    assert f.aggregate(F.min("v"), keys) == model(lambda vs: min(nn(vs)) if nn(vs) else None)
    assert f.aggregate(F.max("v"), keys) == model(lambda vs: max(nn(vs)) if nn(vs) else None)
    assert f.aggregate(F.countDistinct("v"), keys) == model(lambda vs: len(set(nn(vs))))
    assert f.aggregate(F.collect_list("v"), keys) == model(nn)
    assert [(k, sorted(v)) for k, v in f.aggregate(F.collect_set("v"), keys)] == model(lambda vs: sorted(set(nn(vs))))
    assert f.aggregate(F.first("v"), keys) == model(lambda vs: vs[0])
    assert f.aggregate(F.last("v", ignorenulls=True), keys) == model(lambda vs: nn(vs)[-1] if nn(vs) else None)
    avg = dict(f.aggregate(F.avg("v"), keys))
    for k, vs in groups.items():
        expected = statistics.fmean(nn(vs)) if nn(vs) else None
        assert avg[k] == pytest.approx(expected) if expected is not None else avg[k] is None
    sd = dict(f.aggregate(F.stddev("v"), keys))
    for k, vs in groups.items():
        if len(nn(vs)) >= 2:
            assert sd[k] == pytest.approx(statistics.stdev(nn(vs)))
        else:
            assert sd[k] is None


def test_aggregates_over_no_rows_and_their_types() -> None:
    f = Frame(v=(IntegerType(), []))
    assert f.aggregate(F.count("v")) == [0]
    assert f.aggregate(F.sum("v")) == [None]
    assert f.aggregate(F.collect_list("v")) == [[]]
    g = Frame(v=(IntegerType(), [1]), d=(DecimalType(5, 2), [Decimal("1.25")]))
    assert g.resolve(F.sum("v")).data_type() == LongType()
    assert g.resolve(F.sum("d")).data_type() == DecimalType(15, 2)
    assert g.resolve(F.avg("d")).data_type() == DecimalType(9, 6)
    assert g.aggregate(F.avg("d")) == [Decimal("1.250000")]
    assert g.resolve(F.max("v")).data_type() == IntegerType()
    assert F.mean("v").expr.sql() == "avg(v)"


def test_udf_forms_names_nulls_and_conversions() -> None:
    f = Frame(a=(IntegerType(), [1, None, 3]))

    def plus_one(x: int | None) -> int | None:
        return None if x is None else x + 1

    assert f.eval(F.udf(plus_one, IntegerType())("a")) == [2, None, 4]
    assert F.udf(plus_one)("a").expr.sql() == "plus_one(a)"
    assert f.eval(F.udf(plus_one)("a")) == ["2", None, "4"]

    @F.udf("double")
    def half(x: int | None) -> float | None:
        return None if x is None else x / 2

    assert f.eval(half("a")) == [0.5, None, 1.5]

    @F.udf(returnType=DoubleType())
    def as_int(x: int | None) -> int | None:
        return x

    assert f.eval(as_int("a")) == [None, None, None]

    @F.udf
    def boom(x: int | None) -> str:
        raise RuntimeError("no")

    with pytest.raises(PythonException, match="RuntimeError: no"):
        f.eval(boom("a"))


def test_broadcast_marks_the_object() -> None:
    class Fake:
        pass

    df = Fake()
    assert F.broadcast(df) is df and df._hint_broadcast is True  # type: ignore[attr-defined]


def test_string_function_names() -> None:
    assert F.trim("s").expr.sql() == "trim(s)"
    assert F.length("s").expr.sql() == "length(s)"
    assert F.concat("a", "b").expr.sql() == "concat(a, b)"
    assert F.to_date("s", "yyyy-MM-dd").expr.sql() == "to_date(s, yyyy-MM-dd)"
    assert F.date_format("t", "yyyy").expr.sql() == "date_format(t, yyyy)"
    assert F.md5("s").expr.sql() == "md5(s)"


def test_string_functions_evaluate() -> None:
    pytest.importorskip("dstream.sql.kernels.strings")
    f = Frame(s=(StringType(), ["  Hello ", None, "a1b22"]))
    s = F.col("s")
    assert f.eval(F.upper(s)) == ["  HELLO ", None, "A1B22"]
    assert f.eval(F.trim(s)) == ["Hello", None, "a1b22"]
    assert f.eval(F.length(s)) == [8, None, 5]
    assert f.eval(F.regexp_extract(s, r"(\d+)", 1)) == ["", None, "1"]
    assert f.eval(F.concat_ws("-", s, F.lit("x"))) == ["  Hello -x", "x", "a1b22-x"]
    assert f.eval(s.like("a%")) == [False, None, True]
    assert f.eval(s.startswith("a")) == [False, None, True]
    assert f.eval(F.md5(F.lit("a"))) == ["0cc175b9c0f1b6a831c399e269772661"] * 3


def test_arrow_result_types_are_the_spark_types() -> None:
    f = Frame(a=(IntegerType(), [1]), s=(StringType(), ["x"]))
    for col in (F.col("a") + 1, F.col("a") / 2, F.coalesce("a", F.lit(None)), F.array("a"), F.struct("a", "s")):
        expr = f.resolve(col)
        from dstream.sql.arrow_convert import to_arrow_type

        assert expr.eval(f.batch, CTX).type == to_arrow_type(expr.data_type())
    assert isinstance(pa.array([1]), pa.Array)
