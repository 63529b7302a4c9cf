"""DataFrame.freqItems: Spark's one-pass frequent items. Its guarantee is the model: every value
in more than ``support`` of the rows is listed; nothing listed is absent from the column."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql.errors import PySparkTypeError, PySparkValueError

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@given(values=st.lists(st.one_of(st.none(), st.integers(0, 12)), min_size=1, max_size=60),
       support=st.sampled_from([0.05, 0.1, 0.25, 0.5]), parts=st.integers(1, 3))
@PROPERTY
def test_frequent_values_are_always_listed(spark: SparkSession, values: list[Any], support: float,
                                           parts: int) -> None:
    df = spark.createDataFrame([(v, str(v)) for v in values], "a int, s string").repartition(parts)
    row = df.freqItems(["a", "s"], support).first()
    counts = Counter(values)
    frequent = {v for v, n in counts.items() if n > support * len(values)}
    assert frequent <= set(row.a_freqItems) <= set(values)
    assert {str(v) for v in frequent} <= set(row.s_freqItems) <= {str(v) for v in values}
    assert len(row.a_freqItems) <= int(1 / support)


def test_names_types_default_support_and_errors(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 11), (1, 11), (3, 10), (4, 8), (4, 8)], ["c1", "c2"])
    out = df.stat.freqItems(("c1", "c2"))
    assert out.columns == ["c1_freqItems", "c2_freqItems"]
    assert out.schema.simpleString() == "struct<c1_freqItems:array<bigint>,c2_freqItems:array<bigint>>"
    row = out.first()
    assert sorted(row.c1_freqItems) == [1, 3, 4] and sorted(row.c2_freqItems) == [8, 10, 11]
    with pytest.raises(PySparkTypeError, match="list or tuple"):
        df.freqItems("c1")
    with pytest.raises(PySparkValueError, match="Support must be in"):
        df.freqItems(["c1"], 0.0)
