"""Year-month and calendar intervals, the arithmetic, casts and aggregates of every interval kind,
and the ``char``/``varchar`` types.

``data/intervals.json`` holds PySpark 4.0.1's answers to 304 SQL queries (each column cast
to a string, as ``show()`` prints it, since PySpark collects neither year-month nor calendar
intervals; or the error's condition): literals, date and timestamp arithmetic (DST gaps in
Los Angeles among them), ``*`` and ``/`` with their rounding, casts, ``extract``,
``sum``/``avg``/``percentile``, ``to_json``/``to_csv`` and ``from_json``/``from_csv``,
``sequence`` by months, ``make_interval``, and everyday idioms (a month's last day, a year
ago). The property tests compare month arithmetic with a plain-Python model of Java's
``plusMonths``.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import CapturedException, PySparkNotImplementedError, PySparkTypeError
from dstream.sql.formatting import format_year_month_interval
from dstream.sql.kernels.year_month import parse_year_month
from dstream.sql.types import (
    CalendarIntervalType,
    CharType,
    DataType,
    StringType,
    StructField,
    StructType,
    VarcharType,
    YearMonthIntervalType,
    _parse_datatype_string,
)

from .pyspark_answers import check_case, load_cases

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
CASES = load_cases("intervals")


@pytest.mark.parametrize("case", CASES, ids=[c["query"][:70] for c in CASES])
def test_queries_give_pysparks_answers(spark: SparkSession, case: dict[str, Any]) -> None:
    check_case(spark, case)


def test_year_month_values_are_not_collected_as_in_pyspark(spark: SparkSession,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    df = spark.sql("select interval '1-2' year to month as a, interval 3 month as b, 1 as c")
    assert df.schema["a"].dataType == YearMonthIntervalType(0, 1)
    assert df.dtypes == [("a", "interval year to month"), ("b", "interval month"), ("c", "int")]
    with pytest.raises(PySparkNotImplementedError, match="YearMonthIntervalType.fromInternal"):
        df.collect()
    with pytest.raises(PySparkNotImplementedError):
        df.toPandas()
    with pytest.raises(PySparkTypeError, match="UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION"):
        df.toArrow()
    rows = df.rdd  # as PySpark: the RDD is made, its rows are refused when they are made
    assert rows.getNumPartitions() >= 1
    with pytest.raises(PySparkNotImplementedError):
        rows.collect()
    assert df.select("c").collect()[0].c == 1  # the other columns still collect
    assert df._show_string(5, 0).splitlines()[1] == "|a                           |b                 |c  |"
    assert df._show_string(5, 0).splitlines()[3] == "|INTERVAL '1-2' YEAR TO MONTH|INTERVAL '3' MONTH|1  |"
    assert df.toJSON().collect() == ['{"a":"INTERVAL \'1-2\' YEAR TO MONTH","b":"INTERVAL \'3\' MONTH","c":1}']
    monkeypatch.setenv("PYSPARK_YM_INTERVAL_LEGACY", "1")  # PySpark's switch: the months as ints
    assert tuple(df.collect()[0]) == (14, 3, 1)


def test_the_type_as_pyspark_writes_and_reads_it() -> None:
    ym = YearMonthIntervalType()
    assert repr(ym) == "YearMonthIntervalType(0, 1)" and ym.simpleString() == "interval year to month"
    assert YearMonthIntervalType(1).simpleString() == "interval month" and YearMonthIntervalType(0, 0) != ym
    assert DataType.fromJson("interval year") == YearMonthIntervalType(0, 0)
    schema = StructType.fromJson({"type": "struct", "fields": [
        {"name": "a", "type": "interval month", "nullable": True, "metadata": {}}]})
    assert schema.fields[0].dataType == YearMonthIntervalType(1, 1)
    assert DataType.fromDDL("a interval year to month, b interval hour").simpleString() == \
        "struct<a:interval year to month,b:interval hour>"
    with pytest.raises(PySparkNotImplementedError):
        ym.toInternal(1)


def test_make_ym_interval_in_the_dataframe_api(spark: SparkSession) -> None:
    assert str(F.make_ym_interval()) == "Column<'make_ym_interval(0, 0)'>"
    df = spark.range(3).select(F.make_ym_interval(F.col("id"), F.lit(14)).alias("i"))
    assert df.schema["i"].dataType == YearMonthIntervalType()
    shown = df.select(F.col("i").cast("string")).collect()
    assert [r[0] for r in shown] == ["INTERVAL '1-2' YEAR TO MONTH", "INTERVAL '2-2' YEAR TO MONTH",
                                     "INTERVAL '3-2' YEAR TO MONTH"]
    dates = spark.createDataFrame([(dt.date(2024, 1, 31),)], "d date")
    moved = dates.select((F.col("d") + F.make_ym_interval(F.lit(0), F.lit(1))).alias("m")).first()
    assert moved is not None and moved.m == dt.date(2024, 2, 29)


def _plus_months(day: dt.date, months: int) -> dt.date:
    """Java's ``LocalDate.plusMonths``: the same day of the month, or the month's last day."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


