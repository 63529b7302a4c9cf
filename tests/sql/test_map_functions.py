"""Map functions against plain-Python dicts: ``create_map``, ``map_keys``, ``map_values``,
``map_entries``, ``map_from_arrays``, ``map_from_entries``, ``map_concat``,
``map_contains_key``, ``str_to_map``, and ``explode`` of a map.

The model: a map is a dict in insertion order; a null key or a key given twice in one map
is an error (Spark's ``NULL_MAP_KEY`` / ``DUPLICATED_MAP_KEY``); a null input map gives
null.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import SparkRuntimeException

MAPS = st.one_of(st.none(), st.dictionaries(st.text("abcd", min_size=1, max_size=2),
                                            st.one_of(st.none(), st.integers(-9, 9)), max_size=4))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(MAPS, MAPS.filter(lambda m: m is None or "zz" not in m)), min_size=1, max_size=8))
def test_reading_and_combining_maps_matches_dicts(spark: SparkSession, rows: list[tuple[Any, Any]]) -> None:
    df = spark.createDataFrame(rows, "m map<string,int>, other map<string,int>")
    got = df.select(F.map_keys("m").alias("keys"), F.map_values("m").alias("values"),
                    F.map_entries("m").alias("entries"), F.map_contains_key("m", "a").alias("has_a"),
                    F.map_from_arrays(F.map_keys("m"), F.map_values("m")).alias("rebuilt"),
                    F.map_from_entries(F.map_entries("m")).alias("from_entries"),
                    F.map_concat("m", F.create_map(F.lit("zz"), F.lit(0))).alias("plus"),
                    F.size("m").alias("n")).collect()
    for (m, _), row in zip(rows, got):
        if m is None:
            assert row["keys"] is None and row["values"] is None and row["entries"] is None
            assert row["has_a"] is None and row["rebuilt"] is None and row["plus"] is None
            continue
        assert row["keys"] == list(m) and row["values"] == list(m.values())
        assert [tuple(e) for e in row["entries"]] == list(m.items())
        assert row["has_a"] == ("a" in m)
        assert row["rebuilt"] == m and row["from_entries"] == m
        assert list(row["plus"].items()) == [*m.items(), ("zz", 0)] and row["n"] == len(m)
    concat_ok = [(m, o) for m, o in rows if m is not None and o is not None and not set(m) & set(o)]
    if concat_ok:
        both = spark.createDataFrame(concat_ok, "m map<string,int>, other map<string,int>")
        assert [r[0] for r in both.select(F.map_concat("m", "other")).collect()] == [{**m, **o} for m, o in concat_ok]


def test_create_map_and_str_to_map(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", 1, "b", None, "k1:v1,k2:v2,k3"), ("c", 3, "d", 4, None)],
                               "k1 string, v1 int, k2 string, v2 int, t string")
    got = df.select(F.create_map("k1", "v1", "k2", "v2").alias("m"), F.str_to_map("t").alias("s"),
                    F.str_to_map(F.lit("a=1;b=2"), ";", "=").alias("custom"))
    assert got.schema["m"].dataType.simpleString() == "map<string,int>"
    assert [tuple(r) for r in got.collect()] == [
        ({"a": 1, "b": None}, {"k1": "v1", "k2": "v2", "k3": None}, {"a": "1", "b": "2"}),
        ({"c": 3, "d": 4}, None, {"a": "1", "b": "2"})]
    assert df.select(F.create_map(F.lit(1), F.lit("x"))).columns == ["map(1, x)"]
    assert [r[0] for r in spark.range(2).select(F.create_map()).collect()] == [{}, {}]
    assert [tuple(r) for r in df.selectExpr("map_keys(map('p', 1, 'q', 2))", "map(k1, v1)['a']").collect()] == [
        (["p", "q"], 1), (["p", "q"], None)]


@pytest.mark.parametrize(("make", "condition"), [
    (lambda: F.create_map(F.lit("a"), F.lit(1), F.lit("a"), F.lit(2)), "DUPLICATED_MAP_KEY"),
    (lambda: F.create_map(F.lit(None).cast("string"), F.lit(1)), "NULL_MAP_KEY"),
    (lambda: F.map_concat(F.create_map(F.lit("a"), F.lit(1)), F.create_map(F.lit("a"), F.lit(2))),
     "DUPLICATED_MAP_KEY"),
    (lambda: F.str_to_map(F.lit("a:1,a:2")), "DUPLICATED_MAP_KEY"),
])
def test_keys_are_neither_null_nor_repeated(spark: SparkSession, make: Any, condition: str) -> None:
    with pytest.raises(SparkRuntimeException) as caught:
        spark.range(1).select(make()).collect()
    assert caught.value.getCondition() == condition


def test_the_docstring_examples(spark: SparkSession) -> None:
    import doctest

    from dstream.sql import functions_map

    result = doctest.testmod(functions_map, extraglobs={"spark": spark})
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(maps=st.lists(st.one_of(st.none(), st.dictionaries(st.sampled_from("abcd"), st.integers(0, 9), max_size=3)),
                     min_size=1, max_size=6), skip=st.integers(0, 3))
def test_maps_of_a_sliced_batch(spark: SparkSession, maps: list[Any], skip: int) -> None:
    # offset(k) hands the next operator a slice of the batch: its map array's keys and items
    # are the whole batch's, which explode read from the start and map_keys refused.
    df = spark.createDataFrame([(i, m) for i, m in enumerate(maps)], "i int, m map<string,int>").offset(skip)
    kept = maps[skip:]
    got = df.select(F.map_keys("m").alias("k"), F.map_values("m").alias("v"), F.map_contains_key("m", "a").alias("a"),
                    F.map_filter("m", lambda k, v: v > 4).alias("f")).collect()
    for m, row in zip(kept, got):
        assert tuple(row) == ((None,) * 4 if m is None else
                              (list(m), list(m.values()), "a" in m, {k: v for k, v in m.items() if v > 4}))
    exploded = [tuple(r) for r in df.select(F.explode("m")).collect()]
    assert exploded == [(k, v) for m in kept if m for k, v in m.items()]
