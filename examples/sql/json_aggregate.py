"""A grouped aggregate over JSON Lines: per-sensor statistics of readings.

PySpark's JSON reader and ``groupBy().agg()`` with the imports changed. Without a FILE
it writes a sample JSON Lines file first (some readings lack a value: nulls are
ignored by the aggregates, as in Spark SQL).

Usage: json_aggregate.py [FILE] [--master local[2]] [--records 5000]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom


def write_sample(path: Path, records: int, seed: int = 7) -> Path:
    """Write ``records`` JSON objects ``{"sensor", "ts", "value"}``, one per line."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        for i in range(records):
            record = {"sensor": f"s{rng.randrange(8)}", "ts": f"2026-01-01 00:{i // 60 % 60:02d}:{i % 60:02d}"}
            if rng.random() > 0.05:
                record["value"] = round(rng.gauss(20, 5), 2)
            f.write(json.dumps(record) + "\n")
    return path


def build_parser() -> argparse.ArgumentParser:
    """The example's command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", help="JSON Lines file with sensor, ts and value fields")
    parser.add_argument("--master", default="local[2]", help="local, local[N] or local[*]")
    parser.add_argument("--records", type=int, default=5000, help="records in the generated sample")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    spark = SparkSession.builder.master(args.master).appName("PythonJSONAggregate").getOrCreate()
    with tempfile.TemporaryDirectory() as scratch:
        path = args.file or str(write_sample(Path(scratch) / "readings.json", args.records))
        readings = spark.read.json(path)
        readings.printSchema()
        stats = (readings.groupBy("sensor")
                 .agg(F.count("*").alias("readings"), F.count("value").alias("with_value"),
                      F.round(F.avg("value"), 3).alias("mean"), F.min("value").alias("min"),
                      F.max("value").alias("max"))
                 .orderBy("sensor"))
        stats.show()
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
