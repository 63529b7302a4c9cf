"""spark_partition_id, monotonically_increasing_id, rand and randn against a model of the partitions.

Model: the rows of each partition, in order, as ``df.rdd.glom()`` gives them; a row's
partition id is the index of its partition, its id ``partition << 33`` plus its position
there (Spark's layout). Each runs on ``local`` and on real ``local[2]`` workers.
"""

from __future__ import annotations

import doctest
import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rdd import SparkContext

from dstream.sql import SparkSession, functions_partition
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import PySparkTypeError

PROPERTY = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def spark2(sc2: SparkContext) -> Iterator[SparkSession]:
    session = SparkSession(sc2, [("spark.sql.session.timeZone", "UTC")])
    try:
        yield session
    finally:
        session.stop()


def _partitions(df: Any) -> list[list[int]]:
    return [[row.id for row in part] for part in df.rdd.glom().collect()]


@given(rows=st.integers(0, 40), parts=st.integers(1, 5))
@PROPERTY
def test_ids_and_partition_ids_follow_the_partitions(spark: SparkSession, rows: int, parts: int) -> None:
    df = spark.range(rows, numPartitions=parts)
    got = df.select("id", F.spark_partition_id().alias("p"), F.monotonically_increasing_id().alias("i")).collect()
    expected = [(value, p, (p << 33) + pos) for p, part in enumerate(_partitions(df)) for pos, value in enumerate(part)]
    assert [(r.id, r.p, r.i) for r in got] == expected


def test_on_workers_ids_count_across_a_partitions_batches(spark2: SparkSession) -> None:
    df = spark2.range(0, 3000, 1, 2).repartition(3)  # a shuffle: each partition's rows come in batches
    got = df.select("id", F.spark_partition_id().alias("p"), F.monotonically_increasing_id().alias("i")).collect()
    parts = _partitions(df)
    assert sorted(r.id for r in got) == list(range(3000))
    for p, part in enumerate(parts):
        ids = [r.i for r in got if r.p == p]
        assert ids == [(p << 33) + pos for pos in range(len(part))]


def test_a_filter_is_not_moved_below_an_id(spark: SparkSession) -> None:
    # The id is each row's position among all rows, not among the rows the filter kept.
    df = spark.range(10, numPartitions=2)
    kept = df.select(F.monotonically_increasing_id().alias("i"), "id").where("id % 3 = 0").collect()
    positions = {value: (p << 33) + pos for p, part in enumerate(_partitions(df)) for pos, value in enumerate(part)}
    assert [(r.id, r.i) for r in kept] == [(v, positions[v]) for v in (0, 3, 6, 9)]


def test_rand_repeats_with_its_seed_and_differs_across_partitions(spark2: SparkSession) -> None:
    df = spark2.range(0, 2000, 1, 2)
    first = [r[0] for r in df.select(F.rand(7)).collect()]
    assert first == [r[0] for r in df.select(F.rand(7)).collect()]
    assert first != [r[0] for r in df.select(F.rand(8)).collect()]
    assert all(0.0 <= x < 1.0 for x in first)
    assert first[:1000] != first[1000:]  # each partition its own generator (seed + partition)
    assert abs(sum(first) / len(first) - 0.5) < 0.05
    normal = [r[0] for r in df.select(F.randn(7)).collect()]
    mean = sum(normal) / len(normal)
    spread = math.sqrt(sum((x - mean) ** 2 for x in normal) / len(normal))
    assert abs(mean) < 0.15 and abs(spread - 1.0) < 0.15


def test_names_sql_and_a_seed_drawn_once(spark: SparkSession) -> None:
    df = spark.range(3)
    assert df.select(F.rand(42), F.randn(-3), F.spark_partition_id(), F.monotonically_increasing_id()).columns == [
        "rand(42)", "randn(-3)", "SPARK_PARTITION_ID()", "monotonically_increasing_id()"]
    unseeded = df.select(F.rand().alias("r"))
    assert unseeded.collect() == unseeded.collect()  # the seed is the column's, drawn when it was made
    df.createOrReplaceTempView("t")
    row = spark.sql("SELECT spark_partition_id() AS p, monotonically_increasing_id() AS i, rand(1) AS r "
                    "FROM t WHERE id = 2").collect()[0]
    assert (row.p, row.i) == (0, 0) and 0.0 <= row.r < 1.0  # WHERE runs first: the kept row is the first seen
    with pytest.raises(PySparkTypeError, match="`seed` should be an int, got str"):
        F.rand("1")  # type: ignore[arg-type]


def test_docstring_examples(spark: SparkSession) -> None:
    result = doctest.testmod(functions_partition, extraglobs={"spark": spark},
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 4 and result.failed == 0, result
