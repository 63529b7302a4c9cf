"""shiftleft, shiftright, shiftrightunsigned, bitwise_not and nvl2 against Java's integer arithmetic.

Model: Java's ``<<``, ``>>``, ``>>>`` and ``~`` on 32- and 64-bit two's complement
integers, written with Python's unbounded ints (the count masked to the width, the
result wrapped to it), and ``b if a is not None else c``.
"""

from __future__ import annotations

import doctest

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import AnalysisException, SparkSession, functions_bitwise
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def wrap(value: int, width: int) -> int:
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def java_shift(kind: str, value: int, count: int, width: int) -> int:
    count &= width - 1
    if kind == "left":
        return wrap(value << count, width)
    if kind == "right":
        return value >> count
    return wrap((value & ((1 << width) - 1)) >> count, width)


ints = st.one_of(st.none(), st.integers(-(2 ** 31), 2 ** 31 - 1))
longs = st.one_of(st.none(), st.integers(-(2 ** 63), 2 ** 63 - 1))


@given(rows=st.lists(st.tuples(ints, longs, st.one_of(st.none(), st.integers(-70, 70))), min_size=1, max_size=8),
       fixed=st.integers(-70, 70))
@PROPERTY
def test_shifts_and_not_match_java(spark: SparkSession, rows: list[tuple[int | None, int | None, int | None]],
                                   fixed: int) -> None:
    df = spark.createDataFrame(rows, "i int, l bigint, n int")
    got = df.select(F.shiftleft("i", fixed), F.shiftright("i", fixed), F.shiftrightunsigned("i", fixed),
                    F.shiftleft("l", fixed), F.shiftright("l", fixed), F.shiftrightunsigned("l", fixed),
                    F.bitwise_not("i"), F.bitwise_not("l")).collect()
    for (i, long_, _), row in zip(rows, got):
        expected = [None if v is None else java_shift(kind, v, fixed, width)
                    for v, width in ((i, 32), (long_, 64)) for kind in ("left", "right", "unsigned")]
        expected += [None if i is None else ~i, None if long_ is None else ~long_]
        assert list(row) == expected
    df.createOrReplaceTempView("bits")
    by_column = spark.sql("SELECT i << n, l >> n, i >>> n FROM bits").collect()
    for (i, long_, n), row in zip(rows, by_column):
        assert list(row) == [None if i is None or n is None else java_shift("left", i, n, 32),
                             None if long_ is None or n is None else java_shift("right", long_, n, 64),
                             None if i is None or n is None else java_shift("unsigned", i, n, 32)]


@given(rows=st.lists(st.tuples(st.one_of(st.none(), st.integers(-5, 5)), longs,
                               st.one_of(st.none(), st.integers(-9, 9))), min_size=1, max_size=8))
@PROPERTY
def test_nvl2_matches_its_definition(spark: SparkSession, rows: list[tuple[int | None, ...]]) -> None:
    df = spark.createDataFrame(rows, "a int, b bigint, c int")
    got = df.select(F.nvl2("a", "b", "c").alias("r")).collect()
    assert [r.r for r in got] == [b if a is not None else c for a, b, c in rows]
    assert df.select(F.nvl2("a", "b", "c")).schema.fields[0].dataType.simpleString() == "bigint"


def test_small_integers_widen_and_other_types_are_refused(spark: SparkSession) -> None:
    df = spark.createDataFrame([(3, 2)], "b tinyint, s smallint")
    row = df.select(F.shiftleft("b", 30), F.shiftLeft("s", 1), F.bitwiseNOT("b")).first()
    assert list(row) == [-1073741824, 4, -4]
    assert df.select(F.shiftleft("b", 1)).schema.fields[0].dataType.simpleString() == "int"
    assert df.select(F.bitwise_not("b")).schema.fields[0].dataType.simpleString() == "tinyint"
    with pytest.raises(AnalysisException, match='requires the "INT" or "BIGINT" type, not "DOUBLE"'):
        df.select(F.shiftright(F.lit(1.5), 1)).collect()
    with pytest.raises(AnalysisException, match='requires the "INTEGRAL" type, not "STRING"'):
        df.select(F.bitwise_not(F.lit("7"))).collect()


def test_docstring_examples(spark: SparkSession) -> None:
    result = doctest.testmod(functions_bitwise, extraglobs={"spark": spark},
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 5 and result.failed == 0, result
