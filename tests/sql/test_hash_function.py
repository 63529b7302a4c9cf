"""hash(*cols): Spark's Murmur3 values, from Spark's documentation and from a model.

Spark's documented results are the fixed points: ``hash('Spark', array(123), 2)`` is
-1321691492, ``hash('ABC')`` -757602832, ``hash('ABC', 'DEF')`` 599895104, ``hash(1)``
-559580957. The model for the rest is the reference Murmur3 x86_32 written from its
definition over little-endian 4-byte words (on 4-byte-aligned input Spark's variant
and the reference agree); the chaining rule (each value seeded with the hash so far,
nulls skipped) is stated on top of it.
"""

from __future__ import annotations

import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import AnalysisException, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
MASK = 0xFFFFFFFF


def reference_murmur3(words: list[int], seed: int) -> int:
    """Murmur3 x86_32 of whole 32-bit words (no tail), unsigned."""
    h = seed
    for word in words:
        k = (word * 0xCC9E2D51) & MASK
        k = ((k << 15) | (k >> 17)) & MASK
        k = (k * 0x1B873593) & MASK
        h ^= k
        h = ((h << 13) | (h >> 19)) & MASK
        h = (h * 5 + 0xE6546B64) & MASK
    h ^= 4 * len(words)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & MASK
    return h ^ (h >> 16)


def signed(h: int) -> int:
    return h - (1 << 32) if h & 0x80000000 else h


def model(values: list[tuple[str, Any]]) -> int:
    h = 42
    for kind, value in values:
        if value is None:
            continue
        if kind == "int":
            h = reference_murmur3([value & MASK], h)
        elif kind == "bigint":
            h = reference_murmur3([value & MASK, (value >> 32) & MASK], h)
        else:  # a string of whole 4-byte words
            data = value.encode()
            h = reference_murmur3([int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)], h)
    return signed(h)


def test_spark_documented_values(spark: SparkSession) -> None:
    assert spark.sql("SELECT hash('Spark', array(123), 2) AS h").first().h == -1321691492
    assert spark.sql("SELECT hash(1) AS h").first().h == -559580957
    df = spark.createDataFrame([("ABC", "DEF")], ["c1", "c2"])
    assert list(df.select(F.hash("c1"), F.hash("c1", "c2")).first()) == [-757602832, 599895104]
    assert df.select(F.hash("c1", "c2")).columns == ["hash(c1, c2)"]


aligned_text = st.text(alphabet="abcdefgh", max_size=12).map(lambda s: s + "x" * (-len(s) % 4))


@given(rows=st.lists(st.tuples(st.one_of(st.none(), st.integers(-(2 ** 31), 2 ** 31 - 1)),
                               st.one_of(st.none(), st.integers(-(2 ** 63), 2 ** 63 - 1)),
                               st.one_of(st.none(), aligned_text)), min_size=1, max_size=6))
@PROPERTY
def test_ints_longs_and_strings_match_the_reference(spark: SparkSession, rows: list[tuple[Any, Any, Any]]) -> None:
    df = spark.createDataFrame(rows, "i int, l bigint, s string")
    got = [r.h for r in df.select(F.hash("i", "l", "s").alias("h")).collect()]
    assert got == [model([("int", i), ("bigint", long_), ("string", s)]) for i, long_, s in rows]


def test_types_hash_as_their_spark_representation(spark: SparkSession) -> None:
    def one(sql: str) -> int:
        return int(spark.sql(f"SELECT hash({sql}) AS h").first().h)

    assert one("true") == one("1") and one("false") == one("0")  # a boolean is hashed as 1 or 0
    assert one("CAST(7 AS TINYINT)") == one("7") == one("CAST(7 AS SMALLINT)")
    assert one("CAST(7 AS BIGINT)") == signed(reference_murmur3([7, 0], 42))
    assert one("DATE '1970-01-08'") == one("7")  # days since the epoch
    assert one("TIMESTAMP '1970-01-01 00:00:01 UTC'") == one("CAST(1000000 AS BIGINT)")  # microseconds
    bits = struct.unpack("<q", struct.pack("<d", 1.5))[0]
    assert one("CAST(1.5 AS DOUBLE)") == signed(reference_murmur3([bits & MASK, bits >> 32], 42))
    assert one("CAST(-0.0 AS DOUBLE)") == one("CAST(0.0 AS DOUBLE)")
    assert one("CAST(12.34 AS DECIMAL(10, 2))") == one("CAST(1234 AS BIGINT)")  # the unscaled long
    assert one("NULL") == 42 and one("CAST(NULL AS INT), 1") == one("1")  # nulls are skipped
    assert one("array(1, 2)") == one("1, 2") and one("named_struct('a', 1, 'b', 'x')") == one("1, 'x'")


