"""Expression nodes: names, Spark 4 type coercion, ANSI arithmetic, three-valued logic, lazy branches."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException, ArithmeticException
from dstream.sql.expressions.cast import Cast, can_cast
from dstream.sql.expressions.coercion import find_common_type, type_sql, wider_numeric
from dstream.sql.types import (
    ArrayType,
    BooleanType,
    ByteType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from .expr_harness import LEGACY, Frame

INT32 = st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1))
SMALL = st.one_of(st.none(), st.integers(-1000, 1000))
BOOLS = st.one_of(st.none(), st.booleans())

a, b, s = F.col("a"), F.col("b"), F.col("s")


def test_generated_names_of_each_node_kind() -> None:
    cases = [

        a + 1, "(a + 1)", a - b, "(a - b)", a * 2, "(a * 2)", a / b, "(a / b)", a % 2, "(a % 2)",
        -a, "(- a)", F.abs(a), "abs(a)", a == 1, "(a = 1)", a != 1, "(NOT (a = 1))", a < 1, "(a < 1)",
        a <= 1, "(a <= 1)", a > 1, "(a > 1)", a >= 1, "(a >= 1)", a.eqNullSafe(b), "(a <=> b)",
        (a > 1) & (b < 2), "((a > 1) AND (b < 2))", (a > 1) | (b < 2), "((a > 1) OR (b < 2))",
        ~(a > 1), "(NOT (a > 1))", a.isNull(), "(a IS NULL)", a.isNotNull(), "(a IS NOT NULL)",
        a.isin(1, 2), "(a IN (1, 2))", s.like("x%"), "s LIKE x%", s.rlike("^x"), "RLIKE(s, ^x)",
        s.startswith("x"), "startswith(s, x)", s.endswith("x"), "endswith(s, x)", s.contains("x"), "contains(s, x)",
        F.when(a > 1, "x").otherwise("y"), "CASE WHEN (a > 1) THEN x ELSE y END",
        F.when(a > 1, "x"), "CASE WHEN (a > 1) THEN x END", F.coalesce(a, b), "coalesce(a, b)",
        F.nullif(a, b), "nullif(a, b)", F.nvl(a, b), "nvl(a, b)", a.cast("int"), "CAST(a AS INT)",
        a.try_cast("bigint"), "TRY_CAST(a AS BIGINT)", a.cast("decimal(10,2)"), "CAST(a AS DECIMAL(10,2))",
        a.bitwiseAND(b), "(a & b)", a ** 2, "POWER(a, 2)", a.between(1, 2), "((a >= 1) AND (a <= 2))",
    ]
    flat = list(cases)
    for col, name in zip(flat[::2], flat[1::2]):
        assert col.expr.sql() == name


def test_implicit_casts_keep_the_name() -> None:
    f = Frame(a=(IntegerType(), [1]), d=(DecimalType(3, 1), [Decimal("1.5")]), s=(StringType(), ["2"]))
    assert f.resolve(a + F.col("d")).sql() == "(a + d)"
    assert f.resolve(a + F.col("s")).sql() == "(a + s)"
    assert f.resolve(a + 1.5).data_type() == DoubleType()


@given(st.lists(st.tuples(INT32, INT32), max_size=30))
def test_int_arithmetic_matches_the_model_and_overflow_raises(rows: list[tuple[int | None, int | None]]) -> None:
    f = Frame(a=(IntegerType(), [r[0] for r in rows]), b=(IntegerType(), [r[1] for r in rows]))
    for col, op in ((a + b, lambda x, y: x + y), (a - b, lambda x, y: x - y), (a * b, lambda x, y: x * y)):
        expected = [None if x is None or y is None else op(x, y) for x, y in rows]
        if any(v is not None and not -(2**31) <= v < 2**31 for v in expected):
            with pytest.raises(ArithmeticException):
                f.eval(col)
            wrapped = [None if v is None else (v + 2**31) % 2**32 - 2**31 for v in expected]
            assert f.eval(col, LEGACY) == wrapped
        else:
            assert f.eval(col) == expected
    assert f.resolve(a + b).data_type() == IntegerType()


@given(st.lists(st.tuples(SMALL, SMALL), max_size=30))
def test_division_is_double_and_by_zero_raises_under_ansi(rows: list[tuple[int | None, int | None]]) -> None:
    f = Frame(a=(IntegerType(), [r[0] for r in rows]), b=(LongType(), [r[1] for r in rows]))
    assert f.resolve(a / b).data_type() == DoubleType()
    expected = [None if x is None or y is None or y == 0 else x / y for x, y in rows]
    if any(x is not None and y == 0 for x, y in rows):
        with pytest.raises(ArithmeticException, match="DIVIDE_BY_ZERO"):
            f.eval(a / b)
    else:
        assert f.eval(a / b) == expected
    assert f.eval(a / b, LEGACY) == expected
    assert f.eval(F.try_divide(a, b)) == expected


@given(st.lists(st.tuples(SMALL, SMALL), max_size=30))
def test_remainder_has_the_sign_of_the_dividend(rows: list[tuple[int | None, int | None]]) -> None:
    f = Frame(a=(IntegerType(), [r[0] for r in rows]), b=(IntegerType(), [r[1] for r in rows]))
    expected = [None if x is None or y is None or y == 0 else int(math.fmod(x, y)) for x, y in rows]
    assert f.eval(a % b, LEGACY) == expected


def test_result_types_of_mixed_operands() -> None:
    f = Frame(i=(IntegerType(), [1]), l=(LongType(), [2]), y=(ByteType(), [3]), d=(DecimalType(10, 2), [Decimal(1)]),
              x=(DoubleType(), [1.0]), s=(StringType(), ["4"]), fl=(FloatType(), [1.0]))
    i, lg, y, d, x, s_, fl = (F.col(n) for n in ("i", "l", "y", "d", "x", "s", "fl"))
    assert f.resolve(i + lg).data_type() == LongType()
    assert f.resolve(y + y).data_type() == ByteType()
    assert f.resolve(i + d).data_type() == DecimalType(13, 2)
    assert f.resolve(d * d).data_type() == DecimalType(21, 4)
    assert f.resolve(d + x).data_type() == DoubleType()
    # Spark 4's ANSI coercion (checked against PySpark 4.0.1): a string beside an integer is
    # a bigint; an int meets a float at double.
    assert f.resolve(i + s_).data_type() == LongType()
    assert f.resolve(x + s_).data_type() == DoubleType()
    assert f.resolve(fl + i).data_type() == DoubleType()
    assert f.resolve(fl + y).data_type() == FloatType()
    assert f.eval(i + s_) == [5]
    assert f.eval(i + d) == [Decimal("2.00")]


def test_arithmetic_on_booleans_is_a_datatype_mismatch() -> None:
    f = Frame(a=(IntegerType(), [1]), t=(BooleanType(), [True]))
    with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH") as info:
        f.resolve(a + F.col("t"))
    assert '"(a + t)"' in str(info.value)


def _kleene_and(x: bool | None, y: bool | None) -> bool | None:
    if x is False or y is False:
        return False
    return None if x is None or y is None else True


def _kleene_or(x: bool | None, y: bool | None) -> bool | None:
    if x is True or y is True:
        return True
    return None if x is None or y is None else False


@given(st.lists(st.tuples(BOOLS, BOOLS), max_size=20))
def test_and_or_not_are_kleene(rows: list[tuple[bool | None, bool | None]]) -> None:
    f = Frame(p=(BooleanType(), [r[0] for r in rows]), q=(BooleanType(), [r[1] for r in rows]))
    p, q = F.col("p"), F.col("q")
    assert f.eval(p & q) == [_kleene_and(x, y) for x, y in rows]
    assert f.eval(p | q) == [_kleene_or(x, y) for x, y in rows]
    assert f.eval(~p) == [None if x is None else not x for x, _ in rows]


def test_and_evaluates_its_right_side_only_where_needed() -> None:
    f = Frame(a=(IntegerType(), [0, 2, None]), b=(IntegerType(), [5, 4, 1]))
    assert f.eval((a != 0) & (b / a > 1)) == [False, True, None]
    assert f.eval((a == 0) | (b / a > 1)) == [True, True, None]


@given(st.lists(st.tuples(SMALL, SMALL), max_size=30))
def test_comparisons_match_the_model(rows: list[tuple[int | None, int | None]]) -> None:
    f = Frame(a=(IntegerType(), [r[0] for r in rows]), b=(LongType(), [r[1] for r in rows]))
    ops = [(a == b, lambda x, y: x == y), (a < b, lambda x, y: x < y), (a >= b, lambda x, y: x >= y),
           (a != b, lambda x, y: x != y)]
    for col, op in ops:
        assert f.eval(col) == [None if x is None or y is None else op(x, y) for x, y in rows]
    assert f.eval(a.eqNullSafe(b)) == [x == y for x, y in rows]
    assert f.eval(a.isNull()) == [x is None for x, _ in rows]


@given(st.lists(SMALL, max_size=20), st.lists(SMALL, min_size=1, max_size=4))
def test_in_follows_sql_null_rules(values: list[int | None], items: list[int | None]) -> None:
    f = Frame(a=(IntegerType(), values))
    expected = []
    for v in values:
        if v is not None and v in [i for i in items if i is not None]:
            expected.append(True)
        elif v is None or None in items:
            expected.append(None)
        else:
            expected.append(False)
    assert f.eval(a.isin(items)) == expected


def test_string_compared_with_a_number_is_cast_to_the_number_type() -> None:
    f = Frame(a=(IntegerType(), [1, 2]), s=(StringType(), ["1", "x"]))
    with pytest.raises(Exception, match="CAST_INVALID_INPUT"):
        f.eval(a == s)
    assert f.eval(a == s, LEGACY) == [True, None]
    assert f.eval(a == s.try_cast("int")) == [True, None]


def test_case_when_picks_the_first_true_branch_and_is_lazy() -> None:
    f = Frame(a=(IntegerType(), [0, 1, 5, None]), b=(IntegerType(), [10, 10, 10, 10]))
    col = F.when(a == 0, None).when(a > 2, b / a).otherwise(b)
    assert f.eval(col) == [None, 10.0, 2.0, 10.0]
    assert f.resolve(col).data_type() == DoubleType()
    assert f.eval(F.when(a > 0, "pos")) == [None, "pos", "pos", None]


def test_coalesce_nvl_nullif_and_if() -> None:
    f = Frame(a=(IntegerType(), [None, 1, None]), b=(LongType(), [2, 3, None]))
    assert f.eval(F.coalesce(a, b)) == [2, 1, None]
    assert f.resolve(F.coalesce(a, b)).data_type() == LongType()
    assert f.eval(F.nvl(a, F.lit(7))) == [7, 1, 7]
    assert f.eval(F.nullif(b, F.lit(3))) == [2, None, None]
    with pytest.raises(AnalysisException, match="DATA_DIFF_TYPES"):
        f.resolve(F.coalesce(a, F.lit(True)))


def test_when_and_otherwise_misuse_raise() -> None:
    with pytest.raises(ValueError):
        a.otherwise(1)
    with pytest.raises(ValueError):
        F.when(a > 1, 1).otherwise(2).otherwise(3)


def test_cast_validity_is_checked_at_definition() -> None:
    assert can_cast(StringType(), IntegerType()) and can_cast(IntegerType(), StringType())
    assert can_cast(ArrayType(IntegerType()), ArrayType(StringType()))
    assert not can_cast(DateType(), IntegerType())
    assert not can_cast(IntegerType(), DateType())
    assert not can_cast(ArrayType(IntegerType()), IntegerType())
    assert not can_cast(MapType(StringType(), IntegerType()), StructType([StructField("a", IntegerType())]))
    f = Frame(d=(DateType(), [None]))
    with pytest.raises(AnalysisException, match='cannot cast "DATE" to "INT"'):
        f.resolve(F.col("d").cast("int"))


def test_cast_and_try_cast_evaluate() -> None:
    f = Frame(s=(StringType(), ["1", " 2 ", "x", None]))
    with pytest.raises(Exception, match="CAST_INVALID_INPUT"):
        f.eval(s.cast("int"))
    assert f.eval(s.try_cast("int")) == [1, 2, None, None]
    assert f.eval(s.cast("int"), LEGACY) == [1, 2, None, None]


def test_common_types() -> None:
    assert wider_numeric(IntegerType(), LongType()) == LongType()
    assert wider_numeric(ShortType(), DecimalType(4, 2)) == DecimalType(7, 2)
    assert wider_numeric(DecimalType(4, 2), FloatType()) == DoubleType()
    assert find_common_type([NullType(), IntegerType()]) == IntegerType()
    assert find_common_type([DateType(), TimestampType()]) == TimestampType()
    assert find_common_type([IntegerType(), BooleanType()]) is None
    assert type_sql(StructType([StructField("a b", IntegerType())])) == "STRUCT<`a b`: INT>"
    assert isinstance(Cast(F.lit(1).expr, LongType(), implicit=True).sql(), str)
