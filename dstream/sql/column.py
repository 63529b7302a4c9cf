"""``Column``: PySpark's column expression object, a thin wrapper around an expression tree.

What this module owns
---------------------
:class:`Column` (operators, comparison, boolean logic, ``cast``, ``alias``, sort
orders, ``when``/``otherwise``, ``isin``, ``between``, string tests, item and field
extraction) and the conversions every DataFrame method uses: :func:`expr_of` (a
``Column`` or a column name), :func:`lit_expr` (a Python value as a literal, with
PySpark's ``lit`` types: ``int`` is ``int`` when it fits in 32 bits, else ``bigint``).

Invariants
----------
* A ``Column`` is immutable and holds one :class:`~dstream.sql.expressions.base.Expression`;
  every method returns a new ``Column``. Names stay unresolved until a DataFrame uses
  the column.
* Like PySpark's, a ``Column`` is not hashable, not iterable, and refuses ``bool()``
  (``and``/``or``/``not`` on columns are errors: use ``&``, ``|``, ``~``).
"""

from __future__ import annotations

import datetime as _dt
import decimal
from collections.abc import Callable
from typing import Any

from .errors import PySparkTypeError, PySparkValueError
from .expressions.aggregate_base import SortOrder
from .expressions.base import Alias, Expression, Literal, UnresolvedAttribute, UnresolvedStar
from .expressions.bitwise import BitwiseAnd, BitwiseOr, BitwiseXor
from .expressions.cast import Cast, TryCast
from .expressions.collection_functions import CreateArray
from .expressions.conditional import CaseWhen
from .expressions.extractors import ExtractValue
from .expressions.operators import Add, Divide, Multiply, Remainder, Subtract, UnaryMinus
from .expressions.predicates import (
    And,
    Contains,
    EndsWith,
    EqualNullSafe,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    ILike,
    In,
    IsNaN,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Like,
    Not,
    Or,
    RLike,
    StartsWith,
)
from .expressions.scalar_functions import ScalarFunction
from .types import (
    BinaryType,
    BooleanType,
    DataType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    NullType,
    StringType,
    TimestampType,
    _parse_datatype_string,
)

__all__ = ["Column", "column_of", "expr_of", "lit_expr", "to_expr"]


def _decimal_type(value: decimal.Decimal) -> DecimalType:
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise PySparkValueError(f"Cannot make a literal of the decimal {value}: not a finite number.",
                                "UNSUPPORTED_LITERAL", {"value": str(value)})
    scale = max(0, -exponent)
    precision = max(len(digits) + max(0, exponent), scale, 1)
    return DecimalType(min(precision, 38), scale)


def lit_expr(value: Any) -> Expression:
    """A Python value as a literal expression (a ``Column`` gives its own expression).

    ``bool`` -> boolean, ``int`` -> int (bigint beyond 32 bits), ``float`` -> double,
    ``str`` -> string, ``None`` -> void, ``datetime`` -> timestamp (a naive one is local
    time, as PySpark reads it), ``date`` -> date, ``Decimal`` -> decimal of its digits,
    ``bytes`` -> binary, ``timedelta`` -> interval day to second, ``list``/``tuple`` -> ``array(...)``.
    """
    if isinstance(value, Column):
        return value.expr
    if value is None:
        return Literal(None, NullType())
    if isinstance(value, bool):
        return Literal(value, BooleanType())
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return Literal(value, IntegerType())
        if -(2**63) <= value < 2**63:
            return Literal(value, LongType())
        raise PySparkValueError(f"The integer {value} is out of the range of bigint: use a Decimal.",
                                "VALUE_OUT_OF_BOUNDS", {"value": str(value)})
    if isinstance(value, float):
        return Literal(value, DoubleType())
    if isinstance(value, str):
        return Literal(value, StringType())
    if isinstance(value, decimal.Decimal):
        return Literal(value, _decimal_type(value))
    if isinstance(value, _dt.timedelta):
        return Literal(value, DayTimeIntervalType())
    if isinstance(value, _dt.datetime):
        aware = value if value.tzinfo is not None else value.astimezone()
        return Literal(aware.astimezone(_dt.timezone.utc), TimestampType())
    if isinstance(value, _dt.date):
        return Literal(value, DateType())
    if isinstance(value, (bytes, bytearray)):
        return Literal(bytes(value), BinaryType())
    if isinstance(value, (list, tuple)):
        return CreateArray([lit_expr(v) for v in value])
    raise PySparkTypeError(
        f"[UNSUPPORTED_LITERAL] Unsupported literal type {type(value).__name__} of {value!r}: use a bool, int, "
        "float, str, Decimal, date, datetime, timedelta, bytes, list or None.",
        "UNSUPPORTED_LITERAL", {"value": repr(value)})


