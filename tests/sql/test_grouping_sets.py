"""``cube`` and ``rollup`` against a plain-Python model: for each grouping set (every subset of
the keys for ``cube``, each prefix for ``rollup``), the rows grouped by the keys in the set, the
others null; ``grouping(c)`` is 1 where ``c`` is aggregated over, ``grouping_id()`` the bits of
all keys (the first the most significant). A null key value stays a group of its own, apart
from the aggregated-over null, because the grouping id is part of the grouping."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException

ROWS = st.lists(st.tuples(st.sampled_from([None, "a", "b"]), st.sampled_from([None, "x", "y"]),
                          st.one_of(st.none(), st.integers(-5, 5))), min_size=1, max_size=25)


def _model(rows: list[tuple[Any, Any, Any]], sets: list[tuple[int, ...]]) -> list[tuple[Any, ...]]:
    out = []
    for grouped in sets:
        gid = sum(1 << (1 - i) for i in range(2) if i not in grouped)
        groups: dict[tuple[Any, ...], list[Any]] = defaultdict(list)
        for k, j, v in rows:
            key = tuple((k, j)[i] if i in grouped else None for i in range(2))
            groups[key].append((k, v))
        for (k, j), members in groups.items():
            values = [v for _, v in members if v is not None]
            with_k = sum(1 for m in members if m[0] is not None)
            out.append((k, j, sum(values) if values else None, len(members), with_k, gid >> 1 & 1, gid))
    return sorted(out, key=repr)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS, cube=st.booleans())
def test_cube_and_rollup_match_the_model(spark: SparkSession, rows: list[tuple[Any, Any, Any]], cube: bool) -> None:
    spark.conf.set("spark.sql.shuffle.partitions", "3")
    df = spark.createDataFrame(rows, "k string, j string, v int")
    grouped = df.cube("k", "j") if cube else df.rollup("k", "j")
    got = grouped.agg(F.sum("v"), F.count("*"), F.count("k"), F.grouping("k"), F.grouping_id()).collect()
    sets = [(0, 1), (0,), (1,), ()] if cube else [(0, 1), (0,), ()]
    assert sorted((tuple(r) for r in got), key=repr) == _model(rows, sets)


def test_names_types_and_refusals(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", "x", 1)], "k string, j string, v int")
    result = df.rollup("k", "j").agg(F.grouping("j"), F.grouping_id("j", "k"), F.sum("v").alias("s"))
    assert result.columns == ["k", "j", "grouping(j)", "grouping_id(j, k)", "s"]
    assert result.schema["grouping(j)"].dataType.simpleString() == "tinyint"
    assert result.schema["grouping_id(j, k)"].dataType.simpleString() == "bigint"
    assert sorted((tuple(r) for r in result.collect()), key=repr) == sorted(
        [("a", "x", 0, 0, 1), ("a", None, 1, 2, 1), (None, None, 1, 3, 1)], key=repr)
    assert df.cube("k").count().count() == 2
    with pytest.raises(AnalysisException, match="GroupingSets/Cube/Rollup"):
        df.groupBy("k").agg(F.grouping("k")).collect()
    with pytest.raises(AnalysisException, match="can't be found in grouping columns"):
        df.rollup("k").agg(F.grouping("j")).collect()
    with pytest.raises(AnalysisException, match="MISSING_AGGREGATION"):
        df.rollup("k").agg(F.col("v")).collect()


def test_sql_rollup_and_cube(spark: SparkSession) -> None:
    spark.createDataFrame([("a", "x", 1), ("a", "y", 2), ("b", "x", 3)],
                          "k string, j string, v int").createOrReplaceTempView("gs_t")
    rolled = spark.sql("SELECT k, j, sum(v) AS s, grouping_id() AS g FROM gs_t GROUP BY ROLLUP(k, j) "
                       "ORDER BY g, k, j").collect()
    assert [tuple(r) for r in rolled] == [("a", "x", 1, 0), ("a", "y", 2, 0), ("b", "x", 3, 0),
                                          ("a", None, 3, 1), ("b", None, 3, 1), (None, None, 6, 3)]
    cubed = spark.sql("SELECT k, sum(v) AS s FROM gs_t GROUP BY k WITH CUBE HAVING sum(v) > 2 ORDER BY k").collect()
    assert [tuple(r) for r in cubed] == [(None, 6), ("a", 3), ("b", 3)]
    from dstream.sql.errors import ParseException

    with pytest.raises(ParseException, match="Only one ROLLUP"):
        spark.sql("SELECT k FROM gs_t GROUP BY k, ROLLUP(j)")


SETS = st.lists(st.sampled_from([(0, 1), (0,), (1,), ()]), min_size=1, max_size=4, unique=True)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS, sets=SETS)
def test_grouping_sets_match_the_model(spark: SparkSession, rows: list[tuple[Any, Any, Any]],
                                       sets: list[tuple[int, ...]]) -> None:
    df = spark.createDataFrame(rows, "k string, j string, v int")
    names = ("k", "j")
    grouped = df.groupingSets([[names[i] for i in s] for s in sets], "k", "j")
    got = grouped.agg(F.sum("v"), F.count("*"), F.count("k"), F.grouping("k"), F.grouping_id()).collect()
    assert sorted((tuple(r) for r in got), key=repr) == _model(rows, sets)
    df.createOrReplaceTempView("gs_model")
    text = ", ".join("(" + ", ".join(names[i] for i in s) + ")" for s in sets)
    via_sql = spark.sql(f"SELECT k, j, sum(v), count(*), count(k), grouping(k), grouping_id() FROM gs_model "
                        f"GROUP BY k, j GROUPING SETS ({text})").collect()
    assert sorted((tuple(r) for r in via_sql), key=repr) == _model(rows, sets)


def test_grouping_sets_refuse_a_member_not_grouped(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", "x", 1)], "k string, j string, v int")
    with pytest.raises(AnalysisException, match="GROUPING_SETS_MEMBER_NOT_GROUPED"):
        df.groupingSets([["j"]], "k").agg(F.sum("v"))
    df.createOrReplaceTempView("gs_refuse")
    with pytest.raises(AnalysisException, match="MISSING_AGGREGATION"):  # j is in no set, as Spark says
        spark.sql("SELECT k, j FROM gs_refuse GROUP BY GROUPING SETS ((k))").collect()


def test_inline_tables(spark: SparkSession) -> None:
    got = spark.sql("SELECT k, sum(v) AS s FROM VALUES (1, 2), (1, 3), (2, 5) AS t(k, v) "
                    "GROUP BY GROUPING SETS ((k), ()) ORDER BY k").collect()
    assert [tuple(r) for r in got] == [(None, 10), (1, 5), (2, 5)]
    plain = spark.sql("SELECT * FROM VALUES 1, 2")
    assert plain.columns == ["col1"] and [r.col1 for r in plain.collect()] == [1, 2]
    widened = spark.sql("SELECT t.a FROM VALUES (1, 'x'), (2.5, NULL) t(a, b)")
    assert widened.schema["a"].dataType.simpleString() == "decimal(11,1)"
    with pytest.raises(AnalysisException, match="INVALID_INLINE_TABLE"):
        spark.sql("SELECT * FROM VALUES (1, 2), (3) AS t(a, b)").collect()
