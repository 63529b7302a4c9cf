"""Text fields to Spark values: the parse and inference rules of the CSV source, vectorized.

What this module owns
---------------------
* :func:`parse_column`: a string column to a typed Arrow column with the rules of Spark's
  CSV parser (Java ``Integer.parseInt``/``Double.parseDouble`` syntax, ``true``/``false`` in
  any case, ``nanValue``/``positiveInf``/``negativeInf``, timestamps as wall time in the
  reader's zone), and the mask of the fields that failed.
* :func:`infer_column` and :func:`merge_types`: CSV schema inference, int -> bigint ->
  decimal (integers too long for bigint) -> double, timestamp, boolean, else string.

Invariants
----------
* A field that fails to parse is null in the result and set in the failure mask; a null
  input is null and never a failure.
* Integers, doubles and booleans are parsed by Arrow kernels after a regex check of the
  Java syntax; only decimals, dates and timestamps go value by value (with a cache).
"""

from __future__ import annotations

import datetime
import decimal
import re
from collections.abc import Callable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["ParseOptions", "parse_column", "infer_column", "merge_types"]

_INT_PATTERN = r"^[+-]?[0-9]+$"
# Java's Double.parseDouble (decimal forms): whitespace trimmed, optional type suffix.
_DOUBLE_PATTERN = r"^\s*[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)[fFdD]?\s*$"
_TIMESTAMP_RE = re.compile(
    r"^\s*([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[T ]([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2})(?:\.([0-9]{1,9}))?)?"
    r"\s*(Z|[+-][0-9]{2}:?[0-9]{2}|UTC|GMT)?)?\s*$")
_TIMESTAMP_INFER_PATTERN = (r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}[T ][0-9]{1,2}:[0-9]{1,2}(:[0-9]{1,2}(\.[0-9]{1,9})?)?"
                            r"(Z|[+-][0-9]{2}:?[0-9]{2})?$")
_DATE_INFER_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_EPOCH_DATE = datetime.date(1970, 1, 1)


@dataclass(frozen=True)
class ParseOptions:
    """The reader options that shape how one field parses."""

    nan_value: str = "NaN"
    positive_inf: str = "Inf"
    negative_inf: str = "-Inf"
    time_zone: str = "UTC"
    timestamp_format: str | None = None
    date_format: str | None = None


def _mask_or(a: pa.Array | None, b: pa.Array | None) -> pa.Array | None:
    if a is None:
        return b
    if b is None:
        return a
    return pc.or_(a, b)


def _failures(strings: pa.Array, valid: pa.Array) -> pa.Array | None:
    """``True`` where a non-null field is not valid; ``None`` when nothing failed."""
    bad = pc.and_(pc.is_valid(strings), pc.invert(pc.fill_null(valid, True)))
    return bad if pc.any(bad).as_py() else None


def _parse_integers(strings: pa.Array, type_: pa.DataType) -> tuple[pa.Array, pa.Array | None]:
    valid = pc.match_substring_regex(strings, _INT_PATTERN)
    cleaned = pc.if_else(valid, pc.replace_substring_regex(strings, r"^\+", ""), pa.scalar(None, pa.string()))
    try:
        wide = pc.cast(cleaned, pa.int64())
    except pa.ArrowInvalid:
        # A field beyond the 64-bit range: rare, so checked value by value.
        values = [int(v) if v is not None and -2**63 <= int(v) < 2**63 else None for v in cleaned.to_pylist()]
        wide = pa.array(values, pa.int64())
        valid = pc.and_(valid, pc.is_valid(wide))
    if type_ != pa.int64():
        info = {pa.int8(): 2**7, pa.int16(): 2**15, pa.int32(): 2**31}[type_]
        fits = pc.and_(pc.greater_equal(wide, -info), pc.less(wide, info))
        valid = pc.and_(valid, pc.fill_null(fits, False))
        wide = pc.if_else(fits, wide, pa.scalar(None, pa.int64())).cast(type_)
    return wide, _failures(strings, valid)


