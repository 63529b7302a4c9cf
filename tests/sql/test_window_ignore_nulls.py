"""``IGNORE NULLS`` in SQL window calls: lag, lead, first_value, last_value, nth_value.

The model, per partition in order: ``lag(v, n) IGNORE NULLS`` is the ``n``-th non-null ``v``
before the row (the default when there are fewer), ``lead`` the ``n``-th after; the others
take their frame's non-null values only.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import AnalysisException, SparkSession

ROWS = st.lists(st.tuples(st.integers(0, 1), st.one_of(st.none(), st.integers(0, 9))), min_size=1, max_size=12)


def model(rows: list[tuple[int, Any]], n: int) -> list[tuple[Any, ...]]:
    out = []
    for t, (k, _) in enumerate(rows):
        part = [(tt, vv) for tt, (kk, vv) in enumerate(rows) if kk == k]
        before = [vv for tt, vv in part if tt < t and vv is not None]
        after = [vv for tt, vv in part if tt > t and vv is not None]
        upto = [vv for tt, vv in part if tt <= t and vv is not None]
        out.append((t, before[-n] if len(before) >= n else -1, after[n - 1] if len(after) >= n else None,
                    upto[-1] if upto else None, upto[n - 1] if len(upto) >= n else None))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS, n=st.integers(1, 3))
def test_ignore_nulls_match_the_model(spark: SparkSession, rows: list[tuple[int, Any]], n: int) -> None:
    spark.createDataFrame([(k, t, v) for t, (k, v) in enumerate(rows)], "k int, t int, v int") \
        .createOrReplaceTempView("ign")
    w = "OVER (PARTITION BY k ORDER BY t)"
    got = spark.sql(f"SELECT t, lag(v, {n}, -1) IGNORE NULLS {w}, lead(v, {n}) IGNORE NULLS {w}, "
                    f"last_value(v) IGNORE NULLS {w}, nth_value(v, {n}) IGNORE NULLS {w} FROM ign ORDER BY t").collect()
    assert [tuple(r) for r in got] == model(rows, n)


def test_respect_nulls_names_and_refusals(spark: SparkSession) -> None:
    spark.createDataFrame([(1, 5), (2, None), (3, 7)], "t int, v int").createOrReplaceTempView("ign2")
    df = spark.sql("SELECT lag(v) RESPECT NULLS OVER (ORDER BY t) AS r, lag(v) IGNORE NULLS OVER (ORDER BY t) AS i, "
                   "first_value(v, true) OVER (ORDER BY t DESC) AS f FROM ign2 ORDER BY t")
    assert [tuple(r) for r in df.collect()] == [(None, None, 7), (5, 5, 7), (None, 5, 7)]
    name = spark.sql("SELECT lag(v) IGNORE NULLS OVER (ORDER BY t) FROM ign2").columns[0]
    assert name.startswith("lag(v, 1, NULL) IGNORE NULLS OVER (")
    with pytest.raises(AnalysisException, match="does not support IGNORE NULLS"):
        spark.sql("SELECT sum(v) IGNORE NULLS OVER (ORDER BY t) FROM ign2").collect()
