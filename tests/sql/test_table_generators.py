"""``inline``/``inline_outer`` and ``stack`` against plain-Python models, in the DataFrame API
and in SQL.

The models: ``inline`` gives one row per struct of the array (a null struct: a row of
nulls), none for a null or empty array, one row of nulls with ``inline_outer``; ``stack(n,
v...)`` gives ``n`` rows per row, the values laid out row by row over ``ceil(k / n)``
columns, padded with nulls.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException

STRUCTS = st.one_of(st.none(), st.tuples(st.one_of(st.none(), st.integers(-9, 9)), st.sampled_from(["a", "b", None])))
ROWS = st.lists(st.tuples(st.integers(0, 99), st.one_of(st.none(), st.lists(STRUCTS, max_size=3))), min_size=1,
                max_size=8, unique_by=lambda r: r[0])


def _inline(rows: list[tuple[int, Any]], outer: bool) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for key, structs in rows:
        if not structs:
            if outer:
                out.append((key, None, None))
            continue
        out.extend((key, None, None) if s is None else (key, *s) for s in structs)
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS, outer=st.booleans())
def test_inline_matches_the_model(spark: SparkSession, rows: list[tuple[int, Any]], outer: bool) -> None:
    df = spark.createDataFrame(rows, "k int, s array<struct<n: int, t: string>>")
    got = df.select("k", (F.inline_outer if outer else F.inline)("s")).collect()
    assert [tuple(r) for r in got] == _inline(rows, outer)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(st.integers(-50, 50), min_size=1, max_size=5), n=st.integers(1, 4), k=st.integers(1, 7))
def test_stack_matches_the_model(spark: SparkSession, keys: list[int], n: int, k: int) -> None:
    df = spark.createDataFrame([(x,) for x in keys], "x int")
    got = df.select("x", F.stack(F.lit(n), *[F.col("x") + i for i in range(k)])).collect()
    cols = -(-k // n)
    expected = []
    for x in keys:
        for r in range(n):
            expected.append((x, *[x + r * cols + j if r * cols + j < k else None for j in range(cols)]))
    assert [tuple(r) for r in got] == expected


def test_names_sql_and_lateral_view(spark: SparkSession) -> None:
    spark.createDataFrame([(1, [(1, "a")])], "k int, s array<struct<n: int, t: string>>").createOrReplaceTempView("tg")
    assert spark.sql("SELECT inline(s) FROM tg").columns == ["n", "t"]
    assert spark.sql("SELECT stack(2, 'a', 1, 'b', 2)").columns == ["col0", "col1"]
    got = spark.sql("SELECT k, x, y FROM tg LATERAL VIEW inline(s) v AS x, y").collect()
    assert [tuple(r) for r in got] == [(1, 1, "a")]


def test_bad_arguments_are_named(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, [1])], "k int, a array<int>")
    with pytest.raises(AnalysisException, match='"ARRAY<STRUCT>" type'):
        df.select(F.inline("a")).collect()
    with pytest.raises(AnalysisException, match="STACK_COLUMN_DIFF_TYPES"):
        df.select(F.stack(F.lit(2), F.lit(1), F.lit("x"))).collect()
    with pytest.raises(AnalysisException, match="positive integer constant"):
        df.select(F.stack("k", F.lit(1))).collect()
