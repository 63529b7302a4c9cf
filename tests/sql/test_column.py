"""Column: PySpark's operators and methods, literal types, names, and the refusals (bool, hash, iteration)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.column import Column, expr_of, lit_expr
from dstream.sql.errors import PySparkTypeError, PySparkValueError
from dstream.sql.expressions.aggregate_base import SortOrder
from dstream.sql.expressions.base import Alias, Literal, UnresolvedAttribute, UnresolvedStar
from dstream.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from .expr_harness import Frame


def test_python_values_become_literals_of_pyspark_types() -> None:
    cases = [(1, IntegerType()), (2**31, LongType()), (-(2**31), IntegerType()), (1.5, DoubleType()),
             ("x", StringType()), (True, BooleanType()), (None, NullType()), (Decimal("1.50"), DecimalType(3, 2)),
             (Decimal("100"), DecimalType(3, 0)), (dt.date(2024, 1, 2), DateType()),
             (dt.datetime(2024, 1, 2, tzinfo=dt.timezone.utc), TimestampType()), (b"ab", BinaryType())]
    for value, dtype in cases:
        e = lit_expr(value)
        assert isinstance(e, Literal) and e.dtype == dtype, value
    assert F.lit([1, 2]).expr.sql() == "array(1, 2)"
    with pytest.raises(PySparkValueError):
        lit_expr(2**64)
    with pytest.raises(PySparkTypeError):
        lit_expr(object())


def test_bool_hash_iteration_and_in_are_refused() -> None:
    c = F.col("a")
    with pytest.raises(ValueError, match="Cannot convert column into bool: please use '&' for 'and'"):
        bool(c)
    with pytest.raises(ValueError):
        _ = c and F.col("b")
    with pytest.raises(TypeError):
        hash(c)
    with pytest.raises(TypeError):
        iter(c)
    with pytest.raises(ValueError):
        _ = 1 in c


def test_repr_and_reversed_operators() -> None:
    c = F.col("a")
    assert repr(c + 1) == "Column<'(a + 1)'>"
    assert repr(1 + c) == "Column<'(1 + a)'>"
    assert repr(10 - c) == "Column<'(10 - a)'>"
    assert repr(2 / c) == "Column<'(2 / a)'>"
    assert repr(2 ** c) == "Column<'POWER(2, a)'>"
    assert repr(c.alias("b")) == "Column<'a AS b'>"
    assert repr(c % 3 == 0) == "Column<'((a % 3) = 0)'>"


def test_names_stars_and_aliases() -> None:
    assert isinstance(expr_of("*"), UnresolvedStar)
    star = expr_of("t.*")
    assert isinstance(star, UnresolvedStar) and star.qualifier == "t"
    attr = expr_of("`a.b`.c")
    assert isinstance(attr, UnresolvedAttribute) and attr.parts == ("a.b", "c")
    aliased = F.col("a").alias("x", metadata={"k": 1}).expr
    assert isinstance(aliased, Alias) and aliased.name == "x" and aliased.metadata == {"k": 1}
    assert F.col("a").alias("x").alias("y").expr.child.sql() == "a"
    assert F.explode("m").alias("k", "v").expr.name.split("\x00") == ["k", "v"]
    with pytest.raises(PySparkTypeError):
        expr_of(3)  # type: ignore[arg-type]


def test_sort_orders() -> None:
    c = F.col("a")
    for col, asc, nulls_first, text in ((c.asc(), True, True, "a ASC NULLS FIRST"),
                                        (c.desc(), False, False, "a DESC NULLS LAST"),
                                        (c.asc_nulls_last(), True, False, "a ASC NULLS LAST"),
                                        (c.desc_nulls_first(), False, True, "a DESC NULLS FIRST"),
                                        (F.desc("a"), False, False, "a DESC NULLS LAST")):
        e = col.expr
        assert isinstance(e, SortOrder) and (e.ascending, e.nulls_first) == (asc, nulls_first)
        assert e.sql() == text


def test_isin_accepts_a_list_or_varargs() -> None:
    c = F.col("a")
    assert c.isin([1, 2]).expr.sql() == c.isin(1, 2).expr.sql() == "(a IN (1, 2))"


def test_extraction_of_struct_fields_array_items_and_map_values() -> None:
    st = StructType([StructField("x", IntegerType()), StructField("y", StringType())])
    f = Frame(s=(st, [{"x": 1, "y": "a"}, None]), arr=(ArrayType(IntegerType()), [[1, 2], [3]]),
              m=(MapType(StringType(), IntegerType()), [[("k", 1)], []]))
    s, arr, m = F.col("s"), F.col("arr"), F.col("m")
    assert f.eval(s.x) == [1, None]
    assert f.eval(s["y"]) == ["a", None]
    assert f.eval(s.getField("x")) == [1, None]
    assert f.eval(F.col("s.y")) == ["a", None]
    assert f.resolve(s.x).sql() == "s.x"
    assert f.eval(arr.getItem(0)) == [1, 3]
    assert f.resolve(arr[0]).sql() == "arr[0]"
    with pytest.raises(IndexError, match="INVALID_ARRAY_INDEX"):
        f.eval(arr[1])
    assert f.eval(m["k"]) == [1, None]
    assert f.resolve(m.getItem("k")).sql() == "m[k]"


def test_substr_and_slices() -> None:
    f = Frame(s=(StringType(), ["hello"]))
    c = F.col("s")
    assert c.substr(2, 3).expr.sql() == "substr(s, 2, 3)"
    assert c[1:2].expr.sql() == "substr(s, 1, 2)"
    with pytest.raises(PySparkTypeError):
        c.substr(1, F.lit(2))
    assert f.resolve(c.substr(2, 3)).data_type() == StringType()


def test_when_chains_on_the_column() -> None:
    col = F.when(F.col("a") == 1, "one").when(F.col("a") == 2, "two").otherwise("many")
    assert col.expr.sql() == "CASE WHEN (a = 1) THEN one WHEN (a = 2) THEN two ELSE many END"
    f = Frame(a=(IntegerType(), [1, 2, 3, None]))
    assert f.eval(col) == ["one", "two", "many", "many"]


def test_bitwise_operators() -> None:
    f = Frame(a=(IntegerType(), [12, None]), b=(LongType(), [10, 1]))
    a, b = F.col("a"), F.col("b")
    assert f.eval(a.bitwiseAND(b)) == [8, None]
    assert f.eval(a.bitwiseOR(b)) == [14, None]
    assert f.eval(a.bitwiseXOR(b)) == [6, None]
    assert f.resolve(a.bitwiseOR(b)).data_type() == LongType()


def test_column_is_immutable_and_wraps_an_expression() -> None:
    c = Column(Literal(1, IntegerType()))
    with pytest.raises(AttributeError):
        c.foo_bar = 1  # type: ignore[attr-defined]
    assert c.expr.sql() == "1"
