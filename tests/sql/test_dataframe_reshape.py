"""``unpivot`` / ``melt`` and ``describe`` against a few lines of Python stating what they mean."""

from __future__ import annotations

import math
import statistics
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException, PySparkValueError
from dstream.sql.formatting import java_double_str

ROWS = st.lists(st.tuples(st.integers(-5, 5), st.one_of(st.none(), st.integers(-1000, 1000)),
                          st.one_of(st.none(), st.integers(-1000, 1000))), max_size=8)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS)
def test_unpivot_is_one_row_per_row_and_value_column(spark: SparkSession, rows: list[tuple[Any, ...]]) -> None:
    df = spark.createDataFrame(rows, "id int, a int, b bigint")
    got = df.unpivot("id", ["a", "b"], "var", "val").collect()
    assert [tuple(r) for r in got] == [(i, name, v) for i, a, b in rows for name, v in (("a", a), ("b", b))]
    assert df.melt(["id"], None, "var", "val").schema.simpleString() == "struct<id:int,var:string,val:bigint>"


def test_unpivot_with_expression_ids_and_its_errors(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 2.5, 3)], "id int, x double, y int")
    got = df.unpivot([(F.col("id") * 10).alias("k")], [F.col("y"), "x"], "which", "value").collect()
    assert [tuple(r) for r in got] == [(10, "y", 3.0), (10, "x", 2.5)]
    with pytest.raises(AnalysisException, match="UNPIVOT_REQUIRES_VALUE_COLUMNS"):
        df.unpivot(["id", "x", "y"], None, "v", "w")
    with pytest.raises(AnalysisException, match="UNPIVOT_VALUE_DATA_TYPE_MISMATCH"):
        spark.createDataFrame([(1, [1])], "id int, a array<int>").withColumn("b", F.lit(1.0)) \
            .unpivot("id", ["a", "b"], "v", "w")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.one_of(st.none(), st.integers(-1000, 1000)), max_size=8))
def test_describe_gives_sparks_summary_as_strings(spark: SparkSession, values: list[int | None]) -> None:
    df = spark.createDataFrame([(v, None if v is None else str(v)) for v in values], "n int, s string")
    got = {r.summary: (r.n, r.s) for r in df.describe().collect()}
    present = [v for v in values if v is not None]
    assert got["count"] == (str(len(present)),) * 2
    if present:
        # The same floating-point sums may round the last digit differently from statistics' exact ones.
        assert math.isclose(float(got["mean"][0]), statistics.fmean(present), rel_tol=1e-12)
        assert got["mean"][0] == java_double_str(float(got["mean"][0]))  # Java's text of a double
        assert float(got["mean"][1]) == float(got["mean"][0])  # a string column's numbers
        assert (got["min"][0], got["max"][0]) == (str(min(present)), str(max(present)))
        assert got["min"][1] == min(str(v) for v in present)  # strings compare as strings
    else:
        assert got["mean"] == got["min"] == got["max"] == (None, None)
    if len(present) > 1:
        assert math.isclose(float(got["stddev"][0]), statistics.stdev(present), rel_tol=1e-9, abs_tol=1e-12)
    else:
        assert got["stddev"] == (None, None)
    assert df.describe("n").columns == ["summary", "n"]


def test_summary_matches_spark_example_and_describe(spark: SparkSession) -> None:
    df = spark.createDataFrame([("Bob", 13, 40.3), ("Alice", 12, 37.8), ("Tom", 11, 44.1)],
                               "name string, age int, weight double")
    got = {r.summary: (r.name, r.age, r.weight) for r in df.summary().collect()}
    assert list(got) == ["count", "mean", "stddev", "min", "25%", "50%", "75%", "max"]
    assert got["25%"] == (None, "11", "37.8") and got["50%"] == (None, "12", "40.3") and got["max"] == (
        "Tom", "13", "44.1")
    assert df.summary("count", "min", "max").collect() == [
        r for r in df.describe().collect() if r.summary in ("count", "min", "max")]
    assert [r.age for r in df.summary("count_distinct", "100%").collect()] == ["3", "13"]
    with pytest.raises(PySparkValueError, match="not a recognised statistic"):
        df.summary("median-ish")
