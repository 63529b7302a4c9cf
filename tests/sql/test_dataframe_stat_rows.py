"""DataFrame statistics, random splits, set and multiset operations and row actions against plain Python.

Models: ``Counter`` arithmetic for ``exceptAll`` (``a - b``) and ``intersectAll``
(``a & b``), set arithmetic for ``subtract`` and ``intersect``, and ``Counter`` for
``crosstab``; ``statistics`` for ``corr`` and ``cov``; a sorted list for
``approxQuantile``; ``json.dumps`` without the null fields for ``toJSON``; and the
partition of the input for ``randomSplit``.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException, ArithmeticException, PySparkValueError

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
rows = st.lists(st.tuples(st.one_of(st.none(), st.sampled_from(["a", "b", "c"])),
                          st.one_of(st.none(), st.integers(0, 3))), max_size=25)


@given(left=rows, right=rows)
@PROPERTY
def test_except_all_and_intersect_all_are_multiset_operations(spark: SparkSession, left: list[tuple[Any, Any]],
                                                              right: list[tuple[Any, Any]]) -> None:
    a = spark.createDataFrame(left, "s string, n int")
    b = spark.createDataFrame(right, "t string, m int")
    assert Counter(map(tuple, a.exceptAll(b).collect())) == Counter(left) - Counter(right)
    assert Counter(map(tuple, a.intersectAll(b).collect())) == Counter(left) & Counter(right)
    assert a.exceptAll(b).columns == ["s", "n"]


def test_multiset_operations_need_as_many_columns(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException, match="NUM_COLUMNS_MISMATCH"):
        spark.range(1).exceptAll(spark.range(1).withColumn("x", F.lit(1)))


@given(left=rows, right=rows, cut=st.integers(0, 3))
@PROPERTY
def test_intersect_and_subtract_are_set_operations(spark: SparkSession, left: list[tuple[Any, Any]],
                                                   right: list[tuple[Any, Any]], cut: int) -> None:
    a = spark.createDataFrame(left, "s string, n int")
    b = spark.createDataFrame(right, "t string, m int")
    assert sorted(map(tuple, a.intersect(b).collect()), key=repr) == sorted(set(left) & set(right), key=repr)
    assert sorted(map(tuple, a.subtract(b).collect()), key=repr) == sorted(set(left) - set(right), key=repr)
    # The other side derived from this one shares its columns: rows must still be compared
    # by value, not matched to themselves.
    part = a.filter(F.col("n") >= cut)
    kept = {r for r in left if r[1] is not None and r[1] >= cut}
    assert sorted(map(tuple, a.intersect(part).collect()), key=repr) == sorted(set(left) & kept, key=repr)
    assert sorted(map(tuple, a.subtract(part).collect()), key=repr) == sorted(set(left) - kept, key=repr)


def test_set_operations_need_as_many_columns(spark: SparkSession) -> None:
    wide = spark.range(1).withColumn("x", F.lit(1))
    for operation in (spark.range(1).intersect, spark.range(1).subtract):
        with pytest.raises(AnalysisException, match="NUM_COLUMNS_MISMATCH"):
            operation(wide)


@given(n=st.integers(0, 200), weights=st.lists(st.floats(0.0, 5.0), min_size=1, max_size=4).filter(
    lambda ws: sum(ws) > 0), seed=st.integers(0, 2**31 - 1))
@PROPERTY
def test_random_split_partitions_the_rows(spark: SparkSession, n: int, weights: list[float], seed: int) -> None:
    df = spark.range(0, n, 1, 3)
    splits = [[r.id for r in s.collect()] for s in df.randomSplit(weights, seed)]
    assert sorted(i for s in splits for i in s) == list(range(n))
    assert [[r.id for r in s.collect()] for s in df.randomSplit(weights, seed)] == splits


def test_random_split_and_sample_by_sizes(spark: SparkSession) -> None:
    df = spark.range(0, 4000, 1, 4).withColumn("k", F.col("id") % 4)
    sizes = [s.count() for s in df.randomSplit([1.0, 3.0], 7)]
    assert sum(sizes) == 4000 and abs(sizes[0] - 1000) < 6 * math.sqrt(4000 * 0.25 * 0.75)
    got = dict(df.sampleBy("k", {0: 0.0, 1: 1.0, 2: 0.5}, 11).groupBy("k").count().collect())
    assert 0 not in got and 3 not in got and got[1] == 1000 and abs(got[2] - 500) < 6 * math.sqrt(250)
    with pytest.raises(PySparkValueError, match="Weights"):
        df.randomSplit([-1.0, 2.0])


@given(data=st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20)), min_size=2, max_size=25))
@PROPERTY
def test_corr_cov_and_quantiles(spark: SparkSession, data: list[tuple[int, int]]) -> None:
    df = spark.createDataFrame(data, "x long, y long")
    xs, ys = [float(x) for x, _ in data], [float(y) for _, y in data]
    assert df.cov("x", "y") == pytest.approx(statistics.covariance(xs, ys), abs=1e-9)
    if statistics.pvariance(xs) and statistics.pvariance(ys):
        assert df.corr("x", "y") == pytest.approx(statistics.correlation(xs, ys), abs=1e-9)
    else:  # no spread over two rows or more: Spark's division by zero under ANSI
        with pytest.raises(ArithmeticException, match="DIVIDE_BY_ZERO"):
            df.corr("x", "y")
    ordered = sorted(xs)
    want = [ordered[max(math.ceil(p * len(ordered)), 1) - 1] for p in (0.0, 0.25, 0.5, 1.0)]
    assert df.approxQuantile("x", [0.0, 0.25, 0.5, 1.0], 0.0) == want
    assert df.stat.approxQuantile(["x", "y"], [0.5], 0.01)[0] == [want[2]]


def test_approx_quantile_ignores_nulls_and_nan(spark: SparkSession) -> None:
    df = spark.createDataFrame([(None,), (float("nan"),), (3.0,), (1.0,)], "v double")
    assert df.approxQuantile("v", [0.5, 1.0], 0.0) == [1.0, 3.0]
    assert df.where("v > 10").approxQuantile("v", [0.5], 0.0) == []


@given(data=rows)
@PROPERTY
def test_crosstab_counts_pairs(spark: SparkSession, data: list[tuple[Any, Any]]) -> None:
    table = spark.createDataFrame(data, "s string, n int").crosstab("s", "n")
    text = lambda v: "null" if v is None else str(v)  # noqa: E731 - one line of the rule
    columns = sorted({text(n) for _, n in data})
    assert table.columns == ["s_n", *columns]
    counts = Counter((text(s), text(n)) for s, n in data)
    got = {r[0]: dict(zip(columns, r[1:])) for r in table.collect()}
    assert got == {s: {c: counts[(s, c)] for c in columns} for s in {text(s) for s, _ in data}}


@given(data=rows)
@PROPERTY
def test_to_json_and_row_actions(spark: SparkSession, data: list[tuple[Any, Any]]) -> None:
    df = spark.createDataFrame(data, "s string, n int")
    want = [json.dumps({k: v for k, v in zip(("s", "n"), row) if v is not None}, separators=(",", ":"))
            for row in data]
    assert df.toJSON().collect() == want
    seen = spark.sparkContext.accumulator(0)
    df.foreach(lambda r: seen.add(1))
    df.foreachPartition(lambda it: seen.add(10 * sum(1 for _ in it)))
    assert seen.value == 11 * len(data)


def test_replace_is_na_replace(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "a"), (2, "b"), (None, "a")], "n int, s string")
    assert df.replace("a", "z").collect() == df.na.replace("a", "z").collect()
    assert [tuple(r) for r in df.replace({1: 10}, subset=["n"]).collect()] == [(10, "a"), (2, "b"), (None, "a")]


@given(n=st.integers(0, 60), fraction=st.floats(0.0, 1.0), seed=st.integers(0, 2**31 - 1))
@PROPERTY
def test_sample_keeps_an_ordered_subset(spark: SparkSession, n: int, fraction: float, seed: int) -> None:
    df = spark.range(0, n, 1, 2)
    got = [r.id for r in df.sample(fraction, seed).collect()]
    assert got == sorted(set(got)) and set(got) <= set(range(n))
    assert [r.id for r in df.sample(False, fraction, seed).collect()] == got, "same seed, same sample"
    if fraction == 1.0:
        assert got == list(range(n))
    repeated = [r.id for r in df.sample(True, 2.0, seed).collect()]
    assert set(repeated) <= set(range(n))


def test_sample_reads_pyspark_argument_forms(spark: SparkSession) -> None:
    """``sample(0.1, 42)`` is fraction then seed, as in PySpark (not withReplacement=0.1)."""
    df = spark.range(0, 500, 1, 2)
    first = [r.id for r in df.sample(0.1, 42).collect()]
    assert first == [r.id for r in df.sample(False, 0.1, 42).collect()]
    assert first == [r.id for r in df.sample(fraction=0.1, seed=42).collect()]
    assert len(first) == len(set(first)) < 100
    with pytest.raises(PySparkValueError, match="NOT_BOOL"):
        df.sample("yes", 0.1)  # type: ignore[arg-type]


def test_crosstab_shows_values_as_spark_prints_them(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1.0, True), (1e7, False), (None, None)], "x double, b boolean")
    table = df.crosstab("x", "b")
    assert table.columns == ["x_b", "false", "null", "true"]
    assert sorted(r[0] for r in table.collect()) == ["1.0", "1.0E7", "null"]


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_corr_and_cov_read_nulls_as_zero_as_pyspark(spark: SparkSession, ansi: str) -> None:
    # PySpark 4.0.1's DataFrame.corr/cov (not SQL's corr/covar_samp): every row counts, a null
    # as 0.0; cov is 0.0 over fewer than two rows, corr NaN without spread.
    spark.conf.set("spark.sql.ansi.enabled", ansi)
    try:
        pairs = spark.createDataFrame([(None, 2), (1, None)], "x long, y long")
        assert (pairs.corr("x", "y"), pairs.cov("x", "y")) == (-1.0, -1.0)
        for rows in ([(1, 2)], []):
            one = spark.createDataFrame(rows, "x long, y long")
            assert math.isnan(one.corr("x", "y")) and one.stat.cov("x", "y") == 0.0
        constant = spark.createDataFrame([(1, 2), (1, 3)], "x long, y long")
        assert constant.cov("x", "y") == 0.0
        if ansi == "true":
            with pytest.raises(ArithmeticException, match="DIVIDE_BY_ZERO"):
                constant.corr("x", "y")
        else:
            assert math.isnan(constant.corr("x", "y"))
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")
