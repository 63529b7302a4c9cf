"""``LATERAL (SELECT ...)`` in FROM and ``[LEFT] JOIN LATERAL (...)``, against PySpark 4.0.1's answers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("lateral-subquery").getOrCreate()
    yield session
    session.stop()


T = "values (1), (2) as t(a)"


@pytest.mark.parametrize(("sql", "rows", "columns"), [
    (f"select * from {T}, lateral (select a * 10 as b)", [(1, 10), (2, 20)], ["a", "b"]),
    (f"select * from {T}, lateral (select * from range(3) where id < a)", [(1, 0), (2, 0), (2, 1)], ["a", "id"]),
    (f"select * from {T} join lateral (select * from range(3) where id < t.a) s on s.id > 0", [(2, 1)], ["a", "id"]),
    (f"select t.a, s.b, s.* from {T}, lateral (select a + 1 as b, a * 2) s", [(1, 2, 2, 2), (2, 3, 3, 4)],
     ["a", "b", "b", "(outer(t.a) * 2)"]),
    ("select * from range(2) t, lateral (select id, t.id as outer_id from range(3) r where r.id <= t.id)",
     [(0, 0, 0), (1, 0, 1), (1, 1, 1)], ["id", "id", "outer_id"]),
    ("select * from values (1, array(1,2)) as t(a, arr), lateral (select explode(arr) as e)",
     [(1, [1, 2], 1), (1, [1, 2], 2)], ["a", "arr", "e"]),
    (f"select a, b from {T} cross join lateral (select a + 100 as b)", [(1, 101), (2, 102)], ["a", "b"]),
    ("select * from values (1), (0) as t(a) left join lateral (select * from range(3) where id < a) s on true",
     [(1, 0), (0, None)], ["a", "id"]),
    (f"select * from {T} left join lateral (select * from range(3) where id < a) s on s.id > 0",
     [(1, None), (2, 1)], ["a", "id"]),
    (f"select t.a, s.x from {T} left join lateral (select a * 3 as x) s on s.x > 4", [(1, None), (2, 6)],
     ["a", "x"]),
    (f"select * from {T}, lateral (select * from range(5) where id >= a order by id desc limit 2)",
     [(1, 4), (1, 3), (2, 4), (2, 3)], ["a", "id"]),
    (f"select * from {T}, lateral (select id * a as p from range(4) order by p limit 1)", [(1, 0), (2, 0)],
     ["a", "p"]),
    (f"select * from {T} left join lateral (select * from range(3) where id > a order by id limit 1) s on true",
     [(1, 2), (2, None)], ["a", "id"]),
    (f"select * from {T}, lateral (select * from range(5) where id >= a order by id limit 2 offset 1)",
     [(1, 2), (1, 3), (2, 3), (2, 4)], ["a", "id"]),
    (f"select * from {T}, lateral (select * from range(5) where id >= a limit 1)", [(1, 1), (2, 2)], ["a", "id"]),
    ("select * from values (1), (2), (0) as t(a), lateral (select count(*) from range(3) where id < a)",
     [(1, 1), (2, 2), (0, 0)], ["a", "count(1)"]),
    (f"select * from {T} left join lateral (select count(*) c from range(3) where id < a) s on s.c > 1",
     [(1, None), (2, 2)], ["a", "c"]),
    (f"select * from {T}, lateral (select id, count(*) from range(3) where id < a group by id)",
     [(1, 0, 1), (2, 0, 1), (2, 1, 1)], ["a", "id", "count(1)"]),
    (f"select * from {T}, lateral (select max(id) m from range(3) where id < a having max(id) > 0)", [(2, 1)],
     ["a", "m"]),
])
def test_lateral_subqueries_as_spark(spark: SparkSession, sql: str, rows: list[tuple[object, ...]],
                                     columns: list[str]) -> None:
    df = spark.sql(sql)
    assert [tuple(r) for r in df.collect()] == rows
    assert df.columns == columns


@pytest.mark.parametrize(("sql", "what"), [
    (f"select * from {T}, lateral (select count(*) from range(3) where id < a limit 1)", "ORDER BY or LIMIT"),
    (f"select * from {T}, lateral (select a as x union all select a * 2)", "a set operation"),
    (f"select * from {T}, lateral (select distinct a)", "DISTINCT"),
])
def test_what_is_not_decorrelated_says_so(spark: SparkSession, sql: str, what: str) -> None:
    with pytest.raises(AnalysisException, match=f"UNSUPPORTED_FEATURE.*{what}.* in a LATERAL subquery"):
        spark.sql(sql).collect()


def test_outer_references_outside_where_with_aggregates(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException, match="UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE"):
        spark.sql(f"select * from {T}, lateral (select count(*) + a as x from range(3) where id < a)").collect()
    assert spark.catalog.listTables() == []  # the helper view is gone