def _parse_doubles(strings: pa.Array, type_: pa.DataType, opts: ParseOptions) -> tuple[pa.Array, pa.Array | None]:
    special = {opts.nan_value: "nan", opts.positive_inf: "inf", opts.negative_inf: "-inf"}
    is_special = pc.is_in(strings, pa.array(list(special), pa.string()))
    valid = pc.or_(pc.match_substring_regex(strings, _DOUBLE_PATTERN), is_special)
    text = pc.utf8_trim_whitespace(strings)
    text = pc.replace_substring_regex(text, r"[fFdD]$", "")
    text = pc.replace_substring_regex(text, r"Infinity$", "inf")
    for raw, norm in special.items():
        text = pc.if_else(pc.equal(strings, raw), pa.scalar(norm), text)
    text = pc.if_else(valid, text, pa.scalar(None, pa.string()))
    return pc.cast(text, type_), _failures(strings, valid)


def _csv_booleans(strings: pa.Array) -> tuple[pa.Array, pa.Array | None]:
    lower = pc.utf8_lower(strings)
    valid = pc.is_in(lower, pa.array(["true", "false"]))
    result = pc.if_else(valid, pc.equal(lower, "true"), pa.scalar(None, pa.bool_()))
    return result, _failures(strings, valid)


_PATTERN_TOKENS = [("yyyy", "%Y"), ("yy", "%y"), ("MMMM", "%B"), ("MMM", "%b"), ("MM", "%m"), ("dd", "%d"),
                   ("HH", "%H"), ("hh", "%I"), ("mm", "%M"), ("ss", "%S"), ("SSSSSS", "%f"), ("SSS", "%f"),
                   ("XXX", "%z"), ("Z", "%z"), ("a", "%p"), ("EEE", "%a"), ("M", "%m"), ("d", "%d"), ("H", "%H")]


