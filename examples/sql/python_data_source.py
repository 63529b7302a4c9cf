"""A data source written in Python: fake sensor readings, read as a batch and as a stream.

PySpark 4's Python data source API with the imports changed: a ``DataSource`` whose
reader splits the readings into partitions (each one read in its own task) and whose
stream reader gives the next readings at each micro-batch. Every reading is computed
from its number, so a batch read and a streaming read of the same numbers agree.

Usage: python_data_source.py [--master local[2]] [--rows 1000] [--partitions 4] [--rows-per-batch 250]
"""

from __future__ import annotations

import argparse
import datetime
import random
import sys
from collections.abc import Iterator
from typing import Any

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition

SENSORS = 5
START = datetime.datetime(2026, 1, 1)


def reading(n: int) -> tuple[str, datetime.datetime, float]:
    """Reading number ``n``: its sensor, time and value (the same on every run)."""
    rng = random.Random(n)
    return f"s{n % SENSORS}", START + datetime.timedelta(seconds=n), round(rng.gauss(20, 5), 2)


class Numbers(InputPartition):
    """The readings ``start`` to ``end - 1``."""

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


class SensorReader(DataSourceReader):
    def __init__(self, rows: int, partitions: int) -> None:
        self.rows, self.partitions_wanted = rows, partitions

    def partitions(self) -> list[InputPartition]:
        step = max(1, -(-self.rows // self.partitions_wanted))
        return [Numbers(i, min(i + step, self.rows)) for i in range(0, self.rows, step)]

    def read(self, partition: Any) -> Iterator[tuple[Any, ...]]:
        for n in range(partition.start, partition.end):
            yield reading(n)


class SensorStreamReader(DataSourceStreamReader):
    """``rowsPerBatch`` new readings per micro-batch, up to ``rows`` of them."""

    def __init__(self, rows: int, per_batch: int) -> None:
        self.rows, self.per_batch, self.available = rows, per_batch, 0

    def initialOffset(self) -> dict[str, int]:  # noqa: N802 - the API's names
        return {"offset": 0}

    def latestOffset(self) -> dict[str, int]:  # noqa: N802
        self.available = min(self.available + self.per_batch, self.rows)
        return {"offset": self.available}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> list[InputPartition]:
        return [Numbers(start["offset"], end["offset"])]

    def read(self, partition: Any) -> Iterator[tuple[Any, ...]]:
        for n in range(partition.start, partition.end):
            yield reading(n)


class FakeSensors(DataSource):
    """``spark.read.format("fakesensors")``: options ``rows``, ``numPartitions``, ``rowsPerBatch``."""

    @classmethod
    def name(cls) -> str:
        return "fakesensors"

    def schema(self) -> str:
        return "sensor string, ts timestamp, value double"

    def reader(self, schema: Any) -> DataSourceReader:
        return SensorReader(int(self.options.get("rows", 1000)), int(self.options.get("numPartitions", 4)))

    def streamReader(self, schema: Any) -> DataSourceStreamReader:  # noqa: N802 - the API's name
        return SensorStreamReader(int(self.options.get("rows", 1000)), int(self.options.get("rowsPerBatch", 250)))


def build_parser() -> argparse.ArgumentParser:
    """The example's command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--master", default="local[2]", help="local, local[N] or local[*]")
    parser.add_argument("--rows", type=int, default=1000, help="readings in all")
    parser.add_argument("--partitions", type=int, default=4, help="partitions of the batch read")
    parser.add_argument("--rows-per-batch", type=int, default=250, help="new readings per micro-batch")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    spark = SparkSession.builder.master(args.master).appName("PythonDataSource").getOrCreate()
    spark.dataSource.register(FakeSensors)

    readings = (spark.read.format("fakesensors").option("rows", args.rows)
                .option("numPartitions", args.partitions).load())
    print(f"batch read: {readings.count()} readings in {readings.rdd.getNumPartitions()} partitions")
    (readings.groupBy("sensor").agg(F.count("*").alias("readings"), F.round(F.avg("value"), 2).alias("mean"))
     .orderBy("sensor").show())

    stream = (spark.readStream.format("fakesensors").option("rows", args.rows)
              .option("rowsPerBatch", args.rows_per_batch).load())
    query = (stream.groupBy("sensor").count().writeStream.outputMode("complete").format("memory")
             .queryName("sensor_counts").start())
    query.processAllAvailable()
    query.stop()
    batches = [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]
    print(f"streamed: {sum(batches)} readings in {len(batches)} micro-batches")
    spark.table("sensor_counts").orderBy("sensor").show()
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
