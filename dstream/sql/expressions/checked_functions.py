"""Functions that fail a query on purpose or on bad input: ``raise_error``, ``assert_true``,
``to_binary``, ``try_to_binary`` and the UTF-8 checks ``is_valid_utf8``, ``make_valid_utf8``,
``validate_utf8``, ``try_validate_utf8``.

What this module owns
---------------------
Their registry specs, as Spark 4 defines them:

* ``raise_error(message)`` fails with ``USER_RAISED_EXCEPTION`` (SQLSTATE ``P0001``) for any
  row it is evaluated on; its type is ``void`` and it is never folded, so a branch of a
  ``CASE`` that no row takes does not fail.
* ``assert_true(condition[, message])`` is null where ``condition`` is true and fails as
  ``raise_error(message)`` elsewhere (false or null); the default message is
  ``'<condition>' is not true!`` (filled in by the builder, which knows the condition's text).
* ``to_binary(s[, fmt])`` reads a string as bytes by ``fmt`` (any case): ``hex`` (the default;
  an odd count of digits gets a leading 0), ``utf-8``/``utf8``, or ``base64``. Malformed input
  is ``CONVERSION_INVALID_INPUT``; another ``fmt`` is ``DATATYPE_MISMATCH.INVALID_ARG_VALUE``.
  ``try_to_binary`` gives null for both.
* The UTF-8 checks read binary as its bytes (other types as strings, which Arrow keeps valid):
  ``is_valid_utf8`` says whether they are UTF-8, ``make_valid_utf8`` replaces each invalid
  sequence with U+FFFD, ``validate_utf8`` fails with ``INVALID_UTF8_STRING`` naming the bytes,
  ``try_validate_utf8`` gives null instead.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

import pyarrow as pa

from ..errors import AnalysisException, IllegalArgumentException, SparkRuntimeException
from ..types import BinaryType, BooleanType, DataType, NullType, StringType
from .base import EvalContext
from .function_registry import FunctionSpec, register

__all__ = ["default_assert_message"]


def default_assert_message(condition_sql: str | None) -> str:
    """``assert_true``'s message for a condition (``None``: the null literal)."""
    return f"'{'null' if condition_sql is None else condition_sql}' is not true!"


def user_raised(message: Any) -> SparkRuntimeException:
    """The error ``raise_error(message)`` raises (a null message reads ``null``)."""
    text = "null" if message is None else str(message)
    return SparkRuntimeException(text, "USER_RAISED_EXCEPTION", {"errorMessage": text})


