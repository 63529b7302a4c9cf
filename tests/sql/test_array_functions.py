"""``sort_array``, ``array_distinct``, ``array_max``, ``array_min``, array casts and ``DataFrame.transform``.

Each array function is compared with a few lines of Python stating Spark's rule: nulls
order before every value, ``NaN`` after every number and equal to itself.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException, NumberFormatException, PySparkTypeError


def order(v: Any) -> tuple[int, Any]:
    if v is None:
        return (0, 0)
    return (2, 0) if isinstance(v, float) and math.isnan(v) else (1, v)


def same(a: list[Any] | None, b: list[Any] | None) -> bool:
    """Equal lists, NaN equal to NaN."""
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x)
                                               and math.isnan(y)) for x, y in zip(a, b))


def distinct(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if not any(same([v], [o]) for o in out):
            out.append(v)
    return out


ARRAYS = st.lists(st.one_of(st.none(), st.lists(st.one_of(st.none(), st.floats(allow_infinity=False)), max_size=6)),
                  min_size=1, max_size=8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arrays=ARRAYS)
def test_array_functions_equal_the_model(spark: SparkSession, arrays: list[list[float | None] | None]) -> None:
    df = spark.createDataFrame([(a,) for a in arrays], "a array<double>")
    got = df.select(F.sort_array("a"), F.sort_array("a", asc=False), F.array_distinct("a"), F.array_max("a"),
                    F.array_min("a")).collect()
    for row, a in zip(got, arrays):
        if a is None:
            assert tuple(row) == (None,) * 5
            continue
        present = [v for v in a if v is not None]
        assert same(row[0], sorted(a, key=order))
        assert same(row[1], sorted(a, key=order, reverse=True))
        assert same(row[2], distinct(a))
        assert same([row[3]], [max(present, key=order) if present else None])
        assert same([row[4]], [min(present, key=order) if present else None])


def test_array_functions_in_sql_and_their_names(spark: SparkSession) -> None:
    row = spark.sql("SELECT sort_array(array(2, 1, 3), false) AS s, array_max(array('b', 'a')) AS m").first()
    assert tuple(row) == ([3, 2, 1], "b")
    assert spark.range(1).select(F.sort_array(F.array(F.lit(1)))).columns == ["sort_array(array(1), true)"]
    with pytest.raises(AnalysisException, match='requires the "ARRAY" type'):
        spark.range(1).select(F.sort_array(F.lit(1))).collect()


def test_arrays_cast_element_by_element(spark: SparkSession) -> None:
    df = spark.createDataFrame([([1, None, 2],), ([],), (None,)], "arr array<int>")
    rows = df.select(F.col("arr").cast("array<string>").alias("s"), F.col("arr").cast("array<double>").alias("d"),
                     F.concat_ws(",", F.col("arr").cast("array<string>")).alias("j")).collect()
    assert [tuple(r) for r in rows] == [(["1", None, "2"], [1.0, None, 2.0], "1,2"), ([], [], ""), (None, None, "")]
    bad = spark.createDataFrame([(["1", "x"],)], "a array<string>")
    assert bad.select(F.col("a").try_cast("array<int>")).first()[0] == [1, None]
    with pytest.raises(NumberFormatException, match="CAST_INVALID_INPUT"):
        bad.select(F.col("a").cast("array<int>")).collect()


def test_transform_chains_functions_of_a_dataframe(spark: SparkSession) -> None:
    df = spark.range(4)

    def plus(frame: Any, n: int, name: str = "x") -> Any:
        return frame.select((F.col("id") + n).alias(name))

    assert [r.y for r in df.transform(plus, 10, name="y").collect()] == [10, 11, 12, 13]
    with pytest.raises(PySparkTypeError, match="should have been DataFrame"):
        df.transform(lambda frame: frame.count())
