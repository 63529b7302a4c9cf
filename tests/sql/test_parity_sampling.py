"""``sample``, ``randomSplit`` and ``sampleBy`` keep the rows PySpark 4.0.1 keeps for a seed.

They drew from other generators (the right proportions, other rows). PySpark 4.0.1 draws
``XORShiftRandom(seed + partition)`` once per row (``randomSplit`` after sorting each
partition by its orderable columns); the expected rows are what it returned on ``local[2]``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[2]").appName("parity-sampling").getOrCreate()
    yield session
    session.stop()


def test_sample_keeps_sparks_rows(spark: SparkSession) -> None:
    assert [r.id for r in spark.range(0, 20, 1, 1).sample(0.5, 42).collect()] == [3, 7, 10, 12, 16, 18]
    assert [r.id for r in spark.range(0, 20, 1, 2).sample(0.3, 7).collect()] == [0, 6, 8, 12, 17]
    assert [r.id for r in spark.range(0, 20, 1, 2).sample(fraction=0.3, seed=-5).collect()] == [
        1, 4, 6, 10, 11, 12, 14, 17]
    assert spark.range(0, 20, 1, 1).sample(0.5, 42).count() == 6


def test_random_split_sorts_each_partition_first(spark: SparkSession) -> None:
    df = spark.createDataFrame([(i % 3, 10 - i, {"k": i}) for i in range(10)],
                               "a int, b int, m map<string,int>").coalesce(1)
    assert [[(r.a, r.b) for r in part.collect()] for part in df.randomSplit([0.5, 0.5], 7)] == [
        [(0, 1), (0, 4), (1, 9), (2, 5)], [(0, 7), (0, 10), (1, 3), (1, 6), (2, 2), (2, 8)]]
    assert [[r.id for r in part.collect()] for part in spark.range(0, 12, 1, 2).randomSplit([1.0, 2.0, 1.0], 3)] == [
        [4, 5, 7, 8, 10], [0, 1, 3, 9, 11], [2, 6]]


def test_sample_by_draws_rand_of_the_seed(spark: SparkSession) -> None:
    strata = spark.range(0, 30, 1, 2).withColumn("k", F.col("id") % 3)
    assert [r.id for r in strata.sampleBy("k", {0: 0.5, 1: 0.9}, 11).collect()] == [
        0, 1, 3, 4, 7, 10, 13, 15, 18, 19, 21, 24, 25, 28]
    assert [r.id for r in strata.stat.sampleBy(F.col("k"), {0: 0.2, 2: 1.0}, 0).collect()] == [
        2, 5, 8, 9, 11, 14, 17, 18, 20, 23, 26, 29]
