"""``count_min_sketch`` against PySpark 4.0.1's answers for the same calls, and its laws.

The sketches PySpark wrote are in ``cms_expected`` (hex). A count-min sketch's bytes do not
depend on how the rows are partitioned (its counters add up), so these checks hold for any
partitioning; one of them has PySpark's four partitions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException
from dstream.sql.expressions.count_min_sketch import Sketch
from dstream.sql.streaming import MemoryStream
from tests.sql import cms_expected as spark_wrote


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[2]").appName("count-min-sketch").getOrCreate()
    yield session
    session.stop()


def _hex(df: Any) -> list[str | None]:
    return [None if r[0] is None else bytes(r[0]).hex() for r in df.collect()]


def test_integral_values_give_spark_s_bytes(spark: SparkSession) -> None:
    assert _hex(spark.range(100).select(F.count_min_sketch("id", 0.1, 0.9, 42))) == [spark_wrote.RANGE_100]
    assert _hex(spark.range(0, 100, 1, 4).select(F.count_min_sketch("id", 0.2, 0.95, 7))) == \
        [spark_wrote.RANGE_100_FOUR_PARTITIONS]
    longs = spark.createDataFrame([(-5,), (-(2**62),), (2**62,), (0,), (None,)], "v long")
    assert _hex(longs.select(F.count_min_sketch("v", 0.3, 0.9, 3))) == [spark_wrote.LONGS]
    ints = spark.createDataFrame([(1,), (2,), (3,), (2,)], "v int")
    assert _hex(ints.select(F.count_min_sketch("v", 0.3, 0.9, 3))) == [spark_wrote.INTS]
    tiny = spark.createDataFrame([(1,), (-2,), (3,)], "v tinyint")
    assert _hex(tiny.select(F.count_min_sketch("v", 0.3, 0.9, 3))) == [spark_wrote.TINYINTS]


def test_strings_and_binaries_give_spark_s_bytes(spark: SparkSession) -> None:
    # UTF-8 bytes hashed with Spark's Murmur3 (its tail one byte at a time); "" counts, null does not.
    strings = spark.createDataFrame([("a",), ("bb",), ("ccc",), ("dddd",), ("héllo wörld",), ("",), (None,)],
                                    "v string")
    assert _hex(strings.select(F.count_min_sketch("v", 0.3, 0.9, 3))) == [spark_wrote.STRINGS]
    binaries = spark.createDataFrame([(bytearray(b"\x00\xff\x10"),), (bytearray(b"abcdefg"),)], "v binary")
    assert _hex(binaries.select(F.count_min_sketch("v", 0.3, 0.9, 3))) == [spark_wrote.BINARIES]


def test_seeds_groups_sql_and_no_rows(spark: SparkSession) -> None:
    # A BIGINT seed is narrowed to an int, as Spark narrows it; a negative one is fine.
    assert _hex(spark.range(100).select(F.count_min_sketch("id", F.lit(1.5), 0.2, 1111111111111111111))) == \
        [spark_wrote.LONG_SEED]
    assert _hex(spark.range(10).select(F.count_min_sketch("id", 0.5, 0.5, -7))) == [spark_wrote.NEGATIVE_SEED]
    grouped = spark.range(20).groupBy((F.col("id") % 3).alias("k")).agg(F.count_min_sketch("id", 0.5, 0.8, 9))
    assert sorted((r[0], bytes(r[1]).hex()) for r in grouped.collect()) == spark_wrote.GROUPS
    assert _hex(spark.sql("SELECT count_min_sketch(id, 0.5d, 0.5d, 1) FROM range(10)")) == [spark_wrote.SQL]
    # No rows (or only nulls): the empty sketch, never null.
    assert _hex(spark.range(0).select(F.count_min_sketch("id", 0.5, 0.5, 1))) == [spark_wrote.EMPTY]
    nulls = spark.createDataFrame([(None,)], "v long")
    assert _hex(nulls.select(F.count_min_sketch("v", 0.5, 0.5, 1))) == [spark_wrote.EMPTY]


def test_name_schema_and_a_drawn_seed(spark: SparkSession) -> None:
    df = spark.range(3).select(F.count_min_sketch("id", 0.5, 0.5, 1))
    assert df.columns == ["count_min_sketch(id, 0.5, 0.5, 1)"]
    assert df.schema.simpleString() == "struct<count_min_sketch(id, 0.5, 0.5, 1):binary>"
    assert df.schema[0].nullable is False
    drawn = spark.range(3).select(F.count_min_sketch("id", 0.5, 0.5))
    name = drawn.columns[0]
    assert name.startswith("count_min_sketch(id, 0.5, 0.5, ")
    seed = int(name[len("count_min_sketch(id, 0.5, 0.5, "):-1])  # the seed is shown, as in Spark
    assert _hex(drawn) == _hex(spark.range(3).select(F.count_min_sketch("id", 0.5, 0.5, seed)))


@pytest.mark.parametrize(("build", "condition", "text"), [
    (lambda s: s.range(3).select(F.count_min_sketch("id", 0.0, 0.5, 1)), "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
     "The eps must be between (0.0, 1.7976931348623157E308] (current value = 0.0D)"),
    (lambda s: s.range(3).select(F.count_min_sketch("id", 0.5, 1.0, 1)), "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
     "The confidence must be between (0.0, 1.0] (current value = 1.0D)"),
    (lambda s: s.range(3).select(F.count_min_sketch(F.col("id").cast("double"), 0.5, 0.5, 1)),
     "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
     'The first parameter requires the ("INTEGRAL" or "STRING" or "BINARY") type, however "CAST(id AS DOUBLE)" '
     'has the type "DOUBLE"'),
    (lambda s: s.range(3).select(F.count_min_sketch("id", F.col("id").cast("double"), 0.5, 1)),
     "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
     'the input `eps` should be a foldable "DOUBLE" expression; however, got "CAST(id AS DOUBLE)"'),
    (lambda s: s.range(3).select(F.count_min_sketch("id", F.lit(None).cast("double"), 0.5, 1)),
     "DATATYPE_MISMATCH.UNEXPECTED_NULL", "The eps must not be null"),
    (lambda s: s.range(3).select(F.count_min_sketch("id", F.lit(1), 0.5, 1)), "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
     'The second parameter requires the "DOUBLE" type, however "1" has the type "INT"'),
    (lambda s: s.range(3).select(F.count_min_sketch("id", 0.5, 0.5, F.lit(1.5))),
     "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
     'The 4th parameter requires the ("INT" or "BIGINT") type, however "1.5" has the type "DOUBLE"'),
    (lambda s: s.sql("SELECT count_min_sketch(id, 0.5, 0.5, 1) FROM range(3)"),
     "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
     'The second parameter requires the "DOUBLE" type, however "0.5" has the type "DECIMAL(1,1)"'),
    (lambda s: s.sql("SELECT count_min_sketch(id, 0.5d, 0.5d) FROM range(3)"), "REQUIRED_PARAMETER_NOT_FOUND",
     "Cannot invoke routine `count_min_sketch` because the parameter named `seed` is required"),
])
def test_bad_arguments_are_refused_as_spark_refuses_them(spark: SparkSession, build: Any, condition: str,
                                                          text: str) -> None:
    with pytest.raises(AnalysisException) as caught:
        build(spark)
    assert caught.value.getCondition() == condition
    assert text in str(caught.value)


def test_a_sketch_too_large_to_be_meant_says_so(spark: SparkSession) -> None:
    with pytest.raises(Exception, match="give a larger eps or a smaller confidence"):
        spark.range(3).select(F.count_min_sketch("id", 1e-9, 0.5, 1)).collect()


def test_a_streaming_aggregation_keeps_one_sketch_per_group(spark: SparkSession) -> None:
    stream = MemoryStream("v long", spark)
    query = (stream.toDF().groupBy((F.col("v") % 2).alias("k")).agg(F.count_min_sketch("v", 0.2, 0.9, 5).alias("s"))
             .writeStream.outputMode("complete").format("memory").queryName("cms_stream").start())
    try:
        stream.addData(list(range(30)))
        query.processAllAvailable()
        stream.addData(list(range(30, 70)))
        query.processAllAvailable()
        got = {r.k: bytes(r.s) for r in spark.table("cms_stream").collect()}
    finally:
        query.stop()
    batch = spark.range(70).groupBy((F.col("id") % 2).alias("k")).agg(F.count_min_sketch("id", 0.2, 0.9, 5))
    assert got == {r[0]: bytes(r[1]) for r in batch.collect()}


def _wrap64(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63


def _model(values: list[int], depth: int, width: int, hash_a: list[int]) -> list[list[int]]:
    """Spark's ``addLong`` in plain Python: the counters a count-min sketch of ``values`` holds."""
    table = [[0] * width for _ in range(depth)]
    for value in values:
        for i, a in enumerate(hash_a):
            h = _wrap64(a * value)
            h = _wrap64(h + (h >> 32)) & (2**31 - 1)
            table[i][h % width] += 1
    return table


@settings(max_examples=25, deadline=None)
@given(values=st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(-50, 50), max_size=60),
       partitions=st.integers(1, 4), eps=st.sampled_from([0.05, 0.3, 1.5]), confidence=st.sampled_from([0.5, 0.9]),
       seed=st.integers(-(2**31), 2**31 - 1))
def test_the_sketch_is_its_values_counted_one_by_one_whatever_the_partitioning(
        spark: SparkSession, values: list[int], partitions: int, eps: float, confidence: float, seed: int) -> None:
    df = spark.createDataFrame([Row(v=v) for v in values], "v long").repartition(partitions)
    got = Sketch.from_bytes(bytes(df.select(F.count_min_sketch("v", eps, confidence, seed)).first()[0]))
    empty = Sketch.create(eps, confidence, seed)
    assert (got.depth, got.width, got.hash_a, got.total) == (empty.depth, empty.width, empty.hash_a, len(values))
    expected = _model(values, got.depth, got.width, got.hash_a)
    assert got.table.tolist() == expected
    # What a count-min sketch promises: no row under-counts a value.
    for value, count in Counter(values).items():
        for i, row in enumerate(_model([value], got.depth, got.width, got.hash_a)):
            assert got.table[i, row.index(1)] >= count
