"""The HyperLogLog sketch functions against PySpark 4.0.1's answers for the same calls.

The sketches PySpark wrote are in ``hll_expected`` (hex); estimates are its figures. The
data frames of the byte-for-byte checks have one partition, as PySpark's ``local[1]`` had.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException, SparkRuntimeException
from dstream.sql.streaming import MemoryStream
from tests.sql import hll_expected as spark_wrote


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[2]").appName("hll-sketches").getOrCreate()
    yield session
    session.stop()


def _rows() -> list[tuple[Any, ...]]:
    return [(i % 37 if i % 11 else None, i * 1000003 % 101, str(i % 53) if i % 7 else ("" if i % 2 else None),
             bytes([i % 5]) if i % 3 else b"", float(i % 9)) for i in range(300)]


@pytest.fixture(scope="module")
def df(spark: SparkSession) -> Any:
    return spark.createDataFrame(_rows(), "a int, l long, s string, b binary, d double").coalesce(1)


def _hex(value: Any) -> str:
    return bytes(value).hex()


def test_sketches_are_sparks_bytes_for_each_input_type(df: Any) -> None:
    got = df.agg(F.hll_sketch_agg("a"), F.hll_sketch_agg("l", 5), F.hll_sketch_agg(F.col("s"), F.lit(12)),
                 F.hll_sketch_agg("b"))
    assert got.columns == ["hll_sketch_agg(a, 12)", "hll_sketch_agg(l, 5)", "hll_sketch_agg(s, 12)",
                           "hll_sketch_agg(b, 12)"]
    assert [_hex(v) for v in got.first()] == [spark_wrote.INT_12, spark_wrote.LONG_5, spark_wrote.STRING_12,
                                             spark_wrote.BINARY_12]
    # Nulls, empty strings and empty binaries are skipped: 37 ints, 53 strings, 5 binaries.
    estimates = df.agg(F.hll_sketch_estimate(F.hll_sketch_agg("a")), F.hll_sketch_estimate(F.hll_sketch_agg("s")),
                       F.hll_sketch_estimate(F.hll_sketch_agg("b")))
    assert estimates.columns[0] == "hll_sketch_estimate(hll_sketch_agg(a, 12))"
    assert tuple(estimates.first()) == (37, 53, 5)


def test_more_sketches_match_sparks(spark: SparkSession) -> None:
    one = spark.createDataFrame([(i,) for i in range(1000)], "v long").coalesce(1)
    assert _hex(one.agg(F.hll_sketch_agg("v", 4)).first()[0]) == spark_wrote.LONG_K4_1000  # HLL mode
    assert one.agg(F.hll_sketch_estimate(F.hll_sketch_agg("v", 5))).first()[0] == 1031
    texts = spark.createDataFrame([("straße",), ("日本",), ("",), (None,), ("a",), ("a",)], "s string").coalesce(1)
    assert _hex(texts.agg(F.hll_sketch_agg("s")).first()[0]) == spark_wrote.UNICODE
    blobs = spark.createDataFrame([(b"abc",), (b"xyz",), (b"",), (None,)], "b binary").coalesce(1)
    assert _hex(blobs.agg(F.hll_sketch_agg("b")).first()[0]) == spark_wrote.BINARY_UTF8
    ints = spark.createDataFrame([(-1,), (-2**31,), (2**31 - 1,)], "v int").coalesce(1)
    longs = spark.createDataFrame([(-1,), (-2**63,), (2**63 - 1,)], "v long").coalesce(1)
    assert _hex(ints.agg(F.hll_sketch_agg("v")).first()[0]) == spark_wrote.INT_EXTREMES
    assert _hex(longs.agg(F.hll_sketch_agg("v")).first()[0]) == spark_wrote.LONG_EXTREMES


def test_no_rows_make_the_empty_sketch(df: Any, spark: SparkSession) -> None:
    empty = df.where("a > 1000")
    assert _hex(empty.agg(F.hll_sketch_agg("a")).first()[0]) == spark_wrote.EMPTY_12
    assert empty.agg(F.hll_sketch_estimate(F.hll_sketch_agg("a"))).first()[0] == 0
    nothing = spark.sql("SELECT hll_union_agg(h) FROM (SELECT CAST(NULL AS BINARY) h) WHERE false")
    assert _hex(nothing.first()[0]) == spark_wrote.EMPTY_12
    assert spark.sql("SELECT hll_sketch_agg(col) h FROM VALUES (1) t(col)").schema.fields[0].nullable is False


def test_estimates_over_partitions_equal_sparks(spark: SparkSession) -> None:
    # Four partitions: partial sketches united in the final aggregation, as Spark does.
    big = spark.range(0, 100000, numPartitions=4)
    got = big.agg(F.hll_sketch_estimate(F.hll_sketch_agg("id")),
                  F.hll_sketch_estimate(F.hll_sketch_agg(F.col("id").cast("string"), 4)),
                  F.hll_sketch_estimate(F.hll_sketch_agg("id", 21)),
                  F.hll_sketch_estimate(F.hll_sketch_agg((F.col("id") * 7919).cast("int"), 10))).first()
    assert list(got) == [102878, 101280, 100009, 106977]
    groups = big.groupBy((F.col("id") % 5).alias("g")).agg(F.hll_sketch_agg("id").alias("h"),
                                                            F.hll_sketch_agg("id", 10).alias("h10"))
    unions = groups.agg(F.hll_sketch_estimate(F.hll_union_agg("h")), F.hll_sketch_estimate(F.hll_union_agg("h10")))
    assert tuple(unions.first()) == (102878, 105434)
    pairs = groups.select("g", F.hll_sketch_estimate(F.hll_union("h", "h10", True)).alias("e")).orderBy("g")
    assert [r.e for r in pairs.collect()] == [19803, 20420, 19362, 20388, 20028]


def test_unions_of_different_sizes_keep_every_sketch(spark: SparkSession) -> None:
    # Sketches of 4096 and 1024 registers (all in HLL mode) united in any order: the union
    # goes down to 1024 registers and holds all five groups, as Spark's does (105434).
    groups = spark.range(0, 100000, numPartitions=4).groupBy((F.col("id") % 5).alias("g")).agg(
        F.hll_sketch_agg("id").alias("h"), F.hll_sketch_agg("id", 10).alias("h10"))
    mixed = groups.select("g", F.when(F.col("g") == 0, F.col("h")).otherwise(F.col("h10")).alias("m"))
    for ordered in (mixed.orderBy("g"), mixed.orderBy(F.col("g").desc())):
        one = ordered.coalesce(1)
        union = one.agg(F.hll_union_agg("m", True).alias("u")).first()[0]
        assert bytes(union)[3] == 10  # lgConfigK
        assert one.agg(F.hll_sketch_estimate(F.hll_union_agg("m", True))).first()[0] == 105434
    with pytest.raises(SparkRuntimeException, match=r"HLL_UNION_DIFFERENT_LG_K.*values: 12 and 10") as caught:
        mixed.orderBy("g").coalesce(1).agg(F.hll_union_agg("m")).collect()
    assert "`hll_union_agg`" in str(caught.value)


def test_hll_union_of_two_sketches(df: Any) -> None:
    g = df.groupBy((F.col("l") % 3).alias("g")).agg(F.hll_sketch_agg("a").alias("h"),
                                                    F.hll_sketch_agg("a", 10).alias("h10")).orderBy("g")
    assert g.select(F.hll_union("h", "h"), F.hll_union("h", "h10", True)).columns == [
        "hll_union(h, h, false)", "hll_union(h, h10, true)"]
    first = g.select(F.hll_union("h", "h").alias("same"), F.hll_union("h", "h10", True).alias("down"),
                     F.hll_union("h10", "h", True).alias("up")).first()
    assert (_hex(first.same), _hex(first.down), _hex(first.up)) == (
        spark_wrote.UNION_SAME, spark_wrote.UNION_12_10, spark_wrote.UNION_10_12)
    with pytest.raises(SparkRuntimeException, match="HLL_UNION_DIFFERENT_LG_K") as caught:
        g.select(F.hll_union("h", "h10")).collect()
    assert "Sketches have different `lgConfigK` values: 12 and 10" in str(caught.value)
    assert "call `hll_union` with different" in str(caught.value)
    assert g.select(F.hll_union(F.lit(None).cast("binary"), "h")).first()[0] is None


def test_union_agg_estimates_and_the_empty_union(df: Any, spark: SparkSession) -> None:
    g = df.groupBy((F.col("l") % 3).alias("g")).agg(F.hll_sketch_agg("a").alias("h"))
    assert g.agg(F.hll_union_agg("h"), F.hll_union_agg("h", True)).columns == [
        "hll_union_agg(h, false)", "hll_union_agg(h, true)"]
    assert g.agg(F.hll_sketch_estimate(F.hll_union_agg("h"))).first()[0] == 37
    nulls = spark.sql("SELECT hll_union_agg(h) FROM (SELECT CAST(NULL AS BINARY) h)")
    assert _hex(nulls.first()[0]) == spark_wrote.EMPTY_12


def test_a_partition_without_sketches_does_not_decide_the_unions_size(spark: SparkSession) -> None:
    small = bytes(spark.range(0, 50).agg(F.hll_sketch_agg("id", 10)).first()[0])
    nulls = spark.createDataFrame([(None,), (None,)], "h binary").coalesce(1)
    sketches = spark.createDataFrame([(small,), (small,)], "h binary").coalesce(1)
    both = nulls.union(sketches)  # two partitions: nulls only, then sketches of lgConfigK 10
    assert both.rdd.getNumPartitions() == 2
    assert bytes(both.agg(F.hll_union_agg("h")).first()[0])[3] == 10
    assert both.agg(F.hll_sketch_estimate(F.hll_union_agg("h"))).first()[0] == 50


def test_sketches_written_by_spark_are_read(spark: SparkSession) -> None:
    written = spark.createDataFrame([(bytes.fromhex(spark_wrote.SPARK_HLL_MODE_K8),
                                      bytes.fromhex(spark_wrote.STRING_12))], "h binary, s binary")
    assert written.select(F.hll_sketch_estimate("h"), F.hll_sketch_estimate("s")).first() == (5280, 53)
    # A union is out of order: its estimate is the registers' (composite), not the sketch's own (HIP).
    assert written.select(F.hll_sketch_estimate(F.hll_union("h", "h"))).first()[0] == 5438


def test_sql_calls(spark: SparkSession) -> None:
    got = spark.sql("SELECT hll_sketch_agg(col, 4) FROM VALUES (1), (2), (3) t(col)").first()[0]
    assert _hex(got) == spark_wrote.SQL_K4
    unions = spark.sql("SELECT hll_union_agg(h, true) FROM (SELECT hll_sketch_agg(col) h FROM VALUES (1) t(col))")
    assert unions.columns == ["hll_union_agg(h, true)"]
    typed = spark.sql("SELECT typeof(hll_sketch_estimate(hll_sketch_agg(1))), typeof(hll_sketch_agg(1))").first()
    assert tuple(typed) == ("bigint", "binary")
    assert spark.sql("SELECT hll_sketch_estimate(NULL)").first()[0] is None


def test_a_sketch_over_a_window_grows_row_by_row(spark: SparkSession) -> None:
    rows = spark.sql("SELECT hll_sketch_agg(col) OVER (ORDER BY col) FROM VALUES (1), (2) t(col)").collect()
    assert [_hex(r[0]) for r in rows] == spark_wrote.WINDOW


@pytest.mark.parametrize(("call", "message"), [
    (lambda d: d.agg(F.hll_sketch_agg("d")), '("INT" or "BIGINT" or "STRING" or "BINARY") type, however "d" has '
                                            'the type "DOUBLE"'),
    (lambda d: d.select(F.hll_sketch_estimate("s")), 'requires the "BINARY" type, however "s" has the type "STRING"'),
    (lambda d: d.agg(F.hll_union_agg("a")), 'requires the "BINARY" type, however "a" has the type "INT"'),
    (lambda d: d.select(F.hll_union("b", "s")), 'The second parameter requires the "BINARY" type'),
    (lambda d: d.agg(F.hll_sketch_agg("a", F.col("a"))), "the input `lgConfigK` should be a foldable"),
])
def test_wrong_inputs_are_analysis_errors(df: Any, call: Any, message: str) -> None:
    with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH") as caught:
        call(df).collect()
    assert message in str(caught.value)


@pytest.mark.parametrize("k", [3, 22])
def test_lg_config_k_out_of_range(df: Any, k: int) -> None:
    with pytest.raises(SparkRuntimeException, match="HLL_INVALID_LG_K") as caught:
        df.agg(F.hll_sketch_agg("a", k)).collect()
    assert (f"Invalid call to `hll_sketch_agg`; the `lgConfigK` value must be between 4 and 21, inclusive: {k}."
            in str(caught.value))


@pytest.mark.parametrize("function", ["hll_sketch_estimate", "hll_union"])
def test_bytes_that_are_no_sketch(spark: SparkSession, function: str) -> None:
    call = "hll_sketch_estimate(X'0102')" if function == "hll_sketch_estimate" else "hll_union(X'0102', X'0102')"
    with pytest.raises(SparkRuntimeException, match="HLL_INVALID_INPUT_SKETCH_BUFFER") as caught:
        spark.sql(f"SELECT {call}").collect()
    assert f"Invalid call to `{function}`; only valid HLL sketch buffers are supported" in str(caught.value)


def test_binary_values_that_are_not_utf8_say_what_to_do(spark: SparkSession) -> None:
    blobs = spark.createDataFrame([(b"\xff\xfe",)], "b binary")
    with pytest.raises(SparkRuntimeException, match="not UTF-8") as caught:
        blobs.agg(F.hll_sketch_agg("b")).collect()
    assert "X'FFFE'" in str(caught.value) and "hex(col)" in str(caught.value)


def test_damaged_sketches_are_errors_never_crashes() -> None:
    # The sketch library trusts a sketch's header; the checks before it must stop every
    # damaged header. In a child process, so that a crash fails this test, not the run.
    program = r"""