@PROPERTY
@given(st.lists(st.tuples(st.dates(dt.date(1900, 1, 1), dt.date(2100, 12, 31)), st.integers(-1200, 1200)),
                min_size=1, max_size=30))
def test_dates_and_wall_times_move_by_months_as_java_does(spark: SparkSession,
                                                          rows: list[tuple[dt.date, int]]) -> None:
    data = [(d, dt.datetime.combine(d, dt.time(13, 5, 7, 123)), m) for d, m in rows]
    df = spark.createDataFrame(data, "d date, t timestamp_ntz, m int")
    months = F.make_ym_interval(F.lit(0), F.col("m"))
    got = df.select((F.col("d") + months).alias("d"), (F.col("t") - months).alias("t")).collect()
    assert [r.d for r in got] == [_plus_months(d, m) for d, m in rows]
    assert [r.t for r in got] == [dt.datetime.combine(_plus_months(d, -m), dt.time(13, 5, 7, 123)) for d, m in rows]


@PROPERTY
@given(st.lists(st.tuples(st.integers(-10**6, 10**6), st.integers(-50, 50).filter(bool)), min_size=1, max_size=20))
def test_scaling_rounds_half_up_as_spark(spark: SparkSession, rows: list[tuple[int, int]]) -> None:
    df = spark.createDataFrame(rows, "m int, k int")
    ym = F.make_ym_interval(F.lit(0), F.col("m"))
    got = df.select((ym / F.col("k")).cast("int").alias("q"), (ym * (F.col("k") / 4)).cast("int").alias("p"),
                    (ym * F.col("k")).cast("bigint").alias("x")).collect()

    def half_up(value: Decimal) -> int:
        return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))
    assert [r.q for r in got] == [half_up(Decimal(m) / k) for m, k in rows]
    assert [r.p for r in got] == [half_up(Decimal(m * (k / 4))) for m, k in rows]
    assert [r.x for r in got] == [m * k for m, k in rows]


