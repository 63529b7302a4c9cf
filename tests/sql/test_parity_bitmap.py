"""The bitmap functions (``bitmap_bucket_number``, ``bitmap_bit_position``, ``bitmap_count``,
``bitmap_construct_agg``, ``bitmap_or_agg``): UNRESOLVED_ROUTINE until compared with PySpark 4.0.1.

The expected values are what PySpark 4.0.1 returned (or raised) for the same calls.
"""

from __future__ import annotations

import doctest
from collections.abc import Iterator

import pytest

from dstream.sql import Row, SparkSession, functions_agg_more
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException, ArrayIndexOutOfBoundsException


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("parity-bitmap").getOrCreate()
    yield session
    session.stop()


def test_bucket_number_and_bit_position(spark: SparkSession) -> None:
    values = [1, 32768, 32769, 0, -1, -32768, -32769]
    buckets = spark.sql("SELECT " + ", ".join(f"bitmap_bucket_number({v})" for v in values)
                        + ", bitmap_bucket_number(CAST(5 AS INT)), bitmap_bucket_number(NULL)")
    assert list(buckets.first()) == [1, 1, 2, 0, 0, -1, -1, 1, None]
    assert buckets.schema.simpleString().count(":bigint") == 9
    assert buckets.columns[0] == "bitmap_bucket_number(1)"
    positions = spark.sql("SELECT " + ", ".join(f"bitmap_bit_position({v})" for v in values))
    assert list(positions.first()) == [0, 32767, 0, 0, 1, 0, 1]
    assert list(spark.sql("SELECT bitmap_bucket_number('7'), bitmap_bit_position(2.7)").first()) == [1, 1]
    df = spark.createDataFrame([(1,), (3,)], "v long")
    assert df.select(F.bitmap_bucket_number("v"), F.bitmap_bit_position("v")).collect() == [
        Row(**{"bitmap_bucket_number(v)": 1, "bitmap_bit_position(v)": 0}),
        Row(**{"bitmap_bucket_number(v)": 1, "bitmap_bit_position(v)": 2})]


def test_construct_or_and_count(spark: SparkSession) -> None:
    rows = spark.sql("SELECT k, bitmap_bucket_number(v) b, bitmap_construct_agg(bitmap_bit_position(v)) bm, "
                     "bitmap_count(bitmap_construct_agg(bitmap_bit_position(v))) c FROM VALUES (1, 1), (1, 2), "
                     "(1, 9), (1, 9), (1, NULL), (2, 40000) AS t(k, v) GROUP BY k, bitmap_bucket_number(v)").collect()
    got = sorted((r.k, r.b if r.b is not None else -1, len(r.bm), bytes(r.bm[:3]).hex(), r.c) for r in rows)
    assert got == [(1, -1, 4096, "000000", 0), (1, 1, 4096, "030100", 3), (2, 2, 4096, "000000", 1)]
    named = spark.sql("SELECT bitmap_construct_agg(bitmap_bit_position(v)), "
                      "bitmap_count(bitmap_construct_agg(bitmap_bit_position(v))) FROM VALUES (1) AS t(v)")
    assert named.columns == ["bitmap_construct_agg(bitmap_bit_position(v))",
                             "bitmap_count(bitmap_construct_agg(bitmap_bit_position(v)))"]
    assert spark.sql("SELECT bitmap_count(bitmap_or_agg(bm)) c, bitmap_or_agg(bm) IS NULL n FROM (SELECT "
                     "bitmap_construct_agg(bitmap_bit_position(v)) bm FROM VALUES (1, 1), (2, 2), (2, 1) AS t(k, v) "
                     "GROUP BY k)").collect() == [Row(c=2, n=False)]
    # Over no value (nulls, or no row): 4096 zero bytes, never null.
    for sql in ("SELECT bitmap_construct_agg(v), bitmap_count(bitmap_construct_agg(v)) FROM VALUES "
                "(CAST(NULL AS BIGINT)) AS t(v)",
                "SELECT bitmap_construct_agg(v), bitmap_count(bitmap_construct_agg(v)) FROM VALUES (1) AS t(v) "
                "WHERE v > 5"):
        bitmap, count = spark.sql(sql).first()
        assert (len(bitmap), count) == (4096, 0)
    assert list(spark.sql("SELECT bitmap_or_agg(b) IS NULL, bitmap_count(bitmap_or_agg(b)) FROM VALUES "
                          "(CAST(NULL AS BINARY)) AS t(b)").first()) == [False, 0]
    assert list(spark.sql("SELECT bitmap_count(bitmap_or_agg(b)), length(bitmap_or_agg(b)) FROM VALUES (X'01'), "
                          "(X'0102') AS t(b)").first()) == [2, 4096]
    df = spark.createDataFrame([(1,), (3,)], "v long")
    assert df.agg(F.bitmap_construct_agg(F.bitmap_bit_position("v")).alias("b")).select(
        F.bitmap_count("b")).collect() == [Row(**{"bitmap_count(b)": 2})]


def test_bitmap_errors(spark: SparkSession) -> None:
    for value in (40000, -1):
        with pytest.raises(ArrayIndexOutOfBoundsException) as info:
            spark.sql(f"SELECT bitmap_construct_agg(v) FROM VALUES ({value}) AS t(v)").collect()
        assert info.value.getCondition() == "INVALID_BITMAP_POSITION"
        assert f"The 0-indexed bitmap position {value} is out of bounds. The bitmap has 32768 bits (4096 bytes)." \
            in str(info.value)
    with pytest.raises(AnalysisException) as bad:
        spark.sql("SELECT bitmap_count('a')").collect()
    assert bad.value.getCondition() == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"
    assert 'requires the "BINARY" type' in str(bad.value)


def test_docstring_examples(spark: SparkSession) -> None:
    result = doctest.testmod(functions_agg_more, extraglobs={"spark": spark},
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 3 and result.failed == 0, result
