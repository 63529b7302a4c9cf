"""Python user-defined functions: ``udf(f, returnType)`` called on columns, one row at a time.

What this module owns
---------------------
:class:`PythonUDF`, the node of a UDF call (named ``f(a)`` after the function), and
:func:`convert_result`, PySpark's conversion of what the function returns to its
declared type (the rules of the pickled, non-Arrow UDF path).

Invariants
----------
* Arguments arrive as the Python values ``collect()`` would give (timestamps as naive
  datetimes in the session time zone, structs as ``Row``...), nulls as ``None``.
* A returned value that does not fit the type gives null, as PySpark does (an ``int``
  returned for ``DoubleType`` is null), except that ``StringType`` takes ``str()`` of
  anything; an exception in the function is a ``PythonException`` naming it.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from ..errors import PythonException
from ..timezones import python_time_zone
from ..types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructType,
    TimestampNTZType,
    TimestampType,
)
from ..udf_profiler import profiled_call
from ..variant.arrow import python_array
from .base import EvalContext, Expression, new_expr_id

__all__ = ["PythonUDF", "convert_result", "udf_failure"]

_INT_RANGES: dict[type, int] = {ByteType: 7, ShortType: 15, IntegerType: 31, LongType: 63}


def _java_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_java_str(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_java_str(k)}={_java_str(v)}" for k, v in value.items()) + "}"
    return str(value)


def udf_failure(name: str, exc: BaseException) -> PythonException:
    """The error a user function's exception becomes: ``PYTHON_EXCEPTION`` with its stack trace."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return PythonException(f"An exception was thrown from the Python worker. Please see the stack trace below.\n{text}",
                           "PYTHON_EXCEPTION", {"function": name})


def convert_result(value: Any, dt: DataType) -> Any:
    """What PySpark keeps of a UDF's return value for type ``dt`` (``None`` when it does not fit)."""
    if value is None:
        return None
    if isinstance(dt, StringType):
        return _java_str(value)
    if isinstance(dt, BooleanType):
        return value if isinstance(value, bool) else None
    bits = _INT_RANGES.get(type(dt))
    if bits is not None:
        if isinstance(value, bool) or not isinstance(value, int):
            return None
        return value if -(2**bits) <= value < 2**bits else None
    if isinstance(dt, (DoubleType, FloatType)):
        return value if isinstance(value, float) else None
    if isinstance(dt, DecimalType):
        return value if isinstance(value, decimal.Decimal) else None
    if isinstance(dt, BinaryType):
        return bytes(value) if isinstance(value, (bytes, bytearray)) else None
    if isinstance(dt, (TimestampType, TimestampNTZType)):
        return value if isinstance(value, _dt.datetime) else None
    if isinstance(dt, DateType):
        return value if isinstance(value, _dt.date) and not isinstance(value, _dt.datetime) else None
    if isinstance(dt, ArrayType):
        if not isinstance(value, (list, tuple)):
            return None
        return [convert_result(v, dt.elementType) for v in value]
    if isinstance(dt, MapType):
        if not isinstance(value, dict):
            return None
        return {convert_result(k, dt.keyType): convert_result(v, dt.valueType) for k, v in value.items()}
    if isinstance(dt, StructType):
        if isinstance(value, dict):
            items = [value.get(f.name) for f in dt.fields]
        elif isinstance(value, (list, tuple)):
            items = list(value)
        else:
            return None
        return {f.name: convert_result(v, f.dataType) for f, v in zip(dt.fields, items)}
    return value


class PythonUDF(Expression):
    """A call of a Python function on argument columns.

    Parameters
    ----------
    func : callable
        The function; called with one Python value per argument.
    return_type : DataType
        The declared type of the results.
    children : sequence of Expression
        The arguments.
    name : str
        The function's name in the generated column name (``f(a)``).
    deterministic : bool
        ``udf(...).asNondeterministic()`` makes it false.
    """

    def __init__(self, func: Callable[..., Any], return_type: DataType, children: Sequence[Expression], name: str,
                 deterministic: bool = True, udf_id: int | None = None) -> None:
        self.func = func
        self.return_type = return_type
        self.children = tuple(children)
        self.name = name
        #: The id ``spark.profile`` shows its profile under (kept by copies of the call).
        self.udf_id = new_expr_id() if udf_id is None else udf_id
        if not deterministic:
            self.__class__ = NondeterministicPythonUDF

    @property
    def foldable(self) -> bool:
        return False

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return PythonUDF(self.func, self.return_type, children, self.name, self.deterministic, self.udf_id)

    def data_type(self) -> DataType:
        return self.return_type

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"{self.name}({', '.join(c.sql() for c in self.children)})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import arrow_to_rows, to_arrow_type  # noqa: PLC0415 - light import at run time only

        arrays = [c.eval(batch, ctx) for c in self.children]
        table = pa.table({f"_{i}": a for i, a in enumerate(arrays)}) if arrays else None
        zone = python_time_zone()
        rows = arrow_to_rows(table, zone) if table is not None else [()] * batch.num_rows
        out = []
        func, profiled = profiled_call(ctx.extras, self.udf_id, self.func)
        for row in rows:
            try:
                value = func(*row)
            except Exception as exc:
                raise udf_failure(self.name, exc) from exc
            out.append(convert_result(value, self.return_type))
        profiled()
        arrow_type = to_arrow_type(self.return_type)
        if isinstance(self.return_type, (TimestampType,)):
            out = [_to_utc(v, zone) for v in out]
        return python_array(out, arrow_type)

    def semantic_key(self) -> Any:
        return ("udf", id(self.func), self.return_type.simpleString(),
                tuple(c.semantic_key() for c in self.children))


class NondeterministicPythonUDF(PythonUDF):
    """A UDF marked ``asNondeterministic()``: never folded, never deduplicated."""

    deterministic = False


def _to_utc(value: _dt.datetime | None, time_zone: str) -> _dt.datetime | None:
    """A naive result means wall time in the machine's zone (as PySpark reads it, see ``python_time_zone``)."""
    if value is None or value.tzinfo is not None:
        return value
    from zoneinfo import ZoneInfo  # noqa: PLC0415 - only timestamp results need it

    return value.replace(tzinfo=ZoneInfo(time_zone))