@given(st.integers(-(2**31), 2**31 - 1), st.sampled_from([(0, 1), (0, 0), (1, 1)]))
def test_the_text_of_a_year_month_interval_reads_back(months: int, fields: tuple[int, int]) -> None:
    text = format_year_month_interval(months, *fields)
    # An INTERVAL YEAR shows whole years: its text reads back as those years.
    expected = (abs(months) // 12 * 12) * (1 if months >= 0 else -1) if fields == (0, 0) else months
    if fields == (0, 0) and not -(2**31) <= expected <= 2**31 - 1:
        return
    assert parse_year_month(text, *fields) == expected
    body = text.split("'")[1]
    assert parse_year_month(body, *fields) == expected


def test_calendar_intervals_as_pyspark_has_them(spark: SparkSession) -> None:
    assert str(F.make_interval(F.lit(1))) == "Column<'make_interval(1, 0, 0, 0, 0, 0, 0)'>"
    df = spark.range(1).select(F.make_interval(F.lit(1), F.lit(2), F.lit(3), F.lit(4), F.lit(5), F.lit(6),
                                               F.lit(7.5)).alias("i"), F.try_make_interval(F.lit(2**31 - 1), F.lit(1)))
    assert df.schema["i"].dataType == CalendarIntervalType() and CalendarIntervalType().simpleString() == "interval"
    with pytest.raises(PySparkNotImplementedError, match="CalendarIntervalType.fromInternal"):
        df.collect()
    assert df._show_string(5, 0).splitlines()[3].startswith("|1 years 2 months 25 days 5 hours 6 minutes 7.5 seconds|")
    assert DataType.fromJson("interval") == CalendarIntervalType() and _parse_datatype_string("interval") is \
        CalendarIntervalType()
    ts = spark.createDataFrame([(dt.datetime(2024, 1, 31, 10),)], "t timestamp_ntz")
    moved = ts.select((F.col("t") + F.make_interval(F.lit(0), F.lit(1), F.lit(0), F.lit(1))).alias("m")).first()
    assert moved is not None and moved.m == dt.datetime(2024, 3, 1, 10)


def test_char_and_varchar_are_types_that_data_holds_as_strings(spark: SparkSession) -> None:
    assert repr(VarcharType(10)) == "VarcharType(10)" and VarcharType(10).simpleString() == "varchar(10)"
    assert CharType(5).jsonValue() == "char(5)" and CharType(5) != CharType(6) and CharType(5) == CharType(5)
    assert _parse_datatype_string("a char(5), b varchar(3)") == StructType(
        [StructField("a", CharType(5)), StructField("b", VarcharType(3))])
    assert DataType.fromJson("varchar(10)") == VarcharType(10)
    # As Spark reads them: a DataFrame, a cast or a reader given char(n)/varchar(n) holds strings.
    df = spark.createDataFrame([("abcdef",)], StructType([StructField("s", VarcharType(3))]))
    assert df.schema["s"].dataType == StringType() and df.first() == ("abcdef",)
    assert spark.createDataFrame([("ab",)], "s char(5)").schema["s"].dataType == StringType()
    cast = df.select(F.col("s").cast(VarcharType(2)).alias("v"), F.col("s").cast("char(2)").alias("c"))
    assert cast.schema == StructType([StructField("v", StringType()), StructField("c", StringType())])
    assert tuple(cast.first() or ()) == ("abcdef", "abcdef")


def test_a_stream_of_intervals_reaches_the_memory_sink(spark: SparkSession) -> None:
    from dstream.sql.streaming import MemoryStream

    source = MemoryStream("v long", spark)
    query = (source.toDF().select((F.col("v") * F.expr("INTERVAL 1 MONTH")).alias("m"),
                                  F.make_interval(F.lit(0), F.col("v")).alias("c"))
             .writeStream.format("memory").queryName("interval_stream").start())
    try:
        source.addData([1, 14])
        query.processAllAvailable()
        shown = spark.table("interval_stream")._show_string(5, 0).splitlines()
        assert shown[3:5] == ["|INTERVAL '0-1' YEAR TO MONTH|1 months        |",
                              "|INTERVAL '1-2' YEAR TO MONTH|1 years 2 months|"]
    finally:
        query.stop()


def test_csv_and_json_files_hold_intervals_as_sparks_text(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.sql("select 1 as k, interval '1-2' year to month as a, interval 3 month as b, "
                   "interval '01:30' hour to minute as c, interval 2 day as d")
    df.coalesce(1).write.csv(str(tmp_path / "csv"), header=True)
    df.coalesce(1).write.json(str(tmp_path / "json"))
    # The files PySpark 4.0.1 writes for the same DataFrame.
    csv_text = next((tmp_path / "csv").glob("part-*")).read_text().splitlines()
    assert csv_text == ["k,a,b,c,d", "1,INTERVAL '1-2' YEAR TO MONTH,INTERVAL '3' MONTH,"
                        "INTERVAL '01:30' HOUR TO MINUTE,INTERVAL '2' DAY"]
    json_text = next((tmp_path / "json").glob("part-*")).read_text().strip()
    assert json.loads(json_text) == {"k": 1, "a": "INTERVAL '1-2' YEAR TO MONTH", "b": "INTERVAL '3' MONTH",
                                     "c": "INTERVAL '01:30' HOUR TO MINUTE", "d": "INTERVAL '2' DAY"}
    for fmt in ("csv", "json"):  # read back with the schema, as PySpark reads them
        back = spark.read.schema(df.schema).option("header", True).format(fmt).load(str(tmp_path / fmt))
        assert back.schema == df.schema.fromJson(df.schema.jsonValue())
        assert _as_text(back) == [["1", "INTERVAL '1-2' YEAR TO MONTH", "INTERVAL '3' MONTH",
                                   "INTERVAL '01:30' HOUR TO MINUTE", "INTERVAL '2' DAY"]]
        other = spark.read.schema("k int, a interval month").option("header", True).format(fmt)
        assert _as_text(other.load(str(tmp_path / fmt))) == [["1", "None"]]  # not a MONTH's text: null


def _as_text(df: Any) -> list[list[str]]:
    return [[str(v) for v in row] for row in df.selectExpr(*[f"cast(`{c}` as string)" for c in df.columns]).collect()]


def test_a_tables_char_and_varchar_columns_check_what_is_written(spark: SparkSession, tmp_path: Path) -> None:
    from dstream.sql.errors import SparkRuntimeException

    spark.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    spark.sql("create table cv_t (a varchar(3), b char(4), c string) using parquet")
    try:
        assert [(f.name, f.dataType, f.metadata) for f in spark.table("cv_t").schema.fields] == [
            ("a", StringType(), {"__CHAR_VARCHAR_TYPE_STRING": "varchar(3)"}),
            ("b", StringType(), {"__CHAR_VARCHAR_TYPE_STRING": "char(4)"}), ("c", StringType(), {})]
        assert [tuple(r) for r in spark.sql("describe cv_t").collect()] == [
            ("a", "varchar(3)", None), ("b", "char(4)", None), ("c", "string", None)]
        spark.sql("insert into cv_t values ('ab', 'x', 'q')")
        spark.sql("insert into cv_t values ('abc   ', 'xyzw  ', 'q')")  # trailing spaces beyond the length go
        spark.sql("insert into cv_t values (null, null, null)")
        spark.createDataFrame([("z", "y", "q")], "a string, b string, c string").write.insertInto("cv_t")
        too_long = [lambda: spark.sql("insert into cv_t values ('abcd', 'x', 'q')"),
                    lambda: spark.sql("insert into cv_t values ('a', 'xyzwv', 'q')"),
                    lambda: spark.sql("insert into cv_t select 'abcd', 'x', 'q'"),
                    lambda: spark.createDataFrame([("abcde", "y", "q")], "a string, b string, c string")
                    .write.mode("append").saveAsTable("cv_t")]
        for limit, write in zip((3, 4, 3, 3), too_long):
            with pytest.raises(SparkRuntimeException, match=f"EXCEED_LIMIT_LENGTH.*limitation: {limit}"):
                write()
        # PySpark 4.0.1's rows: CHAR(4) values padded with spaces.
        rows = sorted((tuple(r) for r in spark.sql("select a, length(b), b from cv_t").collect()), key=str)
        assert rows == [("ab", 4, "x   "), ("abc", 4, "xyzw"), ("z", 4, "y   "), (None, None, None)]
        # A shorter constant compared with the CHAR column is padded (Spark's ApplyCharTypePadding).
        for where in ("b = 'x'", "'x' = b", "b <=> 'x'", "b in ('x', 'q')", "b = 'x   '"):
            assert [r.a for r in spark.sql(f"select a from cv_t where {where}").collect()] == ["ab"], where
        named = spark.sql("select b = 'x', b = 'xyzwv' from cv_t where a = 'ab'")
        assert named.columns == ["(b = x)", "(b = xyzwv)"] and tuple(named.first() or ()) == (True, False)
    finally:
        spark.sql("drop table cv_t")
        spark.conf.unset("spark.sql.warehouse.dir")


def test_calendar_intervals_negate_exactly_and_refuse_a_time_part_arrow_cannot_hold(spark: SparkSession) -> None:
    from dstream.sql.errors import ArithmeticException
    from dstream.sql.formatting import format_calendar_interval

    micros = 2**53 + 1  # past a double's integers: negated exactly, as Spark's negateExact
    secs = f"{micros // 1_000_000}.{micros % 1_000_000:06d}"
    shown = spark.sql(f"select cast(-make_interval(0, 0, 0, 0, 0, 0, {secs}) as string) as a").first()
    assert shown is not None and shown.a == format_calendar_interval(0, 0, -micros)
    beyond = "make_interval(0, 0, 0, 0, 0, 0, 123456789012.345678)"  # ~3,900 years: not in Arrow's nanoseconds
    assert spark.sql(f"select try_{beyond} as a").select(F.col("a").isNull()).first() == (True,)
    with pytest.raises(ArithmeticException, match="ARITHMETIC_OVERFLOW"):
        spark.sql(f"select cast({beyond} as string) as a").collect()


def test_json_files_read_back_intervals_nested_in_structs_and_arrays(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.sql("select named_struct('a', interval '1-2' year to month) as s, array(interval 3 month) as arr")
    df.coalesce(1).write.json(str(tmp_path / "json"))
    text = next((tmp_path / "json").glob("part-*")).read_text().strip()
    assert json.loads(text) == {"s": {"a": "INTERVAL '1-2' YEAR TO MONTH"}, "arr": ["INTERVAL '3' MONTH"]}
    back = spark.read.schema(df.schema).json(str(tmp_path / "json"))
    assert back.schema.simpleString() == "struct<s:struct<a:interval year to month>,arr:array<interval month>>"
    assert _as_text(back) == [["{INTERVAL '1-2' YEAR TO MONTH}", "[INTERVAL '3' MONTH]"]]


@pytest.mark.parametrize("text", ["interval 'Infinity' year", "interval 'NaN' month", "interval '-inf' years"])
def test_a_year_month_amount_that_is_no_number_is_refused_clearly(spark: SparkSession, text: str) -> None:
    # Spark refuses them at parsing; dstreams said OverflowError for infinity before.
    with pytest.raises(CapturedException, match="Invalid value"):
        spark.sql(f"select {text} as a").collect()
