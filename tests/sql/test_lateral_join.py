"""``DataFrame.lateralJoin`` with ``Column.outer()`` table function calls, against PySpark 4.0.1's answers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dstream.sql import DataFrame, Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("lateral-join").getOrCreate()
    yield session
    session.stop()


@pytest.fixture(scope="module")
def df(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([(1, [10, 20]), (2, [])], "id int, arr array<int>")


def test_table_functions_over_outer_columns(spark: SparkSession, df: DataFrame) -> None:
    assert df.lateralJoin(spark.tvf.explode(F.col("arr").outer())).collect() == [
        Row(id=1, arr=[10, 20], col=10), Row(id=1, arr=[10, 20], col=20)]
    assert df.lateralJoin(spark.tvf.explode_outer(F.col("arr").outer()), how="left").collect() == [
        Row(id=1, arr=[10, 20], col=10), Row(id=1, arr=[10, 20], col=20), Row(id=2, arr=[], col=None)]
    # as PySpark 4.0.1: the function runs as given (explode drops the empty array's row even in a LEFT join)
    assert df.lateralJoin(spark.tvf.explode(F.col("arr").outer()), how="left").count() == 2
    assert df.lateralJoin(spark.tvf.posexplode(F.col("arr").outer()), on=F.col("pos") > 0).collect() == [
        Row(id=1, arr=[10, 20], pos=1, col=20)]


def test_uncorrelated_right_sides_join(spark: SparkSession, df: DataFrame) -> None:
    right = spark.range(3).select(F.col("id").alias("x"))
    assert df.lateralJoin(right, on=F.col("x") > F.col("id")).collect() == [Row(id=1, arr=[10, 20], x=2)]
    assert df.lateralJoin(right).count() == 6


def test_outer_columns_elsewhere_are_refused(spark: SparkSession, df: DataFrame) -> None:
    with pytest.raises(AnalysisException, match=r"outer\(id\) names a column of the outer DataFrame"):
        spark.range(3).where(F.col("id") < F.col("id").outer())
    with pytest.raises(AnalysisException, match="UNSUPPORTED_JOIN_TYPE"):
        df.lateralJoin(spark.tvf.explode(F.col("arr").outer()), how="full")
    with pytest.raises(AnalysisException, match="right side of a lateral join"):
        spark.tvf.explode(F.col("arr").outer()).collect()
