"""``count(DISTINCT ...)`` of one and of several columns, against a set of Python tuples.

Model: the set of the rows' tuples that hold no null, floats compared as Spark groups
them (``-0.0`` equal to ``0.0``, every NaN equal to every other).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ROWS = st.lists(st.tuples(st.one_of(st.none(), st.integers(-3, 25)),
                          st.one_of(st.none(), st.sampled_from(["", "1", "b", "1b", "a:b", "é"])),
                          st.one_of(st.none(), st.sampled_from([0.0, -0.0, 1.5, math.nan, math.inf]))),
                max_size=30)


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[2]").appName("count-distinct").getOrCreate()
    yield session
    session.stop()


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else value + 0.0  # -0.0 + 0.0 is 0.0
    return value


def _distinct(rows: list[tuple[Any, ...]], columns: list[int]) -> int:
    return len({tuple(_norm(r[i]) for i in columns) for r in rows if all(r[i] is not None for i in columns)})


@given(rows=ROWS)
@PROPERTY
def test_count_distinct_counts_tuples_without_nulls(spark: SparkSession, rows: list[tuple[Any, ...]]) -> None:
    df = spark.createDataFrame(rows, "i int, s string, d double").repartition(2)
    (got,) = df.agg(F.countDistinct("i"), F.countDistinct("i", "s"), F.count_distinct("s", "i", "d"),
                    F.countDistinct(F.col("d"), F.col("s"))).collect()
    assert list(got) == [_distinct(rows, [0]), _distinct(rows, [0, 1]), _distinct(rows, [1, 0, 2]),
                         _distinct(rows, [2, 1])]
    per_key = {r.i: r[1] for r in df.groupBy("i").agg(F.countDistinct("s", "d")).collect()}
    assert per_key == {k: _distinct([r for r in rows if r[0] == k], [1, 2]) for k in {r[0] for r in rows}}


def test_count_distinct_of_several_columns_is_named_and_typed_as_in_spark(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "a")], "x int, y string")
    out = df.agg(F.countDistinct("x", "y"))
    assert out.columns == ["count(DISTINCT x, y)"]
    assert out.schema.simpleString() == "struct<count(DISTINCT x, y):bigint>"
    df.createOrReplaceTempView("count_distinct_pairs")
    assert spark.sql("SELECT count(DISTINCT x, y) AS n FROM count_distinct_pairs").collect()[0].n == 1


def test_count_distinct_of_nested_columns(spark: SparkSession) -> None:
    df = spark.createDataFrame([([1, 2], "a"), ([1, 2], "a"), ([2, 1], "a"), (None, "a")], "v array<int>, s string")
    assert df.agg(F.countDistinct("v", "s")).collect()[0][0] == 2
