"""Event time and watermarks on the manual path: MemoryStream in, processAllAvailable between batches."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.streaming import MemoryStream

DEADLINE = 30.0
EPOCH = dt.datetime(1970, 1, 1)


def ts(seconds: float) -> dt.datetime:
    return EPOCH + dt.timedelta(seconds=seconds)


def windowed_counts(spark: SparkSession, stream: MemoryStream, mode: str, window: str = "10 seconds",
                    delay: str = "10 seconds") -> tuple[Any, list[tuple[int, list[tuple[int, int, int]]]]]:
    """A windowed count with a watermark; returns the query and the batches it emitted."""
    out: list[tuple[int, list[tuple[int, int, int]]]] = []

    def collect(df: Any, batch_id: int) -> None:
        got = sorted((int((r.window.start - EPOCH).total_seconds()), int((r.window.end - EPOCH).total_seconds()),
                      r["count"]) for r in df.collect())
        out.append((batch_id, got))

    counts = (stream.toDF().withWatermark("t", delay).groupBy(F.window("t", window)).count())
    query = counts.writeStream.outputMode(mode).foreachBatch(collect).start()
    return query, out


def test_append_mode_emits_a_window_once_when_the_watermark_passes_its_end(spark: SparkSession) -> None:
    stream = MemoryStream("t timestamp", spark)
    query, out = windowed_counts(spark, stream, "append")
    stream.addData([ts(1), ts(2), ts(12)])
    query.processAllAvailable(timeout=DEADLINE)
    # max event time 12 s - 10 s delay: watermark 2 s, before the end of [0, 10): nothing final yet.
    assert [rows for _, rows in out if rows] == []
    stream.addData([ts(25)])
    query.processAllAvailable(timeout=DEADLINE)
    # watermark 15 s: [0, 10) is final; [10, 20) is not.
    assert [rows for _, rows in out if rows] == [[(0, 10, 2)]]
    assert query.lastProgress["numInputRows"] == 0  # the no-data batch emitted it
    assert query.lastProgress["eventTime"] == {"watermark": "1970-01-01T00:00:15.000Z"}
    stream.addData([ts(3)])  # late: its window ended at 10 s <= 15 s
    query.processAllAvailable(timeout=DEADLINE)
    late_batch = [p for p in query.recentProgress if p["numInputRows"] == 1][-1]
    assert late_batch["stateOperators"][0]["numRowsDroppedByWatermark"] == 1
    assert late_batch["eventTime"]["watermark"] == "1970-01-01T00:00:15.000Z"
    assert late_batch["eventTime"]["max"] == "1970-01-01T00:00:03.000Z"
    stream.addData([ts(14), ts(40)])  # 14 s still counts in [10, 20), which is open until the watermark passes 20 s
    query.processAllAvailable(timeout=DEADLINE)
    assert [rows for _, rows in out if rows] == [[(0, 10, 2)], [(10, 20, 2), (20, 30, 1)]]
    assert query.lastProgress["stateOperators"][0]["numRowsTotal"] == 1  # only [40, 50) is left


def test_update_mode_emits_changes_and_drops_state_behind_the_watermark(spark: SparkSession) -> None:
    stream = MemoryStream("t timestamp", spark)
    query, out = windowed_counts(spark, stream, "update")
    stream.addData([ts(1), ts(12)])
    query.processAllAvailable(timeout=DEADLINE)
    stream.addData([ts(2), ts(31)])
    query.processAllAvailable(timeout=DEADLINE)
    emitted = [rows for _, rows in out if rows]
    assert emitted[0] == [(0, 10, 1), (10, 20, 1)]
    assert emitted[1] == [(0, 10, 2), (30, 40, 1)]
    # watermark 21 s: [0, 10) and [10, 20) are gone from the state
    assert query.lastProgress["stateOperators"][0]["numRowsTotal"] == 1


def test_complete_mode_never_drops_late_rows(spark: SparkSession) -> None:
    stream = MemoryStream("t timestamp", spark)
    query, out = windowed_counts(spark, stream, "complete")
    stream.addData([ts(50)])
    query.processAllAvailable(timeout=DEADLINE)
    stream.addData([ts(1)])
    query.processAllAvailable(timeout=DEADLINE)
    assert out[-1][1] == [(0, 10, 1), (50, 60, 1)]


def spark_model(batches: list[list[int]], size: int, delay: int) -> tuple[Counter[tuple[int, int]], int]:
    """Spark's rules for an append-mode tumbling-window count with a watermark (times in seconds).

    Between data batches the engine runs the no-data batch the watermark asks for, so each
    data batch judges its rows, and evicts, with the watermark the previous batches left.
    """
    watermark = 0
    state: Counter[int] = Counter()
    emitted: Counter[tuple[int, int]] = Counter()
    dropped = 0
    for times in batches:
        late_windows = set()
        for t in times:
            start = t // size * size
            if start + size <= watermark:
                late_windows.add(start)
            else:
                state[start] += 1
        dropped += len(late_windows)  # counted after the map-side partial aggregation: once per window
        if times:
            watermark = max(watermark, max(times) - delay)
        for start in [s for s in state if s + size <= watermark]:
            emitted[(start, state.pop(start))] += 1
    return emitted, dropped


@settings(max_examples=15, deadline=None)
@given(st.lists(st.lists(st.integers(0, 120), max_size=6), min_size=1, max_size=6))
def test_append_windows_match_sparks_rules(spark: SparkSession, batches: list[list[int]]) -> None:
    stream = MemoryStream("t timestamp", spark)
    query, out = windowed_counts(spark, stream, "append", "10 seconds", "5 seconds")
    try:
        for times in batches:
            stream.addData([ts(t) for t in times])
            query.processAllAvailable(timeout=DEADLINE)
    finally:
        query.stop()
    got = Counter((start, n) for _, rows in out for start, _, n in rows)
    expected, dropped = spark_model(batches, 10, 5)
    assert got == expected
    assert sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in query.recentProgress
               if p["stateOperators"]) == dropped
