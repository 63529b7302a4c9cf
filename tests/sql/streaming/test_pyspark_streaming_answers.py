"""Structured Streaming queries against PySpark 4.0.1's recorded answers, micro-batch by micro-batch.

``data/pyspark_streaming_answers.json`` holds queries drawn at random from the operators a
stream runs (windowed aggregations with and without watermarks, chained aggregations,
session windows, deduplication, stream-static and stream-stream joins, global
aggregations, limits, unions of two streams, filters after ``withWatermark``, joins
followed by windowed aggregations) with their output mode, the rows of each input file, and what
PySpark 4.0.1 gave for the same files: the rows each micro-batch handed to
``foreachBatch`` (every column cast to a string, sorted), no-data batches included, or
the error condition and the start of its message. Each query reads its files one per
micro-batch (``maxFilesPerTrigger`` 1, ``trigger(availableNow=True)``), so the batches are
the same in both engines.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import SparkSession, Window
from dstream.sql import functions as F
from dstream.sql.errors import CapturedException

DEADLINE = 60.0
CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "pyspark_streaming_answers.json").read_text("utf-8"))


def _write_files(directory: Path, files: list[list[list[Any]]], names: tuple[str, str, str]) -> None:
    directory.mkdir()
    for i, rows in enumerate(files):
        path = directory / f"part-{i:03d}.json"
        path.write_text("".join(json.dumps({"ts": r[0], names[0]: r[1], names[1]: r[2], names[2]: r[3]}) + "\n"
                                for r in rows), "utf-8")
        # The file source takes files in modification-time order: one per batch, in this order.
        os.utime(path, (1_700_000_000 + 10 * i, 1_700_000_000 + 10 * i))


def _as_shown(df: Any) -> list[str]:
    text = df.selectExpr(*[f"cast(`{c}` as string) as `c{i}`" for i, c in enumerate(df.columns)]).collect()
    return sorted("|".join("NULL" if v is None else v for v in row) for row in text)


def _run(spark: SparkSession, case: dict[str, Any], tmp_path: Path) -> tuple[str, list[list[Any]]]:
    _write_files(tmp_path / "in1", case["in1"], ("k", "v", "s"))
    src = (spark.readStream.schema("ts long, k string, v long, s string").option("maxFilesPerTrigger", 1)
           .json(str(tmp_path / "in1")).withColumn("t", F.timestamp_seconds("ts")))
    static = spark.createDataFrame([("a", 1), ("b", 2), ("b", 3), (None, 4)], "k string, n int")
    scope: dict[str, Any] = {"src": src, "static": static, "F": F, "Window": Window}
    if "in2" in case:
        _write_files(tmp_path / "in2", case["in2"], ("k2", "w", "s2"))
        src2 = (spark.readStream.schema("ts long, k2 string, w long, s2 string")
                .option("maxFilesPerTrigger", 1).json(str(tmp_path / "in2"))
                .withColumn("t2", F.timestamp_seconds("ts")).drop("ts"))
        scope["src2"] = src2
        # The second stream under the first one's column names, for unions.
        scope["src2k"] = src2.select(F.col("k2").alias("k"), F.col("w").alias("v"), F.col("s2").alias("s"),
                                     F.col("t2").alias("t"))
    df = eval(case["code"], scope)  # noqa: S307 - the recorded query, written by us
    batches: list[list[Any]] = []
    query = (df.writeStream.outputMode(case["mode"]).foreachBatch(lambda b, i: batches.append([i, _as_shown(b)]))
             .option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True).start())
    if not query.awaitTermination(DEADLINE):
        query.stop()
        raise AssertionError(f"{case['id']} did not end within {DEADLINE} s")
    return df.schema.simpleString(), batches


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_micro_batches_match_pyspark(spark2: SparkSession, case: dict[str, Any], tmp_path: Path) -> None:
    spark2.conf.set("spark.sql.session.timeZone", "UTC")
    spark2.conf.set("spark.sql.shuffle.partitions", "2")
    if "error" in case:
        with pytest.raises(CapturedException) as caught:
            _run(spark2, case, tmp_path)
        assert caught.value.getCondition() == case["error"]["condition"], str(caught.value)
        assert case["error"]["message"] in str(caught.value)
    else:
        assert _run(spark2, case, tmp_path) == (case["schema"], case["batches"])


def test_chained_aggregations_in_update_mode_run_when_the_correctness_check_is_off(spark2: SparkSession,
                                                                                  tmp_path: Path) -> None:
    # PySpark 4.0.1 refuses this query with the check on, and runs it, batch by batch as here, with it off.
    words = [["a", "b", "a"], ["b", "c"], ["a", "c", "c", "d"]]
    code = 'src.groupBy("k").count().groupBy("count").agg(F.count("*").alias("n"))'
    case = {"id": "chained", "mode": "update", "code": code,
            "in1": [[[1_704_067_200 + 15 * i, k, None, None] for k in batch] for i, batch in enumerate(words)]}
    (tmp_path / "on").mkdir()
    (tmp_path / "off").mkdir()
    with pytest.raises(CapturedException, match="Detected pattern of possible 'correctness' issue"):
        _run(spark2, case, tmp_path / "on")
    spark2.conf.set("spark.sql.streaming.statefulOperator.checkCorrectness.enabled", "false")
    try:
        _, batches = _run(spark2, case, tmp_path / "off")
    finally:
        spark2.conf.unset("spark.sql.streaming.statefulOperator.checkCorrectness.enabled")
    assert batches == [[0, ["1|1", "2|1"]], [1, ["1|2", "2|2"]], [2, ["1|3", "3|2"]]]
