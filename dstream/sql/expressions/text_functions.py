"""More string functions of the registry: ``translate``, ``substring_index``, ``left``, ``right``,
``split_part``, ``locate``, ``btrim``, ``ascii``, ``octet_length``, ``bit_length``, ``base64``,
``unbase64``, ``hex``, ``unhex``, ``crc32``, ``levenshtein``, ``soundex``, ``format_number``.

What this module owns
---------------------
Their specs (Spark's generated names, e.g. ``substring_index(s, ., 2)``) and evaluation:
Arrow kernels where one fits, else a Python function per distinct value (each distinct
string is computed once, as a dictionary of the column).

Invariants
----------
* Null in, null out; position, count and separator arguments are constants.
* ``hex`` of an integer is the upper-case hex of its 64-bit two's complement (``hex(-1)``
  is sixteen ``F``); of a string, of its UTF-8 bytes. ``unhex`` and ``unbase64`` give
  ``binary`` (null for malformed input, as Spark's).
* ``format_number(x, d)`` rounds half to even on the value's exact binary value (Java's
  ``DecimalFormat``), groups thousands with ``,``; ``d < 0`` gives null.
* ``split_part`` with part 0 raises ``INVALID_INDEX_OF_ZERO``; out of range gives ``""``.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import SparkRuntimeException
from ..types import BinaryType, DataType, IntegerType, LongType, StringType
from .base import EvalContext
from .coercion import is_numeric
from .function_registry import FunctionSpec, register

__all__ = ["edit_distance"]

Run = Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]


def _const(dt: DataType) -> Callable[[list[DataType]], DataType]:
    return lambda types: dt


def _strings(*rest: DataType | None) -> Callable[[list[DataType]], list[DataType | None]]:
    return lambda types: [StringType(), *rest][: len(types)]


def _per_value(fn: Callable[[Any], Any], out_type: pa.DataType) -> Callable[[pa.Array], pa.Array]:
    """``fn`` over each distinct non-null value of an array (computed once per distinct value)."""
    def apply(values: pa.Array) -> pa.Array:
        encoded = pc.dictionary_encode(values)
        results = pa.array([fn(v) for v in encoded.dictionary.to_pylist()], out_type)
        return results.take(encoded.indices)
    return apply


def _unary(fn: Callable[[Any], Any], out_type: pa.DataType) -> Run:
    apply = _per_value(fn, out_type)

    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        return apply(args[0])
    return run


def _with_constants(fn: Callable[..., Any], out_type: pa.DataType) -> Run:
    """``fn(value, *constants)`` per distinct value of the first argument."""
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        if any(a is None for a in args[1:]):
            return pa.nulls(len(args[0]), out_type)
        return _per_value(lambda v: fn(v, *args[1:]), out_type)(args[0])
    return run


# -- pieces of strings ------------------------------------------------------------


def _translate(s: str, matching: str, replace: str) -> str:
    table: dict[int, int | None] = {}
    for i, ch in enumerate(matching):
        table.setdefault(ord(ch), ord(replace[i]) if i < len(replace) else None)  # the first mapping wins
    return s.translate(table)


def _substring_index(s: str, delim: str, count: int) -> str:
    if not delim or count == 0:
        return ""
    parts = s.split(delim)
    return delim.join(parts[:count]) if count > 0 else delim.join(parts[count:])


def _left(s: str, n: int) -> str:
    return s[:n] if n > 0 else ""


def _right(s: str, n: int) -> str:
    return s[-n:] if n > 0 else ""


def _split_part(s: str, delim: str, part: int) -> str:
    parts = s.split(delim) if delim else [s]
    index = part - 1 if part > 0 else len(parts) + part
    return parts[index] if 0 <= index < len(parts) else ""


def _run_split_part(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    if args[2] == 0:
        raise SparkRuntimeException("The index 0 is invalid. An index shall be either < 0 or > 0 (the first "
                                    "element has index 1).", "INVALID_INDEX_OF_ZERO", {})
    return _with_constants(_split_part, pa.string())(args, types, rt, ctx)


register(FunctionSpec("translate", 3, 3, _strings(StringType(), StringType()), _const(StringType()),
                      _with_constants(_translate, pa.string()), scalar_positions=(1, 2)))
register(FunctionSpec("substring_index", 3, 3, _strings(StringType(), IntegerType()), _const(StringType()),
                      _with_constants(_substring_index, pa.string()), scalar_positions=(1, 2)))
register(FunctionSpec("left", 2, 2, _strings(IntegerType()), _const(StringType()),
                      _with_constants(_left, pa.string()), scalar_positions=(1,)))
register(FunctionSpec("right", 2, 2, _strings(IntegerType()), _const(StringType()),
                      _with_constants(_right, pa.string()), scalar_positions=(1,)))
register(FunctionSpec("split_part", 3, 3, _strings(StringType(), IntegerType()), _const(StringType()),
                      _run_split_part, scalar_positions=(1, 2)))


def _run_locate(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    from ..kernels import strings  # noqa: PLC0415 - kernels load at run time

    if args[0] is None or (len(args) > 2 and args[2] is None):
        return pa.nulls(len(args[1]), pa.int32())
    return strings.locate(args[0], args[1], args[2] if len(args) > 2 else 1)


def _show_locate(args: list[str]) -> str:
    return f"locate({args[0]}, {args[1]}, {args[2] if len(args) > 2 else 1})"


def _locate_types(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [StringType(), StringType(), IntegerType()]
    return wanted[: len(types)]


register(FunctionSpec("locate", 2, 3, _locate_types,
                      _const(IntegerType()), _run_locate, scalar_positions=(0, 2), null_intolerant=False,
                      display=_show_locate))


def _run_btrim(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    from ..kernels import strings  # noqa: PLC0415 - kernels load at run time

    return strings.trim(args[0], args[1] if len(args) > 1 else None)


register(FunctionSpec("btrim", 1, 2, _strings(StringType()), _const(StringType()), _run_btrim,
                      scalar_positions=(1,)))


# -- codes and bytes --------------------------------------------------------------


def _ascii(s: str) -> int:
    return ord(s[0]) if s else 0


def _binary_or_string(types: list[DataType]) -> list[DataType | None]:
    return [None if isinstance(types[0], BinaryType) else StringType()]


def _as_bytes(values: pa.Array) -> pa.Array:
    return values if pa.types.is_binary(values.type) else values.cast(pa.binary())


def _run_octet_length(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pc.binary_length(_as_bytes(args[0])).cast(pa.int32())


def _run_bit_length(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pc.multiply(pc.binary_length(_as_bytes(args[0])).cast(pa.int32()), 8)


def _bytes_fn(fn: Callable[[bytes], Any], out_type: pa.DataType) -> Run:
    apply = _per_value(fn, out_type)

    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        return apply(_as_bytes(args[0]))
    return run


def _unbase64(s: str) -> bytes | None:
    try:
        return base64.b64decode(s, validate=False)
    except (binascii.Error, ValueError):
        return None


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _unhex(s: str) -> bytes | None:
    if not _HEX_DIGITS.issuperset(s):
        return None  # Spark's unhex refuses anything but hex digits (no spaces, no 0x)
    return bytes.fromhex(("0" + s) if len(s) % 2 else s)


def _hex_types(types: list[DataType]) -> list[DataType | None]:
    if is_numeric(types[0]):  # fractional numbers too: Spark casts them to bigint first
        return [LongType()]
    return [None if isinstance(types[0], BinaryType) else StringType()]


def _run_hex(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    values = args[0]
    if pa.types.is_integer(values.type):
        return _per_value(lambda v: format(v & 0xFFFFFFFFFFFFFFFF, "X"), pa.string())(values)
    return _per_value(lambda b: b.hex().upper(), pa.string())(_as_bytes(values))


register(FunctionSpec("ascii", 1, 1, _strings(), _const(IntegerType()), _unary(_ascii, pa.int32())))
register(FunctionSpec("octet_length", 1, 1, _binary_or_string, _const(IntegerType()), _run_octet_length))
register(FunctionSpec("bit_length", 1, 1, _binary_or_string, _const(IntegerType()), _run_bit_length))
register(FunctionSpec("base64", 1, 1, _binary_or_string, _const(StringType()),
                      _bytes_fn(lambda b: base64.b64encode(b).decode("ascii"), pa.string())))
register(FunctionSpec("unbase64", 1, 1, _strings(), _const(BinaryType()), _unary(_unbase64, pa.binary())))
register(FunctionSpec("hex", 1, 1, _hex_types, _const(StringType()), _run_hex))
register(FunctionSpec("unhex", 1, 1, _strings(), _const(BinaryType()), _unary(_unhex, pa.binary())))
register(FunctionSpec("crc32", 1, 1, _binary_or_string, _const(LongType()), _bytes_fn(zlib.crc32, pa.int64())))


# -- comparing and formatting -----------------------------------------------------


def edit_distance(a: str, b: str) -> int:
    """The Levenshtein distance of two strings (also the analyzer's "did you mean" ranking)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _run_levenshtein(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    threshold = args[2] if len(args) > 2 else None
    out: list[int | None] = []
    for a, b in zip(args[0].to_pylist(), args[1].to_pylist()):
        if a is None or b is None:
            out.append(None)
            continue
        distance = edit_distance(a, b)
        out.append(-1 if threshold is not None and distance > threshold else distance)
    return pa.array(out, pa.int32())


register(FunctionSpec("levenshtein", 2, 3, _strings(StringType(), IntegerType()), _const(IntegerType()),
                      _run_levenshtein, scalar_positions=(2,)))

# Spark's US English Soundex codes of A..Z ("0": a vowel or Y, "7": H or W, which are skipped).
_SOUNDEX_CODES = b"01230127022455012623017202"


def _soundex(s: str) -> str:
    """Spark's Soundex, over UTF-8 bytes: a first byte that is not an ASCII letter returns the input."""
    data = s.encode("utf-8")
    if not data:
        return s
    first = data[0] - 32 if 97 <= data[0] <= 122 else data[0]
    if not 65 <= first <= 90:
        return s
    out = bytearray(b"0000")
    out[0] = first
    filled = 1
    last = _SOUNDEX_CODES[first - 65]
    for byte in data[1:]:
        letter = byte - 32 if 97 <= byte <= 122 else byte
        if not 65 <= letter <= 90:
            last = ord("0")  # anything but a letter separates equal codes
            continue
        code = _SOUNDEX_CODES[letter - 65]
        if code == ord("7"):
            continue
        if code != ord("0") and code != last:
            out[filled] = code
            filled += 1
            if filled > 3:
                break
        last = code
    return out.decode("ascii")


register(FunctionSpec("soundex", 1, 1, _strings(), _const(StringType()), _unary(_soundex, pa.string())))


def _format_number_types(types: list[DataType]) -> list[DataType | None]:
    if not is_numeric(types[0]):
        raise TypeError(f"format_number needs a number, got {types[0].simpleString()}")
    return [None, StringType() if isinstance(types[1], StringType) else IntegerType()]


def _format_number(value: Any, digits: int | str) -> str | None:
    if isinstance(digits, int) and digits < 0:
        return None
    exact = value if isinstance(value, Decimal) else Decimal(value)  # a float's exact binary value, as Java's
    if not exact.is_finite():
        return "NaN" if exact.is_nan() else ("-" if exact < 0 else "") + "\u221e"
    if isinstance(digits, str):
        return _with_pattern(exact, digits)
    rounded = exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN)
    return f"{rounded:,.{digits}f}"


