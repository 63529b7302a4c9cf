"""groupBy(...).applyInPandas and applyInArrow against a plain-Python grouping.

The model: each distinct key (null included) is one call, with every row of that key and
no other; what the calls return, matched to the schema, is the result.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import PySparkTypeError, PythonException

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ROWS = st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 3)), st.integers(-50, 50)), min_size=1, max_size=15)


def model(rows: list[tuple[Any, int]]) -> list[tuple[Any, ...]]:
    groups: dict[Any, list[int]] = {}
    for k, v in rows:
        groups.setdefault(k, []).append(v)
    return sorted(((k, len(vs), sum(vs), min(vs)) for k, vs in groups.items()), key=repr)


@given(rows=ROWS)
@PROPERTY
def test_apply_in_pandas_sees_each_group_whole_once(spark: SparkSession, rows: list[tuple[Any, int]]) -> None:
    import pandas as pd

    df = spark.createDataFrame(rows, "k int, v long").repartition(3)

    def summary(key: tuple[Any, ...], pdf: pd.DataFrame) -> pd.DataFrame:
        assert set(pdf.columns) == {"k", "v"}
        k = None if pd.isna(key[0]) else int(key[0])
        return pd.DataFrame({"k": [k], "n": [len(pdf)], "s": [int(pdf.v.sum())], "m": [int(pdf.v.min())]})

    got = df.groupBy("k").applyInPandas(summary, "k int, n long, s long, m long").collect()
    assert sorted((tuple(r) for r in got), key=repr) == model(rows)


@given(rows=ROWS)
@PROPERTY
def test_apply_in_arrow_matches_the_same_model(spark: SparkSession, rows: list[tuple[Any, int]]) -> None:
    import pyarrow.compute as pc

    df = spark.createDataFrame(rows, "k int, v long").repartition(2)

    def summary(key: tuple[Any, ...], table: pa.Table) -> pa.Table:
        return pa.table({"k": [key[0].as_py()], "n": [table.num_rows], "s": [pc.sum(table.column("v")).as_py()],
                         "m": [pc.min(table.column("v")).as_py()]})

    got = df.groupBy("k").applyInArrow(summary, "k int, n long, s long, m long").collect()
    assert sorted((tuple(r) for r in got), key=repr) == model(rows)


def test_one_argument_positional_columns_expression_keys_and_empty_groups(spark: SparkSession) -> None:
    import pandas as pd

    df = spark.createDataFrame([(1, 1.0), (1, 2.0), (2, 3.0), (3, 10.0)], "id long, v double")

    def centered(pdf: pd.DataFrame) -> pd.DataFrame:
        return pdf.assign(v=pdf.v - pdf.v.mean())

    assert [tuple(r) for r in df.groupBy("id").applyInPandas(centered, "id long, v double").orderBy("id", "v")
            .collect()] == [(1, -0.5), (1, 0.5), (2, 0.0), (3, 0.0)]

    def unnamed(pdf: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame([[len(pdf), float(pdf.v.max())]])  # columns 0 and 1: by position

    by_parity = df.groupBy((F.col("id") % 2).alias("odd")).applyInPandas(unnamed, "n long, top double")
    assert sorted(tuple(r) for r in by_parity.collect()) == [(1, 3.0), (3, 10.0)]

    def only_small(pdf: pd.DataFrame) -> pd.DataFrame:
        return pdf[pdf.v < 2.5]  # some groups return no row

    assert sorted(tuple(r) for r in df.groupBy("id").applyInPandas(only_small, "id long, v double").collect()) \
        == [(1, 1.0), (1, 2.0)]


def test_bad_arguments_and_results_are_named(spark: SparkSession) -> None:
    import pandas as pd

    df = spark.createDataFrame([(1, 1.0)], "id long, v double")
    with pytest.raises(PySparkTypeError, match="should be a function"):
        df.groupBy("id").applyInPandas("not a function", "id long")  # type: ignore[arg-type]
    with pytest.raises(PySparkTypeError, match="schema should be a StructType"):
        df.groupBy("id").applyInPandas(lambda pdf: pdf, 42)
    with pytest.raises(PythonException, match="missing 'w'"):
        df.groupBy("id").applyInPandas(lambda pdf: pdf, "id long, w double").collect()
    with pytest.raises(PythonException, match="not a pandas.DataFrame"):
        df.groupBy("id").applyInPandas(lambda pdf: [1, 2], "id long").collect()
    with pytest.raises(PythonException, match="not a pyarrow.Table"):
        df.groupBy("id").applyInArrow(lambda t: pd.DataFrame(), "id long").collect()


def test_pandas_functions_see_wall_times_of_the_session_time_zone(spark: SparkSession) -> None:
    # As PySpark: timestamps reach pandas as naive wall times in the session zone, and a naive
    # timestamp returned is read in that zone (applyInPandas, mapInPandas, cogroup alike).
    import datetime as dt

    import pandas as pd

    zone = "spark.sql.session.timeZone"
    previous = spark.conf.get(zone)
    spark.conf.set(zone, "America/Los_Angeles")
    try:
        # 17:30 UTC is 09:30 in Los Angeles; collect() gives it back as the machine's (UTC) wall time.
        df = spark.createDataFrame([(1, dt.datetime(2024, 1, 1, 17, 30, tzinfo=dt.timezone.utc))],
                                   "k long, t timestamp")

        def hours(pdf: pd.DataFrame) -> pd.DataFrame:
            assert pdf.t.dt.tz is None
            return pdf.assign(hour=pdf.t.dt.hour)

        schema = "k long, t timestamp, hour int"
        expected = [(1, dt.datetime(2024, 1, 1, 17, 30), 9)]
        assert [tuple(r) for r in df.groupBy("k").applyInPandas(hours, schema).collect()] == expected
        assert [tuple(r) for r in df.mapInPandas(lambda it: map(hours, it), schema).collect()] == expected
        cogrouped = df.groupBy("k").cogroup(df.groupBy("k"))
        assert [tuple(r) for r in cogrouped.applyInPandas(lambda left, right: hours(left), schema).collect()] == \
            expected
    finally:
        spark.conf.set(zone, previous)
