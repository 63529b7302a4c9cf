"""spark.sql, selectExpr and F.expr end to end, each result checked against a plain-Python model."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's spelling
from dstream.sql.errors import AnalysisException

# k, v, w: a string key, an int and a double; nulls in every column.
T_ROWS: list[tuple[Any, ...]] = [
    ("a", 1, 1.5), ("b", 2, None), ("a", 3, 2.5), (None, 4, 0.5), ("c", None, 3.0), ("b", 6, -1.0),
    ("a", 7, 4.0), ("d", 8, 8.0),
]
U_ROWS: list[tuple[Any, ...]] = [("a", 10), ("b", 20), ("b", 21), ("e", 50), (None, 60)]


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("sql-parser-tests").getOrCreate()
    session.createDataFrame(T_ROWS, "k string, v int, w double").createOrReplaceTempView("t")
    session.createDataFrame(U_ROWS, "k string, x int").createOrReplaceTempView("u")
    yield session
    session.stop()


def rows(df: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in df.collect()]


def null_first(value: Any) -> tuple[bool, Any]:
    return (value is not None, value)


# -- expressions -------------------------------------------------------------------------

def test_select_expr_arithmetic_and_predicates(spark: SparkSession) -> None:
    df = spark.table("t").selectExpr("v + 1 AS a", "v * 2 - 1 b", "v % 3 AS c", "v IS NULL AS d",
                                     "v BETWEEN 2 AND 6 AS e", "k IN ('a', 'b') AS f", "NOT v > 3 AND w > 1 AS g")
    assert df.columns == ["a", "b", "c", "d", "e", "f", "g"]

    def model(k: Any, v: Any, w: Any) -> tuple[Any, ...]:
        not_gt3 = None if v is None else not v > 3
        w_gt1 = None if w is None else w > 1
        if not_gt3 is False or w_gt1 is False:
            g = False
        elif not_gt3 is None or w_gt1 is None:
            g = None
        else:
            g = True
        return (None if v is None else v + 1, None if v is None else v * 2 - 1, None if v is None else v % 3,
                v is None, None if v is None else 2 <= v <= 6, None if k is None else k in ("a", "b"), g)

    assert rows(df) == [model(*r) for r in T_ROWS]


def test_case_and_cast(spark: SparkSession) -> None:
    df = spark.table("t").select(
        F.expr("CASE WHEN v < 3 THEN 'small' WHEN v < 7 THEN 'mid' ELSE 'big' END"),
        F.expr("CAST(w AS INT) AS wi"), F.expr("CASE k WHEN 'a' THEN 1 WHEN 'b' THEN 2 END AS code"),
        F.expr("k IS DISTINCT FROM 'a' AS dk"), F.expr("v <=> 2 AS ns"), F.expr("coalesce(v, -1) AS cv"))

    def model(k: Any, v: Any, w: Any) -> tuple[Any, ...]:
        size = "big" if v is None else "small" if v < 3 else "mid" if v < 7 else "big"
        return (size, None if w is None else int(w), {"a": 1, "b": 2}.get(k), k != "a", v == 2,
                -1 if v is None else v)

    assert rows(df) == [model(*r) for r in T_ROWS]


def test_string_predicates_and_functions(spark: SparkSession) -> None:
    df = spark.table("t").select(
        F.expr("k LIKE 'a%' OR k RLIKE '^[cd]$' AS m"), F.expr("coalesce(k, 'none') || '!' AS kk"),
        F.expr("upper(k) AS up"), F.expr("substring(k, 1, 1) AS s1"))

    def model(k: Any, v: Any, w: Any) -> tuple[Any, ...]:
        m = None if k is None else (k.startswith("a") or k in ("c", "d"))
        return (m, (k if k is not None else "none") + "!", None if k is None else k.upper(),
                None if k is None else k[:1])

    assert rows(df) == [model(*r) for r in T_ROWS]


def test_literal_types_reach_the_schema(spark: SparkSession) -> None:
    df = spark.range(1).selectExpr("1 AS i", "3000000000 AS big", "1L AS l", "1.5 AS d", "1.5D AS dd",
                                   "1e3 AS e", "'it''s' AS s", "true AS b", "CAST(NULL AS STRING) AS n")
    assert [f.dataType.simpleString() for f in df.schema.fields] == [
        "int", "bigint", "bigint", "decimal(2,1)", "double", "double", "string", "boolean", "string"]
    assert rows(df) == [(1, 3000000000, 1, Decimal("1.5"), 1.5, 1000.0, "its", True, None)]


def test_filter_strings_use_the_parser(spark: SparkSession) -> None:
    df = spark.table("t").filter("v > 2 AND k IS NOT NULL").select("v")
    assert rows(df) == [(v,) for k, v, _ in T_ROWS if v is not None and v > 2 and k is not None]


# -- queries -----------------------------------------------------------------------------

def test_where_order_by_limit(spark: SparkSession) -> None:
    df = spark.sql("SELECT k, v * 10 AS v10 FROM t WHERE v > 1 ORDER BY v10 DESC LIMIT 3")
    assert df.columns == ["k", "v10"]
    expected = sorted([(k, v * 10) for k, v, _ in T_ROWS if v is not None and v > 1], key=lambda r: -r[1])[:3]
    assert rows(df) == expected


def test_order_by_column_not_selected_and_nulls_placement(spark: SparkSession) -> None:
    df = spark.sql("SELECT k FROM t ORDER BY w ASC NULLS LAST, v")
    ordered = sorted(T_ROWS, key=lambda r: (r[2] is None, r[2] if r[2] is not None else 0, null_first(r[1])))
    assert rows(df) == [(r[0],) for r in ordered]
    df = spark.sql("SELECT v FROM t ORDER BY v DESC")  # DESC puts nulls last by default
    values = [r[1] for r in T_ROWS]
    assert rows(df) == [(v,) for v in sorted((v for v in values if v is not None), reverse=True)] + [(None,)]


def test_group_by_having_order_by_alias_and_ordinal(spark: SparkSession) -> None:
    df = spark.sql("""
        SELECT k, count(*) AS n, sum(v) total, max(w)
        FROM t WHERE k IS NOT NULL
        GROUP BY 1 HAVING count(*) > 1 ORDER BY total DESC
    """)
    assert df.columns == ["k", "n", "total", "max(w)"]
    groups: dict[Any, list[tuple[Any, ...]]] = defaultdict(list)
    for r in T_ROWS:
        if r[0] is not None:
            groups[r[0]].append(r)
    expected = []
    for k, rs in groups.items():
        if len(rs) > 1:
            vs = [r[1] for r in rs if r[1] is not None]
            ws = [r[2] for r in rs if r[2] is not None]
            expected.append((k, len(rs), sum(vs) if vs else None, max(ws) if ws else None))
    expected.sort(key=lambda r: -r[2])
    assert rows(df) == expected


def test_having_on_an_aggregate_not_selected_and_group_by_alias(spark: SparkSession) -> None:
    df = spark.sql("SELECT v % 2 AS parity, count(k) AS keys FROM t WHERE v IS NOT NULL "
                   "GROUP BY parity HAVING min(v) > 1 ORDER BY parity DESC")
    parity: dict[int, list[Any]] = defaultdict(list)
    for k, v, _ in T_ROWS:
        if v is not None:
            parity[v % 2].append((k, v))
    expected = [(p, sum(k is not None for k, _ in kvs)) for p, kvs in parity.items() if min(v for _, v in kvs) > 1]
    assert expected and rows(df) == sorted(expected, reverse=True)


def test_count_distinct(spark: SparkSession) -> None:
    df = spark.sql("SELECT count(DISTINCT k) AS n, sum(DISTINCT v % 2) AS s FROM t")
    assert rows(df) == [(len({r[0] for r in T_ROWS if r[0] is not None}),
                         sum({r[1] % 2 for r in T_ROWS if r[1] is not None}))]


def test_global_aggregate_and_select_without_from(spark: SparkSession) -> None:
    df = spark.sql("SELECT count(*), count(v), avg(v) FROM t")
    vs = [r[1] for r in T_ROWS if r[1] is not None]
    assert df.columns == ["count(1)", "count(v)", "avg(v)"]
    assert rows(df) == [(len(T_ROWS), len(vs), sum(vs) / len(vs))]
    assert rows(spark.sql("SELECT 1 + 1 AS two, 'x'")) == [(2, "x")]


@pytest.mark.parametrize("how", ["JOIN", "LEFT JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN"])
def test_joins(spark: SparkSession, how: str) -> None:
    semi_or_anti = "SEMI" in how or "ANTI" in how
    select = "t.k, t.v" if semi_or_anti else "t.k, t.v, u.x"
    df = spark.sql(f"SELECT {select} FROM t {how} u ON t.k = u.k")
    expected = []
    for k, v, _ in T_ROWS:
        matches = [x for uk, x in U_ROWS if k is not None and uk == k]
        if how == "JOIN":
            expected += [(k, v, x) for x in matches]
        elif how == "LEFT JOIN":
            expected += [(k, v, x) for x in matches] or [(k, v, None)]
        elif how == "LEFT SEMI JOIN" and matches:
            expected.append((k, v))
        elif how == "LEFT ANTI JOIN" and not matches:
            expected.append((k, v))
    assert sorted(rows(df), key=repr) == sorted(expected, key=repr)


def test_join_using_with_aliases_and_subquery(spark: SparkSession) -> None:
    df = spark.sql("SELECT a.k, s.total FROM t AS a JOIN (SELECT k, sum(x) AS total FROM u GROUP BY k) s "
                   "USING (k) WHERE a.v > 1")
    totals: dict[Any, int] = defaultdict(int)
    for k, x in U_ROWS:
        totals[k] += x
    expected = [(k, totals[k]) for k, v, _ in T_ROWS if k is not None and k in totals and v is not None and v > 1]
    assert sorted(rows(df), key=repr) == sorted(expected, key=repr)


def test_distinct_and_union(spark: SparkSession) -> None:
    df = spark.sql("SELECT DISTINCT k FROM t WHERE k IS NOT NULL ORDER BY k")
    assert rows(df) == [(k,) for k in sorted({r[0] for r in T_ROWS if r[0] is not None})]
    df = spark.sql("SELECT k FROM t UNION SELECT k FROM u ORDER BY 1 NULLS LAST")
    keys = {r[0] for r in T_ROWS} | {r[0] for r in U_ROWS}
    assert rows(df) == [(k,) for k in sorted(k for k in keys if k is not None)] + [(None,)]
    df = spark.sql("SELECT k FROM t UNION ALL SELECT k FROM u")
    assert sorted(rows(df), key=repr) == sorted([(r[0],) for r in T_ROWS + U_ROWS], key=repr)


def test_parse_errors_and_unknown_functions(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException, match=r"\[TRAILING_COMMA_IN_SELECT\]"):  # as PySpark 4.0.1
        spark.sql("SELECT k, FROM t")
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT no_such_function(k) FROM t")
    assert info.value.getCondition() == "UNRESOLVED_ROUTINE"


def test_order_by_a_grouping_key_not_selected_and_an_expression_key(spark: SparkSession) -> None:
    df = spark.sql("SELECT count(*) AS n FROM t WHERE k IS NOT NULL GROUP BY k ORDER BY k DESC")
    counts: dict[Any, int] = defaultdict(int)
    for r in T_ROWS:
        if r[0] is not None:
            counts[r[0]] += 1
    assert rows(df) == [(counts[k],) for k in sorted(counts, reverse=True)]
    df = spark.sql("SELECT v % 3 AS m, sum(w) FROM t WHERE v IS NOT NULL GROUP BY v % 3 ORDER BY v % 3")
    sums: dict[int, list[float]] = defaultdict(list)
    for _, v, w in T_ROWS:
        if v is not None and w is not None:
            sums[v % 3].append(w)
        elif v is not None:
            sums.setdefault(v % 3, [])
    assert df.columns == ["m", "sum(w)"]
    assert rows(df) == [(m, sum(ws) if ws else None) for m, ws in sorted(sums.items())]


def test_select_expr_names_and_stars(spark: SparkSession) -> None:
    df = spark.table("u").selectExpr("k AS key", "x + 1 y", "*", "x * 2")
    assert df.columns == ["key", "y", "k", "x", "(x * 2)"]
    assert rows(df) == [(k, x + 1, k, x, x * 2) for k, x in U_ROWS]
    df = spark.sql("SELECT u.*, t.v FROM t JOIN u ON t.k = u.k WHERE t.v < 3")
    assert sorted(rows(df), key=repr) == sorted(
        [(uk, x, v) for k, v, _ in T_ROWS for uk, x in U_ROWS if k is not None and k == uk and v is not None
         and v < 3], key=repr)


def test_struct_fields_and_subquery_alias(spark: SparkSession) -> None:
    df = spark.sql("SELECT q.s.x AS x FROM (SELECT struct(v AS x, k) AS s FROM t) q WHERE q.s.x > 5")
    assert rows(df) == [(v,) for _, v, _ in T_ROWS if v is not None and v > 5]
