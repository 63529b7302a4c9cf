"""try_sum, try_avg, bit_and/bit_or/bit_xor and regr_*: each against a few lines of plain Python.

The models state Spark's rules: try_sum is the exact sum, null when it leaves bigint's
range; the bitwise folds skip nulls and are null over none; regr_* use the rows where
both inputs are present, with the least-squares formulas.
"""

from __future__ import annotations

import doctest
import functools
import math
import operator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import AnalysisException, SparkSession, functions_agg_more
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
LONG_MIN, LONG_MAX = -(2 ** 63), 2 ** 63 - 1


def groups_of(rows: list[tuple[Any, ...]]) -> dict[Any, list[tuple[Any, ...]]]:
    out: dict[Any, list[tuple[Any, ...]]] = {}
    for row in rows:
        out.setdefault(row[0], []).append(row[1:])
    return out


def model_try_sum(values: list[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    if not present:
        return None
    total = sum(present)
    return total if LONG_MIN <= total <= LONG_MAX else None


big = st.one_of(st.none(), st.integers(LONG_MIN, LONG_MAX), st.sampled_from([LONG_MAX, LONG_MIN, LONG_MAX - 1]))


@given(rows=st.lists(st.tuples(st.integers(0, 3), big), min_size=1, max_size=12))
@PROPERTY
def test_try_sum_is_the_exact_sum_or_null_on_overflow(spark: SparkSession, rows: list[tuple[int, int | None]]) -> None:
    df = spark.createDataFrame(rows, "k int, v bigint")
    got = {r.k: r.s for r in df.groupBy("k").agg(F.try_sum("v").alias("s")).collect()}
    assert got == {k: model_try_sum([v for (v,) in vs]) for k, vs in groups_of(rows).items()}


def test_try_sum_agrees_with_sum_in_range_and_try_avg_with_avg(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 2.5, 3), (1, None, 4), (2, 1.0, None)], "k int, d double, i int")
    a = df.groupBy("k").agg(F.sum("d"), F.sum("i"), F.avg("d"), F.avg("i")).orderBy("k").collect()
    b = df.groupBy("k").agg(F.try_sum("d"), F.try_sum("i"), F.try_avg("d"), F.try_avg("i")).orderBy("k").collect()
    assert [tuple(r) for r in a] == [tuple(r) for r in b]
    assert b[0].asDict() == {"k": 1, "try_sum(d)": 2.5, "try_sum(i)": 7, "try_avg(d)": 2.5, "try_avg(i)": 3.5}
    assert spark.sql("SELECT try_sum(v) AS s FROM VALUES (9223372036854775807L), (1L) AS t(v)").first().s is None


@given(rows=st.lists(st.tuples(st.integers(0, 3), st.one_of(st.none(), st.integers(-(2 ** 31), 2 ** 31 - 1))),
                     min_size=1, max_size=12))
@PROPERTY
def test_bitwise_folds_match_pythons(spark: SparkSession, rows: list[tuple[int, int | None]]) -> None:
    df = spark.createDataFrame(rows, "k int, v int")
    got = {r.k: (r.a, r.o, r.x) for r in df.groupBy("k").agg(
        F.bit_and("v").alias("a"), F.bit_or("v").alias("o"), F.bit_xor("v").alias("x")).collect()}
    expected = {}
    for k, vs in groups_of(rows).items():
        present = [v for (v,) in vs if v is not None]
        expected[k] = tuple(functools.reduce(op, present) if present else None
                            for op in (operator.and_, operator.or_, operator.xor))
    assert got == expected


def test_bitwise_folds_keep_the_type_and_refuse_non_integers(spark: SparkSession) -> None:
    df = spark.createDataFrame([(-1, 5), (6, 3)], "b tinyint, l bigint")
    out = df.select(F.bit_and("b"), F.bit_xor("l"))
    assert [f.dataType.simpleString() for f in out.schema.fields] == ["tinyint", "bigint"]
    assert tuple(out.first()) == (6, 6)
    with pytest.raises(AnalysisException, match='requires the "INTEGRAL" type'):
        spark.createDataFrame([(1.5,)], "d double").select(F.bit_or("d")).collect()


def model_regression(pairs: list[tuple[float | None, float | None]]) -> dict[str, Any]:
    both = [(y, x) for y, x in pairs if y is not None and x is not None]
    n = len(both)
    if not n:
        return {"count": 0, "avgx": None, "avgy": None, "sxx": None, "syy": None, "sxy": None, "slope": None,
                "intercept": None, "r2": None}
    mx, my = sum(x for _, x in both) / n, sum(y for y, _ in both) / n
    sxx = sum((x - mx) ** 2 for _, x in both)
    syy = sum((y - my) ** 2 for y, _ in both)
    sxy = sum((x - mx) * (y - my) for y, x in both)
    slope = sxy / sxx if sxx else None
    return {"count": n, "avgx": mx, "avgy": my, "sxx": sxx, "syy": syy, "sxy": sxy, "slope": slope,
            "intercept": my - slope * mx if slope is not None else None,
            "r2": None if not sxx else (1.0 if not syy else sxy * sxy / (sxx * syy))}


