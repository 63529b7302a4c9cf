"""Column metadata (``StructField.metadata``): set by ``alias(metadata=...)``, ``withMetadata``
and a schema given to ``createDataFrame``; kept, as in Spark, by whatever passes the column
on unchanged (select, filter, rename, join, grouping key) and dropped by a computation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dstream.sql import AnalysisException, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import PySparkValueError
from dstream.sql.types import IntegerType, StructField, StructType

NOTE = {"comment": "the key", "scale": 2}


def test_alias_metadata_follows_the_column(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 10), (2, 20)], "a int, v int")
    tagged = df.select(F.col("a").alias("k", metadata=NOTE), "v")
    assert tagged.schema["k"].metadata == NOTE
    assert tagged.filter("k > 1").schema["k"].metadata == NOTE
    assert tagged.select(F.col("k").alias("x")).schema["x"].metadata == NOTE
    assert tagged.withColumnRenamed("k", "y").schema["y"].metadata == NOTE
    assert tagged.groupBy("k").count().schema["k"].metadata == NOTE
    assert tagged.join(df, tagged.k == df.a).schema["k"].metadata == NOTE
    assert tagged.select((F.col("k") + 1).alias("p")).schema["p"].metadata == {}
    assert tagged.select(F.col("k").alias("q", metadata={"other": 1})).schema["q"].metadata == {"other": 1}
    assert [tuple(r) for r in tagged.orderBy("k").collect()] == [(1, 10), (2, 20)]


def test_schema_metadata_and_with_metadata(spark: SparkSession) -> None:
    schema = StructType([StructField("a", IntegerType(), True, {"m": 1})])
    df = spark.createDataFrame([(1,)], schema)
    assert df.schema["a"].metadata == {"m": 1}
    replaced = df.withMetadata("a", NOTE)
    assert replaced.schema["a"].metadata == NOTE and replaced.collect()[0].a == 1
    assert df.schema["a"].metadata == {"m": 1}  # the original DataFrame is unchanged
    with pytest.raises(AnalysisException, match="UNRESOLVED_COLUMN"):
        df.withMetadata("missing", NOTE)
    with pytest.raises(PySparkValueError, match="takes a dict"):
        df.withMetadata("a", ["not", "a", "dict"])  # type: ignore[arg-type]


def test_parquet_keeps_metadata_in_sparks_footer(spark: SparkSession, tmp_path: Path) -> None:
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    out = str(tmp_path / "tagged")
    spark.createDataFrame([(1, "x")], "a int, b string").withMetadata("a", NOTE).write.parquet(out)
    back = spark.read.parquet(out)
    assert back.schema["a"].metadata == NOTE and back.schema["b"].metadata == {}
    assert [tuple(r) for r in back.collect()] == [(1, "x")]
    part = next(p for p in os.listdir(out) if p.endswith(".parquet"))
    footer = json.loads(pq.read_schema(os.path.join(out, part)).metadata[b"org.apache.spark.sql.parquet.row.metadata"])
    assert footer["fields"][0] == {"name": "a", "type": "integer", "nullable": True, "metadata": NOTE}
    # A file Spark wrote (its footer, by another writer here): the metadata is read from it.
    foreign = str(tmp_path / "spark.parquet")
    spark_schema = {"type": "struct", "fields": [{"name": "v", "type": "long", "nullable": True,
                                                   "metadata": {"ml_attr": {"num_vals": 3}}}]}
    table = pa.table({"v": pa.array([5], pa.int64())}).replace_schema_metadata(
        {"org.apache.spark.sql.parquet.row.metadata": json.dumps(spark_schema)})
    pq.write_table(table, foreign)
    assert spark.read.parquet(foreign).schema["v"].metadata == {"ml_attr": {"num_vals": 3}}
