"""``mapInArrow``, ``mapInPandas``, ``repartitionByRange``, ``checkpoint``, ``localCheckpoint``
and ``hint``, on real worker processes."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rdd import SparkContext

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import PythonException
from dstream.sql.types import LongType, StringType, StructField, StructType


@pytest.fixture
def spark(make_sc: Callable[..., SparkContext]) -> Iterator[SparkSession]:
    """A session on a context of its own with two worker processes (the user's functions run there)."""
    session = SparkSession(make_sc("local[2]"), [("spark.sql.session.timeZone", "UTC")])
    try:
        yield session
    finally:
        session.stop()


def _scaled(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        # int32 where the schema says long: cast to the schema's type.
        yield pa.RecordBatch.from_arrays([pc.multiply(batch.column(1), 10), batch.column(0).cast(pa.int32())],
                                         names=["w", "id"])


def test_map_in_arrow_and_pandas(spark: SparkSession) -> None:
    df = spark.range(0, 20, numPartitions=3).withColumn("v", F.col("id") + 1)
    mapped = df.mapInArrow(_scaled, "id long, w long")
    assert mapped.schema == StructType([StructField("id", LongType()), StructField("w", LongType())])
    assert sorted(tuple(r) for r in mapped.collect()) == [(i, (i + 1) * 10) for i in range(20)]

    def evens(frames: Iterator[Any]) -> Iterator[Any]:
        for frame in frames:
            kept = frame[frame.id % 2 == 0]
            yield kept.assign(text=kept.v.astype(str))[["text", "id"]]

    schema = StructType([StructField("id", LongType()), StructField("text", StringType())])
    got = df.mapInPandas(evens, schema).orderBy("id").collect()
    assert [tuple(r) for r in got] == [(i, str(i + 1)) for i in range(0, 20, 2)]


def test_a_function_yielding_the_wrong_columns_fails_with_the_reason(spark: SparkSession) -> None:
    df = spark.range(3)
    with pytest.raises(PythonException, match="missing 'x'"):
        df.mapInArrow(lambda it: (b for b in it), "x long").collect()
    with pytest.raises(PythonException, match="yielded a dict"):
        df.mapInArrow(lambda it: ({"id": 1} for _ in it), "id long").collect()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(st.one_of(st.none(), st.integers(-50, 50)), min_size=1, max_size=60),
       partitions=st.integers(1, 4), descending=st.booleans())
def test_repartition_by_range_puts_key_ranges_in_order(spark: SparkSession, keys: list[Any], partitions: int,
                                                       descending: bool) -> None:
    df = spark.createDataFrame([(k,) for k in keys], "k int")
    order = F.col("k").desc() if descending else F.col("k")
    parts = df.repartitionByRange(partitions, order).rdd.glom().collect()
    assert len(parts) == partitions
    assert sorted((r.k is not None, r.k or 0) for part in parts for r in part) == sorted(
        (k is not None, k or 0) for k in keys)
    # Spark's orderings: ascending puts nulls first, descending last.
    ranks = [[(r.k is None, -(r.k or 0)) if descending else (r.k is not None, r.k or 0) for r in part]
             for part in parts if part]
    for before, after in zip(ranks, ranks[1:]):
        assert max(before) <= min(after)


def test_checkpoints_cut_the_lineage(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.range(10).withColumn("v", F.col("id") * 3)
    local = df.localCheckpoint()
    assert type(local._plan).__name__ == "ArrowRDDRelation" and local.agg(F.sum("v")).collect()[0][0] == 135
    with pytest.raises(ValueError, match="setCheckpointDir"):
        df.checkpoint()
    spark.sparkContext.setCheckpointDir(str(tmp_path))
    written = df.checkpoint()
    assert sorted(r.v for r in written.collect()) == [3 * i for i in range(10)]
    assert any(files for _, _, files in os.walk(tmp_path)), "checkpoint wrote no files"
    lazy = df.localCheckpoint(eager=False)
    assert lazy.count() == 10


def test_hints(spark: SparkSession) -> None:
    small = spark.range(5)
    hinted = small.hint("broadcast")
    assert getattr(hinted, "_hint_broadcast", False) and not getattr(small, "_hint_broadcast", False)
    assert spark.range(10).join(hinted, "id").count() == 5
    assert small.hint("coalesce", 3).count() == 5  # not one dstreams uses: ignored, as Spark ignores it


def _only_id_one(frames: Iterator[Any]) -> Iterator[Any]:
    for pdf in frames:
        yield pdf[pdf.id == 1]


def test_map_in_pandas_may_yield_an_empty_frame(spark: SparkSession) -> None:
    # Spark's examples/sql/arrow.py map example: the partition holding id 2 yields an empty frame,
    # which PySpark 4.0.1 takes as no rows (here it was refused as "yielded a list").
    df = spark.createDataFrame([(1, 21), (2, 30)], ("id", "age")).repartition(2, "id")
    assert [tuple(r) for r in df.mapInPandas(_only_id_one, schema=df.schema).collect()] == [(1, 21)]
    assert df.mapInPandas(_only_id_one, schema=df.schema).columns == ["id", "age"]
