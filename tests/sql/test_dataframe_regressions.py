"""Regressions found by the DataFrame acceptance tests, one test per bug."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import ArithmeticException

NAN = float("nan")


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local").appName("dataframe-regressions").getOrCreate()
    yield session
    session.stop()


@pytest.mark.parametrize("values", [[NAN, -0.0], [1.0, NAN, None], [-0.0, NAN, 1e300]])
def test_max_of_doubles_is_nan_when_any_value_is_nan(spark: SparkSession, values: list[float | None]) -> None:
    # Arrow's max skips NaN; Spark orders NaN above every double.
    df = spark.createDataFrame([(1, v) for v in values], "k int, d double")
    (whole,) = df.agg(F.max("d"), F.min("d")).collect()
    (grouped,) = df.groupBy("k").agg(F.max("d")).collect()
    assert math.isnan(whole[0]) and math.isnan(grouped[1])
    assert whole[1] == min(v for v in values if v is not None and not math.isnan(v))


def test_max_of_doubles_without_nan_is_unchanged(spark: SparkSession) -> None:
    df = spark.createDataFrame([(v,) for v in [1.5, None, -3.0]], "d double")
    assert df.agg(F.max("d")).collect()[0][0] == 1.5


def test_count_distinct_treats_zeros_and_nans_as_one_value(spark: SparkSession) -> None:
    # Spark normalizes distinct aggregate inputs as it does grouping keys.
    df = spark.createDataFrame([(1, v) for v in [0.0, -0.0, NAN, NAN, None]], "k int, d double")
    assert df.agg(F.countDistinct("d")).collect()[0][0] == 2
    assert df.groupBy("k").agg(F.countDistinct("d")).collect()[0][1] == 2


@pytest.mark.parametrize(("value", "expected"), [(1753.6299999999999, 1753.63), (1499.1100000000001, 1499.11),
                                                 (2.675, 2.68), (-2.5, -2.5)])
def test_round_of_a_double_scaled_exactly_onto_the_grid(spark: SparkSession, value: float, expected: float) -> None:
    # 1753.6299999999999 * 100 is exactly 175363.0: Arrow kept the value, Spark rounds its text.
    df = spark.createDataFrame([(value,)], "d double")
    assert df.select(F.round("d", 2), F.bround("d", 2)).collect()[0] == (expected, expected)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=1, max_size=20),
       scale=st.integers(0, 4))
def test_round_is_half_up_of_the_shortest_text(spark: SparkSession, values: list[float], scale: int) -> None:
    df = spark.createDataFrame([(v,) for v in values], "d double")
    got = [r[0] for r in df.select(F.round("d", scale)).collect()]
    assert got == [float(Decimal(repr(v)).quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)) for v in values]


def test_sum_of_bigint_overflow_raises_under_ansi(spark: SparkSession) -> None:
    # Arrow's int64 sum wraps silently; Spark 4 (ANSI) raises ARITHMETIC_OVERFLOW.
    df = spark.createDataFrame([(1, 2**63 - 1), (1, 1), (2, -(2**63)), (2, 5)], "k int, v bigint")
    with pytest.raises(ArithmeticException) as info:
        df.where(F.col("k") == 1).agg(F.sum("v")).collect()
    # PySpark 4.0.1 names try_add (the addition that overflowed), not try_sum
    assert info.value.getCondition() == "ARITHMETIC_OVERFLOW" and "try_add" in str(info.value)
    with pytest.raises(ArithmeticException):
        df.groupBy("k").agg(F.sum("v")).collect()
    assert df.where(F.col("k") == 2).agg(F.sum("v")).collect()[0][0] == -(2**63) + 5


def test_sum_of_bigint_overflow_wraps_with_ansi_off(spark: SparkSession) -> None:
    df = spark.createDataFrame([(2**63 - 1,), (1,), (None,)], "v bigint")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        assert df.agg(F.sum("v")).collect()[0][0] == -(2**63)
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


def test_sum_of_ints_beyond_int_range_is_exact(spark: SparkSession) -> None:
    df = spark.createDataFrame([(2**31 - 1,)] * 3 + [(None,)], "v int")
    assert df.agg(F.sum("v")).collect()[0][0] == 3 * (2**31 - 1)


def test_exploding_a_map_selects_its_key_and_value_columns(spark: SparkSession) -> None:
    # The select named the generator by its text (one name) although a map's has two fields:
    # select(explode(m)) failed with UDTF_ALIAS_NUMBER_MISMATCH.
    df = spark.createDataFrame([({"a": 1, "b": 2}, [5])], "m map<string,int>, a array<int>")
    assert [tuple(r) for r in df.select(F.explode("m")).orderBy("key").collect()] == [("a", 1), ("b", 2)]
    assert df.select(F.posexplode("m")).columns == ["pos", "key", "value"]
    assert df.select(F.explode("m").alias("k", "v")).columns == ["k", "v"]
    assert df.select("a", F.explode("a")).columns == ["a", "col"]
    assert spark.createDataFrame([({"x": 3},)], "m map<string,int>").selectExpr("explode(m)").columns == [
        "key", "value"]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 12), skip=st.integers(0, 14), limit=st.one_of(st.none(), st.integers(0, 6)),
       parts=st.integers(1, 3))
def test_offset_skips_rows_and_keeps_the_rest(spark: SparkSession, n: int, skip: int, limit: int | None,
                                             parts: int) -> None:
    # offset(k) alone planned a per-partition limit of k - 1 rows, so it returned nothing.
    df = spark.createDataFrame([(i,) for i in range(n)], "x int").repartition(parts)
    ordered = df.orderBy("x").offset(skip)
    if limit is not None:
        ordered = ordered.limit(limit)
    expected = list(range(n))[skip:] if limit is None else list(range(n))[skip:skip + limit]
    assert [r.x for r in ordered.collect()] == expected
    assert df.offset(skip).count() == max(n - skip, 0)


def test_null_safe_equality_with_a_null_literal(spark: SparkSession) -> None:
    # Arrow has no '=' kernel on its null type: NULL <=> NULL raised instead of giving true.
    [row] = spark.sql("SELECT NULL <=> NULL AS a, 1 <=> NULL AS b, NULL <=> 2 AS c, equal_null(NULL, NULL) AS d")\
        .collect()
    assert row.asDict() == {"a": True, "b": False, "c": False, "d": True}
    df = spark.createDataFrame([(1,), (None,)], "x int")
    assert [r[0] for r in df.select(F.col("x").eqNullSafe(F.lit(None))).collect()] == [False, True]


def test_a_long_chain_of_unions_plans_and_runs(spark: SparkSession) -> None:
    # reduce(DataFrame.union, frames): the union's output asked each child's per column, so
    # planning cost (columns + 1) ** depth (ten frames of three columns took 12 s, twenty
    # would not end); flattened, the lineage no longer outgrows pickling either.
    base = spark.range(3).selectExpr("id", "id * 2 AS b", "cast(id AS string) AS c")
    frames = [base.withColumn("n", F.lit(i)) for i in range(300)]
    df = functools.reduce(lambda left, right: left.union(right), frames)
    assert df.count() == 900
    assert df.agg(F.sum("n"), F.sum("b")).collect()[0] == (3 * sum(range(300)), 300 * 6)


def test_a_union_of_unions_is_optimized_into_one(spark: SparkSession) -> None:
    from dstream.sql.plan.logical import Union
    from dstream.sql.plan.optimizer import optimize

    frames = [spark.range(2).selectExpr(f"id + {i} AS v") for i in range(5)]
    df = frames[0].union(frames[1]).union(frames[2].union(frames[3])).union(frames[4])
    plan = df._plan  # noqa: SLF001 - the optimizer's input
    optimized = optimize(plan)
    unions = [n for n in _walk(optimized) if isinstance(n, Union)]
    assert len(unions) == 1 and len(unions[0].children) == 5
    assert [a.expr_id for a in optimized.output()] == [a.expr_id for a in plan.output()]
    assert sorted(r[0] for r in df.collect()) == sorted(i + j for i in range(5) for j in range(2))


def _walk(plan: Any) -> Iterator[Any]:
    yield plan
    for child in plan.children:
        yield from _walk(child)


def test_values_with_thousands_of_rows(spark: SparkSession) -> None:
    # Each row is a one-row select; unioned as a chain they hit Python's recursion limit
    # (RecursionError from 500 rows).
    rows = ", ".join(f"({i}, 'r{i}')" for i in range(2000))
    df = spark.sql(f"SELECT sum(a) AS s, count(DISTINCT b) AS n, max(b) AS m FROM VALUES {rows} AS t(a, b)")
    assert df.collect()[0] == (sum(range(2000)), 2000, "r999")