import random
from datasketches import hll_sketch, tgt_hll_type
from dstream.sql.errors import SparkRuntimeException
from dstream.sql.expressions.hll_sketches import empty_sketch, read_sketch, union_of
random.seed(11)
bases = []
for target in (tgt_hll_type.HLL_4, tgt_hll_type.HLL_6, tgt_hll_type.HLL_8):
    for k in (4, 7, 12):
        for n in (0, 1, 40, 300, 20000):
            s = hll_sketch(k, target)
            for _ in range(n):
                s.update(random.randrange(1 << 40))
            bases += [s.serialize_updatable(), s.serialize_compact()]
read = refused = 0
for base in bases:
    for _ in range(25):
        data = bytearray(base)
        if random.random() < 0.2:
            data = data[:random.randrange(len(data) + 1)]
        else:
            for _ in range(random.choice((1, 2, 3))):
                if data:
                    data[random.randrange(min(len(data), 48))] = random.randrange(256)
        try:
            sketch = read_sketch(bytes(data), "f")
            sketch.get_estimate()
            union_of([empty_sketch(12), sketch], 12).get_estimate()
            union_of([sketch, sketch], 4).serialize_updatable()
            read += 1
        except SparkRuntimeException:
            refused += 1
print(read, refused)
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert done.returncode == 0, f"the reader crashed (exit {done.returncode}): {done.stderr[-2000:]}"
    read, refused = map(int, done.stdout.split())
    assert read > 100 and refused > 100  # both outcomes were exercised


def test_a_streaming_aggregation_keeps_one_sketch_per_group(spark: SparkSession) -> None:
    stream = MemoryStream("k string, v long", spark)
    counts = stream.toDF().groupBy("k").agg(F.hll_sketch_estimate(F.hll_sketch_agg("v")).alias("n"))
    query = counts.writeStream.outputMode("complete").format("memory").queryName("hll_stream").start()
    try:
        expected: dict[str, set[int]] = {}
        for batch in range(3):
            rows = [(f"k{i % 2}", batch * 50 + i % 70) for i in range(200)]
            for k, v in rows:
                expected.setdefault(k, set()).add(v)
            stream.addData(rows)
            query.processAllAvailable(timeout=60)
            got = {r.k: r.n for r in spark.table("hll_stream").collect()}
            assert got == {k: len(vs) for k, vs in expected.items()}  # small sets are counted exactly
    finally:
        query.stop()
