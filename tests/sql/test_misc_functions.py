"""Assorted functions (``array_sort`` with and without a comparator, ``equal_null``, ``elt``,
``find_in_set``, ``overlay``, ``width_bucket``, ``bin``, ``conv``, ``encode``/``decode``,
``uuid``, ``window_time``, ``current_timezone``, ``to_unix_timestamp``, ``call_function``)
against plain-Python models and Spark's documented examples.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException, SparkRuntimeException

ARRAYS = st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-9, 9)), max_size=6))
TEXT = st.text(alphabet="ab,", max_size=6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arrays=st.lists(ARRAYS, min_size=1, max_size=6))
def test_array_sort_matches_the_model(spark: SparkSession, arrays: list[Any]) -> None:
    df = spark.createDataFrame([(a,) for a in arrays], "a array<int>")
    # Descending by a comparator, nulls first; the default: ascending, nulls last.
    descending = F.array_sort("a", lambda x, y: F.when(x.isNull() & y.isNull(), 0).when(x.isNull(), -1)
                              .when(y.isNull(), 1).otherwise(y - x))
    got = df.select(F.array_sort("a").alias("up"), descending.alias("down")).collect()
    for a, row in zip(arrays, got):
        if a is None:
            assert tuple(row) == (None, None)
            continue
        present = [v for v in a if v is not None]
        nulls = [None] * (len(a) - len(present))
        assert row.up == sorted(present) + nulls
        assert row.down == nulls + sorted(present, reverse=True)


def _conv(text: str, from_base: int, to_base: int) -> str:
    value = int(text, from_base)
    if value < 0:
        value &= (1 << 64) - 1
    digits = ""
    while True:
        value, d = divmod(value, to_base)
        digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[d] + digits
        if value == 0:
            return digits


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(numbers=st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=6), base=st.integers(2, 36),
       words=st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=6))
def test_numbers_and_strings_match_the_model(spark: SparkSession, numbers: list[int], base: int,
                                             words: list[tuple[str, str]]) -> None:
    df = spark.createDataFrame([(n, str(n)) for n in numbers], "n long, s string")
    got = df.select(F.bin("n").alias("b"), F.conv("s", 10, base).alias("c"),
                    F.width_bucket(F.col("n").cast("double"), F.lit(-100.0), F.lit(100.0), F.lit(8)).alias("w")
                    ).collect()
    for n, row in zip(numbers, got):
        assert row.b == format(n & ((1 << 64) - 1) if n < 0 else n, "b")
        assert row.c == _conv(str(n), 10, base)
        expected = 0 if n < -100 else 9 if n >= 100 else int((n + 100) * 8 / 200) + 1
        assert row.w == expected
    pairs = spark.createDataFrame(words, "s string, l string")
    found = pairs.select(F.find_in_set("s", "l").alias("f"), F.equal_null("s", "l").alias("e")).collect()
    for (s, items), row in zip(words, found):
        parts = items.split(",")
        assert row.f == (0 if "," in s or s not in parts else parts.index(s) + 1)
        assert row.e is (s == items)


def test_spark_documented_examples(spark: SparkSession) -> None:
    [row] = spark.sql(
        "SELECT conv('100', 2, 10) AS a, conv('-10', 16, -10) AS b, conv('-10', 16, 10) AS c, bin(13) AS d, "
        "overlay('Spark SQL', 'ANSI ', 7, 0) AS e, overlay('Spark SQL', '_', 6) AS f, "
        "width_bucket(5.3, 0.2, 10.6, 5) AS g, width_bucket(-0.9, 5.2, 0.5, 2) AS h, elt(1, 'scala', 'java') AS i, "
        "find_in_set('ab', 'abc,b,ab,c,def') AS j, equal_null(NULL, NULL) AS k, equal_null(3, NULL) AS l").collect()
    assert row.asDict() == {"a": "4", "b": "-16", "c": "18446744073709551600", "d": "1101", "e": "Spark ANSI SQL",
                            "f": "Spark_SQL", "g": 3, "h": 3, "i": "scala", "j": 3, "k": True, "l": False}


def test_bytes_ids_time_and_call_function(spark: SparkSession) -> None:
    df = spark.createDataFrame([("añb",)], "s string")
    for charset in ("UTF-8", "UTF-16", "UTF-16LE", "ISO-8859-1"):
        [row] = df.select(F.decode(F.encode("s", charset), charset).alias("back"),
                          F.encode("s", charset).alias("bytes")).collect()
        assert row.back == "añb" and bytes(row.bytes) == ("\ufeffañb".encode("utf-16-be") if charset == "UTF-16"
                                                           else "añb".encode(charset))
    ids = [r.u for r in spark.range(5).select(F.uuid().alias("u")).collect()]
    assert len(set(ids)) == 5 and all(uuid.UUID(i).version == 4 for i in ids)
    events = spark.createDataFrame([(datetime.datetime(2020, 1, 1, 0, 0, 7),)], "t timestamp")
    [w] = events.groupBy(F.window("t", "5 seconds")).count().select(F.window_time("window").alias("wt")).collect()
    assert w.wt == datetime.datetime(2020, 1, 1, 0, 0, 9, 999999)
    assert spark.range(1).select(F.current_timezone()).collect()[0][0] == spark.conf.get("spark.sql.session.timeZone")
    assert spark.range(3).select(F.call_function("sum", "id")).collect()[0][0] == 3
    assert spark.range(1).select(F.call_function("regexp_count", F.lit("aaa"), F.lit("a"))).collect()[0][0] == 3


def test_errors_name_the_problem(spark: SparkSession) -> None:
    with pytest.raises(SparkRuntimeException, match="INVALID_ARRAY_INDEX"):
        spark.sql("SELECT elt(5, 'a', 'b')").collect()
    with pytest.raises(AnalysisException, match="UNRESOLVED_ROUTINE"):
        spark.range(1).select(F.call_function("no_such_function", "id"))
    with pytest.raises(SparkRuntimeException, match="COMPARATOR_RETURNS_NULL"):
        spark.createDataFrame([([1, 2],)], "a array<int>").select(
            F.array_sort("a", lambda x, y: F.lit(None).cast("int"))).collect()
    with pytest.raises(SparkRuntimeException, match="charset 'EBCDIC' is not supported"):
        spark.range(1).select(F.encode(F.lit("x"), "EBCDIC")).collect()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arrays=st.lists(ARRAYS, min_size=1, max_size=6), index=st.integers(-8, 8))
def test_try_element_at_matches_the_model(spark: SparkSession, arrays: list[Any], index: int) -> None:
    df = spark.createDataFrame([(a,) for a in arrays], "a array<int>")
    if index == 0 and any(a is not None for a in arrays):  # PySpark 4.0.1: no position, even for try_
        with pytest.raises(Exception, match="INVALID_INDEX_OF_ZERO"):
            df.select(F.try_element_at("a", F.lit(index))).collect()
        return
    got = df.select(F.try_element_at("a", F.lit(index)).alias("v")).collect()
    for a, row in zip(arrays, got):
        inside = a is not None and index != 0 and abs(index) <= len(a)
        assert row.v == (a[index - 1 if index > 0 else index] if inside else None)
    if index != 0 and any(a is not None and abs(index) > len(a) for a in arrays):
        with pytest.raises(Exception, match="INVALID_ARRAY_INDEX_IN_ELEMENT_AT.*try_element_at"):
            df.select(F.element_at("a", index)).collect()  # what the error's advice points to
