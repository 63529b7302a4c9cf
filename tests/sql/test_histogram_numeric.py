"""histogram_numeric: Spark's streaming histogram, checked by what any such histogram keeps.

With at most ``nb`` distinct values the bins are exactly the values and their counts; with
more, the bins still hold every value once (heights sum to the count) and keep the mean
(a merge puts a bin at the weighted mean of the two it replaces). The tie-breaking
generator is java.util.Random: its first numbers for Spark's seed are pinned as Java 17
printed them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException
from dstream.sql.expressions.java_random import JavaRandom

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_the_tie_breaking_generator_is_javas() -> None:
    generator = JavaRandom(31183)
    # new java.util.Random(31183).nextDouble(), three times (Java 17)
    assert [generator.next_double() for _ in range(3)] == [0.10748527202486546, 0.893630159548549,
                                                             0.1375869077362396]
    # new java.util.Random(7): nextInt(16), nextInt(1000), nextInt(Integer.MAX_VALUE), nextInt(1 << 30),
    # nextInt(3) (jshell, Java 17): the power-of-two path and the rejection loop.
    generator = JavaRandom(7)
    assert [generator.next_int(b) for b in (16, 1000, 2**31 - 1, 1 << 30, 3)] == [11, 164, 1608829485, 10339022, 1]


@given(values=st.lists(st.one_of(st.none(), st.integers(-50, 50).map(float)), min_size=1, max_size=60),
       nb=st.integers(2, 12))
@PROPERTY
def test_bins_count_every_value_and_keep_the_mean(spark: SparkSession, values: list[Any], nb: int) -> None:
    df = spark.createDataFrame([(v,) for v in values], "v double")
    bins = df.select(F.histogram_numeric("v", F.lit(nb)).alias("h")).first().h
    present = [v for v in values if v is not None]
    if not present:
        assert bins is None
        return
    xs, ys = [b.x for b in bins], [b.y for b in bins]
    assert len(bins) <= nb and xs == sorted(xs) and sum(ys) == len(present)
    assert sum(x * y for x, y in zip(xs, ys)) / sum(ys) == pytest.approx(sum(present) / len(present), abs=1e-9)
    if len(set(present)) <= nb:
        assert dict(zip(xs, ys)) == {v: float(c) for v, c in Counter(present).items()}


def test_sparks_example_types_and_errors(spark: SparkSession) -> None:
    row = spark.sql("SELECT histogram_numeric(col, 5) AS h FROM VALUES (0), (1), (2), (10) AS tab(col)").first()
    assert [(b.x, b.y) for b in row.h] == [(0, 1.0), (1, 1.0), (2, 1.0), (10, 1.0)]
    hist = spark.range(100).select(F.histogram_numeric("id", 3).alias("h"))
    assert hist.schema["h"].dataType.simpleString() == "array<struct<x:bigint,y:double>>"
    assert sum(b.y for b in hist.first().h) == 100
    with pytest.raises(AnalysisException, match="at least 2"):
        spark.range(3).select(F.histogram_numeric("id", 1))
    grouped = spark.range(10).groupBy((F.col("id") % 2).alias("odd")).agg(F.histogram_numeric("id", 10).alias("h"))
    assert {r.odd: [b.x for b in r.h] for r in grouped.collect()} == {0: [0, 2, 4, 6, 8], 1: [1, 3, 5, 7, 9]}
