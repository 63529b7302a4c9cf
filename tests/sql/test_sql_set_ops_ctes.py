"""SQL set operators (``UNION``, ``INTERSECT``, ``EXCEPT``/``MINUS``, each ``[ALL|DISTINCT]``)
against a multiset model, and ``WITH`` named queries.

The model: rows as multisets (``Counter``); DISTINCT forms are the set operations of the
distinct rows, ALL forms keep multiplicities (``INTERSECT ALL`` the minimum count, ``EXCEPT
ALL`` the difference of counts). INTERSECT binds tighter than UNION and EXCEPT, which
associate left to right, as in Spark.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException

ROWS = st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a", "b"])), max_size=8)


def _apply(op: str, distinct: bool, left: Counter, right: Counter) -> Counter:
    if op == "UNION":
        out = left + right
    elif op == "INTERSECT":
        out = left & right
    else:
        out = left - right if not distinct else Counter({r: 1 for r in left if r not in right})
    return Counter(set(out)) if distinct else out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(left=ROWS, right=ROWS)
def test_set_operators_match_the_multiset_model(spark: SparkSession, left: list[tuple[int, str]],
                                                right: list[tuple[int, str]]) -> None:
    spark.createDataFrame(left, "k int, v string").createOrReplaceTempView("so_l")
    spark.createDataFrame(right, "k int, v string").createOrReplaceTempView("so_r")
    for op in ("UNION", "INTERSECT", "EXCEPT"):
        for distinct in (True, False):
            quantifier = "DISTINCT" if distinct else "ALL"
            got = spark.sql(f"SELECT * FROM so_l {op} {quantifier} SELECT * FROM so_r").collect()
            expected = _apply(op, distinct, Counter(left), Counter(right))
            assert Counter(tuple(r) for r in got) == expected, (op, quantifier)


def test_precedence_minus_and_order_by(spark: SparkSession) -> None:
    spark.createDataFrame([(1,), (2,), (2,), (3,)], "k int").createOrReplaceTempView("p1")
    spark.createDataFrame([(2,), (3,), (4,)], "k int").createOrReplaceTempView("p2")
    rows = spark.sql("SELECT k FROM p2 UNION SELECT k FROM p1 INTERSECT SELECT k FROM p2 ORDER BY k").collect()
    assert [r.k for r in rows] == [2, 3, 4]  # p2 UNION (p1 INTERSECT p2)
    rows = spark.sql("SELECT k FROM p1 MINUS SELECT k FROM p2 UNION ALL SELECT 9 ORDER BY k").collect()
    assert [r.k for r in rows] == [1, 9]  # (p1 EXCEPT p2) UNION ALL 9


def test_with_named_queries(spark: SparkSession) -> None:
    spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "k int, v string").createOrReplaceTempView("w_t")
    rows = spark.sql("WITH big AS (SELECT k, v FROM w_t WHERE k > 1), tens(x) AS (SELECT k * 10 FROM big) "
                     "SELECT b.v, t.x FROM big b JOIN tens t ON b.k * 10 = t.x ORDER BY x").collect()
    assert [tuple(r) for r in rows] == [("b", 20), ("c", 30)]
    # A named query hides a view of the same name, inside a subquery too.
    assert spark.sql("WITH w_t AS (SELECT 42 AS k) SELECT * FROM w_t").collect()[0].k == 42
    assert spark.sql("SELECT * FROM (WITH x AS (SELECT 5 AS z) SELECT z FROM x) s").collect()[0].z == 5


def test_with_errors_name_the_problem(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException, match="names 2 columns"):
        spark.sql("WITH a(x, y) AS (SELECT 1) SELECT * FROM a").collect()
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):  # a name sees only earlier ones
        spark.sql("WITH a AS (SELECT * FROM later_one), later_one AS (SELECT 1) SELECT * FROM a").collect()
