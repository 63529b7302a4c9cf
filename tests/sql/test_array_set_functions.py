"""The added array functions against plain Python lists.

Models: Spark's set semantics stated with lists (one null kept as a value, first
occurrences in order), 1-based positions, and ``range`` for ``sequence``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import SparkRuntimeException

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
arrays = st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(0, 4)), max_size=6))


def unique(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


@given(pairs=st.lists(st.tuples(arrays, arrays), min_size=1, max_size=6), x=st.integers(0, 4),
       start=st.integers(-4, 4).filter(bool), length=st.integers(0, 3))
@PROPERTY
def test_array_functions_match_lists(spark: SparkSession, pairs: list[tuple[Any, Any]], x: int, start: int,
                                     length: int) -> None:
    df = spark.createDataFrame(pairs, "a array<int>, b array<int>")
    rows = df.select(F.array_union("a", "b"), F.array_intersect("a", "b"), F.array_except("a", "b"),
                     F.arrays_overlap("a", "b"), F.array_position("a", x), F.array_remove("a", x),
                     F.slice("a", start, length), F.array_join("a", "|", "~")).collect()
    for (a, b), row in zip(pairs, rows):
        if a is None:
            assert all(v is None for v in row)
            continue
        if b is None:
            assert row[:4] == (None, None, None, None)
        else:
            assert row[0] == unique(a + b)
            assert row[1] == [v for v in unique(a) if v in b]
            assert row[2] == [v for v in unique(a) if v not in b]
            common = {v for v in a if v is not None} & {v for v in b if v is not None}
            assert row[3] == (True if common else None if a and b and (None in a or None in b) else False)
        assert row[4] == next((i for i, v in enumerate(a, 1) if v == x), 0)
        assert row[5] == [v for v in a if v != x or v is None]
        begin = start - 1 if start > 0 else len(a) + start
        assert row[6] == ([] if begin < 0 else a[begin:begin + length])
        assert row[7] == "|".join("~" if v is None else str(v) for v in a)


@given(start=st.integers(-5, 5), stop=st.integers(-5, 5), step=st.one_of(st.none(), st.integers(-3, 3)))
@PROPERTY
def test_sequence_and_repeat(spark: SparkSession, start: int, stop: int, step: int | None) -> None:
    default = 1 if stop >= start else -1
    s = step if step is not None else default
    args = [F.lit(start), F.lit(stop)] + ([] if step is None else [F.lit(step)])
    df = spark.range(1).select(F.sequence(*args).alias("s"), F.array_repeat(F.lit(start), F.lit(abs(stop))).alias("r"))
    if s == 0 or (stop - start) * s < 0:
        with pytest.raises(SparkRuntimeException, match="INVALID_SEQUENCE_BOUNDARIES"):
            df.collect()
        return
    row = df.first()
    assert row.s == list(range(start, stop + (1 if s > 0 else -1), s))
    assert row.r == [start] * abs(stop)


def test_flatten_names_and_errors(spark: SparkSession) -> None:
    row = spark.sql("SELECT flatten(array(array(1, 2), array(3))) AS f, flatten(array(array(1), NULL)) AS n").first()
    assert (row.f, row.n) == ([1, 2, 3], None)
    df = spark.createDataFrame([([1, 2],)], "a array<int>")
    assert df.select(F.array_join("a", ","), F.slice("a", 1, 1), F.array_position("a", 2)).columns == [
        "array_join(a, ,)", "slice(a, 1, 1)", "array_position(a, 2)"]
    with pytest.raises(SparkRuntimeException, match="start"):
        df.select(F.slice("a", 0, 1)).collect()


@given(start=st.dates(dt.date(1990, 1, 1), dt.date(2030, 1, 1)), days=st.integers(-40, 40),
       step=st.one_of(st.none(), st.integers(1, 9)))
@PROPERTY
def test_sequence_of_dates_and_timestamps(spark: SparkSession, start: dt.date, days: int, step: int | None) -> None:
    stop = start + dt.timedelta(days=days)
    signed = None if step is None else (step if days >= 0 else -step)
    by = [] if signed is None else [F.expr(f"INTERVAL {signed} DAYS")]
    df = spark.createDataFrame([(start, stop)], "a date, b date")
    got = df.select(F.sequence("a", "b", *by).alias("s"),
                    F.sequence(F.col("a").cast("timestamp"), F.col("b").cast("timestamp"), *by).alias("t")).first()
    n = 1 if signed is None else abs(signed)
    model = [start + dt.timedelta(days=i) for i in range(0, days + (1 if days >= 0 else -1), n if days >= 0 else -n)]
    assert got.s == model
    assert got.t == [dt.datetime.combine(d, dt.time()) for d in model]


def test_sequence_steps_are_checked(spark: SparkSession) -> None:
    row = spark.sql("SELECT sequence(timestamp'2024-01-01 00:00', timestamp'2024-01-01 01:00', INTERVAL 20 MINUTES) "
                    "AS t").first()
    assert row.t == [dt.datetime(2024, 1, 1, 0, m) for m in (0, 20, 40)] + [dt.datetime(2024, 1, 1, 1, 0)]
    with pytest.raises(SparkRuntimeException, match="INVALID_SEQUENCE_STEP"):
        spark.sql("SELECT sequence(date'2024-01-01', date'2024-01-05', INTERVAL 1 HOUR)").collect()
    with pytest.raises(SparkRuntimeException, match="INVALID_SEQUENCE_BOUNDARIES"):
        spark.sql("SELECT sequence(date'2024-01-05', date'2024-01-01', INTERVAL 1 DAY)").collect()
    with pytest.raises(Exception, match="optional interval step"):
        spark.sql("SELECT sequence(date'2024-01-05', date'2024-01-01', 2)").collect()