def _name_expr(name: str) -> Expression:
    if name == "*":
        return UnresolvedStar()
    if name.endswith(".*") and "`" not in name:
        return UnresolvedStar(name[:-2])
    return UnresolvedAttribute.quoted(name)


def expr_of(col: Column | str) -> Expression:
    """The expression of a ``Column``, or of a column name (``"a"``, ``"t.a"``, ``"*"``)."""
    if isinstance(col, Column):
        return col.expr
    if isinstance(col, str):
        return _name_expr(col)
    raise PySparkTypeError(
        f"[NOT_COLUMN_OR_STR] Argument `col` should be a Column or str, got {type(col).__name__}.",
        "NOT_COLUMN_OR_STR", {"arg_name": "col", "arg_type": type(col).__name__})


def to_expr(value: Any) -> Expression:
    """An operand: a ``Column``'s expression, or a Python value as a literal."""
    return value.expr if isinstance(value, Column) else lit_expr(value)


def column_of(col: Column | str) -> Column:
    """A ``Column`` for a column or a name."""
    return col if isinstance(col, Column) else Column(expr_of(col))


def _types_of(value: Any) -> DataType:
    if isinstance(value, DataType):
        return value
    if isinstance(value, str):
        return _parse_datatype_string(value)
    raise PySparkTypeError(
        f"[NOT_DATATYPE_OR_STR] Argument `dataType` should be a DataType or str, got {type(value).__name__}.",
        "NOT_DATATYPE_OR_STR", {"arg_name": "dataType", "arg_type": type(value).__name__})


def _binary(cls: Callable[[Expression, Expression], Expression], reverse: bool = False
            ) -> Callable[[Column, Any], Column]:
    def op(self: Column, other: Any) -> Column:
        a, b = self.expr, to_expr(other)
        return Column(cls(b, a) if reverse else cls(a, b))
    return op


def _power(a: Expression, b: Expression) -> Expression:
    return ScalarFunction("POWER", [a, b])


def _not_equal(a: Expression, b: Expression) -> Expression:
    return Not(EqualTo(a, b))


