"""``groupBy(...).pivot(...)`` against a plain-Python pivot table.

The model: for every group and pivot value, the aggregate over that pair's rows, or
null when the group has no row with that value (``count`` too, as Spark's pivot gives).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
rows = st.lists(st.tuples(st.integers(0, 2), st.one_of(st.none(), st.sampled_from(["a", "B", "c"])),
                          st.one_of(st.none(), st.integers(-5, 5))), min_size=1, max_size=25)


@given(data=rows, given_values=st.booleans())
@PROPERTY
def test_pivot_matches_a_plain_python_pivot_table(spark: SparkSession, data: list[tuple[Any, ...]],
                                                  given_values: bool) -> None:
    df = spark.createDataFrame(data, "g int, p string, v int")
    found = sorted({p for _, p, _ in data}, key=lambda p: (p is not None, p or ""))  # nulls first, as Spark
    values = ["c", "a", "zz"] if given_values else found
    got = df.groupBy("g").pivot("p", values if given_values else None).agg(
        F.sum("v").alias("s"), F.count("v").alias("n")).collect()
    cells: dict[tuple[int, Any], list[Any]] = defaultdict(list)
    for g, p, v in data:
        cells[(g, p)].append(v)
    expected = {}
    for g in {g for g, _, _ in data}:
        row = []
        for value in values:
            members = cells.get((g, value))
            non_null = [v for v in members or [] if v is not None]
            row += [None, None] if not members else [sum(non_null) if non_null else None, len(non_null)]
        expected[g] = row
    assert {r[0]: list(r[1:]) for r in got} == expected
    names = ["null" if v is None else v for v in values]
    assert df.groupBy("g").pivot("p", values).agg(F.sum("v").alias("s"), F.count("v").alias("n")).columns == \
        ["g", *[f"{n}_{a}" for n in names for a in ("s", "n")]]


def test_pivot_spark_example_and_names(spark: SparkSession) -> None:
    df = spark.createDataFrame([(2012, "dotNET", 10000), (2012, "Java", 20000), (2012, "dotNET", 5000),
                                (2013, "dotNET", 48000), (2013, "Java", 30000)],
                               "year int, course string, earnings long")
    out = df.groupBy("year").pivot("course", ["dotNET", "Java"]).sum("earnings").orderBy("year")
    assert out.columns == ["year", "dotNET", "Java"]
    assert [tuple(r) for r in out.collect()] == [(2012, 15000, 20000), (2013, 48000, 30000)]
    by_year = df.groupBy("course").pivot("year").agg(F.sum("earnings"), F.max("earnings")).orderBy("course")
    assert by_year.columns == ["course", "2012_sum(earnings)", "2012_max(earnings)", "2013_sum(earnings)",
                               "2013_max(earnings)"]
    assert [tuple(r) for r in df.groupBy().pivot("year").count().collect()] == [(3, 2)]
    with pytest.raises(AnalysisException, match="Repeated pivots"):
        df.groupBy("year").pivot("course").pivot("year")
