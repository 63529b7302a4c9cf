"""Assorted functions of the registry: ``array_sort``, ``equal_null``, ``elt``, ``find_in_set``,
``overlay``, ``width_bucket``, ``bin``, ``conv``, ``to_unix_timestamp``, ``window_time``,
``encode``, ``decode`` and ``current_timezone``.

What this module owns
---------------------
The :class:`FunctionSpec` of each, with Spark 4's semantics.

Invariants
----------
* ``array_sort(a)`` sorts ascending with nulls last (``sort_array`` puts them first); NaN
  after every other number.
* ``equal_null(a, b)`` is ``a <=> b``: never null, two nulls equal.
* ``elt(n, v1, v2...)`` is ``v(n)``; an ``n`` out of range raises ``INVALID_ARRAY_INDEX``
  under ANSI mode (Spark 4's default) and gives null without it.
* ``find_in_set(s, list)``: the 1-based position of ``s`` in the comma-separated ``list``, 0
  when absent or when ``s`` holds a comma.
* ``overlay(s, r, pos, len)``: ``s`` with ``len`` characters from ``pos`` (1-based) replaced
  by ``r``; ``len`` -1 (the default) means ``r``'s length.
* ``width_bucket(v, lo, hi, n)``: the bucket of ``v`` among ``n`` equal buckets from ``lo`` to
  ``hi`` (0 below, ``n + 1`` above; ``hi < lo`` counts downwards); null for ``n <= 0`` or
  ``lo == hi``.
* ``bin(n)``: the binary digits of a long (two's complement for a negative one, as Java's
  ``Long.toBinaryString``). ``conv(s, from, to)``: ``s`` read in base ``from`` and written in
  base ``to`` (2 to 36; a negative ``to`` writes a signed value), as Spark's ``conv``; an
  invalid digit ends the number, as in Spark.
* ``window_time(w)``: the end of a ``window``/``session_window`` struct minus one
  microsecond (the last instant inside it).
* ``encode(s, charset)``/``decode(b, charset)``: US-ASCII, ISO-8859-1, UTF-8, UTF-16,
  UTF-16BE, UTF-16LE (Spark's list); another charset is an error naming the choices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa

from ..errors import SparkRuntimeException
from ..types import (
    BinaryType,
    BooleanType,
    DataType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructType,
    TimestampType,
)
from .array_functions import _array_input, _key, _rows
from .base import EvalContext
from .coercion import find_common_type
from .function_registry import FunctionSpec, lookup, register

__all__: list[str] = []

Runner = Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]


def _const(dt: DataType) -> Callable[[list[DataType]], DataType]:
    return lambda types: dt


def _same(types: list[DataType]) -> DataType:
    return types[0]


def _per_row(fn: Callable[..., Any], arrow_type: pa.DataType) -> Runner:
    """``fn(*values)`` for each row (called only when no argument is null)."""
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        columns = [a.to_pylist() if isinstance(a, pa.Array | pa.ChunkedArray) else None for a in args]
        rows = max((len(c) for c in columns if c is not None), default=1)
        values = [c if c is not None else [a] * rows for c, a in zip(columns, args)]
        return pa.array([None if any(v is None for v in row) else fn(*row) for row in zip(*values)], arrow_type)
    return run


# -- array_sort ---------------------------------------------------------------------------------


def _sort_nulls_last(values: list[Any], extra: list[Any]) -> list[Any]:
    present = sorted((v for v in values if v is not None), key=_key)
    return present + [None] * (len(values) - len(present))


register(FunctionSpec("array_sort", 1, 1, _array_input, _same, _rows(_sort_nulls_last)))


# -- equal_null, elt ------------------------------------------------------------------------------


def _common(types: list[DataType]) -> list[DataType | None]:
    common = find_common_type(types)
    if common is None:
        raise TypeError("the arguments must share a type: " + ", ".join(t.simpleString() for t in types))
    return [common] * len(types)


def _run_equal_null(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    from ..kernels import compare  # noqa: PLC0415 - kernels load at run time

    return compare.eq_null_safe(args[0], args[1])


register(FunctionSpec("equal_null", 2, 2, _common, _const(BooleanType()), _run_equal_null, null_intolerant=False))


def _elt_types(types: list[DataType]) -> list[DataType | None]:
    rest = _common(types[1:]) if len(types) > 1 else []
    return [IntegerType(), *rest]


def _run_elt(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - a leaf import

    index = args[0].to_pylist()
    inputs = [a.to_pylist() for a in args[1:]]
    out: list[Any] = []
    for row, n in enumerate(index):
        if n is None or not 1 <= n <= len(inputs):
            if n is not None and ctx.ansi:
                raise SparkRuntimeException(
                    f"The index {n} is out of bounds. The array has {len(inputs)} elements. Use try_element_at "
                    "(or set spark.sql.ansi.enabled to false) to get null instead.", "INVALID_ARRAY_INDEX",
                    {"indexValue": str(n), "arraySize": str(len(inputs))})
            out.append(None)
        else:
            out.append(inputs[n - 1][row])
    return pa.array(out, to_arrow_type(rt))


register(FunctionSpec("elt", 2, -1, _elt_types, lambda ts: ts[1], _run_elt, null_intolerant=False))


# -- strings: find_in_set, overlay --------------------------------------------------------------


def _find_in_set(s: str, items: str) -> int:
    if "," in s:
        return 0
    parts = items.split(",")
    return parts.index(s) + 1 if s in parts else 0


register(FunctionSpec("find_in_set", 2, 2, lambda ts: [StringType(), StringType()], _const(IntegerType()),
                      _per_row(_find_in_set, pa.int32())))


def _overlay(s: str, replacement: str, pos: int, length: int = -1) -> str:
    count = len(replacement) if length < 0 else length
    start = max(pos - 1, 0)
    return s[:start] + replacement + s[start + count:]


def _overlay_types(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [StringType(), StringType(), IntegerType(), IntegerType()]
    return wanted[: len(types)]


register(FunctionSpec("overlay", 3, 4, _overlay_types,
                      _const(StringType()), _per_row(_overlay, pa.string())))


# -- numbers: width_bucket, bin, conv -------------------------------------------------------------


def _width_bucket(value: float, low: float, high: float, buckets: int) -> int | None:
    if buckets <= 0 or low == high or value != value:  # noqa: PLR0124 - NaN test
        return None
    if low < high:
        if value < low:
            return 0
        if value >= high:
            return buckets + 1
        return int((value - low) * buckets / (high - low)) + 1
    if value > low:
        return 0
    if value <= high:
        return buckets + 1
    return int((low - value) * buckets / (low - high)) + 1


register(FunctionSpec("width_bucket", 4, 4, lambda ts: [DoubleType(), DoubleType(), DoubleType(), LongType()],
                      _const(LongType()), _per_row(_width_bucket, pa.int64())))


def _bin(n: int) -> str:
    return format(n & 0xFFFFFFFFFFFFFFFF, "b") if n < 0 else format(n, "b")


register(FunctionSpec("bin", 1, 1, lambda ts: [LongType()], _const(StringType()), _per_row(_bin, pa.string())))

_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _conv(text: str, from_base: int, to_base: int) -> str | None:
    if not (2 <= from_base <= 36 and 2 <= abs(to_base) <= 36):
        return None
    s = text.strip()
    negative = s.startswith("-")
    digits = s[1:] if negative else s
    value = 0
    for ch in digits.upper():
        d = _DIGITS.find(ch)
        if d < 0 or d >= from_base:
            break  # Spark reads up to the first invalid digit
        value = min(value * from_base + d, 0xFFFFFFFFFFFFFFFF)  # Spark's unsigned overflow clamps
    if negative:
        value = (-value) & 0xFFFFFFFFFFFFFFFF
    signed = to_base < 0 and value >= 1 << 63
    if signed:
        value = (1 << 64) - value
    base = abs(to_base)
    out = ""
    while True:
        value, d = divmod(value, base)
        out = _DIGITS[d] + out
        if value == 0:
            break
    return "-" + out if signed else out


register(FunctionSpec("conv", 3, 3, lambda ts: [StringType(), IntegerType(), IntegerType()], _const(StringType()),
                      _per_row(_conv, pa.string())))


# -- time: to_unix_timestamp, window_time, current_timezone ----------------------------------------------

_UNIX = lookup("unix_timestamp")
register(FunctionSpec("to_unix_timestamp", 1, 2, _UNIX.arg_types, _UNIX.result_type, _UNIX.run,
                      scalar_positions=_UNIX.scalar_positions))


def _window_types(types: list[DataType]) -> list[DataType | None]:
    dt = types[0]
    fields = dt.fields if isinstance(dt, StructType) else []
    if [f.name for f in fields] != ["start", "end"] or not all(isinstance(f.dataType, TimestampType) for f in fields):
        raise TypeError(f'the argument must be a window column (struct<start: timestamp, end: timestamp>, as '
                        f'window() or session_window() make), not "{dt.simpleString()}"')
    return [None]


def _run_window_time(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    import pyarrow.compute as pc  # noqa: PLC0415 - beside its only use

    windows = args[0].combine_chunks() if isinstance(args[0], pa.ChunkedArray) else args[0]
    end = pc.cast(pc.cast(windows.field("end"), pa.timestamp("us", tz="UTC")), pa.int64())
    last = pc.subtract(end, 1).cast(pa.timestamp("us", tz="UTC"))
    return pc.if_else(windows.is_null(), pa.nulls(len(windows), last.type), last)


register(FunctionSpec("window_time", 1, 1, _window_types, _const(TimestampType()), _run_window_time))


def _run_current_timezone(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pa.array([ctx.time_zone], pa.string())


register(FunctionSpec("current_timezone", 0, 0, lambda ts: [], _const(StringType()), _run_current_timezone,
                      foldable=False))


# -- encode, decode ----------------------------------------------------------------------------------

_CHARSETS = {"US-ASCII": "ascii", "ISO-8859-1": "latin-1", "UTF-8": "utf-8", "UTF-16": "utf-16",
             "UTF-16BE": "utf-16-be", "UTF-16LE": "utf-16-le"}


def _codec(charset: str) -> str:
    codec = _CHARSETS.get(charset.upper())
    if codec is None:
        raise SparkRuntimeException(
            f"The charset '{charset}' is not supported: use one of {', '.join(_CHARSETS)}.",
            "INVALID_PARAMETER_VALUE.CHARSET", {"charset": charset})
    return codec


def _encode(s: str, charset: str) -> bytes:
    codec = _codec(charset)
    # Java writes a byte-order mark for UTF-16, big-endian; Python's utf-16 writes the host's order.
    return b"\xfe\xff" + s.encode("utf-16-be") if codec == "utf-16" else s.encode(codec, errors="replace")


def _decode(b: bytes, charset: str) -> str:
    return b.decode(_codec(charset), errors="replace")


register(FunctionSpec("encode", 2, 2, lambda ts: [StringType(), StringType()], _const(BinaryType()),
                      _per_row(_encode, pa.binary()), scalar_positions=(1,)))
register(FunctionSpec("decode", 2, 2, lambda ts: [BinaryType(), StringType()], _const(StringType()),
                      _per_row(_decode, pa.string()), scalar_positions=(1,)))


