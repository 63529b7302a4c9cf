"""Filters with OR keep their meaning when the optimizer pushes filters down.

A regression guard: ``Or`` once derived from ``And``, so the optimizer split ``a OR b`` into
the conjuncts ``a`` and ``b`` and pushed them into both sides of a join, below an
aggregation and into a file scan's skipping filters: rows that satisfied only one side
were lost. Each case is checked against the same predicate evaluated in plain Python.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.expressions.predicates import And, Or

VALUES = st.one_of(st.none(), st.integers(0, 4))
PAIRS = st.lists(st.tuples(VALUES, VALUES), min_size=1, max_size=8)


def _or(a: Any, b: Any) -> bool:
    """``(a = 1) OR (b = 2)`` kept by a filter (a null comparison is not true)."""
    return a == 1 or b == 2


def test_or_is_not_an_and() -> None:
    assert not issubclass(Or, And) and not issubclass(And, Or)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(left=PAIRS, right=PAIRS)
def test_or_across_a_join_keeps_rows_matching_either_side(spark: SparkSession, left: list[tuple[Any, Any]],
                                                          right: list[tuple[Any, Any]]) -> None:
    a = spark.createDataFrame(left, "a int, x int")
    b = spark.createDataFrame(right, "b int, y int")
    got = a.crossJoin(b).where((F.col("a") == 1) | (F.col("b") == 2)).collect()
    expected = [(la, lx, rb, ry) for la, lx in left for rb, ry in right if _or(la, rb)]
    assert sorted(map(tuple, got), key=repr) == sorted(expected, key=repr)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=PAIRS)
def test_or_above_an_aggregation(spark: SparkSession, rows: list[tuple[Any, Any]]) -> None:
    df = spark.createDataFrame(rows, "k int, v int")
    got = df.groupBy("k").agg(F.count("*").alias("n")).where((F.col("k") == 1) | (F.col("n") == 2)).collect()
    counts: dict[Any, int] = {}
    for k, _ in rows:
        counts[k] = counts.get(k, 0) + 1
    assert sorted(map(tuple, got), key=repr) == sorted(((k, n) for k, n in counts.items() if _or(k, n)), key=repr)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=PAIRS)
def test_or_on_a_parquet_scan(spark: SparkSession, tmp_path_factory: Any, rows: list[tuple[Any, Any]]) -> None:
    path = str(Path(tmp_path_factory.mktemp("or_scan")) / "t.parquet")
    spark.createDataFrame(rows, "a int, b int").write.parquet(path)
    got = spark.read.parquet(path).where((F.col("a") == 1) | (F.col("b") == 2)).collect()
    assert sorted(map(tuple, got), key=repr) == sorted((r for r in rows if _or(*r)), key=repr)