def spark_pattern_to_strptime(pattern: str) -> str:
    """A Spark datetime pattern (``yyyy-MM-dd HH:mm:ss``) as a :func:`~datetime.datetime.strptime` format."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "'":
            end = pattern.find("'", i + 1)
            end = len(pattern) if end < 0 else end
            out.append(pattern[i + 1:end].replace("%", "%%") or "'")
            i = end + 1
            continue
        for token, code in _PATTERN_TOKENS:
            if pattern.startswith(token, i):
                out.append(code)
                i += len(token)
                break
        else:
            out.append(pattern[i].replace("%", "%%"))
            i += 1
    return "".join(out)


def _default_timestamp(text: str, zone: ZoneInfo) -> datetime.datetime | None:
    match = _TIMESTAMP_RE.match(text)
    if not match:
        return None
    y, mo, d, h, mi, s, frac, tz = match.groups()
    micros = int((frac or "0")[:6].ljust(6, "0"))
    naive = datetime.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0), micros)
    if tz in (None, ""):
        return naive.replace(tzinfo=zone)
    if tz in ("Z", "UTC", "GMT"):
        return naive.replace(tzinfo=datetime.timezone.utc)
    sign = -1 if tz[0] == "-" else 1
    digits = tz[1:].replace(":", "")
    offset = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return naive.replace(tzinfo=datetime.timezone(sign * offset))


def _value_parser(type_: pa.DataType, opts: ParseOptions) -> Callable[[str], object]:
    if pa.types.is_timestamp(type_):
        zone = ZoneInfo(opts.time_zone if type_.tz else "UTC")
        fmt = spark_pattern_to_strptime(opts.timestamp_format) if opts.timestamp_format else None

        def timestamp(text: str) -> object:
            if fmt is None:
                value = _default_timestamp(text, zone)
                if value is None:
                    raise ValueError(text)
            else:
                value = datetime.datetime.strptime(text, fmt)
                if value.tzinfo is None:
                    value = value.replace(tzinfo=zone)
            return (value - _EPOCH) // datetime.timedelta(microseconds=1)
        return timestamp
    if pa.types.is_date(type_):
        fmt = spark_pattern_to_strptime(opts.date_format) if opts.date_format else None

        def date(text: str) -> object:
            if fmt is None:
                match = re.fullmatch(r"\s*([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})\s*", text)
                if not match:
                    raise ValueError(text)
                value = datetime.date(*map(int, match.groups()))
            else:
                value = datetime.datetime.strptime(text, fmt).date()
            return (value - _EPOCH_DATE).days
        return date
    if pa.types.is_decimal(type_):
        quantum = decimal.Decimal(1).scaleb(-type_.scale)

        def dec(text: str) -> object:
            value = decimal.Decimal(text.strip()).quantize(quantum, rounding=decimal.ROUND_HALF_UP)
            if not value.is_finite() or len(value.as_tuple().digits) > type_.precision:
                raise ValueError(text)
            return value
        return dec
    if pa.types.is_binary(type_) or pa.types.is_large_binary(type_):
        return lambda text: text.encode("utf-8")
    if pa.types.is_duration(type_):
        from dstream.sql.errors import ParseException  # noqa: PLC0415 - with the parser, on first use
        from dstream.sql.kernels.interval_text import parse_interval_text  # noqa: PLC0415 - loaded on first use

        def interval(text: str) -> object:
            try:
                return parse_interval_text(text)
            except ParseException:
                raise ValueError(text) from None
        return interval
    raise ValueError(f"CSV cannot read a column of type {type_}")


def _parse_values(strings: pa.Array, type_: pa.DataType, opts: ParseOptions) -> tuple[pa.Array, pa.Array | None]:
    convert = _value_parser(type_, opts)
    cache: dict[str, object] = {}
    values: list[object] = []
    failed: list[bool] = []
    for text in strings.to_pylist():
        if text is None:
            values.append(None)
            failed.append(False)
            continue
        if text not in cache:
            try:
                cache[text] = convert(text)
            except (ValueError, ArithmeticError, OverflowError, decimal.InvalidOperation):
                cache[text] = None
        value = cache[text]
        values.append(value)
        failed.append(value is None)
    storage = pa.int64() if pa.types.is_timestamp(type_) else pa.int32() if pa.types.is_date(type_) else type_
    array = pa.array(values, storage)
    if storage != type_:
        array = array.view(type_) if hasattr(array, "view") else array.cast(type_)
    mask = pa.array(failed, pa.bool_())
    return array, mask if any(failed) else None


def parse_column(strings: pa.Array, type_: pa.DataType, opts: ParseOptions) -> tuple[pa.Array, pa.Array | None]:
    """A column of fields parsed as Spark's CSV reader parses them.

    Parameters
    ----------
    strings : pyarrow.Array
        The fields (``string``), null where the field equals ``nullValue``.
    type_ : pyarrow.DataType
        The target Arrow type.
    opts : ParseOptions
        The parse settings.

    Returns
    -------
    (pyarrow.Array, pyarrow.Array or None)
        The typed column, and the mask of fields that failed (``None`` when none did).
    """
    if pa.types.is_string(type_) or pa.types.is_large_string(type_):
        return strings.cast(type_), None
    if pa.types.is_null(type_):
        return pa.nulls(len(strings)), None
    if pa.types.is_integer(type_) and pa.types.is_signed_integer(type_):
        return _parse_integers(strings, type_)
    if pa.types.is_floating(type_):
        return _parse_doubles(strings, type_, opts)
    if pa.types.is_boolean(type_):
        return _csv_booleans(strings)
    return _parse_values(strings, type_, opts)


# ---------------------------------------------------------------------------- inference
_NUMERIC_ORDER = ("int32", "int64", "decimal", "float64")


def _rank(type_: pa.DataType) -> int | None:
    if pa.types.is_decimal(type_):
        return 2
    name = str(type_)
    return _NUMERIC_ORDER.index(name) if name in _NUMERIC_ORDER else None


def _temporal(type_: pa.DataType) -> str | None:
    return "date" if pa.types.is_date(type_) else "timestamp" if pa.types.is_timestamp(type_) else None


def merge_types(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    """The type two inferred column types meet at (Spark's CSV ``compatibleType``)."""
    if a == b:
        return a
    if pa.types.is_null(a):
        return b
    if pa.types.is_null(b):
        return a
    if {_temporal(a), _temporal(b)} == {"date", "timestamp"}:
        return a if _temporal(a) == "timestamp" else b  # dates widen to timestamps, as Spark
    ra, rb = _rank(a), _rank(b)
    if ra is None or rb is None:
        return pa.string()
    if pa.types.is_decimal(a) and pa.types.is_decimal(b):
        return pa.decimal128(max(a.precision, b.precision), 0)
    if ra == 2 or rb == 2:
        if max(ra, rb) == 3:
            return pa.float64()
        dec = a if ra == 2 else b
        return pa.decimal128(max(dec.precision, 10 if min(ra, rb) == 0 else 20), 0)
    return a if ra > rb else b


def infer_column(strings: pa.Array, opts: ParseOptions) -> pa.DataType:
    """The type Spark's CSV inference gives a column of fields (``null`` when all are null).

    Integers that fit 32 bits are ``int32``, 64 bits ``int64``, longer ones ``decimal(p, 0)``
    (``float64`` beyond 38 digits); Java doubles (and ``nanValue``...) ``float64``;
    ``yyyy-MM-dd`` dates ``date32`` (with the default ``dateFormat``); full timestamps
    ``timestamp[us, UTC]``; ``true``/``false`` in any case ``bool``; else ``string``.
    """
    values = pc.drop_null(strings)
    if len(values) == 0:
        return pa.null()
    if pc.all(pc.match_substring_regex(values, _INT_PATTERN)).as_py():
        ints, failed = _parse_integers(values, pa.int64())
        if failed is None:
            low, high = pc.min_max(ints).values()
            return pa.int32() if -2**31 <= low.as_py() and high.as_py() < 2**31 else pa.int64()
        digits = pc.max(pc.utf8_length(pc.replace_substring_regex(values, r"^[+-]?0*", ""))).as_py()
        return pa.decimal128(max(digits, 1), 0) if digits <= 38 else pa.float64()
    special = pa.array([opts.nan_value, opts.positive_inf, opts.negative_inf])
    doubles = pc.or_(pc.match_substring_regex(values, _DOUBLE_PATTERN), pc.is_in(values, special))
    if pc.all(doubles).as_py():
        return pa.float64()
    dates = pc.all(pc.match_substring_regex(values, _DATE_INFER_PATTERN)).as_py()
    if opts.date_format in (None, "yyyy-MM-dd") and dates:
        # Spark 3.4+ infers dates (prefersDate) in the default date format.
        _, failed = _parse_values(values, pa.date32(), opts)
        if failed is None:
            return pa.date32()
    stamps = pc.match_substring_regex(values, _TIMESTAMP_INFER_PATTERN)
    if opts.date_format in (None, "yyyy-MM-dd"):  # dates beside timestamps widen to timestamps
        stamps = pc.or_(stamps, pc.match_substring_regex(values, _DATE_INFER_PATTERN))
    if opts.timestamp_format is None and pc.all(stamps).as_py():
        _, failed = _parse_values(values, pa.timestamp("us", tz="UTC"), opts)
        if failed is None:
            return pa.timestamp("us", tz="UTC")
    if pc.all(pc.is_in(pc.utf8_lower(values), pa.array(["true", "false"]))).as_py():
        return pa.bool_()
    return pa.string()


__all__ += ["spark_pattern_to_strptime", "_mask_or"]
