"""Acceptance properties of the DataFrame API against plain-Python models of Spark SQL.

Random tables (an int key ``k``, an int ``v``, a string ``s`` with unicode and empty
strings, a double ``d`` with NaN and -0.0, a boolean ``b``; every column nullable, 3 to 5
of them drawn per example) go through ``select``, ``filter``, ``groupBy().agg``,
``join``, ``distinct``/``dropDuplicates`` and ``orderBy``; each result is compared with a
model written here: Kleene logic for ``&``/``|``/``~``, null in -> null out for
operators, NaN equal to itself and above every number, -0.0 equal to 0.0, strings by
code point, null keys forming their own group and never matching in joins.

Most properties run on a ``local`` session (one module-scoped session, stopped at the
end); one runs groupBy and join on ``local[2]`` (worker processes).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import Column, DataFrame, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom

ALL_COLUMNS = {"k": "int", "v": "int", "s": "string", "d": "double", "b": "boolean"}
NAN = float("nan")

ints = st.one_of(st.none(), st.integers(-3, 3))
divisors = st.one_of(st.none(), st.integers(-4, 4).filter(lambda x: x != 0))
# U+FF61 sorts below U+1F600 by code point but above it in UTF-16: Spark compares code points.
strings = st.one_of(st.none(), st.text(alphabet="aZé \uff61\U0001f600", max_size=4))
doubles = st.one_of(st.none(), st.sampled_from([NAN, -0.0, 0.0, 1.5, -2.25, 1e300, 3.0]))
bools = st.one_of(st.none(), st.booleans())
VALUES = {"k": ints, "v": divisors, "s": strings, "d": doubles, "b": bools}

FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def tables(draw: st.DrawFn, required: tuple[str, ...] = ("k",), max_rows: int = 8) -> tuple[list[str], list[tuple]]:
    """Column names (3 to 5 of ALL_COLUMNS in a fixed order, always ``required``) and rows."""
    optional = [c for c in ALL_COLUMNS if c not in required]
    extra = draw(st.lists(st.sampled_from(optional), min_size=max(0, 3 - len(required)), max_size=len(optional),
                          unique=True)) if optional else []
    names = [c for c in ALL_COLUMNS if c in required or c in extra]
    rows = draw(st.lists(st.tuples(*[VALUES[c] for c in names]), max_size=max_rows))
    return names, rows


def ddl(names: list[str], rename: Callable[[str], str] = lambda c: c) -> str:
    return ", ".join(f"{rename(c)} {ALL_COLUMNS[c]}" for c in names)


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local").appName("dataframe-properties")
               .config("spark.sql.shuffle.partitions", "3").getOrCreate())
    yield session
    session.stop()


# ------------------------------------------------------------------ the model of Spark SQL values


def canon(x: Any) -> Any:
    """A hashable stand-in equal for values Spark treats as equal: NaN is one value, -0.0 == 0.0."""
    if isinstance(x, float) and math.isnan(x):
        return "<NaN>"
    if isinstance(x, (tuple, list)):
        return tuple(canon(y) for y in x)
    return x


def bag(rows: Any) -> Counter:
    return Counter(canon(tuple(r)) for r in rows)


def eq(a: Any, b: Any) -> bool | None:
    """Spark's ``=``: null if either side is null; NaN = NaN; -0.0 = 0.0."""
    if a is None or b is None:
        return None
    return canon(a) == canon(b)


def order_key(x: Any) -> Any:
    """Spark's order of non-null values of one type: NaN above every double, code points for strings."""
    if isinstance(x, float):
        return (1, 0.0) if math.isnan(x) else (0, x)
    return x


def lt(a: Any, b: Any) -> bool | None:
    if a is None or b is None:
        return None
    return order_key(a) < order_key(b)


def k_and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def k_or(a: bool | None, b: bool | None) -> bool | None:
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def k_not(a: bool | None) -> bool | None:
    return None if a is None else not a


def isin(a: Any, values: list[Any]) -> bool | None:
    if a is None:
        return None
    if any(v is not None and canon(v) == canon(a) for v in values):
        return True
    return None if None in values else False


def substring(s: str | None, pos: int, length: int) -> str | None:
    """Spark's ``substring`` (code points; 1-based, 0 acts as 1, negative counts from the end)."""
    if s is None:
        return None
    start = pos - 1 if pos > 0 else (len(s) + pos if pos < 0 else 0)
    end = start + length
    start = max(start, 0)
    return "" if start >= end else s[start:end]


