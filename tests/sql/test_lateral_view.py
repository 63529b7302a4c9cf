"""SQL ``LATERAL VIEW [OUTER] generator(...) table [AS] cols`` against a plain-Python model.

The model: each row of the relation joined with every row its generator makes (an array's
elements, with their position for ``posexplode``); with OUTER a row whose array is null or
empty still appears once, its generated columns null. The WHERE, GROUP BY and ORDER BY of
the query see the generated columns, plain or qualified by the view's table name.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException, ParseException

ROWS = st.lists(st.tuples(st.integers(0, 99), st.one_of(st.none(), st.lists(st.integers(-3, 3), max_size=4))),
                min_size=1, max_size=8, unique_by=lambda r: r[0])


def _model(rows: list[tuple[int, Any]], outer: bool, positions: bool) -> list[tuple[Any, ...]]:
    out = []
    for key, values in rows:
        if not values:
            if outer:
                out.append((key, None, None) if positions else (key, None))
            continue
        for i, v in enumerate(values):
            out.append((key, i, v) if positions else (key, v))
    return sorted(out, key=repr)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS, outer=st.booleans(), positions=st.booleans())
def test_lateral_view_matches_the_model(spark: SparkSession, rows: list[tuple[int, Any]], outer: bool,
                                        positions: bool) -> None:
    spark.createDataFrame(rows, "k int, a array<int>").createOrReplaceTempView("lv_model")
    generator = "posexplode(a) g AS p, v" if positions else "explode(a) g AS v"
    columns = "k, p, v" if positions else "k, g.v"
    got = spark.sql(f"SELECT {columns} FROM lv_model LATERAL VIEW {'OUTER ' if outer else ''}{generator}").collect()
    assert sorted((tuple(r) for r in got), key=repr) == _model(rows, outer, positions)


def test_chained_views_json_tuple_and_clauses(spark: SparkSession) -> None:
    spark.createDataFrame([(1, [1, 2, 2], '{"x": "a"}'), (2, [3], '{"x": "b"}'), (3, None, None)],
                          "k int, a array<int>, j string").createOrReplaceTempView("lv_t")
    got = spark.sql("SELECT x, t.v, count(*) AS n FROM lv_t LATERAL VIEW json_tuple(j, 'x') jt AS x "
                    "LATERAL VIEW explode(a) t AS v WHERE v > 1 GROUP BY x, t.v ORDER BY t.v").collect()
    assert [tuple(r) for r in got] == [("a", 2, 2), ("b", 3, 1)]
    # Without column aliases the generator's own names are used.
    assert spark.sql("SELECT * FROM lv_t LATERAL VIEW explode(a) t WHERE k = 2").columns == ["k", "a", "j", "col"]


def test_errors_name_the_problem(spark: SparkSession) -> None:
    spark.createDataFrame([(1, [1])], "k int, a array<int>").createOrReplaceTempView("lv_e")
    with pytest.raises(AnalysisException, match="UDTF_ALIAS_NUMBER_MISMATCH"):
        spark.sql("SELECT * FROM lv_e LATERAL VIEW explode(a) t AS x, y").collect()
    with pytest.raises(ParseException, match="LATERAL VIEW needs a generator function call"):
        spark.sql("SELECT * FROM lv_e LATERAL VIEW a t AS x")