def close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


small = st.one_of(st.none(), st.integers(-20, 20).map(float))


@given(rows=st.lists(st.tuples(st.integers(0, 2), small, small), min_size=1, max_size=10))
@PROPERTY
def test_regressions_match_the_least_squares_formulas(spark: SparkSession,
                                                      rows: list[tuple[int, Any, Any]]) -> None:
    df = spark.createDataFrame(rows, "k int, y double, x double")
    names = ["count", "avgx", "avgy", "sxx", "syy", "sxy", "slope", "intercept", "r2"]
    aggs = [getattr(F, f"regr_{n}")("y", "x").alias(n) for n in names]
    got = {r.k: r.asDict() for r in df.groupBy("k").agg(*aggs).collect()}
    for k, pairs in groups_of(rows).items():
        expected = model_regression(pairs)
        assert all(close(got[k][n], expected[n]) for n in names), (k, got[k], expected)


def test_regression_names_types_and_sql(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1.0, 1), (3.0, 2), (5.0, 3)], "y double, x int")
    out = df.select(F.regr_count("y", "x"), F.regr_slope("y", "x"))
    assert out.columns == ["regr_count(y, x)", "regr_slope(y, x)"]
    assert [f.dataType.simpleString() for f in out.schema.fields] == ["bigint", "double"]
    df.createOrReplaceTempView("points")
    row = spark.sql("SELECT regr_intercept(y, x) AS i, regr_count(y, x) AS n, bit_or(x) AS b, "
                    "approx_percentile(x, 0.5) AS p FROM points").first()
    assert (row.i, row.n, row.b, row.p) == (-1.0, 3, 3, 2)
    # Spark's edge rules (PySpark 4.0.1): x constant -> slope and intercept null, r2 1; y constant -> r2 null.
    flat = spark.createDataFrame([(1, 2.0, 1.0), (1, 2.0, 3.0), (2, 1.0, 4.0), (2, 3.0, 4.0)],
                                 "k int, y double, x double")
    edges = {r.k: (r.s, r.i, r.r2) for r in flat.groupBy("k").agg(
        F.regr_slope("y", "x").alias("s"), F.regr_intercept("y", "x").alias("i"),
        F.regr_r2("y", "x").alias("r2")).collect()}
    assert edges == {1: (0.0, 2.0, None), 2: (None, None, 1.0)}


def test_docstring_examples(spark: SparkSession) -> None:
    result = doctest.testmod(functions_agg_more, extraglobs={"spark": spark}, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 8 and result.failed == 0


@given(rows=st.lists(st.tuples(st.integers(0, 2), st.one_of(st.none(), st.sampled_from(["a", "b", "cd", ""]))),
                     min_size=1, max_size=10),
       delimiter=st.sampled_from([None, ",", " | "]))
@PROPERTY
def test_listagg_joins_the_non_null_values_in_row_order(spark: SparkSession, rows: list[tuple[int, Any]],
                                                        delimiter: str | None) -> None:
    df = spark.createDataFrame(rows, "k int, s string").coalesce(1)
    got = {r.k: (r.a, r.d) for r in df.groupBy("k").agg(
        F.listagg("s", delimiter).alias("a"), F.string_agg_distinct("s", delimiter).alias("d")).collect()}
    expected = {}
    for k, vs in groups_of(rows).items():
        present = [v for (v,) in vs if v is not None]
        distinct = list(dict.fromkeys(present))
        sep = delimiter or ""
        expected[k] = (sep.join(present) if present else None, sep.join(distinct) if distinct else None)
    assert got == expected


def test_listagg_names_sql_binary_and_errors(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a",), (None,), ("c",)], ["s"])
    assert df.select(F.listagg("s"), F.string_agg("s", "-")).columns == ["listagg(s, NULL)", "string_agg(s, -)"]
    df.createOrReplaceTempView("letters")
    assert spark.sql("SELECT listagg(s, '+') AS j FROM letters").first().j == "a+c"
    assert bytes(spark.createDataFrame([(b"ab",), (b"c",)], "b binary").select(F.listagg("b", b"/")).first()[0]) \
        == b"ab/c"
    with pytest.raises(AnalysisException, match='requires the \\("STRING" or "BINARY"\\) type'):
        spark.createDataFrame([(1,)], "i int").select(F.listagg("i")).collect()