def remainder(a: int, b: int) -> int:
    """Java's ``%``: the sign of the dividend."""
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def nn(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` with SQL null propagation: null if any argument is null."""
    return lambda *xs: None if any(x is None for x in xs) else f(*xs)


# ------------------------------------------------------------------ select


def projections() -> list[tuple[str, tuple[str, ...], Callable[[], Column], Callable[..., Any]]]:
    """(name, columns used, the Column, the model over those columns' values)."""
    c = F.col
    return [
        ("add", ("k", "v"), lambda: c("k") + c("v"), nn(lambda k, v: k + v)),
        ("mul", ("k", "v"), lambda: c("k") * c("v") - 1, nn(lambda k, v: k * v - 1)),
        ("div", ("k", "v"), lambda: c("k") / c("v"), nn(lambda k, v: k / v)),
        ("mod", ("k", "v"), lambda: c("k") % c("v"), nn(remainder)),
        ("ddiv", ("d", "v"), lambda: c("d") / c("v"), nn(lambda d, v: d / v)),
        ("lt", ("k", "v"), lambda: c("k") < c("v"), lt),
        ("ge_d", ("d",), lambda: c("d") >= 0.0, lambda d: k_not(lt(d, 0.0))),
        ("eq_s", ("s",), lambda: c("s") == "a", lambda s: eq(s, "a")),
        ("gt_s", ("s",), lambda: c("s") > "\uff61", lambda s: lt("\uff61", s)),
        ("and", ("k", "b"), lambda: (c("k") > 0) & c("b"), lambda k, b: k_and(lt(0, k), b)),
        ("or", ("d", "b"), lambda: ~c("b") | (c("d") == 0.0), lambda d, b: k_or(k_not(b), eq(d, 0.0))),
        ("isnull", ("s",), lambda: c("s").isNull(), lambda s: s is None),
        ("isin_k", ("k",), lambda: c("k").isin(1, 2, None), lambda k: isin(k, [1, 2, None])),
        ("isin_s", ("s",), lambda: c("s").isin("", "a"), lambda s: isin(s, ["", "a"])),
        ("when", ("k", "s"),
         lambda: F.when(c("k") > 0, "pos").when(c("k") < 0, "neg").otherwise(c("s")),
         lambda k, s: "pos" if lt(0, k) else "neg" if lt(k, 0) else s),
        ("coalesce", ("k", "v"), lambda: F.coalesce(c("k"), c("v"), F.lit(0)),
         lambda k, v: next(x for x in (k, v, 0) if x is not None)),
        ("concat", ("s",), lambda: F.concat(c("s"), F.lit("-"), c("s")), nn(lambda s: s + "-" + s)),
        ("concat_ws", ("s", "k"), lambda: F.concat_ws("|", c("s"), F.lit("x"), c("s")),
         lambda s, k: "x" if s is None else f"{s}|x|{s}"),
        ("upper", ("s",), lambda: F.upper(c("s")), nn(str.upper)),
        ("length", ("s",), lambda: F.length(c("s")), nn(len)),
        ("substring", ("s",), lambda: F.substring(c("s"), 2, 3), lambda s: substring(s, 2, 3)),
        ("substring_neg", ("s",), lambda: F.substring(c("s"), -2, 1), lambda s: substring(s, -2, 1)),
        ("substring_0", ("s",), lambda: F.substring(c("s"), 0, 2), lambda s: substring(s, 0, 2)),
    ]


PROJECTIONS = projections()


@FAST
@given(table=tables(required=("k", "v", "s", "d", "b")))
def test_select_matches_the_model(spark: SparkSession, table: tuple[list[str], list[tuple]]) -> None:
    names, rows = table
    df = spark.createDataFrame(rows, ddl(names))
    got = df.select(*[make().alias(name) for name, _, make, _ in PROJECTIONS]).collect()
    assert len(got) == len(rows)
    for row, out in zip(rows, got):
        values = dict(zip(names, row))
        for (name, used, _, model), value in zip(PROJECTIONS, out):
            expected = model(*[values[u] for u in used])
            assert canon(value) == canon(expected), (name, values, value, expected)
            assert type(value) is type(expected) or expected is None, (name, value, expected)


# ------------------------------------------------------------------ filter


PREDICATES: list[tuple[Callable[[], Column], Callable[[dict[str, Any]], bool | None]]] = [
    (lambda: (F.col("k") > 0) | F.col("b"), lambda r: k_or(lt(0, r["k"]), r["b"])),
    (lambda: ~(F.col("s") == "a") & (F.col("d") < 1.0), lambda r: k_and(k_not(eq(r["s"], "a")), lt(r["d"], 1.0))),
    (lambda: F.col("d").isin(0.0, NAN, None), lambda r: isin(r["d"], [0.0, NAN, None])),
    (lambda: ~F.col("b"), lambda r: k_not(r["b"])),
    (lambda: F.col("k") == None, lambda r: None),  # noqa: E711 - Spark's `= NULL`, never true
]


@FAST
@given(table=tables(required=("k", "v", "s", "d", "b")), which=st.integers(0, len(PREDICATES) - 1))
def test_filter_keeps_only_rows_whose_condition_is_true(spark: SparkSession, table: tuple[list[str], list[tuple]],
                                                         which: int) -> None:
    names, rows = table
    make, model = PREDICATES[which]
    got = spark.createDataFrame(rows, ddl(names)).filter(make()).collect()
    expected = [r for r in rows if model(dict(zip(names, r))) is True]
    assert bag(got) == bag(expected)


# ------------------------------------------------------------------ groupBy / agg


def aggregate_model(rows: list[dict[str, Any]], v: str) -> tuple:
    """count(*), count(v), sum(v) or max for non-numbers, min(v), max(v), count(DISTINCT v)."""
    present = [r[v] for r in rows if r[v] is not None]
    lo = min(present, key=order_key) if present else None
    hi = max(present, key=order_key) if present else None
    return len(rows), len(present), lo, hi, len({canon(x) for x in present})


def aggregates(v: str) -> list[Column]:
    return [F.count("*"), F.count(v), F.min(v), F.max(v), F.countDistinct(v)]


@FAST
@given(table=tables(required=("k", "v", "s", "d", "b")), key=st.sampled_from(["k", "s", "d", "b"]),
       value=st.sampled_from(["v", "s", "d", "b"]))
def test_group_by_matches_the_model(spark: SparkSession, table: tuple[list[str], list[tuple]], key: str,
                                    value: str) -> None:
    names, rows = table
    df = spark.createDataFrame(rows, ddl(names))
    got = df.groupBy(key).agg(*aggregates(value), F.sum("v"), F.avg("v")).collect()
    groups: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        record = dict(zip(names, row))
        groups.setdefault(canon(record[key]), []).append(record)
    expected = []
    for group in groups.values():
        vs = [r["v"] for r in group if r["v"] is not None]
        total = sum(vs) if vs else None
        expected.append((group[0][key], *aggregate_model(group, value), total, total / len(vs) if vs else None))
    assert bag(got) == bag(expected)
    assert len(got) == len(groups)


@FAST
@given(table=tables(required=("k", "v", "s", "d", "b")), keep=st.booleans())
def test_global_aggregate_gives_one_row_even_for_no_input(spark: SparkSession, table: tuple[list[str], list[tuple]],
                                                          keep: bool) -> None:
    names, rows = table
    df = spark.createDataFrame(rows, ddl(names)).where(F.lit(keep))
    got = df.agg(*aggregates("d"), F.sum("k"), F.avg("k")).collect()
    records = [dict(zip(names, r)) for r in rows] if keep else []
    ks = [r["k"] for r in records if r["k"] is not None]
    expected = (*aggregate_model(records, "d"), sum(ks) if ks else None, sum(ks) / len(ks) if ks else None)
    assert [canon(tuple(r)) for r in got] == [canon(expected)]
    assert df.columns and got[0].__fields__ == ["count(1)", "count(d)", "min(d)", "max(d)", "count(DISTINCT d)",
                                                "sum(k)", "avg(k)"]


# ------------------------------------------------------------------ joins

JOIN_TYPES = ["inner", "left", "right", "full", "left_semi", "left_anti"]


def join_model(left: list[tuple], right: list[tuple], li: int, ri: int) -> tuple[list[Any], ...]:
    """Matched pairs, unmatched left rows, unmatched right rows (null keys never match)."""
    pairs = [(lr, rr) for lr in left for rr in right if eq(lr[li], rr[ri]) is True]
    unmatched_left = [lr for lr in left if not any(eq(lr[li], rr[ri]) is True for rr in right)]
    unmatched_right = [rr for rr in right if not any(eq(lr[li], rr[ri]) is True for lr in left)]
    return pairs, unmatched_left, unmatched_right


def semi_or_anti(left: list[tuple], right: list[tuple], li: int, ri: int, how: str) -> list[tuple]:
    """Left rows with a match (semi) or without one (anti: null keys included, they match nothing)."""
    return [lr for lr in left if any(eq(lr[li], rr[ri]) is True for rr in right) == (how == "left_semi")]


def expected_using_join(left: tuple[list[str], list[tuple]], right: tuple[list[str], list[tuple]], key: str,
                        how: str) -> list[tuple]:
    """``left.join(right, on=key, how)``: the key once (coalesced for full, right's for right), then the rest."""
    (lnames, lrows), (rnames, rrows) = left, right
    li, ri = lnames.index(key), rnames.index(key)
    pairs, only_left, only_right = join_model(lrows, rrows, li, ri)
    lnull, rnull = (None,) * (len(lnames) - 1), (None,) * (len(rnames) - 1)

    def rest(row: tuple, i: int) -> tuple:
        return row[:i] + row[i + 1:]

    if how in ("left_semi", "left_anti"):  # the key first here too (PySpark 4.0.1's column order)
        return [(lr[li],) + rest(lr, li) for lr in semi_or_anti(lrows, rrows, li, ri, how)]
    out = [((rr[ri] if how == "right" else lr[li]),) + rest(lr, li) + rest(rr, ri) for lr, rr in pairs]
    if how in ("left", "full"):
        out += [(lr[li],) + rest(lr, li) + rnull for lr in only_left]
    if how in ("right", "full"):
        out += [(rr[ri],) + lnull + rest(rr, ri) for rr in only_right]
    return out


def expected_expression_join(left: tuple[list[str], list[tuple]], right: tuple[list[str], list[tuple]], key: str,
                             how: str) -> list[tuple]:
    """``left.join(right, left[key] == right[key], how)``: both sides' columns, both keys."""
    (lnames, lrows), (rnames, rrows) = left, right
    pairs, only_left, only_right = join_model(lrows, rrows, lnames.index(key), rnames.index(key))
    if how in ("left_semi", "left_anti"):
        return semi_or_anti(lrows, rrows, lnames.index(key), rnames.index(key), how)
    out = [lr + rr for lr, rr in pairs]
    if how in ("left", "full"):
        out += [lr + (None,) * len(rnames) for lr in only_left]
    if how in ("right", "full"):
        out += [(None,) * len(lnames) + rr for rr in only_right]
    return out


def right_frame(spark: SparkSession, names: list[str], rows: list[tuple], key: str) -> DataFrame:
    """The right side: its key keeps its name, other columns get ``_r`` (distinct output names)."""
    return spark.createDataFrame(rows, ddl(names, lambda c: c if c == key else c + "_r"))


@FAST
@given(key=st.sampled_from(["k", "s", "d", "b"]), how=st.sampled_from(JOIN_TYPES), broadcast=st.booleans(),
       data=st.data())
def test_join_matches_the_model(spark: SparkSession, key: str, how: str, broadcast: bool, data: st.DataObject) -> None:
    left = data.draw(tables(required=(key,), max_rows=6))
    right = data.draw(tables(required=(key,), max_rows=6))
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "10485760" if broadcast else "-1")
    try:
        ldf = spark.createDataFrame(left[1], ddl(left[0]))
        rdf = right_frame(spark, *right, key)
        using = ldf.join(rdf, on=key, how=how)
        assert bag(using.collect()) == bag(expected_using_join(left, right, key, how))
        expression = ldf.join(rdf, ldf[key] == rdf[key], how)
        assert bag(expression.collect()) == bag(expected_expression_join(left, right, key, how))
        width = len(left[0]) + (0 if how in ("left_semi", "left_anti") else len(right[0]))
        assert len(expression.columns) == width
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")


# ------------------------------------------------------------------ distinct, dropDuplicates


@FAST
@given(table=tables(required=("k", "s", "d")))
def test_distinct_and_drop_duplicates(spark: SparkSession, table: tuple[list[str], list[tuple]]) -> None:
    names, rows = table
    rows = rows + rows[: len(rows) // 2]
    df = spark.createDataFrame(rows, ddl(names))
    distinct = df.distinct().collect()
    assert sorted(map(repr, bag(distinct))) == sorted(map(repr, bag(rows)))
    assert max(bag(distinct).values(), default=1) == 1
    subset = ["s", "d"]
    got = df.dropDuplicates(subset).collect()
    idx = [names.index(c) for c in subset]
    keys = [canon(tuple(r[i] for i in idx)) for r in got]
    assert len(keys) == len(set(keys))
    assert set(keys) == {canon(tuple(r[i] for i in idx)) for r in rows}
    assert all(canon(tuple(r)) in bag(rows) for r in got)


# ------------------------------------------------------------------ orderBy


def sorted_model(rows: list[tuple], specs: list[tuple[int, bool, bool]]) -> list[tuple]:
    """Stable sort by each (index, ascending, nulls_first), last key first."""
    out = list(rows)
    for i, ascending, nulls_first in reversed(specs):
        present = sorted((r for r in out if r[i] is not None), key=lambda r: order_key(r[i]), reverse=not ascending)
        missing = [r for r in out if r[i] is None]
        out = missing + present if nulls_first else present + missing
    return out


def sort_column(name: str, ascending: bool, nulls: str | None) -> Column:
    """``col.asc()`` / ``col.desc()`` (default nulls placement) or the explicit ``*_nulls_first/last``."""
    column = F.col(name)
    if nulls is None:
        return column.asc() if ascending else column.desc()
    return getattr(column, f"{'asc' if ascending else 'desc'}_nulls_{nulls}")()


@FAST
@given(table=tables(required=("k", "s", "d", "b")),
       specs=st.lists(st.tuples(st.sampled_from(["k", "s", "d", "b"]), st.booleans(),
                                st.sampled_from([None, "first", "last"])), min_size=1, max_size=2,
                      unique_by=lambda t: t[0]))
def test_order_by_matches_the_model(spark: SparkSession, table: tuple[list[str], list[tuple]],
                                    specs: list[tuple[str, bool, str | None]]) -> None:
    names, rows = table
    df = spark.createDataFrame(rows, ddl(names))
    got = df.orderBy(*[sort_column(name, asc, nulls) for name, asc, nulls in specs]).collect()
    model_specs = [(names.index(name), asc, asc if nulls is None else nulls == "first") for name, asc, nulls in specs]
    expected = sorted_model(rows, model_specs)
    assert bag(got) == bag(rows)
    idx = [i for i, _, _ in model_specs]
    assert [canon(tuple(r[i] for i in idx)) for r in got] == [canon(tuple(r[i] for i in idx)) for r in expected]


# ------------------------------------------------------------------ local[2]: real worker processes


def test_group_by_and_join_on_worker_processes(spark: SparkSession) -> None:
    # One SparkContext per process: the module's `local` session steps aside for this one (the last test).
    spark.stop()
    workers = (SparkSession.builder.master("local[2]").appName("dataframe-properties-workers")
               .config("spark.sql.shuffle.partitions", "3").config("spark.sql.autoBroadcastJoinThreshold", "-1")
               .getOrCreate())

    @settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
    @given(left=tables(required=("k", "v", "s"), max_rows=30), right=tables(required=("k",), max_rows=30))
    def check(left: tuple[list[str], list[tuple]], right: tuple[list[str], list[tuple]]) -> None:
        ldf = workers.createDataFrame(left[1], ddl(left[0]))
        got = ldf.groupBy("s").agg(F.count("*"), F.sum("k")).collect()
        groups: dict[Any, list[tuple]] = {}
        for row in left[1]:
            groups.setdefault(row[left[0].index("s")], []).append(row)
        ki = left[0].index("k")
        expected = []
        for s, group in groups.items():
            ks = [r[ki] for r in group if r[ki] is not None]
            expected.append((s, len(group), sum(ks) if ks else None))
        assert bag(got) == bag(expected)
        rdf = right_frame(workers, *right, "k")
        for how in ("inner", "full"):
            assert bag(ldf.join(rdf, "k", how).collect()) == bag(expected_using_join(left, right, "k", how))

    try:
        check()
    finally:
        workers.stop()
