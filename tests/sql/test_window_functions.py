"""Window functions (``Column.over(Window...)``) against plain-Python models of Spark's definitions.

The models: a window partition is the rows with equal keys (null equals null), ordered
ascending with nulls first; peers are rows with equal ordering values. ``row_number``
counts rows, ``rank`` is one more than the rows before the peers, ``dense_rank`` counts
distinct values so far, ``percent_rank = (rank - 1) / (n - 1)``, ``cume_dist`` is the
share of rows up to the last peer, ``ntile(b)`` deals ``n`` rows into ``b`` buckets
whose sizes differ by at most one, larger first. ``lag``/``lead`` read the row ``n``
away in the partition, else the default. An aggregate reads its frame: the whole
partition without ordering, the rows up to the last peer with it (range, unbounded
preceding to current row), rows ``a..b`` around the row (``rowsBetween``), or the rows
whose value is within ``[o + a, o + b]`` (``rangeBetween``; a null value's frame is
the nulls). Ties in the ordering make ``row_number`` and ``lag`` depend on the order
rows arrive in, as in Spark, so those are checked on a window ordered by a unique id too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession, Window
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException, PySparkTypeError

Row3 = tuple[int, Any, Any, Any]  # id, k, o, v

ROWS = st.lists(st.tuples(st.sampled_from([None, 0, 1, 2]), st.one_of(st.none(), st.integers(0, 5)),
                          st.one_of(st.none(), st.integers(-50, 50))), max_size=40)


def _frame(spark: SparkSession, data: list[tuple[Any, Any, Any]]) -> Any:
    spark.conf.set("spark.sql.shuffle.partitions", "3")
    rows = [(i, k, o, v) for i, (k, o, v) in enumerate(data)]
    return spark.createDataFrame(rows, "id int, k int, o int, v int"), rows


def _partitions(rows: list[Row3], by_id: bool) -> list[list[Row3]]:
    groups: dict[Any, list[Row3]] = defaultdict(list)
    for row in rows:
        groups[row[1]].append(row)
    def null_first(r: Row3) -> tuple[bool, int, int]:
        return r[2] is not None, r[2] if r[2] is not None else 0, r[0] if by_id else 0

    return [sorted(g, key=null_first) for g in groups.values()]


def _peers(part: list[Row3], i: int) -> tuple[int, int]:
    start = i
    while start > 0 and part[start - 1][2] == part[i][2]:
        start -= 1
    end = i + 1
    while end < len(part) and part[end][2] == part[i][2]:
        end += 1
    return start, end


def _model(rows: list[Row3], by_id: bool, value: Callable[[list[Row3], int], Any]) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for part in _partitions(rows, by_id):
        for i, row in enumerate(part):
            out[row[0]] = value(part, i)
    return out


def _sum(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def _nth(values: list[Any], n: int) -> Any:
    present = [v for v in values if v is not None]
    return present[n - 1] if len(present) >= n else None


def _ntile(n: int, buckets: int, i: int) -> int:
    size, padded = divmod(n, buckets)
    if i < padded * (size + 1):
        return i // (size + 1) + 1
    return padded + (i - padded * (size + 1)) // size + 1


def _range(part: list[Row3], i: int, lower: int, upper: int) -> list[Row3]:
    o = part[i][2]
    if o is None:
        return [r for r in part if r[2] is None]
    return [r for r in part if r[2] is not None and o + lower <= r[2] <= o + upper]


def _got(df: Any, column: str) -> dict[int, Any]:
    return {r["id"]: r[column] for r in df.collect()}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=ROWS)
def test_ranking_functions_and_running_aggregates_match_the_model(spark: SparkSession, data: list[Any]) -> None:
    df, rows = _frame(spark, data)
    w = Window.partitionBy("k").orderBy("o")
    got = df.select("id", F.rank().over(w).alias("rank"), F.dense_rank().over(w).alias("dense"),
                    F.percent_rank().over(w).alias("pct"), F.cume_dist().over(w).alias("cume"),
                    F.sum("v").over(w).alias("running"), F.count("v").over(w).alias("counted"),
                    F.max("v").over(w).alias("top")).collect()
    by_id = {r["id"]: r for r in got}

    def rank(part: list[Row3], i: int) -> int:
        return _peers(part, i)[0] + 1

    def dense(part: list[Row3], i: int) -> int:
        return len({r[2] for r in part[:_peers(part, i)[0] + 1]})

    def up_to_peers(part: list[Row3], i: int) -> list[Any]:
        return [r[3] for r in part[:_peers(part, i)[1]]]

    expected = {
        "rank": _model(rows, False, rank),
        "dense": _model(rows, False, dense),
        "pct": _model(rows, False, lambda p, i: (rank(p, i) - 1) / (len(p) - 1) if len(p) > 1 else 0.0),
        "cume": _model(rows, False, lambda p, i: _peers(p, i)[1] / len(p)),
        "running": _model(rows, False, lambda p, i: _sum(up_to_peers(p, i))),
        "counted": _model(rows, False, lambda p, i: sum(v is not None for v in up_to_peers(p, i))),
        "top": _model(rows, False, lambda p, i: max((v for v in up_to_peers(p, i) if v is not None), default=None)),
    }
    for name, want in expected.items():
        assert {i: by_id[i][name] for i in want} == want, name


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=ROWS, buckets=st.integers(1, 5), back=st.integers(0, 3))
def test_row_functions_and_row_frames_match_the_model(spark: SparkSession, data: list[Any], buckets: int,
                                                      back: int) -> None:
    df, rows = _frame(spark, data)
    w = Window.partitionBy("k").orderBy("o", "id")  # a unique order: no ties
    got = df.select("id", F.row_number().over(w).alias("n"), F.ntile(buckets).over(w).alias("tile"),
                    F.lag("v", back, -1).over(w).alias("lag"), F.lead("v").over(w).alias("lead"),
                    F.sum("v").over(w.rowsBetween(-2, 1)).alias("moving"),
                    F.count("*").over(w.rowsBetween(1, 2)).alias("ahead"),
                    F.collect_list("v").over(w.rowsBetween(Window.unboundedPreceding, 0)).alias("seen"),
                    F.sum("v").over(Window.partitionBy("k")).alias("whole"),
                    F.nth_value("v", 2).over(w).alias("second"),
                    F.nth_value("v", 2, ignoreNulls=True).over(w.rowsBetween(-1, 2)).alias("second_value"),
                    F.first("v", ignorenulls=True).over(Window.partitionBy("k")).alias("first_value")).collect()
    by_id = {r["id"]: r for r in got}

    def at(part: list[Row3], j: int, default: Any) -> Any:
        return part[j][3] if 0 <= j < len(part) else default

    expected = {
        "n": _model(rows, True, lambda p, i: i + 1),
        "tile": _model(rows, True, lambda p, i: _ntile(len(p), buckets, i)),
        "lag": _model(rows, True, lambda p, i: at(p, i - back, -1)),
        "lead": _model(rows, True, lambda p, i: at(p, i + 1, None)),
        "moving": _model(rows, True, lambda p, i: _sum([r[3] for r in p[max(0, i - 2):i + 2]])),
        "ahead": _model(rows, True, lambda p, i: len(p[i + 1:i + 3])),
        "seen": _model(rows, True, lambda p, i: [r[3] for r in p[:i + 1] if r[3] is not None]),
        "whole": _model(rows, True, lambda p, i: _sum([r[3] for r in p])),
        "second": _model(rows, True, lambda p, i: p[1][3] if i >= 1 else None),
        "second_value": _model(rows, True, lambda p, i: _nth([r[3] for r in p[max(0, i - 1):i + 3]], 2)),
        "first_value": _model(rows, True, lambda p, i: _nth([r[3] for r in p], 1)),
    }
    for name, want in expected.items():
        assert {i: by_id[i][name] for i in want} == want, name


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=ROWS, lower=st.integers(-3, 1), width=st.integers(0, 3), descending=st.booleans())
def test_range_frames_with_offsets_match_the_model(spark: SparkSession, data: list[Any], lower: int, width: int,
                                                   descending: bool) -> None:
    df, rows = _frame(spark, data)
    upper = lower + width
    order = F.col("o").desc_nulls_first() if descending else F.col("o")
    w = Window.partitionBy("k").orderBy(order).rangeBetween(lower, upper)
    got = df.select("id", F.sum("v").over(w).alias("s"), F.count("*").over(w).alias("c")).collect()
    by_id = {r["id"]: r for r in got}
    # Descending, "preceding" rows have larger values: the frame is [o - upper, o - lower].
    lo, hi = (-upper, -lower) if descending else (lower, upper)
    sums = _model(rows, False, lambda p, i: _sum([r[3] for r in _range(p, i, lo, hi)]))
    counts = _model(rows, False, lambda p, i: len(_range(p, i, lo, hi)))
    assert {i: by_id[i]["s"] for i in sums} == sums
    assert {i: by_id[i]["c"] for i in counts} == counts


def test_column_names_are_sparks(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 2)], "k int, v int")
    w = Window.partitionBy("k").orderBy("v")
    assert df.select(F.rank().over(w)).columns == [
        "RANK() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"]
    assert df.select(F.row_number().over(w)).columns == [
        "row_number() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND "
        "CURRENT ROW)"]
    assert df.select(F.lag("v").over(w)).columns == [
        "lag(v, 1, NULL) OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 "
        "FOLLOWING)"]
    assert df.select(F.sum("v").over(w)).columns == [
        "sum(v) OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"]
    assert df.select(F.sum("v").over(Window.partitionBy("k"))).columns == [
        "sum(v) OVER (PARTITION BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"]
    assert df.select(F.nth_value("v", 2, True).over(w)).columns == [
        "nth_value(v, 2) ignore nulls OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST RANGE BETWEEN UNBOUNDED "
        "PRECEDING AND CURRENT ROW)"]
    assert df.select(F.avg("v").over(w.rowsBetween(-1, Window.unboundedFollowing))).columns == [
        "avg(v) OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND UNBOUNDED FOLLOWING)"]


def test_the_first_row_of_each_group_and_windows_over_an_aggregation(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", 1, 10), ("a", 2, 30), ("b", 1, 20), ("b", 3, 5), ("c", 9, 1)],
                               "k string, t int, v int")
    latest = (df.withColumn("n", F.row_number().over(Window.partitionBy("k").orderBy(F.desc("t"))))
              .filter("n = 1").drop("n").orderBy("k"))
    assert [tuple(r) for r in latest.collect()] == [("a", 2, 30), ("b", 3, 5), ("c", 9, 1)]
    totals = df.groupBy("k").agg(F.sum("v").alias("total"))
    ranked = totals.withColumn("place", F.dense_rank().over(Window.orderBy(F.desc("total")))).orderBy("place", "k")
    assert [tuple(r) for r in ranked.collect()] == [("a", 40, 1), ("b", 25, 2), ("c", 1, 3)]
    share = totals.withColumn("share", F.col("total") / F.sum("total").over(Window.partitionBy()))
    assert {r["k"]: round(r["share"], 3) for r in share.collect()} == {"a": 0.606, "b": 0.379, "c": 0.015}


def test_an_empty_frame_gives_the_aggregate_of_no_rows(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1,), (2,)], "v int")
    w = Window.orderBy("v").rowsBetween(1, 1)
    got = df.select("v", F.sum("v").over(w).alias("s"), F.count("v").over(w).alias("c")).orderBy("v").collect()
    assert [tuple(r) for r in got] == [(1, 2, 1), (2, None, 0)]


@pytest.mark.parametrize(("make", "condition"), [
    (lambda df, w: df.select(F.row_number()), "WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE"),
    (lambda df, w: df.select(F.rank().over(Window.partitionBy("k"))), "WINDOW_FUNCTION_WITHOUT_ORDER"),
    (lambda df, w: df.select(F.row_number().over(w.rowsBetween(-1, 1))), "_LEGACY_ERROR_TEMP_1036"),
    (lambda df, w: df.select(F.sum("v").over(Window.orderBy("s").rangeBetween(-1, 1))),
     "DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE"),
    (lambda df, w: df.select(F.sum("v").over(Window.orderBy("k", "v").rangeBetween(-1, 1))),
     "DATATYPE_MISMATCH.RANGE_FRAME_MULTI_ORDER"),
    (lambda df, w: df.select(F.sum("v").over(w.rowsBetween(2, 1))),
     "DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON"),
    (lambda df, w: df.select(F.upper("s").over(w)), "UNSUPPORTED_EXPR_FOR_WINDOW"),
    (lambda df, w: df.groupBy("k").agg(F.rank().over(Window.orderBy("v"))), "MISSING_AGGREGATION"),
    (lambda df, w: df.groupBy("k").agg(F.row_number()), "WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE"),
    (lambda df, w: df.groupBy("k").agg(F.sum(F.rank().over(w)).over(Window.partitionBy())),
     "NESTED_WINDOW_FUNCTION"),
])
def test_what_spark_refuses_is_refused_with_the_reason(spark: SparkSession, make: Callable[..., Any],
                                                        condition: str) -> None:
    df = spark.createDataFrame([(1, 2, "x")], "k int, v int, s string")
    with pytest.raises(AnalysisException) as caught:
        make(df, Window.partitionBy("k").orderBy("v"))
    assert caught.value.getCondition() == condition


def test_over_wants_a_window_spec(spark: SparkSession) -> None:
    with pytest.raises(PySparkTypeError, match="WindowSpec"):
        F.rank().over("k")  # type: ignore[arg-type]
    with pytest.raises(AnalysisException, match="positive"):
        F.ntile(0)
    with pytest.raises(AnalysisException, match="positive"):
        F.nth_value("v", 0)


def test_the_docstring_examples(spark: SparkSession) -> None:
    import doctest

    from dstream.sql import functions_window, window

    for module in (functions_window, window):
        result = doctest.testmod(module, extraglobs={"spark": spark}, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0, f"{result.failed} example(s) of {module.__name__} failed"


def test_sql_over_clauses(spark: SparkSession) -> None:
    spark.createDataFrame([("a", 3, 1.0), ("a", 1, 2.0), ("a", 5, None), ("b", 2, 4.0)],
                          "k string, v int, x double").createOrReplaceTempView("w_t")
    got = spark.sql("""
        SELECT k, v,
               row_number() OVER (PARTITION BY k ORDER BY v DESC NULLS LAST) AS rn,
               sum(x) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS pair,
               sum(x) OVER (PARTITION BY k ORDER BY v ROWS UNBOUNDED PRECEDING) AS running,
               lag(v, 1, 0) OVER (PARTITION BY k ORDER BY v) AS prev,
               count(*) OVER () AS n,
               avg(v) OVER (ORDER BY v RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS near
        FROM w_t ORDER BY k, rn""").collect()
    assert [tuple(r) for r in got] == [
        ("a", 5, 1, 1.0, 3.0, 3, 4, 5.0),
        ("a", 3, 2, 3.0, 3.0, 1, 4, 2.5),
        ("a", 1, 3, 2.0, 2.0, 0, 4, 1.5),
        ("b", 2, 1, 4.0, 4.0, 0, 4, 2.0),
    ]
    top = spark.sql("SELECT k, v FROM (SELECT k, v, rank() OVER (PARTITION BY k ORDER BY v DESC) AS r FROM w_t) "
                    "WHERE r = 1 ORDER BY k").collect()
    assert [tuple(r) for r in top] == [("a", 5), ("b", 2)]
    assert spark.sql("SELECT dense_rank() OVER (PARTITION BY k ORDER BY v) FROM w_t").columns == [
        "DENSE_RANK() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND "
        "CURRENT ROW)"]
    with pytest.raises(AnalysisException, match="MISSING_WINDOW_SPECIFICATION"):  # OVER w needs WINDOW w AS
        spark.sql("SELECT rank() OVER w FROM w_t").collect()


def test_window_functions_over_the_groups_of_an_aggregation(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", 1, 10), ("a", 2, 30), ("b", 1, 20), ("b", 3, 5), ("c", 9, 1)],
                               "k string, t int, v int")
    got = df.groupBy("k").agg(F.sum("v").alias("total"),
                              F.rank().over(Window.orderBy(F.desc(F.sum("v")))).alias("place"),
                              (F.sum("v") / F.sum(F.sum("v")).over(Window.partitionBy())).alias("share"),
                              F.lag("k").over(Window.orderBy("k")).alias("before"))
    assert got.columns == ["k", "total", "place", "share", "before"]
    rows = {r["k"]: (r["total"], r["place"], round(r["share"], 4), r["before"]) for r in got.collect()}
    assert rows == {"a": (40, 1, 0.6061, None), "b": (25, 2, 0.3788, "a"), "c": (1, 3, 0.0152, "b")}
    assert [tuple(r) for r in df.select(F.sum("v"), F.count("*").over(Window.partitionBy()).alias("n")).collect()] \
        == [(66, 1)]
    df.createOrReplaceTempView("w_groups")
    ranked = spark.sql("SELECT k, sum(v) AS total, rank() OVER (ORDER BY sum(v) DESC) AS place FROM w_groups "
                       "GROUP BY k ORDER BY place").collect()
    assert [tuple(r) for r in ranked] == [("a", 40, 1), ("b", 25, 2), ("c", 1, 3)]


def test_a_struct_partition_key(spark: SparkSession) -> None:
    # Runs of equal keys were found with an Arrow comparison that takes no structs.
    df = spark.createDataFrame([(1, "a", 3), (1, "a", 1), (2, "b", 5), (None, None, 2)], "x int, y string, v int")
    keyed = df.select(F.struct("x", "y").alias("s"), "v")
    got = keyed.select("v", F.row_number().over(Window.partitionBy("s").orderBy("v")).alias("n")).orderBy("v")
    assert [tuple(r) for r in got.collect()] == [(1, 1), (2, 1), (3, 2), (5, 1)]


def test_sql_named_windows_equal_the_specification_in_place(spark: SparkSession) -> None:
    rows = [(k, t, (k * 7 + t * 3) % 11) for k in range(3) for t in range(6)]
    spark.createDataFrame(rows, "k int, t int, v int").createOrReplaceTempView("named_w")
    spec = "PARTITION BY k ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"
    named = spark.sql(f"SELECT k, t, sum(v) OVER w AS s, rank() OVER w2 AS r FROM named_w "
                      f"WINDOW w AS ({spec}), w2 AS (PARTITION BY k ORDER BY v DESC) ORDER BY k, t").collect()
    in_place = spark.sql(f"SELECT k, t, sum(v) OVER ({spec}) AS s, rank() OVER (PARTITION BY k ORDER BY v DESC) "
                         f"AS r FROM named_w ORDER BY k, t").collect()
    assert [tuple(r) for r in named] == [tuple(r) for r in in_place]
    with pytest.raises(AnalysisException, match="MISSING_WINDOW_SPECIFICATION"):
        spark.sql("SELECT sum(v) OVER undefined FROM named_w").collect()
