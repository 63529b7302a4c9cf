"""Both sides' keys after a USING join, as PySpark 4.0.1 gives them; expected values are its output.

A join on column names shows each key once, yet Spark keeps each side's own key reachable
by that side's qualifier (``y.k``: the right side's key, null where an outer join found no
right row), and ``y.*`` still includes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dstream.sql import DataFrame, SparkSession
from dstream.sql import functions as F


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("using-join-tests").getOrCreate()
    yield session
    session.stop()


@pytest.fixture(scope="module")
def sides(spark: SparkSession) -> tuple[DataFrame, DataFrame]:
    x = spark.createDataFrame([(1, 2), (5, 6)], ["k", "v"]).alias("x")
    y = spark.createDataFrame([(1, 3), (7, 8)], ["k", "w"]).alias("y")
    x.createOrReplaceTempView("ta")
    y.createOrReplaceTempView("tb")
    return x, y


def rows(df: DataFrame) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=str)


def test_each_side_s_key_by_its_qualifier(sides: tuple[DataFrame, DataFrame]) -> None:
    x, y = sides
    joined = x.join(y, "k")
    assert joined.columns == ["k", "v", "w"]
    df = joined.select("y.k", "x.k", "w")
    assert df.columns == ["k", "k", "w"] and rows(df) == [(1, 1, 3)]
    assert rows(joined.select("x.*")) == [(1, 2)]
    assert joined.select("y.*").columns == ["k", "w"] and rows(joined.select("y.*")) == [(1, 3)]
    assert rows(joined.select(x["k"], y["k"])) == [(1, 1)]


@pytest.mark.parametrize("how, expected", [
    ("inner", [(1, 1, 1, 2, 3)]),
    ("left", [(1, 1, 1, 2, 3), (5, None, 5, 6, None)]),
    ("right", [(1, 1, 1, 2, 3), (7, 7, None, None, 8)]),
    ("full", [(1, 1, 1, 2, 3), (5, None, 5, 6, None), (7, 7, None, None, 8)]),
])
def test_outer_using_joins_keep_the_side_keys_nullable(sides: tuple[DataFrame, DataFrame], how: str,
                                                       expected: list[tuple[Any, ...]]) -> None:
    x, y = sides
    assert rows(x.join(y, "k", how).select("k", "y.k", "x.k", "v", "w")) == expected
    assert rows(x.join(y, ["k"], "full").select(F.col("x.k"), F.col("y.k"))) == [(1, 1), (5, None), (None, 7)]


def test_sql_join_using_and_natural_join(spark: SparkSession, sides: tuple[DataFrame, DataFrame]) -> None:
    def sql(query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        df = spark.sql(query)
        return df.columns, rows(df)

    assert sql("SELECT k, ta.k, tb.k FROM ta JOIN tb USING (k)") == (["k", "k", "k"], [(1, 1, 1)])
    assert sql("SELECT k, ta.k, tb.k FROM ta FULL JOIN tb USING (k)") == (
        ["k", "k", "k"], [(1, 1, 1), (5, 5, None), (7, None, 7)])
    assert sql("SELECT k, p.k, q.k FROM ta p LEFT JOIN tb q USING (k)") == (["k", "k", "k"], [(1, 1, 1), (5, 5, None)])
    assert sql("SELECT * FROM ta FULL JOIN tb USING (k)") == (["k", "v", "w"], [(1, 2, 3), (5, 6, None), (7, None, 8)])
    assert sql("SELECT ta.*, tb.* FROM ta JOIN tb USING (k)") == (["k", "v", "k", "w"], [(1, 2, 1, 3)])
    assert sql("SELECT k, ta.k, tb.k FROM ta NATURAL JOIN (SELECT k, w FROM tb) tb") == (["k", "k", "k"], [(1, 1, 1)])
    assert sql("SELECT tb.k FROM ta JOIN tb USING (k) WHERE v > 0") == (["k"], [(1,)])