class Column:
    """A column expression of a DataFrame (``df.a``, ``col("a") + 1``, ``F.sum("v")``).

    Parameters
    ----------
    expr : Expression
        The expression tree the column stands for.
    """

    __slots__ = ("_expr",)
    _expr: Expression

    def __init__(self, expr: Expression) -> None:
        object.__setattr__(self, "_expr", expr)

    @property
    def expr(self) -> Expression:
        """The expression tree."""
        return self._expr

    # -- Python protocol --------------------------------------------------------------

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        e = self.expr
        text = f"{e.child.sql()} AS {e.name.replace(chr(0), ', ')}" if isinstance(e, Alias) else e.sql()
        return f"Column<'{text}'>"

    def __bool__(self) -> bool:
        raise PySparkValueError(
            "Cannot convert column into bool: please use '&' for 'and', '|' for 'or', '~' for 'not' when building "
            "DataFrame boolean expressions.", "CANNOT_CONVERT_COLUMN_INTO_BOOL", {})

    __nonzero__ = __bool__

    def __iter__(self) -> Any:
        raise PySparkTypeError("Column is not iterable.", "NOT_ITERABLE", {"objectName": "Column"})

    def __contains__(self, item: Any) -> bool:
        raise PySparkValueError(
            "Cannot apply 'in' operator against a column: please use 'contains' in a string column or "
            "'array_contains' function for an array column.", "CANNOT_APPLY_IN_FOR_COLUMN", {})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Column is immutable")

    # -- arithmetic ---------------------------------------------------------------------

    __add__ = _binary(Add)
    __radd__ = _binary(Add, True)
    __sub__ = _binary(Subtract)
    __rsub__ = _binary(Subtract, True)
    __mul__ = _binary(Multiply)
    __rmul__ = _binary(Multiply, True)
    __truediv__ = _binary(Divide)
    __rtruediv__ = _binary(Divide, True)
    __mod__ = _binary(Remainder)
    __rmod__ = _binary(Remainder, True)
    __pow__ = _binary(_power)
    __rpow__ = _binary(_power, True)

    def __neg__(self) -> Column:
        return Column(UnaryMinus(self.expr))

    # -- comparison and logic -------------------------------------------------------------

    __eq__ = _binary(EqualTo)  # type: ignore[assignment]
    __ne__ = _binary(_not_equal)  # type: ignore[assignment]
    __lt__ = _binary(LessThan)
    __le__ = _binary(LessThanOrEqual)
    __gt__ = _binary(GreaterThan)
    __ge__ = _binary(GreaterThanOrEqual)
    __and__ = _binary(And)
    __rand__ = _binary(And, True)
    __or__ = _binary(Or)
    __ror__ = _binary(Or, True)

    def __invert__(self) -> Column:
        return Column(Not(self.expr))

    def eqNullSafe(self, other: Any) -> Column:  # noqa: N802 - PySpark's name
        """Equality that is true for two nulls and never null (``<=>``)."""
        return Column(EqualNullSafe(self.expr, to_expr(other)))

    def bitwiseAND(self, other: Any) -> Column:  # noqa: N802 - PySpark's name
        """Bitwise AND of two integral values."""
        return Column(BitwiseAnd(self.expr, to_expr(other)))

    def bitwiseOR(self, other: Any) -> Column:  # noqa: N802 - PySpark's name
        """Bitwise OR of two integral values."""
        return Column(BitwiseOr(self.expr, to_expr(other)))

    def bitwiseXOR(self, other: Any) -> Column:  # noqa: N802 - PySpark's name
        """Bitwise XOR of two integral values."""
        return Column(BitwiseXor(self.expr, to_expr(other)))

    def outer(self) -> Column:
        """This column, read from the outer DataFrame of a lateral join (``df.lateralJoin``)."""
        from .expressions.outer_reference import OuterReference  # noqa: PLC0415 - lateral joins only

        return Column(OuterReference(self.expr))

    def isNull(self) -> Column:  # noqa: N802 - PySpark's name
        """True where the value is null."""
        return Column(IsNull(self.expr))

    def isNotNull(self) -> Column:  # noqa: N802 - PySpark's name
        """True where the value is not null."""
        return Column(IsNotNull(self.expr))

    def isNaN(self) -> Column:  # noqa: N802 - PySpark's name
        """True where the value is NaN (``isnan``; false for null)."""
        return Column(IsNaN(self.expr))

    def isin(self, *cols: Any) -> Column:
        """True where the value equals one of ``cols`` (a list or several arguments)."""
        if len(cols) == 1 and isinstance(cols[0], (list, tuple, set, frozenset)):
            cols = tuple(cols[0])
        return Column(In(self.expr, [to_expr(c) for c in cols]))

    def between(self, lowerBound: Any, upperBound: Any) -> Column:  # noqa: N803 - PySpark's name
        """``lowerBound <= value <= upperBound``."""
        return Column(And(GreaterThanOrEqual(self.expr, to_expr(lowerBound)),
                          LessThanOrEqual(self.expr, to_expr(upperBound))))

    # -- strings -------------------------------------------------------------------------

    def like(self, other: str) -> Column:
        """SQL ``LIKE`` with ``_`` and ``%`` wildcards."""
        return Column(Like(self.expr, to_expr(other)))

    def ilike(self, other: str) -> Column:
        """``LIKE`` ignoring case."""
        return Column(ILike(self.expr, to_expr(other)))

    def rlike(self, other: str) -> Column:
        """True where the regular expression matches somewhere in the value."""
        return Column(RLike(self.expr, to_expr(other)))

    def startswith(self, other: Any) -> Column:
        """True where the string starts with ``other``."""
        return Column(StartsWith(self.expr, to_expr(other)))

    def endswith(self, other: Any) -> Column:
        """True where the string ends with ``other``."""
        return Column(EndsWith(self.expr, to_expr(other)))

    def contains(self, other: Any) -> Column:
        """True where the string contains ``other``."""
        return Column(Contains(self.expr, to_expr(other)))

    def substr(self, startPos: int | Column, length: int | Column) -> Column:  # noqa: N803 - PySpark's name
        """The substring from ``startPos`` (1-based) of ``length`` characters."""
        if type(startPos) is not type(length) and not (isinstance(startPos, int) and isinstance(length, int)):
            raise PySparkTypeError(
                "[NOT_SAME_TYPE] Argument `startPos` and `length` should be the same type, got "
                f"{type(startPos).__name__} and {type(length).__name__}.", "NOT_SAME_TYPE",
                {"arg_name1": "startPos", "arg_name2": "length"})
        return Column(ScalarFunction("substr", [self.expr, to_expr(startPos), to_expr(length)]))

    # -- types and names -----------------------------------------------------------------

    def cast(self, dataType: DataType | str) -> Column:  # noqa: N803 - PySpark's name
        """The value converted to ``dataType`` (a DataType or a DDL string such as ``"int"``)."""
        return Column(Cast(self.expr, _types_of(dataType)))

    astype = cast

    def try_cast(self, dataType: DataType | str) -> Column:  # noqa: N803 - PySpark's name
        """Like :meth:`cast`, but null where the value does not convert."""
        return Column(TryCast(self.expr, _types_of(dataType)))

    def alias(self, *alias: str, **kwargs: Any) -> Column:
        """The column under another name (several names for a generator's columns)."""
        metadata = kwargs.pop("metadata", None)
        if kwargs:
            raise PySparkValueError(f"Unexpected kwargs where only 'metadata' is expected: {sorted(kwargs)}.",
                                    "ONLY_ALLOWED_FOR_SINGLE_COLUMN", {"arg_name": "metadata"})
        if not alias:
            raise PySparkValueError("alias() needs at least one name.", "CANNOT_BE_EMPTY", {"item": "alias"})
        if len(alias) > 1 and metadata is not None:
            raise PySparkValueError("metadata can only be provided for a single column",
                                    "ONLY_ALLOWED_FOR_SINGLE_COLUMN", {"arg_name": "metadata"})
        child = self.expr
        if isinstance(child, Alias):  # renaming a renamed column keeps its metadata, as Spark
            metadata = child.metadata if metadata is None else metadata
            child = child.child
        return Column(Alias(child, "\x00".join(alias), metadata=metadata))

    name = alias

    # -- ordering -------------------------------------------------------------------------

    def asc(self) -> Column:
        """Ascending order, nulls first."""
        return Column(SortOrder(self.expr, True, True))

    def asc_nulls_first(self) -> Column:
        """Ascending order, nulls first."""
        return Column(SortOrder(self.expr, True, True))

    def asc_nulls_last(self) -> Column:
        """Ascending order, nulls last."""
        return Column(SortOrder(self.expr, True, False))

    def desc(self) -> Column:
        """Descending order, nulls last."""
        return Column(SortOrder(self.expr, False, False))

    def desc_nulls_first(self) -> Column:
        """Descending order, nulls first."""
        return Column(SortOrder(self.expr, False, True))

    def desc_nulls_last(self) -> Column:
        """Descending order, nulls last."""
        return Column(SortOrder(self.expr, False, False))

    # -- windows ---------------------------------------------------------------------------

    def over(self, window: Any) -> Column:
        """This window or aggregate function computed over ``window`` (a :class:`~dstream.sql.WindowSpec`).

        Parameters
        ----------
        window : WindowSpec
            Made with :class:`~dstream.sql.Window` (``Window.partitionBy("k").orderBy("t")``).
        """
        over = getattr(window, "_over", None)  # a WindowSpec (whose module builds on this one)
        if over is None:
            raise PySparkTypeError(
                f"[NOT_WINDOWSPEC] Argument `window` should be a WindowSpec, got {type(window).__name__}. Build "
                "one with Window.partitionBy(...).orderBy(...).", "NOT_WINDOWSPEC",
                {"arg_name": "window", "arg_type": type(window).__name__})
        result: Column = over(self.expr)
        return result

    # -- CASE WHEN -------------------------------------------------------------------------

    def when(self, condition: Column, value: Any) -> Column:
        """One more ``WHEN`` of a column made by ``functions.when``."""
        if not isinstance(condition, Column):
            raise PySparkTypeError("Argument `condition` should be a Column, got "
                                   f"{type(condition).__name__}.", "NOT_COLUMN",
                                   {"arg_name": "condition", "arg_type": type(condition).__name__})
        case = self.expr
        if not isinstance(case, CaseWhen) or case.has_else:
            raise PySparkValueError("when() can only be applied on a Column previously generated by when() function, "
                                    "and cannot be applied once otherwise() is applied.",
                                    "INVALID_WHEN_USAGE", {})
        return Column(case.with_branch(condition.expr, to_expr(value)))

    def otherwise(self, value: Any) -> Column:
        """The ``ELSE`` of a column made by ``functions.when``."""
        case = self.expr
        if not isinstance(case, CaseWhen) or case.has_else:
            raise PySparkValueError("otherwise() can only be applied on a Column previously generated by when(), and "
                                    "only once.", "INVALID_OTHERWISE_USAGE", {})
        return Column(case.with_else(to_expr(value)))

    # -- complex values -------------------------------------------------------------------

    def getItem(self, key: Any) -> Column:  # noqa: N802 - PySpark's name
        """Array item (0-based) or map value of ``key``."""
        return Column(ExtractValue(self.expr, to_expr(key)))

    def getField(self, name: Any) -> Column:  # noqa: N802 - PySpark's name
        """A field of a struct."""
        return Column(ExtractValue(self.expr, to_expr(name), field_only=True))

    def withField(self, fieldName: str, col: Column) -> Column:  # noqa: N802, N803 - PySpark's names
        """The struct with field ``fieldName`` (``"a.b"`` inside a nested struct) set to ``col``:
        replaced where it exists, appended where not; a null struct stays null.

        Examples
        --------
        >>> from dstream.sql import Row, functions as F
        >>> df = spark.createDataFrame([Row(a=Row(b=1, c=2))])
        >>> df.select(df.a.withField("b", F.lit(3)).withField("d", F.lit(4)).alias("a")).first().a
        Row(b=3, c=2, d=4)
        """
        from .expressions.struct_update import UpdateFields  # noqa: PLC0415 - kept beside its two uses

        if not isinstance(fieldName, str):
            raise PySparkTypeError(f"Argument `fieldName` should be a str, got {type(fieldName).__name__}.",
                                   "NOT_STR", {"arg_name": "fieldName", "arg_type": type(fieldName).__name__})
        if not isinstance(col, Column):
            raise PySparkTypeError(f"Argument `col` should be a Column, got {type(col).__name__}.", "NOT_COLUMN",
                                   {"arg_name": "col", "arg_type": type(col).__name__})
        return Column(UpdateFields.with_field(self.expr, fieldName, col.expr))

    def dropFields(self, *fieldNames: str) -> Column:  # noqa: N802, N803 - PySpark's names
        """The struct without the fields ``fieldNames`` (``"a.b"`` inside a nested struct); absent names
        are ignored, dropping every field is an error."""
        from .expressions.struct_update import UpdateFields  # noqa: PLC0415 - kept beside withField

        if not fieldNames or not all(isinstance(n, str) for n in fieldNames):
            raise PySparkTypeError("dropFields takes one or more field names (str).", "NOT_STR",
                                   {"arg_name": "fieldNames", "arg_type": "str"})
        return Column(UpdateFields.drop_fields(self.expr, list(fieldNames)))

    def __getitem__(self, k: Any) -> Column:
        if isinstance(k, slice):
            if k.step is not None:
                raise PySparkValueError("Slice with step is not supported.", "SLICE_WITH_STEP", {})
            return self.substr(k.start, k.stop)
        return Column(ExtractValue(self.expr, to_expr(k)))

    def __getattr__(self, item: str) -> Column:
        if item.startswith("__") or item == "_expr":
            raise AttributeError(item)
        return self[item]