def test_maps_are_refused(spark: SparkSession) -> None:
    df = spark.createDataFrame([({1: 2},)], "m map<int, int>")
    with pytest.raises(AnalysisException, match='"MAP" type'):
        df.select(F.hash("m")).collect()


# -- xxhash64 ---------------------------------------------------------------------------
# Spark's documented values are the fixed points; the model is the xxHash C library's
# XXH64 (``xxhash``), which Spark's XXH64 is for bytes, 4-byte ints and 8-byte longs.

def xx_model(values: list[tuple[str, Any]]) -> int:
    import xxhash

    h = 42
    for kind, value in values:
        if value is None:
            continue
        if kind == "int":
            data = (value & MASK).to_bytes(4, "little")
        elif kind == "bigint":
            data = (value & (2 ** 64 - 1)).to_bytes(8, "little")
        else:
            data = value.encode("utf-8")
        h = xxhash.xxh64_intdigest(data, h)
    return h - 2 ** 64 if h >> 63 else h


def test_xxhash64_spark_documented_values(spark: SparkSession) -> None:
    assert spark.sql("SELECT xxhash64('Spark', array(123), 2) AS h").first().h == 5602566077635097486
    df = spark.createDataFrame([("ABC", "DEF")], ["c1", "c2"])
    assert list(df.select(F.xxhash64("c1"), F.xxhash64("c1", "c2")).first()) == [4105715581806190027,
                                                                                 3233247871021311208]
    assert df.select(F.xxhash64("c1", "c2")).columns == ["xxhash64(c1, c2)"]
    assert df.select(F.xxhash64("c1")).schema.fields[0].dataType.simpleString() == "bigint"


@given(rows=st.lists(st.tuples(st.one_of(st.none(), st.integers(-(2 ** 31), 2 ** 31 - 1)),
                               st.one_of(st.none(), st.integers(-(2 ** 63), 2 ** 63 - 1)),
                               st.one_of(st.none(), st.text(max_size=80))), min_size=1, max_size=6))
@PROPERTY
def test_xxhash64_of_ints_longs_and_strings_matches_the_reference(spark: SparkSession,
                                                                  rows: list[tuple[Any, Any, Any]]) -> None:
    # Strings of any length and any characters: the 32-byte stripes, the 8-, 4- and
    # 1-byte tails and multi-byte UTF-8 all meet the model.
    df = spark.createDataFrame(rows, "i int, l bigint, s string")
    got = [r.h for r in df.select(F.xxhash64("i", "l", "s").alias("h")).collect()]
    assert got == [xx_model([("int", i), ("bigint", long_), ("string", s)]) for i, long_, s in rows]


def test_xxhash64_types_follow_the_same_rules_as_hash(spark: SparkSession) -> None:
    def one(sql: str) -> int:
        return int(spark.sql(f"SELECT xxhash64({sql}) AS h").first().h)

    assert one("true") == one("1") and one("CAST(7 AS SMALLINT)") == one("7")
    assert one("CAST(7 AS BIGINT)") == xx_model([("bigint", 7)])
    assert one("DATE '1970-01-08'") == one("7")
    assert one("TIMESTAMP '1970-01-01 00:00:01 UTC'") == one("CAST(1000000 AS BIGINT)")
    assert one("CAST(-0.0 AS DOUBLE)") == one("CAST(0.0 AS DOUBLE)")
    assert one("CAST(12.34 AS DECIMAL(10, 2))") == one("CAST(1234 AS BIGINT)")
    assert one("NULL") == 42 and one("array(1, 2)") == one("1, 2")
    df = spark.createDataFrame([({1: 2},)], "m map<int, int>")
    with pytest.raises(AnalysisException, match="`xxhash64` cannot contain"):
        df.select(F.xxhash64("m")).collect()


def test_xxhash64_of_every_string_length_up_to_three_stripes(spark: SparkSession) -> None:
    # Each length from 0 to 100 bytes: every boundary of the 32-byte stripes and the tails.
    texts = ["".join(chr(97 + (i * 7 + j) % 26) for j in range(n)) for i, n in enumerate(range(101))]
    df = spark.createDataFrame([(t,) for t in texts], "s string")
    got = [r.h for r in df.select(F.xxhash64("s").alias("h")).collect()]
    assert got == [xx_model([("string", t)]) for t in texts]
