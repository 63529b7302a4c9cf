"""Regressions found by the DataFrame acceptance tests, one test per bug."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom

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
