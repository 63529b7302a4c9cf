"""``bool_and``/``every``, ``bool_or``/``some``, ``count_if``, ``product``, ``any_value``,
``first_value`` and ``last_value`` against plain-Python models, per group.

The models: nulls are skipped; ``bool_and``/``bool_or``/``product`` are null over no
non-null value; ``count_if`` counts the true conditions (0 for none); ``any_value``
gives one of the group's values; ``first_value``/``last_value`` over an ordered window
frame give its first/last value.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession, Window
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException

ROWS = st.lists(st.tuples(st.integers(0, 3), st.one_of(st.none(), st.booleans()),
                          st.one_of(st.none(), st.integers(-4, 4))), min_size=1, max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS)
def test_the_aggregates_match_the_model(spark: SparkSession, rows: list[tuple[int, Any, Any]]) -> None:
    spark.conf.set("spark.sql.shuffle.partitions", "3")
    df = spark.createDataFrame(rows, "k int, p boolean, v int")
    got = {r["k"]: r for r in df.groupBy("k").agg(
        F.bool_and("p").alias("all"), F.every("p").alias("every"), F.bool_or("p").alias("any"),
        F.some("p").alias("some"), F.count_if("p").alias("n"), F.product("v").alias("prod"),
        F.any_value("v", True).alias("one")).collect()}
    groups: dict[int, list[tuple[Any, Any]]] = defaultdict(list)
    for k, p, v in rows:
        groups[k].append((p, v))
    assert set(got) == set(groups)
    for k, members in groups.items():
        ps = [p for p, _ in members if p is not None]
        vs = [v for _, v in members if v is not None]
        row = got[k]
        assert row["all"] == row["every"] == (all(ps) if ps else None)
        assert row["any"] == row["some"] == (any(ps) if ps else None)
        assert row["n"] == sum(1 for p in ps if p)
        assert row["prod"] == (float(math.prod(vs)) if vs else None)
        assert (row["one"] in vs) if vs else row["one"] is None


def test_names_sql_and_windows(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, True, 5), (2, False, None), (3, True, 7)], "t int, p boolean, v int")
    assert df.agg(F.every("p"), F.some("p"), F.bool_and("p"), F.count_if("p")).columns == [
        "every(p)", "some(p)", "bool_and(p)", "count_if(p)"]
    df.createOrReplaceTempView("la_t")
    assert [tuple(r) for r in spark.sql("SELECT bool_or(p), count_if(v > 5) FROM la_t").collect()] == [(True, 1)]
    assert df.agg(F.product("v")).first()[0] == 35.0
    with pytest.raises(AnalysisException, match="UNRESOLVED_ROUTINE"):  # PySpark's SQL has no product either
        spark.sql("SELECT product(v) FROM la_t")
    w = Window.orderBy("t").rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    got = df.select("t", F.first_value("v").over(w).alias("f"), F.last_value("v").over(w).alias("l"),
                    F.last_value("v", True).over(Window.orderBy("t")).alias("seen")).orderBy("t").collect()
    assert [tuple(r) for r in got] == [(1, 5, 7, 5), (2, 5, 7, 5), (3, 5, 7, 7)]
    with pytest.raises(AnalysisException, match="BOOLEAN"):
        df.agg(F.bool_and("v")).collect()


def test_the_docstring_examples(spark: SparkSession) -> None:
    import doctest

    from dstream.sql import functions_agg_more

    result = doctest.testmod(functions_agg_more, extraglobs={"spark": spark})
    assert result.attempted > 0 and result.failed == 0
