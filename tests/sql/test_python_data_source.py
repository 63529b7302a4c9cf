"""The Python data source API (``spark.dataSource.register``), batch and streaming, against PySpark 4.0.1.

The expected rows, call orders, messages and errors are what PySpark 4.0.1 gave for the same
classes (run beside dstreams and diffed); the readers and writers run in worker processes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from rdd import TaskContext

from dstream.sql import Row, SparkSession
from dstream.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
    InputPartition,
    SimpleDataSourceStreamReader,
    WriterCommitMessage,
)
from dstream.sql.errors import AnalysisException, PySparkNotImplementedError, PySparkRuntimeError


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local[2]").appName("python-data-source")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    yield session
    session.stop()


class RangePartition(InputPartition):
    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


class CounterReader(DataSourceReader):
    def __init__(self, options: Any) -> None:
        self.options = options

    def partitions(self) -> list[InputPartition]:
        n, k = int(self.options.get("n", 4)), int(self.options.get("numPartitions", 2))
        step = (n + k - 1) // k
        return [RangePartition(i, min(i + step, n)) for i in range(0, n, step)]

    def read(self, partition: Any) -> Iterator[tuple[Any, ...]]:
        for i in range(partition.start, partition.end):
            yield (i, f"v{i}", self.options.get("Path"))


@dataclass
class Count(WriterCommitMessage):
    count: int


class FileWriter(DataSourceWriter):
    def __init__(self, options: Any, overwrite: bool) -> None:
        self.path, self.overwrite = options["path"], overwrite

    def write(self, iterator: Iterator[Row]) -> Count:
        rows = [r.asDict() for r in iterator]
        if any(r.get("s") == "boom" for r in rows):
            raise ValueError("boom")
        with open(os.path.join(self.path, f"part-{TaskContext.get().partitionId()}.json"), "w") as f:
            json.dump(rows, f)
        return Count(len(rows))

    def commit(self, messages: list[Any]) -> None:
        with open(os.path.join(self.path, "_commit"), "w") as f:
            f.write(json.dumps([m.count for m in messages] + [self.overwrite]))

    def abort(self, messages: list[Any]) -> None:
        with open(os.path.join(self.path, "_abort"), "w") as f:
            f.write(json.dumps([m is None for m in messages]))


class Counter(DataSource):
    @classmethod
    def name(cls) -> str:
        return "counter"

    def schema(self) -> str:
        return "id int, value string, path string"

    def reader(self, schema: Any) -> DataSourceReader:
        return CounterReader(self.options)

    def writer(self, schema: Any, overwrite: bool) -> DataSourceWriter:
        return FileWriter(self.options, overwrite)


class OneShot(DataSource):
    """No partitions(): one partition, None; rows as lists, tuples and record batches."""

    @classmethod
    def name(cls) -> str:
        return "oneshot"

    def schema(self) -> str:
        return "a long, b string"

    def reader(self, schema: Any) -> DataSourceReader:
        class Reader(DataSourceReader):
            def read(self, partition: Any) -> Iterator[Any]:
                yield [1 if partition is None else 0, "list"]
                yield pa.RecordBatch.from_pydict({"a": [2, 3], "b": ["x", "y"]})
                yield (4, "tuple")
        return Reader()


class Narrow(DataSource):
    @classmethod
    def name(cls) -> str:
        return "narrow"

    def schema(self) -> str:
        return "a int, b int"

    def reader(self, schema: Any) -> DataSourceReader:
        class Reader(DataSourceReader):
            def read(self, partition: Any) -> Iterator[Any]:
                yield (1,)
        return Reader()


class ArrowSink(DataSource):
    @classmethod
    def name(cls) -> str:
        return "arrowsink"

    def writer(self, schema: Any, overwrite: bool) -> DataSourceWriter:
        path = self.options["path"]

        class Writer(DataSourceArrowWriter):
            def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
                rows = sum(b.num_rows for b in iterator)
                with open(os.path.join(path, f"n-{TaskContext.get().partitionId()}"), "w") as f:
                    f.write(str(rows))
                return Count(rows)
        return Writer()


def test_batch_reads(spark: SparkSession) -> None:
    for cls in (Counter, OneShot, Narrow):
        spark.dataSource.register(cls)
    df = spark.read.format("counter").option("n", 5).load("/some/where")
    assert df.schema.simpleString() == "struct<id:int,value:string,path:string>"
    assert df.collect() == [Row(id=i, value=f"v{i}", path="/some/where") for i in range(5)]
    assert df.rdd.getNumPartitions() == 2
    assert spark.read.format("Counter").schema("a long, b string, c string").load().collect() == [
        Row(a=i, b=f"v{i}", c=None) for i in range(4)]
    assert spark.read.format("oneshot").load().collect() == [
        Row(a=1, b="list"), Row(a=2, b="x"), Row(a=3, b="y"), Row(a=4, b="tuple")]
    with pytest.raises(PySparkRuntimeError, match="DATA_SOURCE_RETURN_SCHEMA_MISMATCH.*Expected: 2 columns, "
                                                  "Found: 1 columns"):
        spark.read.format("narrow").load().collect()
    with pytest.raises(AnalysisException, match="DATA_SOURCE_NOT_FOUND"):
        spark.read.format("nosuch").load()
    with pytest.raises(AnalysisException, match="DATA_SOURCE_NOT_FOUND"):
        spark.newSession().read.format("counter").load()  # registrations are the session's own


def test_batch_writes(spark: SparkSession, tmp_path: Path) -> None:
    spark.dataSource.register(Counter)
    spark.dataSource.register(ArrowSink)
    out = str(tmp_path)
    spark.range(5).selectExpr("id", "cast(id as string) s").repartition(2).write.format("counter") \
        .mode("append").save(out)
    assert sorted(os.listdir(out)) == ["_commit", "part-0.json", "part-1.json"]
    assert open(os.path.join(out, "_commit")).read() == "[2, 3, false]"
    spark.range(3).write.format("counter").mode("overwrite").option("path", out).save()
    assert open(os.path.join(out, "_commit")).read() == "[1, 2, true]"
    for mode, shown in (("error", "ErrorIfExists"), ("ignore", "Ignore")):
        with pytest.raises(AnalysisException, match=f'UNSUPPORTED_DATA_SOURCE_SAVE_MODE.*"{shown}" mode'):
            spark.range(3).write.format("counter").mode(mode).save(out)
    with pytest.raises(Exception, match="boom"):
        spark.createDataFrame([(1, "boom")], "id long, s string").write.format("counter").mode("append").save(out)
    assert json.loads(open(os.path.join(out, "_abort")).read()) == [True]
    arrow_out = tmp_path / "arrow"
    arrow_out.mkdir()
    spark.range(7).repartition(2).write.format("arrowsink").mode("append").save(str(arrow_out))
    assert sum(int(open(arrow_out / f).read()) for f in os.listdir(arrow_out)) == 7


def test_missing_methods_are_not_implemented() -> None:
    with pytest.raises(PySparkNotImplementedError, match=r"\[NOT_IMPLEMENTED\] reader is not implemented"):
        DataSource({}).reader(None)  # type: ignore[arg-type]
    assert DataSource.name() == "DataSource"


class StepPartition(InputPartition):
    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


class StepReader(DataSourceStreamReader):
    def __init__(self, log: str) -> None:
        self.log, self.n = log, 0

    def _note(self, *what: Any) -> None:
        with open(self.log, "a") as f:
            f.write(" ".join(map(str, what)) + "\n")

    def initialOffset(self) -> dict[str, int]:  # noqa: N802 - the API's name
        self._note("initialOffset")
        return {"offset": 0}

    def latestOffset(self) -> dict[str, int]:  # noqa: N802
        self.n = min(self.n + 2, 6)
        self._note("latestOffset", self.n)
        return {"offset": self.n}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> list[InputPartition]:
        self._note("partitions", start, end)
        return [StepPartition(start["offset"], end["offset"])]

    def read(self, partition: Any) -> Iterator[tuple[Any, ...]]:
        for i in range(partition.start, partition.end):
            yield (i, f"r{i}")

    def commit(self, end: dict[str, int]) -> None:
        self._note("commit", end)


class Simple(SimpleDataSourceStreamReader):
    def initialOffset(self) -> dict[str, int]:  # noqa: N802
        return {"o": 0}

    def read(self, start: dict[str, int]) -> tuple[Iterator[tuple[Any, ...]], dict[str, int]]:
        end = min(start["o"] + 2, 5)
        return iter([(i, f"s{i}") for i in range(start["o"], end)]), {"o": end}

    def readBetweenOffsets(self, start: dict[str, int], end: dict[str, int]) -> Iterator[tuple[Any, ...]]:  # noqa: N802
        return iter([(i, f"again{i}") for i in range(start["o"], end["o"])])


@dataclass
class Rows(WriterCommitMessage):
    n: int


class BatchLog(DataSourceStreamWriter):
    def __init__(self, path: str) -> None:
        self.path = path

    def write(self, iterator: Iterator[Row]) -> Rows:
        return Rows(len(list(iterator)))

    def commit(self, messages: list[Any], batchId: int) -> None:  # noqa: N803 - the API's name
        with open(self.path, "a") as f:
            f.write(json.dumps([batchId, [m.n for m in messages]]) + "\n")


class Streams(DataSource):
    @classmethod
    def name(cls) -> str:
        return "streams"

    def schema(self) -> str:
        return "id int, v string"

    def streamReader(self, schema: Any) -> DataSourceStreamReader:  # noqa: N802
        return StepReader(self.options["log"])

    def streamWriter(self, schema: Any, overwrite: bool) -> DataSourceStreamWriter:  # noqa: N802
        return BatchLog(self.options["path"])


class SimpleStreams(DataSource):
    @classmethod
    def name(cls) -> str:
        return "simplestreams"

    def schema(self) -> str:
        return "id int, v string"

    def simpleStreamReader(self, schema: Any) -> SimpleDataSourceStreamReader:  # noqa: N802
        return Simple()


def _progress(query: Any) -> list[tuple[Any, ...]]:
    return [(p["batchId"], p["numInputRows"], p["sources"][0]["startOffset"], p["sources"][0]["endOffset"])
            for p in query.recentProgress if p["numInputRows"]]


def test_stream_readers(spark: SparkSession, tmp_path: Path) -> None:
    spark.dataSource.register(Streams)
    spark.dataSource.register(SimpleStreams)
    log = str(tmp_path / "log")
    df = spark.readStream.format("streams").option("log", log).load()
    assert df.isStreaming and df.schema.simpleString() == "struct<id:int,v:string>"
    query = df.writeStream.format("memory").queryName("py_stream").start()
    try:
        query.processAllAvailable(60.0)
    finally:
        query.stop()
    assert sorted(spark.table("py_stream").collect()) == [Row(id=i, v=f"r{i}") for i in range(6)]
    assert _progress(query) == [(0, 2, "None", '{"offset": 2}'), (1, 2, '{"offset": 2}', '{"offset": 4}'),
                                (2, 2, '{"offset": 4}', '{"offset": 6}')]
    calls = open(log).read().splitlines()
    # PySpark's order; it polls latestOffset once less before its query stops.
    assert calls[:9] == ["latestOffset 2", "initialOffset", "partitions {'offset': 0} {'offset': 2}", "latestOffset 4",
                         "commit {'offset': 2}", "partitions {'offset': 2} {'offset': 4}", "latestOffset 6",
                         "commit {'offset': 4}", "partitions {'offset': 4} {'offset': 6}"]
    simple = spark.readStream.format("simplestreams").load().writeStream.format("memory").queryName("py_simple") \
        .start()
    try:
        simple.processAllAvailable(60.0)
    finally:
        simple.stop()
    assert sorted(spark.table("py_simple").collect()) == [Row(id=i, v=f"s{i}") for i in range(5)]
    assert _progress(simple) == [(0, 2, "None", '{"o": 2}'), (1, 2, '{"o": 2}', '{"o": 4}'),
                                 (2, 1, '{"o": 4}', '{"o": 5}')]


def test_simple_reader_reads_a_rerun_batch_between_offsets(spark: SparkSession) -> None:
    # A batch whose rows were not read in this run (a restart) is read with readBetweenOffsets.
    from dstream.sql.local_data import attributes_of
    from dstream.sql.streaming.python_data_source import PythonSourceProvider

    provider = PythonSourceProvider(SimpleStreams)
    schema = provider.schema(spark, {}, None)
    source = provider.create(spark, {}, schema, "")
    plan = source.get_batch({"o": 2}, {"o": 4}, attributes_of(schema))
    assert spark._new_dataframe(plan).collect() == [Row(id=2, v="again2"), Row(id=3, v="again3")]


def test_a_readers_last_latest_offset_bounds_no_wait(spark: SparkSession, tmp_path: Path) -> None:
    # processAllAvailable ends at a source's reported latest offset when it has one. A stream
    # reader's latestOffset() moves on with each call, so the source reports none: a wait
    # that began after the first batch once returned with the later rows unread.
    from dstream.sql.streaming.python_data_source import PythonSourceProvider

    provider = PythonSourceProvider(Streams)
    options = {"log": str(tmp_path / "log")}
    source = provider.create(spark, options, provider.schema(spark, options, None), "")
    assert source.latest_offset(None, True) == {"offset": 2}
    assert source.reports_latest_offset() is None


def test_stream_writer(spark: SparkSession, tmp_path: Path) -> None:
    spark.dataSource.register(Streams)
    out = str(tmp_path / "batches")
    query = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 3).load()
             .writeStream.format("streams").option("checkpointLocation", str(tmp_path / "ck")).option("path", out)
             .trigger(availableNow=True).start())
    assert query.awaitTermination(60.0)
    assert open(out).read() == "[0, [2, 1]]\n"
