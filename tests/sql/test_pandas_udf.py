"""pandas_udf: scalar, scalar-iterator and grouped-aggregate pandas UDFs against plain-Python models.

The models: a scalar UDF maps each value as the function does to one value; an iterator
UDF gives the same values; a grouped aggregate sees every value of its group, nulls
included (as NaN), once.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import PySparkTypeError, PySparkValueError, PythonException
from dstream.sql.functions import PandasUDFType, pandas_udf

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ROWS = st.lists(st.tuples(st.integers(0, 3), st.one_of(st.none(), st.integers(-100, 100))), min_size=1, max_size=20)


@pandas_udf("double")
def affine(v: pd.Series, k: pd.Series) -> pd.Series:
    return v * 2 + k


@pandas_udf("double")
def affine_batches(pairs: Iterator[tuple[pd.Series, pd.Series]]) -> Iterator[pd.Series]:
    for v, k in pairs:
        yield v * 2 + k


@pandas_udf("long")
def seen(v: pd.Series) -> int:
    return len(v)  # every row of the group, nulls included


@pandas_udf("double")
def mean(v: pd.Series) -> float:
    return v.mean()


@pandas_udf("long")
def weighted(v: pd.Series, k: pd.Series) -> int:
    return int((v.fillna(0) * (k + 1)).sum())  # two arguments, row by row


@given(rows=ROWS)
@PROPERTY
def test_scalar_and_iterator_udfs_map_each_value(spark: SparkSession, rows: list[tuple[int, Any]]) -> None:
    df = spark.createDataFrame(rows, "k long, v long")
    got = df.select(affine("v", "k"), affine_batches("v", "k")).collect()
    model = [None if v is None else float(v * 2 + k) for k, v in rows]
    assert [tuple(r) for r in got] == [(m, m) for m in model]


@given(rows=ROWS)
@PROPERTY
def test_grouped_aggregates_see_each_groups_values_once(spark: SparkSession, rows: list[tuple[int, Any]]) -> None:
    df = spark.createDataFrame(rows, "k long, v long").repartition(3)
    got = {r.k: (r.n, r.m) for r in df.groupBy("k").agg(seen("v").alias("n"), mean("v").alias("m")).collect()}
    sums = {r.k: r.w for r in df.groupBy("k").agg(weighted("v", "k").alias("w")).collect()}
    assert sums == {k: sum((v or 0) * (k + 1) for kk, v in rows if kk == k) for k in sums}
    groups: dict[int, list[Any]] = {}
    for k, v in rows:
        groups.setdefault(k, []).append(v)
    model = {}
    for k, vs in groups.items():
        present = [v for v in vs if v is not None]
        model[k] = (len(vs), sum(present) / len(present) if present else math.nan)  # pandas' mean of no values
    assert got.keys() == model.keys()
    for k, (n, m) in model.items():
        assert got[k][0] == n and (got[k][1] == pytest.approx(m) if not math.isnan(m) else math.isnan(got[k][1]))
    whole = df.select(seen("v")).first()[0]
    assert whole == len(rows)


def test_struct_results_timestamps_and_sql(spark: SparkSession) -> None:
    @pandas_udf("struct<n:long, text:string>")
    def describe(v: pd.Series) -> pd.DataFrame:
        return pd.DataFrame({"text": v.astype(str), "n": v * 10})

    @pandas_udf("timestamp")
    def next_hour(t: pd.Series) -> pd.Series:
        assert t.dt.tz is None  # naive wall times of the session zone, as PySpark gives them
        return t + pd.Timedelta(hours=1)

    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        df = spark.createDataFrame([(1, dt.datetime(2024, 3, 9, 8, 0))], "v long, t timestamp")
        row = df.select(describe("v").alias("d"), next_hour("t").alias("h")).first()
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    assert row.d.asDict() == {"n": 10, "text": "1"} and row.h == dt.datetime(2024, 3, 9, 9, 0)
    spark.udf.register("doubled", pandas_udf(lambda s: s * 2, "long", PandasUDFType.SCALAR))
    assert spark.sql("SELECT doubled(21) AS d").first().d == 42


def test_in_worker_processes(sc2: Any) -> None:
    workers = SparkSession(sc2, [("spark.sql.session.timeZone", "UTC")])
    try:
        df = workers.range(0, 100, 1, 4).withColumn("k", F.col("id") % 3)
        assert sorted(r[0] for r in df.select(affine("id", "k")).collect()) == sorted(
            float(i * 2 + i % 3) for i in range(100))
        assert {r.k: r.n for r in df.groupBy("k").agg(seen("id").alias("n")).collect()} == {0: 34, 1: 33, 2: 33}
    finally:
        workers.stop()


def test_bad_udfs_and_results_are_named(spark: SparkSession) -> None:
    df = spark.range(3)
    with pytest.raises(PythonException, match="not the required length: expected 3, got 1"):
        df.select(pandas_udf(lambda s: s.head(1), "long", PandasUDFType.SCALAR)("id")).collect()
    with pytest.raises(PythonException, match="should be pandas.Series, but is list"):
        df.select(pandas_udf(lambda s: [1, 2, 3], "long", PandasUDFType.SCALAR)("id")).collect()
    with pytest.raises(PythonException, match="ZeroDivisionError"):
        df.select(pandas_udf(lambda s: s // 0 if False else 1 / 0, "long", PandasUDFType.SCALAR)("id")).collect()
    with pytest.raises(PySparkValueError, match="needs the return type"):
        pandas_udf(lambda s: s)


def test_grouped_map_pandas_udfs_run_through_apply_as_in_pyspark(spark: SparkSession) -> None:
    # PySpark 4.0.1 still takes the pre-3.0 form, warning about both the UDF type and apply().
    df = spark.createDataFrame([(1, 1.0), (1, 2.0), (2, 3.0)], "id long, v double")
    with pytest.warns(UserWarning, match="preferred to specify type hints"):
        @pandas_udf("id long, v double", PandasUDFType.GROUPED_MAP)
        def sub_mean(pdf: Any) -> Any:
            return pdf.assign(v=pdf.v - pdf.v.mean())
    with pytest.warns(UserWarning, match="preferred to use 'applyInPandas'"):
        rows = df.groupby("id").apply(sub_mean).collect()
    assert sorted(tuple(r) for r in rows) == [(1, -0.5), (1, 0.5), (2, 0.0)]
    with pytest.raises(PySparkTypeError, match="Eval type for UDF must be SQL_GROUPED_MAP_PANDAS_UDF"):
        df.groupby("id").apply(lambda pdf: pdf)
    with pytest.raises(PySparkTypeError, match="is not a column function"):
        sub_mean(df.v)
    with pytest.raises(PySparkTypeError, match="Invalid return type with grouped map Pandas UDFs"), \
            pytest.warns(UserWarning):
        pandas_udf(lambda pdf: pdf, "long", PandasUDFType.GROUPED_MAP)