def _run_raise(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    messages = args[0]
    if len(messages):
        raise user_raised(messages[0].as_py())
    return pa.nulls(0)


def _run_assert(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    conditions, messages = args[0].to_pylist(), args[1].to_pylist()
    for ok, message in zip(conditions, messages):
        if ok is not True:
            raise user_raised(message)
    return pa.nulls(len(conditions))


register(FunctionSpec("raise_error", 1, 1, lambda ts: [StringType()], lambda ts: NullType(), _run_raise,
                      null_intolerant=False, foldable=False,
                      display=lambda a: f"raise_error(USER_RAISED_EXCEPTION, map(errorMessage, {a[0]}))"))
register(FunctionSpec("assert_true", 2, 2, lambda ts: [BooleanType(), StringType()], lambda ts: NullType(),
                      _run_assert, null_intolerant=False, foldable=False))


_FORMATS = ("hex", "utf-8", "utf8", "base64")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def _hex(text: str) -> bytes | None:
    try:
        return bytes.fromhex("0" + text if len(text) % 2 else text) if re.fullmatch(r"[0-9A-Fa-f]*", text) else None
    except ValueError:
        return None


def _base64(text: str) -> bytes | None:
    packed = re.sub(r"\s", "", text)
    if not _BASE64.fullmatch(packed) or len(packed) % 4 == 1:
        return None
    try:
        return base64.b64decode(packed + "=" * (-len(packed) % 4))
    except (binascii.Error, ValueError):
        return None


def _check_format(name: str) -> Any:
    def result(types: list[DataType], values: list[Any]) -> DataType:
        fmt = values[1] if len(values) > 1 else "hex"
        if name == "to_binary" and fmt is not None and str(fmt).lower() not in _FORMATS:
            raise AnalysisException(
                f'Cannot resolve "to_binary(..., {fmt})" due to data type mismatch: The fmt value must to be a '
                f"case-insensitive \"STRING\" literal of 'hex', 'utf-8', 'utf8', or 'base64', but got '{fmt}'.",
                "DATATYPE_MISMATCH.INVALID_ARG_VALUE", {"inputName": "fmt", "inputValue": f"'{fmt}'"})
        return BinaryType()
    return result


def _binary_runner(strict: bool) -> Any:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        texts = args[0].to_pylist()
        fmt = str(args[1]).lower() if len(args) > 1 and args[1] is not None else ("hex" if len(args) == 1 else None)
        if fmt not in _FORMATS:
            return pa.nulls(len(texts), pa.binary())  # try_to_binary: a null or unknown format gives null
        out = []
        for text in texts:
            value = None if text is None else (
                text.encode("utf-8") if fmt in ("utf-8", "utf8") else _hex(text) if fmt == "hex" else _base64(text))
            if value is None and text is not None and strict:
                shown = fmt.upper()
                raise IllegalArgumentException(
                    f"The value '{text}' ('{shown}') cannot be converted to \"BINARY\" because it is malformed. "
                    "Correct the value as per the syntax, or change its format. Use `try_to_binary` to tolerate "
                    "malformed input and return NULL instead.", "CONVERSION_INVALID_INPUT",
                    {"str": f"'{text}'", "fmt": f"'{shown}'", "targetType": '"BINARY"',
                     "suggestion": "`try_to_binary`"})
            out.append(value)
        return pa.array(out, pa.binary())
    return run


def _binary_types(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [StringType(), StringType()]
    return wanted[: len(types)]


for _name, _strict in (("to_binary", True), ("try_to_binary", False)):
    register(FunctionSpec(_name, 1, 2, _binary_types, lambda ts: BinaryType(),
                          _binary_runner(_strict), scalar_positions=(1,), result_from_values=_check_format(_name)))


def _utf8_input(types: list[DataType]) -> list[DataType | None]:
    return [None if isinstance(types[0], BinaryType) else StringType()]


def _texts(values: pa.Array) -> list[tuple[str | None, bool]]:
    """Each value as ``(text, was valid UTF-8)``: bytes decoded with U+FFFD for invalid sequences."""
    out: list[tuple[str | None, bool]] = []
    for value in values.to_pylist():
        if value is None or isinstance(value, str):
            out.append((value, True))
            continue
        try:
            out.append((bytes(value).decode("utf-8"), True))
        except UnicodeDecodeError:
            out.append((bytes(value).decode("utf-8", "replace"), False))
    return out


def _run_is_valid(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pa.array([None if t is None else ok for t, ok in _texts(args[0])], pa.bool_())


def _utf8_runner(on_invalid: str) -> Any:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        out = []
        for (text, ok), raw in zip(_texts(args[0]), args[0].to_pylist()):
            if not ok and on_invalid == "raise":
                shown = "".join(f"\\x{b:02X}" for b in bytes(raw))
                raise IllegalArgumentException(f"Invalid UTF8 byte sequence found in string: {shown}.",
                                               "INVALID_UTF8_STRING", {"str": shown})
            out.append(None if not ok and on_invalid == "null" else text)
        return pa.array(out, pa.string())
    return run


register(FunctionSpec("is_valid_utf8", 1, 1, _utf8_input, lambda ts: BooleanType(), _run_is_valid))
register(FunctionSpec("make_valid_utf8", 1, 1, _utf8_input, lambda ts: StringType(), _utf8_runner("replace")))
register(FunctionSpec("validate_utf8", 1, 1, _utf8_input, lambda ts: StringType(), _utf8_runner("raise")))
register(FunctionSpec("try_validate_utf8", 1, 1, _utf8_input, lambda ts: StringType(), _utf8_runner("null")))
