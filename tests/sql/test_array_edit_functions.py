"""array_append, array_prepend, array_insert, array_compact, get, array_size and cardinality
against plain-Python models of Spark's rules (see ``expressions.array_edit_functions``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import SparkRuntimeException

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ARRAYS = st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-9, 9)), max_size=6))
ROWS = st.lists(st.tuples(ARRAYS, st.integers(-9, 9).filter(bool), st.one_of(st.none(), st.integers(-9, 9))),
                min_size=1, max_size=8)


def insert_model(values: list[Any], pos: int, value: Any) -> list[Any]:
    """Spark 3.5's array_insert: 1-based; -1 is after the last element; gaps filled with nulls."""
    n = len(values)
    if pos > 0:
        padded = values + [None] * max(0, pos - 1 - n)
        return padded[:pos - 1] + [value] + padded[pos - 1:]
    size = max(n + 1, -pos)  # the result is long enough for the value to sit -pos places from its end
    front = [None] * (size - n - 1)
    result = front + values
    at = size + pos  # 0-based place in the result
    return result[:at] + [value] + result[at:] if at < len(result) else result + [value]


@given(rows=ROWS)
@PROPERTY
def test_each_function_matches_its_model(spark: SparkSession, rows: list[tuple[Any, int, Any]]) -> None:
    df = spark.createDataFrame(rows, "a array<int>, p int, v int")
    got = df.select(
        F.array_append("a", F.col("v")), F.array_prepend("a", F.col("v")), F.array_insert("a", "p", F.col("v")),
        F.array_compact("a"), F.get("a", F.col("p")), F.array_size("a"), F.cardinality("a")).collect()
    for (a, p, v), row in zip(rows, got):
        if a is None:
            assert tuple(row)[:6] == (None,) * 6
            continue
        expected = (a + [v], [v] + a, insert_model(a, p, v), [x for x in a if x is not None],
                    a[p] if 0 <= p < len(a) else None, len(a), len(a))
        assert tuple(row) == expected, (a, p, v)


def test_types_sql_names_and_errors(spark: SparkSession) -> None:
    df = spark.createDataFrame([([1, 2],)], "a array<int>")
    widened = df.select(F.array_append("a", F.lit(3).cast("bigint")).alias("r"))
    assert widened.schema["r"].dataType.simpleString() == "array<bigint>"
    assert df.select(F.array_append("a", 3)).columns == ["array_append(a, 3)"]
    row = spark.sql("SELECT array_insert(array(5, 3, 2, 1), -4, 4) AS a, array_insert(array(1, 2, 3), -5, 4) AS b, "
                    "array_prepend(array('b'), 'a') AS c, get(array(1, 2), -1) AS d, "
                    "array_compact(array(1, null, 2)) AS e, array_size(array()) AS f").first()
    assert tuple(row) == ([5, 4, 3, 2, 1], [4, None, 1, 2, 3], ["a", "b"], None, [1, 2], 0)
    with pytest.raises(SparkRuntimeException, match="INVALID_INDEX_OF_ZERO"):
        df.select(F.array_insert("a", 0, 9)).collect()
    with pytest.raises(Exception, match='requires the "ARRAY" type'):
        spark.range(1).select(F.array_append("id", 1)).collect()


@given(rows=st.lists(st.tuples(ARRAYS, st.one_of(st.none(), st.lists(st.text("xy", max_size=2), max_size=5))),
                     min_size=1, max_size=8))
@PROPERTY
def test_arrays_zip_matches_zip_longest(spark: SparkSession, rows: list[tuple[Any, Any]]) -> None:
    import itertools

    df = spark.createDataFrame(rows, "a array<int>, s array<string>")
    got = df.select(F.arrays_zip("a", "s").alias("z")).collect()
    for (a, s), row in zip(rows, got):
        expected = None if a is None or s is None else [
            {"a": x, "s": y} for x, y in itertools.zip_longest(a, s)]
        assert (None if row.z is None else [r.asDict() for r in row.z]) == expected


def test_arrays_zip_names_its_fields_as_spark(spark: SparkSession) -> None:
    df = spark.createDataFrame([([1], [2])], "a array<int>, b array<int>")
    assert df.select(F.arrays_zip("a", F.col("b").alias("bee"), F.array_append("a", 9))).schema[0].dataType \
        .simpleString() == "array<struct<a:int,bee:int,2:int>>"
    df.createOrReplaceTempView("zipped")
    assert spark.sql("SELECT arrays_zip(a, b) FROM zipped").columns == ["arrays_zip(a, b)"]
    with pytest.raises(Exception, match='requires the "ARRAY" type'):
        spark.range(1).select(F.arrays_zip("id")).collect()
