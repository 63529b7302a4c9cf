"""Higher-order functions (``transform``, ``filter``, ``exists``, ``forall``, ``aggregate``,
``zip_with``) against plain-Python models of Spark's definitions, in the DataFrame API and in SQL.

The models, per row: a null array gives null; ``transform`` maps every element (a null
element to what the function gives for null); ``filter`` keeps the elements whose
predicate is true (null counts as false); ``exists`` is true if some predicate is true,
else null if some is null, else false (``forall`` the dual); ``aggregate`` folds left
from the initial value; ``zip_with`` pairs positions, the shorter array padded with nulls.
Lambdas read the row's other columns (``n``) and nest (a lambda inside a lambda reads the
outer one's parameter).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException, PySparkValueError

ARRAYS = st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-20, 20)), max_size=6))
ROWS = st.lists(st.tuples(ARRAYS, ARRAYS, st.integers(-5, 5)), min_size=1, max_size=12)


def _quantified(values: list[Any] | None, n: int, every: bool) -> bool | None:
    if values is None:
        return None
    results = [None if v is None else v > n for v in values]
    if every:
        return False if False in results else (None if None in results else True)
    return True if True in results else (None if None in results else False)


def _zip(a: list[Any] | None, b: list[Any] | None) -> list[Any] | None:
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    pad = [*a, *[None] * (n - len(a))], [*b, *[None] * (n - len(b))]
    return [None if x is None or y is None else x - y for x, y in zip(*pad)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS)
def test_the_functions_match_the_model(spark: SparkSession, rows: list[tuple[Any, Any, int]]) -> None:
    df = spark.createDataFrame(rows, "a array<int>, b array<int>, n int")
    got = df.select(
        F.transform("a", lambda x: x * 2 + F.col("n")).alias("mapped"),
        F.transform("a", lambda x, i: F.coalesce(x, F.lit(0)) * i).alias("indexed"),
        F.filter("a", lambda x: x > F.col("n")).alias("kept"),
        F.exists("a", lambda x: x > F.col("n")).alias("some"),
        F.forall("a", lambda x: x > F.col("n")).alias("every"),
        F.aggregate("a", F.lit(0), lambda acc, x: acc + F.coalesce(x, F.lit(1))).alias("folded"),
        F.aggregate("a", F.lit(""), lambda acc, x: F.concat(acc, F.coalesce(x.cast("string"), F.lit("?"))),
                    lambda acc: F.length(acc)).alias("finished"),
        F.zip_with("a", "b", lambda x, y: x - y).alias("zipped"),
        F.transform("a", lambda x: F.filter("b", lambda y: y > x)).alias("nested"),
    ).collect()
    for (a, b, n), row in zip(rows, got):
        assert row["mapped"] == (None if a is None else [None if x is None else x * 2 + n for x in a])
        assert row["indexed"] == (None if a is None else [(x or 0) * i for i, x in enumerate(a)])
        assert row["kept"] == (None if a is None else [x for x in a if x is not None and x > n])
        assert row["some"] == _quantified(a, n, every=False)
        assert row["every"] == _quantified(a, n, every=True)
        assert row["folded"] == (None if a is None else sum(1 if x is None else x for x in a))
        assert row["finished"] == (None if a is None else len("".join("?" if x is None else str(x) for x in a)))
        assert row["zipped"] == _zip(a, b)
        assert row["nested"] == (None if a is None else [
            None if b is None else [y for y in b if y is not None and x is not None and y > x] for x in a])


def test_sql_lambdas_and_their_column_names(spark: SparkSession) -> None:
    spark.createDataFrame([([1, 2, 3], 10)], "a array<int>, n int").createOrReplaceTempView("hof_t")
    got = spark.sql("SELECT transform(a, x -> x + n) AS t, filter(a, (x, i) -> i > 0) AS f, "
                    "aggregate(a, 0, (acc, x) -> acc + x, acc -> acc * 10) AS s, exists(a, x -> x = 2) AS e "
                    "FROM hof_t").collect()
    assert [tuple(r) for r in got] == [([11, 12, 13], [2, 3], 60, True)]
    # PySpark 4.0.1 names every lambda variable namedlambdavariable(), in SQL and in Python.
    expected = ["transform(a, lambdafunction((namedlambdavariable() + 1), namedlambdavariable()))"]
    assert spark.sql("SELECT transform(a, x -> x + 1) FROM hof_t").columns == expected
    assert spark.table("hof_t").select(F.transform("a", lambda x: x + 1)).columns == expected


def test_what_is_refused(spark: SparkSession) -> None:
    df = spark.createDataFrame([([1.5], 1)], "a array<double>, n int")
    with pytest.raises(AnalysisException, match="initial value"):
        df.select(F.aggregate("a", F.lit(0), lambda acc, x: acc + x)).collect()
    with pytest.raises(AnalysisException, match="BOOLEAN"):
        df.select(F.filter("a", lambda x: x + 1)).collect()
    with pytest.raises(AnalysisException, match="ARRAY"):
        df.select(F.transform("n", lambda x: x)).collect()
    with pytest.raises(PySparkValueError, match="should take between 1 and 1"):
        F.exists("a", lambda x, y: x)
    with pytest.raises(PySparkValueError, match="should return Column"):
        F.transform("a", lambda x: 1)  # type: ignore[arg-type, return-value]
    assert [tuple(r) for r in df.select(F.aggregate("a", F.lit(0.0), lambda acc, x: acc + x)).collect()] == [(1.5,)]


def test_the_docstring_examples(spark: SparkSession) -> None:
    import doctest

    from dstream.sql import functions_higher_order

    result = doctest.testmod(functions_higher_order, extraglobs={"spark": spark, "lit": F.lit,
                                                                 "coalesce": F.coalesce})
    assert result.attempted > 0 and result.failed == 0
