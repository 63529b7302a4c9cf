"""``isLocal``, ``inputFiles``, ``sameSemantics``/``semanticHash``, ``colRegex`` and ``to``."""

from __future__ import annotations

from pathlib import Path

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException
from dstream.sql.types import LongType, StringType, StructField, StructType


def test_is_local_and_input_files(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, "a")], "id int, name string")
    assert df.isLocal() and not df.select("id").isLocal() and not spark.range(3).isLocal()
    spark.range(4, numPartitions=2).write.csv(str(tmp_path / "out"))
    files = spark.read.csv(str(tmp_path / "out")).inputFiles()
    expected = sorted(f"file:{p}" for p in (tmp_path / "out").glob("part-*"))
    assert files == expected and len(files) == 2
    assert df.inputFiles() == []


def test_same_semantics_ignores_ids_not_meaning(spark: SparkSession) -> None:
    a = spark.range(5).filter("id > 1").select("id")
    b = spark.range(5).filter("id > 1").select("id")
    c = spark.range(5).filter("id > 2").select("id")
    assert a.sameSemantics(b) and a.semanticHash() == b.semanticHash()
    assert not a.sameSemantics(c)


def test_col_regex_and_to(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "a", 2.0, 3.0)], "id int, name string, v1 double, V2 double")
    assert df.select(df.colRegex("`(id|v.*)`")).columns == ["id", "v1", "V2"]  # case-insensitive by default
    assert df.select(df.colRegex("name")).columns == ["name"]
    reconciled = df.to(StructType([StructField("v1", StringType()), StructField("id", LongType())]))
    assert reconciled.schema == StructType([StructField("v1", StringType()), StructField("id", LongType())])
    assert [tuple(r) for r in reconciled.collect()] == [("2.0", 1)]
    with pytest.raises(AnalysisException, match="`missing` cannot be resolved"):
        df.to(StructType([StructField("missing", LongType())]))
