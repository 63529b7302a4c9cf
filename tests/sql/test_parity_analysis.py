"""Behaviours found to differ from PySpark 4.0.1: name resolution, struct access and typing.

One test per finding; the expected values are what PySpark printed for the same calls.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dstream.sql import DataFrame, Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local").appName("parity-analysis").getOrCreate()
    yield session
    session.stop()


@pytest.fixture
def df(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([(1, "a")], "i int, g string")


def test_sorting_by_a_name_a_select_reuses_takes_the_output_column(df: DataFrame) -> None:
    # The output i and the child's i were both candidates: AMBIGUOUS_REFERENCE.
    assert df.select((F.col("i") * 2).alias("i")).orderBy("i").collect() == [Row(i=2)]
    assert df.selectExpr("cast(i as double)").orderBy("i").collect() == [Row(i=1.0)]
    assert df.select(F.col("i").cast("double")).orderBy("i").collect() == [Row(i=1.0)]
    # A column the select dropped is still a sort key, as in Spark.
    assert df.select("g").orderBy("i").collect() == [Row(g="a")]
