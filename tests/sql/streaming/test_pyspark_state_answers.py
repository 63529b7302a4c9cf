"""``applyInPandasWithState`` against PySpark 4.0.1's recorded answers, micro-batch by micro-batch.

``data/pyspark_state_answers.json`` holds, for four state functions below (a running count,
a session closed by an event-time timeout, a sum emitted once over a threshold, and one
that reports the watermark it sees), the rows of six JSON files read one per micro-batch
and the rows each ``foreachBatch`` call got in PySpark 4.0.1 (its Python workers on
pyarrow 19), no-data batches included: timeouts fire, state goes and the watermark moves
in the same batches here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.streaming.state import GroupState, GroupStateTimeout

DEADLINE = 60.0
CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "pyspark_state_answers.json").read_text("utf-8"))


def running_count(key: tuple[Any, ...], pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    total = state.get[0] if state.exists else 0
    seen = sum(len(pdf) for pdf in pdfs)
    total += seen
    state.update((total,))
    yield pd.DataFrame({"k": [key[0]], "n": [total], "batch": [seen]})


def timeout_session(key: tuple[Any, ...], pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    if state.hasTimedOut:
        n, last = state.get
        state.remove()
        yield pd.DataFrame({"k": [key[0]], "n": [n], "closed": [True], "last": [last]})
        return
    n, last = state.get if state.exists else (0, 0)
    for pdf in pdfs:
        n += len(pdf)
        last = max(last, int(pdf["ts"].max()))
    state.update((n, last))
    state.setTimeoutTimestamp(last * 1000 + 10_000)
    yield pd.DataFrame({"k": [key[0]], "n": [n], "closed": [False], "last": [last]})


def sum_until(key: tuple[Any, ...], pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    total = state.get[0] if state.exists else 0
    for pdf in pdfs:
        total += int(pdf["v"].fillna(0).sum())
    if total > 10:
        state.remove()
        yield pd.DataFrame({"k": [key[0]], "s": [total]})
    else:
        state.update((total,))


def watermark_probe(key: tuple[Any, ...], pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    rows = sum(len(pdf) for pdf in pdfs)
    watermark = state.getCurrentWatermarkMs()
    if state.hasTimedOut:
        state.remove()
        yield pd.DataFrame({"k": [key[0]], "rows": [rows], "wm": [watermark], "timeout": [True]})
        return
    state.update((rows,))
    state.setTimeoutTimestamp(max(watermark, 0) + 5_000)
    yield pd.DataFrame({"k": [key[0]], "rows": [rows], "wm": [watermark], "timeout": [False]})


#: function -> (output schema, state schema)
FUNCTIONS = {
    "running_count": (running_count, "k string, n long, batch long", "n long"),
    "timeout_session": (timeout_session, "k string, n long, closed boolean, last long", "n long, last long"),
    "sum_until": (sum_until, "k string, s long", "s long"),
    "watermark_probe": (watermark_probe, "k string, rows long, wm long, timeout boolean", "rows long"),
}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_state_functions_match_pyspark(spark2: SparkSession, case: dict[str, Any], tmp_path: Path) -> None:
    spark2.conf.set("spark.sql.session.timeZone", "UTC")
    spark2.conf.set("spark.sql.shuffle.partitions", "2")
    source = tmp_path / "in"
    source.mkdir()
    for i, rows in enumerate(case["files"]):
        path = source / f"part-{i:03d}.json"
        path.write_text("".join(json.dumps({"ts": ts, "k": k, "v": v}) + "\n" for ts, k, v in rows), "utf-8")
        os.utime(path, (1_700_000_000 + 10 * i, 1_700_000_000 + 10 * i))
    events = (spark2.readStream.schema("ts long, k string, v long").option("maxFilesPerTrigger", 1)
              .json(str(source)).withColumn("t", F.timestamp_seconds("ts")))
    if case["delay"]:
        events = events.withWatermark("t", case["delay"])
    func, output_schema, state_schema = FUNCTIONS[case["function"]]
    batches: list[list[Any]] = []
    query = (events.groupBy("k")
             .applyInPandasWithState(func, output_schema, state_schema, case["mode"],
                                     getattr(GroupStateTimeout, case["timeout"]))
             .writeStream.outputMode(case["mode"])
             .foreachBatch(lambda df, i: batches.append([i, sorted(str(tuple(r)) for r in df.collect())]))
             .option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True).start())
    if not query.awaitTermination(DEADLINE):
        query.stop()
        raise AssertionError(f"{case['id']} did not end within {DEADLINE} s")
    assert batches == case["batches"]
