"""RANGE frames with INTERVAL offsets over a timestamp or date ordering, against a model.

The model, per row with ordering value ``t`` (nulls aside): the frame holds the rows of its
partition whose value ``u`` satisfies ``t - before <= u <= t + after`` in an ascending
ordering (``t + before >= u >= t - after`` in a descending one); a row with a null value
gets its null peers.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import AnalysisException, SparkSession

T0 = datetime.datetime(2024, 1, 1)
ROWS = st.lists(st.tuples(st.integers(0, 1), st.one_of(st.none(), st.integers(0, 72)), st.integers(1, 50)),
                min_size=1, max_size=10)


def model(rows: list[tuple[int, Any, int]], before: int, after: int, ascending: bool) -> list[tuple[Any, ...]]:
    out = []
    for k, hour, v in rows:
        same = [(h, w) for kk, h, w in rows if kk == k]
        if hour is None:
            total = sum(w for h, w in same if h is None)
        elif ascending:
            total = sum(w for h, w in same if h is not None and hour - before <= h <= hour + after)
        else:
            total = sum(w for h, w in same if h is not None and hour - after <= h <= hour + before)
        out.append((k, hour, v, total))
    return sorted(out, key=repr)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS, before=st.integers(0, 30), after=st.integers(0, 30), ascending=st.booleans())
def test_interval_range_frames_match_the_model(spark: SparkSession, rows: list[tuple[int, Any, int]], before: int,
                                               after: int, ascending: bool) -> None:
    data = [(k, None if h is None else T0 + datetime.timedelta(hours=h), h, v) for k, h, v in rows]
    spark.createDataFrame(data, "k int, ts timestamp, h int, v int").createOrReplaceTempView("iv")
    direction = "ASC" if ascending else "DESC"
    got = spark.sql(f"SELECT k, h, v, sum(v) OVER (PARTITION BY k ORDER BY ts {direction} RANGE BETWEEN "
                    f"INTERVAL '{before}' HOUR PRECEDING AND INTERVAL {after * 60} MINUTES FOLLOWING) AS s "
                    "FROM iv").collect()
    assert sorted((tuple(r) for r in got), key=repr) == model(rows, before, after, ascending)


def test_date_ordering_and_current_row(spark: SparkSession) -> None:
    days = [datetime.date(2024, 1, d) for d in (1, 1, 2, 4)]
    spark.createDataFrame([(d, i) for i, d in enumerate(days)], "d date, i int").createOrReplaceTempView("ivd")
    got = spark.sql("SELECT i, count(*) OVER (ORDER BY d RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW) "
                    "AS n FROM ivd ORDER BY i").collect()
    assert [r.n for r in got] == [2, 2, 3, 1]


def test_offsets_and_ordering_types_must_agree(spark: SparkSession) -> None:
    spark.createDataFrame([(1, datetime.datetime(2024, 1, 1))], "v int, ts timestamp").createOrReplaceTempView("ivx")
    with pytest.raises(AnalysisException, match="INTERVAL offsets a timestamp or date one"):
        spark.sql("SELECT sum(v) OVER (ORDER BY v RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW) "
                  "FROM ivx").collect()
    with pytest.raises(AnalysisException, match="Number offsets"):
        spark.sql("SELECT sum(v) OVER (ORDER BY ts RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ivx").collect()
    with pytest.raises(AnalysisException, match="A ROWS frame counts rows"):
        spark.sql("SELECT sum(v) OVER (ORDER BY ts ROWS BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW) "
                  "FROM ivx").collect()
    with pytest.raises(AnalysisException, match="lower bound of a window frame"):
        spark.sql("SELECT sum(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL 1 DAY FOLLOWING AND CURRENT ROW) "
                  "FROM ivx").collect()
