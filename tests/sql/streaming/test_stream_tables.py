"""Streams and the catalog's tables: ``writeStream.toTable``, ``readStream.table``, ORC streams.

Expected values are what PySpark 4.0.1 printed for the same programs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException, IllegalArgumentException
from dstream.sql.streaming import MemoryStream

DEADLINE = 30.0


@pytest.fixture
def warehouse(spark: SparkSession, tmp_path: Path) -> Iterator[Path]:
    before = spark.conf.get("spark.sql.warehouse.dir", None)
    spark.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    yield tmp_path / "warehouse"
    for table in spark.catalog.listTables():
        if table.tableType != "TEMPORARY":
            spark.sql(f"DROP TABLE IF EXISTS {table.name}")
    if before is None:
        spark.conf.unset("spark.sql.warehouse.dir")
    else:
        spark.conf.set("spark.sql.warehouse.dir", before)


def _json_files(directory: Path, index: int, rows: list[dict[str, object]]) -> None:
    directory.mkdir(exist_ok=True)
    tmp = directory / f".f{index}.json.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tmp.rename(directory / f"f{index}.json")


def _run(query: object) -> None:
    query.awaitTermination(DEADLINE)  # type: ignore[attr-defined]
    assert not query.isActive, "an availableNow query did not finish"  # type: ignore[attr-defined]


def test_to_table_creates_then_appends_in_the_tables_format(spark: SparkSession, warehouse: Path,
                                                            tmp_path: Path) -> None:
    src = tmp_path / "in"
    _json_files(src, 0, [{"id": 1, "s": "a"}, {"id": 2, "s": "b"}])
    stream = spark.readStream.schema("id long, s string").json(str(src))
    checkpoint = str(tmp_path / "ck")
    # clusterBy (Spark 4) is a layout hint: accepted, the same rows.
    _run(stream.writeStream.clusterBy("id").option("checkpointLocation", checkpoint).trigger(availableNow=True)
         .toTable("sink_t"))
    assert sorted(tuple(r) for r in spark.table("sink_t").collect()) == [(1, "a"), (2, "b")]
    assert [(t.name, t.tableType) for t in spark.catalog.listTables()] == [("sink_t", "MANAGED")]
    assert (warehouse / "sink_t" / "_spark_metadata").is_dir()
    _json_files(src, 1, [{"id": 3, "s": "c"}])
    _run(stream.writeStream.option("checkpointLocation", checkpoint).trigger(availableNow=True).toTable("sink_t"))
    assert sorted(tuple(r) for r in spark.table("sink_t").collect()) == [(1, "a"), (2, "b"), (3, "c")]
    with pytest.raises(AnalysisException, match=r"The input source\(json\) is different from the table sink_t's "
                                                r"data source provider\(parquet\)"):
        stream.writeStream.format("json").option("checkpointLocation", str(tmp_path / "ck2")).toTable("sink_t")
    with pytest.raises(AnalysisException, match="Invalid streaming output mode: complete. This output mode is not "
                                                "supported in Data Source parquet"):
        stream.writeStream.option("checkpointLocation", str(tmp_path / "ck3")).outputMode("complete").toTable("sink_t")
    with pytest.raises(AnalysisException, match="checkpointLocation must be specified"):
        stream.writeStream.toTable("sink_t")


def test_to_table_partitions_a_new_table_and_refuses_a_view(spark: SparkSession, warehouse: Path,
                                                            tmp_path: Path) -> None:
    src = tmp_path / "in"
    _json_files(src, 0, [{"id": 1, "s": "a"}, {"id": 2, "s": "b"}, {"id": 3, "s": "a"}])
    stream = spark.readStream.schema("id long, s string").json(str(src))
    _run(stream.writeStream.format("json").partitionBy("s").option("checkpointLocation", str(tmp_path / "ck"))
         .trigger(availableNow=True).toTable("json_t"))
    table = spark.table("json_t")
    assert table.columns == ["id", "s"]
    assert sorted(tuple(r) for r in table.collect()) == [(1, "a"), (2, "b"), (3, "a")]
    assert sorted(p.name for p in (warehouse / "json_t").iterdir() if p.name.startswith("s=")) == ["s=a", "s=b"]
    spark.createDataFrame([(9, "z")], "id long, s string").createOrReplaceTempView("v")
    try:
        with pytest.raises(AnalysisException, match="Temporary view v doesn't support streaming write"):
            stream.writeStream.option("checkpointLocation", str(tmp_path / "ck2")).toTable("v")
    finally:
        spark.catalog.dropTempView("v")


def test_read_stream_table_follows_new_files_of_the_table(spark: SparkSession, warehouse: Path,
                                                          tmp_path: Path) -> None:
    spark.createDataFrame([(1, "a"), (2, "b")], "id long, s string").write.saveAsTable("src_t")
    stream = spark.readStream.table("src_t")
    assert stream.isStreaming and stream.schema.simpleString() == "struct<id:bigint,s:string>"
    out = tmp_path / "out"
    checkpoint = str(tmp_path / "ck")

    def run() -> list[tuple[object, ...]]:
        _run(spark.readStream.table("src_t").writeStream.format("parquet").option("path", str(out))
             .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
        return sorted(tuple(r) for r in spark.read.parquet(str(out)).collect())
    assert run() == [(1, "a"), (2, "b")]
    spark.createDataFrame([(3, "c")], "id long, s string").write.mode("append").saveAsTable("src_t")
    assert run() == [(1, "a"), (2, "b"), (3, "c")]
    with pytest.raises(AnalysisException, match="The table or view `nope` cannot be found"):
        spark.readStream.table("nope")


def test_read_stream_table_of_views(spark: SparkSession) -> None:
    spark.createDataFrame([(1, "a")], "id long, s string").createOrReplaceTempView("batch_view")
    stream = MemoryStream("id long", spark)
    stream.toDF().createOrReplaceTempView("stream_view")
    try:
        with pytest.raises(AnalysisException, match="batch_view is not a temp view of streaming logical plan"):
            spark.readStream.table("batch_view")
        query = spark.readStream.table("stream_view").writeStream.format("memory").queryName("from_view").start()
        try:
            stream.addData([5, 6])
            query.processAllAvailable(timeout=DEADLINE)
        finally:
            query.stop()
        assert sorted(r.id for r in spark.table("from_view").collect()) == [5, 6]
    finally:
        spark.catalog.dropTempView("batch_view")
        spark.catalog.dropTempView("stream_view")


def test_orc_streams_in_and_out(spark: SparkSession, tmp_path: Path) -> None:
    spark.createDataFrame([(1, "a")], "id long, s string").write.orc(str(tmp_path / "in"))
    stream = spark.readStream.schema("id long, s string").orc(str(tmp_path / "in"))
    _run(stream.writeStream.format("orc").option("path", str(tmp_path / "out"))
         .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
    assert [tuple(r) for r in spark.read.orc(str(tmp_path / "out")).collect()] == [(1, "a")]


def test_the_default_sink_is_sparks_default_source(spark: SparkSession, tmp_path: Path) -> None:
    stream = MemoryStream("id long", spark).toDF()
    with pytest.raises(IllegalArgumentException, match="'path' is not specified"):
        stream.writeStream.option("checkpointLocation", str(tmp_path / "ck")).start()
    query = stream.writeStream.option("checkpointLocation", str(tmp_path / "ck")).start(str(tmp_path / "out"))
    query.stop()
    assert (tmp_path / "out" / "_spark_metadata").is_dir()  # a parquet file sink, as Spark's default
