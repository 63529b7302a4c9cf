"""Higher-order functions over maps (``map_filter``, ``transform_values``, ``transform_keys``,
``map_zip_with``) against plain-Python models of Spark's definitions, in the DataFrame API
and in SQL.

The models, per row: a null map gives null; ``map_filter`` keeps the entries whose
predicate is true (null counts as false); ``transform_values``/``transform_keys`` replace
each value/key by the function of (key, value), a null or repeated key being an error;
``map_zip_with`` runs over the first map's keys then the second's new ones, the side
without the key giving null. Lambdas read the row's other columns (``n``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException, SparkRuntimeException

MAPS = st.one_of(st.none(), st.dictionaries(st.sampled_from("abcdef"), st.one_of(st.none(), st.integers(-9, 9)),
                                            max_size=5))
ROWS = st.lists(st.tuples(MAPS, MAPS, st.integers(-5, 5)), min_size=1, max_size=12)


def _zip(m: dict[str, Any] | None, other: dict[str, Any] | None) -> dict[str, Any] | None:
    if m is None or other is None:
        return None
    keys = list(m) + [k for k in other if k not in m]
    return {k: None if m.get(k) is None or other.get(k) is None else m[k] - other[k] for k in keys}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS)
def test_the_functions_match_the_model(spark: SparkSession, rows: list[tuple[Any, Any, int]]) -> None:
    df = spark.createDataFrame(rows, "m map<string,int>, o map<string,int>, n int")
    got = df.select(
        F.map_filter("m", lambda k, v: v > F.col("n")).alias("kept"),
        F.transform_values("m", lambda k, v: F.concat(k, F.coalesce(v.cast("string"), F.lit("?")))).alias("values"),
        F.transform_keys("m", lambda k, v: F.upper(k)).alias("keys"),
        F.map_zip_with("m", "o", lambda k, a, b: a - b).alias("zipped"),
    ).collect()
    for (m, o, n), row in zip(rows, got):
        assert row["kept"] == (None if m is None else {k: v for k, v in m.items() if v is not None and v > n})
        assert row["values"] == (None if m is None else {k: k + ("?" if v is None else str(v)) for k, v in m.items()})
        assert row["keys"] == (None if m is None else {k.upper(): v for k, v in m.items()})
        assert row["zipped"] == _zip(m, o)
        if row["zipped"] is not None:
            assert list(row["zipped"]) == list(_zip(m, o) or {})  # the keys' order too


def test_sql_lambdas_and_their_column_names(spark: SparkSession) -> None:
    spark.createDataFrame([({"a": 1, "b": 2}, {"b": 20, "c": 30})], "m map<string,int>, o map<string,int>") \
        .createOrReplaceTempView("map_hof_t")
    df = spark.sql("SELECT map_filter(m, (k, v) -> v > 1) AS f, transform_values(m, (k, v) -> v * 10), "
                   "transform_keys(m, (k, v) -> concat(k, '!')) AS tk, "
                   "map_zip_with(m, o, (k, x, y) -> coalesce(x, 0) + coalesce(y, 0)) AS z FROM map_hof_t")
    assert df.columns[1] == ("transform_values(m, lambdafunction((namedlambdavariable() * 10), namedlambdavariable(), "
                             "namedlambdavariable()))")
    assert [tuple(r) for r in df.collect()] == [({"b": 2}, {"a": 10, "b": 20}, {"a!": 1, "b!": 2},
                                                 {"a": 1, "b": 22, "c": 30})]


def test_the_result_types(spark: SparkSession) -> None:
    df = spark.createDataFrame([({"a": 1},)], "m map<string,int>")
    schema = df.select(F.transform_values("m", lambda k, v: v.cast("double")).alias("d"),
                       F.transform_keys("m", lambda k, v: F.length(k)).alias("l")).schema
    assert schema["d"].dataType.simpleString() == "map<string,double>"
    assert schema["l"].dataType.simpleString() == "map<int,int>"


def test_transform_keys_refuses_null_and_repeated_keys(spark: SparkSession) -> None:
    df = spark.createDataFrame([({"a": 1, "b": 2},)], "m map<string,int>")
    with pytest.raises(SparkRuntimeException, match="DUPLICATED_MAP_KEY"):
        df.select(F.transform_keys("m", lambda k, v: F.lit("same"))).collect()
    with pytest.raises(SparkRuntimeException, match="NULL_MAP_KEY"):
        df.select(F.transform_keys("m", lambda k, v: F.when(v > 1, k))).collect()


def test_bad_arguments_are_named(spark: SparkSession) -> None:
    df = spark.createDataFrame([([1], {"a": 1}, {1: 1})], "a array<int>, m map<string,int>, i map<int,int>")
    with pytest.raises(AnalysisException, match='requires the "MAP" type'):
        df.select(F.map_filter("a", lambda k, v: v > 0)).collect()
    with pytest.raises(AnalysisException, match='must return "BOOLEAN"'):
        df.select(F.map_filter("m", lambda k, v: v + 1)).collect()
    with pytest.raises(AnalysisException, match="keys must share one type"):
        df.select(F.map_zip_with("m", "i", lambda k, x, y: x)).collect()