#: The DecimalFormat patterns format_number takes: a literal prefix, the integer digits
#: (``#``, ``0``, ``,``), an optional fraction (``0`` then ``#``), a literal suffix.
_NUMBER_PATTERN = re.compile(r"([^#0,.]*)([#,0]+)(?:\.(0*#*))?([^#0,.]*)")


def _with_pattern(exact: Decimal, pattern: str) -> str:
    """``exact`` as Java's ``DecimalFormat(pattern)`` (US symbols, HALF_EVEN) writes it, for the
    usual patterns (``#,##0.00``, ``0.###``, ``$#,##0``); others raise a clear error."""
    match = _NUMBER_PATTERN.fullmatch(pattern)
    if match is None or any(c in match.group(1) + match.group(4) for c in "%\u2030';E"):
        raise SparkRuntimeException(
            f"format_number's pattern {pattern!r} is not supported here: give digits (#, 0), grouping (,), "
            "one decimal point and literal text around them (as '#,##0.00'), or an integer count of decimals.",
            "UNSUPPORTED_FEATURE", {"feature": "format_number pattern"})
    prefix, integer, fraction, suffix = match.group(1), match.group(2), match.group(3) or "", match.group(4)
    groups = len(integer) - integer.rfind(",") - 1 if "," in integer else 0
    rounded = exact.quantize(Decimal(1).scaleb(-len(fraction)), rounding=ROUND_HALF_EVEN)
    whole, _, decimals = f"{abs(rounded):f}".partition(".")
    decimals = decimals.rstrip("0").ljust(fraction.count("0"), "0")
    whole = whole.lstrip("0").rjust(integer.count("0"), "0")
    whole = whole or "0"  # Spark writes 0.5 for '#.##' too
    if groups:
        whole = _grouped(whole, groups)
    sign = "-" if rounded.is_signed() else ""
    return f"{sign}{prefix}{whole}{'.' + decimals if decimals else ''}{suffix}"


def _grouped(digits: str, size: int) -> str:
    head = len(digits) % size or size
    return ",".join([digits[:head]] + [digits[i:i + size] for i in range(head, len(digits), size)])


register(FunctionSpec("format_number", 2, 2, _format_number_types, _const(StringType()),
                      _with_constants(_format_number, pa.string()), scalar_positions=(1,)))
