"""Subqueries in SQL expressions: ``[NOT] IN (SELECT ...)``, ``[NOT] EXISTS`` (uncorrelated and
correlated by equalities) and scalar subqueries, against plain-Python models of Spark's
three-valued semantics.

The models, per outer row with value ``k`` and subquery values ``S``: ``k IN S`` keeps the
row when ``k`` is not null and in ``S``; ``k NOT IN S`` keeps it when ``S`` is empty, or
when ``k`` is not null, not in ``S`` and ``S`` holds no null; ``EXISTS`` (correlated on
``u.k = t.k``) keeps it when some subquery row has an equal, non-null key. A correlated
scalar subquery ``(SELECT agg FROM u WHERE u.k = t.k)`` is the aggregate over the subquery
rows with an equal, non-null key, and over no rows when there are none (``count`` is 0 there).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException, SparkRuntimeException

KEYS = st.one_of(st.none(), st.integers(0, 4))
OUTER = st.lists(st.tuples(KEYS, st.integers(0, 99)), max_size=7)
INNER = st.lists(st.tuples(KEYS, st.sampled_from(["x", "y"])), max_size=6)


def _in(k: Any, values: list[Any]) -> bool:
    return k is not None and k in values


def _not_in(k: Any, values: list[Any]) -> bool:
    if not values:
        return True
    return k is not None and k not in values and None not in values


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(outer=OUTER, inner=INNER)
def test_in_and_exists_match_the_model(spark: SparkSession, outer: list[tuple[Any, int]],
                                       inner: list[tuple[Any, str]]) -> None:
    spark.createDataFrame(outer, "k int, n int").createOrReplaceTempView("sq_t")
    spark.createDataFrame(inner, "k int, w string").createOrReplaceTempView("sq_u")
    values = [k for k, _ in inner]
    x_values = [k for k, w in inner if w == "x"]

    def rows(where: str) -> list[tuple[Any, ...]]:
        return sorted((tuple(r) for r in spark.sql(f"SELECT k, n FROM sq_t t WHERE {where}").collect()), key=repr)

    def model(keep: Any) -> list[tuple[Any, ...]]:
        return sorted((r for r in outer if keep(r[0])), key=repr)

    assert rows("k IN (SELECT k FROM sq_u)") == model(lambda k: _in(k, values))
    assert rows("k NOT IN (SELECT k FROM sq_u WHERE w = 'x')") == model(lambda k: _not_in(k, x_values))
    assert rows("NOT k IN (SELECT k FROM sq_u)") == model(lambda k: _not_in(k, values))
    assert rows("EXISTS (SELECT 1 FROM sq_u u WHERE u.k = t.k AND u.w = 'x')") == model(lambda k: _in(k, x_values))
    assert rows("NOT EXISTS (SELECT 1 FROM sq_u u WHERE t.k = u.k) AND n >= 0") == model(lambda k: not _in(k, values))
    assert rows("EXISTS (SELECT 1 FROM sq_u WHERE w = 'x')") == model(lambda k: bool(x_values))
    assert rows("k IN (SELECT u.k FROM sq_u u WHERE u.k = t.k AND u.w = 'y')") == model(
        lambda k: _in(k, [v for v, w in inner if w == "y"]))


def test_scalar_subqueries(spark: SparkSession) -> None:
    spark.createDataFrame([(1,), (5,), (9,)], "v int").createOrReplaceTempView("sc_t")
    got = spark.sql("SELECT v, (SELECT max(v) FROM sc_t) AS top FROM sc_t "
                    "WHERE v > (SELECT avg(v) FROM sc_t WHERE v < 9) ORDER BY v").collect()
    assert [tuple(r) for r in got] == [(5, 9), (9, 9)]
    [row] = spark.sql("SELECT (SELECT v FROM sc_t WHERE v > 100) AS nothing").collect()
    assert row.nothing is None
    assert spark.sql("SELECT (SELECT max(v) FROM sc_t) AS m").schema["m"].dataType.simpleString() == "int"


def test_a_scalar_subquery_runs_once_per_query(spark: SparkSession) -> None:
    # An aggregation builds its items twice (to name them, then to compute them).
    sc = spark.sparkContext
    tracker = sc.statusTracker()  # without the UI, its store is fed from here on
    spark.createDataFrame([(1, 2), (1, 3), (2, 5)], "k int, v int").createOrReplaceTempView("sq_once")
    sc.setJobGroup("sq_once_alone", "the subquery alone")
    spark.sql("SELECT (SELECT max(v) FROM sq_once) AS m")
    sc.setJobGroup("sq_once_grouped", "the subquery in an aggregation")
    grouped = spark.sql("SELECT k, sum(v) + (SELECT max(v) FROM sq_once) AS s FROM sq_once GROUP BY k ORDER BY k")
    sc.setJobGroup("sq_once_rest", "later jobs")
    assert sc._listener_bus.wait_until_empty(10)
    assert len(tracker.getJobIdsForGroup("sq_once_grouped")) == len(tracker.getJobIdsForGroup("sq_once_alone")) >= 1
    assert [tuple(r) for r in grouped.collect()] == [(1, 10), (2, 10)]


def test_exists_the_subquery_and_exists_the_array_function_side_by_side(spark: SparkSession) -> None:
    spark.createDataFrame([([1, 2], 1), ([3], 2)], "a array<int>, k int").createOrReplaceTempView("ex_t")
    got = spark.sql("SELECT k, exists(a, x -> x > 2) AS big FROM ex_t t "
                    "WHERE EXISTS (SELECT 1 FROM ex_t u WHERE u.k = t.k) ORDER BY k").collect()
    assert [tuple(r) for r in got] == [(1, False), (2, True)]


def test_what_cannot_be_rewritten_is_refused_by_name(spark: SparkSession) -> None:
    spark.createDataFrame([(1, "a")], "k int, w string").createOrReplaceTempView("sq_e")
    with pytest.raises(SparkRuntimeException, match="SCALAR_SUBQUERY_TOO_MANY_ROWS"):
        spark.sql("SELECT (SELECT k FROM sq_e UNION ALL SELECT k FROM sq_e)").collect()
    with pytest.raises(AnalysisException, match="must return one column"):
        spark.sql("SELECT * FROM sq_e WHERE k IN (SELECT k, w FROM sq_e)").collect()
    with pytest.raises(AnalysisException, match="correlated IN subquery under OR"):
        spark.sql("SELECT * FROM sq_e t WHERE k IN (SELECT u.k FROM sq_e u WHERE u.w = t.w) OR k = 2").collect()
    with pytest.raises(AnalysisException, match="outside WHERE, HAVING, GROUP BY and the select list"):
        spark.sql("SELECT k FROM sq_e ORDER BY k IN (SELECT k FROM sq_e)").collect()
    with pytest.raises(AnalysisException, match="correlated NOT IN"):
        spark.sql("SELECT * FROM sq_e t WHERE k NOT IN (SELECT u.k FROM sq_e u WHERE u.w = t.w)").collect()
    with pytest.raises(AnalysisException, match="CORRELATED_SCALAR_SUBQUERY_NOT_AGGREGATED"):
        spark.sql("SELECT (SELECT u.k FROM sq_e u WHERE u.w = t.w) FROM sq_e t").collect()
    with pytest.raises(AnalysisException, match="other than AND-ed equalities"):
        spark.sql("SELECT (SELECT max(u.k) FROM sq_e u WHERE u.w < t.w) FROM sq_e t").collect()


SCALAR_INNER = st.lists(st.tuples(KEYS, st.one_of(st.none(), st.integers(0, 9))), max_size=6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(outer=OUTER, inner=SCALAR_INNER)
def test_correlated_scalar_subqueries_match_the_model(spark: SparkSession, outer: list[tuple[Any, int]],
                                                      inner: list[tuple[Any, Any]]) -> None:
    spark.createDataFrame(outer, "k int, v int").createOrReplaceTempView("cs_t")
    spark.createDataFrame(inner, "k int, w int").createOrReplaceTempView("cs_u")

    def matching(k: Any) -> list[Any]:
        return [w for uk, w in inner if k is not None and uk == k]

    def model_max(k: Any) -> Any:
        present = [w for w in matching(k) if w is not None]
        return max(present) if present else None

    got = spark.sql("SELECT t.v, (SELECT max(u.w) FROM cs_u u WHERE u.k = t.k) AS m, "
                    "(SELECT count(*) FROM cs_u u WHERE u.k = t.k) AS n, "
                    "(SELECT count(u.w) + 1 FROM cs_u u WHERE t.k = u.k AND u.w > 3) AS c FROM cs_t t").collect()
    expected = [(v, model_max(k), len(matching(k)), len([w for w in matching(k) if w is not None and w > 3]) + 1)
                for k, v in outer]
    assert sorted(tuple(r) for r in got) == sorted(expected)
    kept = spark.sql("SELECT * FROM cs_t t WHERE t.v > (SELECT sum(u.w) FROM cs_u u WHERE u.k = t.k)").collect()
    sums = {k: sum(w for w in matching(k) if w is not None) if any(w is not None for w in matching(k)) else None
            for k, _ in outer}
    assert sorted(tuple(r) for r in kept) == sorted((k, v) for k, v in outer if sums[k] is not None and v > sums[k])


def test_correlated_scalar_subquery_names_and_star(spark: SparkSession) -> None:
    spark.createDataFrame([(1, 10), (2, 20)], "k int, v int").createOrReplaceTempView("cn_t")
    spark.createDataFrame([(1, 5)], "k int, w int").createOrReplaceTempView("cn_u")
    df = spark.sql("SELECT *, (SELECT max(w) FROM cn_u u WHERE u.k = t.k) FROM cn_t t ORDER BY k")
    assert df.columns == ["k", "v", "scalarsubquery(k)"]
    assert [tuple(r) for r in df.collect()] == [(1, 10, 5), (2, 20, None)]
    assert spark.sql("SELECT (SELECT max(w) FROM cn_u)").columns == ["scalarsubquery()"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(outer=OUTER, inner=INNER, threshold=st.integers(0, 99))
def test_subqueries_under_or_and_not_match_the_model(spark: SparkSession, outer: list[tuple[Any, int]],
                                                     inner: list[tuple[Any, str]], threshold: int) -> None:
    spark.createDataFrame(outer, "k int, v int").createOrReplaceTempView("or_t")
    spark.createDataFrame(inner, "k int, w string").createOrReplaceTempView("or_u")
    values = [k for k, _ in inner]

    def three_valued_in(k: Any) -> Any:  # Spark's k IN (values): True, False or None (null)
        if k is not None and k in values:
            return True
        if not values:
            return False
        return None if k is None or None in values else False

    def keep(expected: list[tuple[Any, int]]) -> list[tuple[Any, int]]:
        return sorted(expected, key=repr)

    def got(sql: str) -> list[tuple[Any, int]]:
        return sorted((tuple(r) for r in spark.sql(sql).collect()), key=repr)

    assert got(f"SELECT * FROM or_t WHERE k IN (SELECT k FROM or_u) OR v > {threshold}") == keep(
        [(k, v) for k, v in outer if three_valued_in(k) is True or v > threshold])
    assert got(f"SELECT * FROM or_t WHERE NOT (k IN (SELECT k FROM or_u)) OR v > {threshold}") == keep(
        [(k, v) for k, v in outer if three_valued_in(k) is False or v > threshold])
    exists = {k for k, _ in inner if k is not None}
    assert got(f"SELECT * FROM or_t t WHERE EXISTS (SELECT 1 FROM or_u u WHERE u.k = t.k) OR v > {threshold}") == \
        keep([(k, v) for k, v in outer if k in exists or v > threshold])
    assert got(f"SELECT * FROM or_t t WHERE NOT EXISTS (SELECT 1 FROM or_u u WHERE u.k = t.k) AND v <= {threshold} "
               f"OR v = {threshold}") == \
        keep([(k, v) for k, v in outer if (k not in exists and v <= threshold) or v == threshold])
