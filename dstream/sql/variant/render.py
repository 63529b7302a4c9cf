"""A variant as Spark's SQL prints it: ``to_json(v)``, ``show()``, ``CAST(v AS STRING)``.

What this module owns
---------------------
* :func:`spark_json`: compact JSON (``{"a":1,"b":[1,2.5]}``): object fields in key order,
  strings escaped as Jackson escapes them (quotes, backslashes, control characters; not
  ``/`` nor non-ASCII), doubles and floats as Java prints them (``1.5E10``, ``1000.0``),
  decimals plain without trailing zeros (``1.50`` prints ``1.5``), dates
  ``"2024-01-01"``, timestamps ``"2024-01-01 00:00:00.123+00:00"`` in the session zone
  (without the offset when they have no zone), binaries in base64.
* :func:`variant_text`: the cast to string: as :func:`spark_json`, except that a top-level
  string is its text, and a top-level date or timestamp prints as that type casts to string.

Invariants
----------
* A variant null prints ``null`` inside JSON; at the top level of :func:`variant_text` it
  is an SQL null (``None``).
"""

from __future__ import annotations

import base64
import datetime as _dt
import uuid
from zoneinfo import ZoneInfo

from ..formatting import java_double_str, java_float_str
from . import format as vf

__all__ = ["spark_json", "part_json", "variant_text", "json_string"]

_ESCAPES = {i: f"\\u{i:04X}" for i in range(32)}
_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t",
                 ord("\b"): "\\b", ord("\f"): "\\f"})
_NON_NUMBERS = frozenset({"NaN", "Infinity", "-Infinity"})
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_EPOCH_NTZ = _dt.datetime(1970, 1, 1)
_EPOCH_DAY = _dt.date(1970, 1, 1).toordinal()


def json_string(text: str) -> str:
    """``text`` as a JSON string literal, escaped as Jackson escapes it."""
    return '"' + text.translate(_ESCAPES) + '"'


def _fraction(micros: int) -> str:
    return f".{micros:06d}".rstrip("0") if micros else ""


def _wall(micros: int, zone: str | None) -> str:
    """``yyyy-MM-dd HH:mm:ss[.f]`` (and ``+HH:MM`` when ``zone`` is given)."""
    if zone is None:
        moment = _EPOCH_NTZ + _dt.timedelta(microseconds=micros)
        return moment.strftime("%Y-%m-%d %H:%M:%S") + _fraction(moment.microsecond)
    moment = (_EPOCH + _dt.timedelta(microseconds=micros)).astimezone(ZoneInfo(zone))
    offset = moment.utcoffset() or _dt.timedelta()
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    minutes = abs(minutes)
    return (moment.strftime("%Y-%m-%d %H:%M:%S") + _fraction(moment.microsecond)
            + f"{sign}{minutes // 60:02d}:{minutes % 60:02d}")


def _scalar(value: bytes, pos: int, zone: str, top_text: bool) -> str | None:
    basic, info = vf.type_info(value, pos)
    if basic == vf.SHORT_STR or (basic == vf.PRIMITIVE and info == vf.LONG_STR):
        text = vf.read_string(value, pos)
        return text if top_text else json_string(text)
    if info == vf.NULL:
        return None if top_text else "null"
    if info in (vf.TRUE, vf.FALSE):
        return "true" if info == vf.TRUE else "false"
    if vf.INT1 <= info <= vf.INT8:
        return str(vf.read_int(value, pos + 1, 1 << (info - vf.INT1), signed=True))
    if info in (vf.DOUBLE, vf.FLOAT):
        text = java_double_str(vf.read_double(value, pos)) if info == vf.DOUBLE else \
            java_float_str(vf.read_float(value, pos))
        # Jackson quotes the values JSON has no number for.
        return f'"{text}"' if not top_text and text in _NON_NUMBERS else text
    if info in (vf.DECIMAL4, vf.DECIMAL8, vf.DECIMAL16):
        return format(vf.stripped_decimal(value, pos)[0], "f")  # plain, without trailing zeros
    if info == vf.DATE:
        day = _dt.date.fromordinal(_EPOCH_DAY + vf.read_int(value, pos + 1, 4, signed=True)).isoformat()
        return day if top_text else f'"{day}"'
    if info in (vf.TIMESTAMP, vf.TIMESTAMP_NTZ):
        micros = vf.read_int(value, pos + 1, 8, signed=True)
        if top_text:  # a cast to string prints the timestamp as the timestamp type casts, without offset
            return _wall(micros, None) if info == vf.TIMESTAMP_NTZ else _wall(micros, zone)[:-6]
        return '"' + _wall(micros, None if info == vf.TIMESTAMP_NTZ else zone) + '"'
    if info == vf.BINARY:
        return '"' + base64.b64encode(vf.read_binary(value, pos)).decode("ascii") + '"'
    if info == vf.UUID:
        vf.read_int(value, pos + 1, 16)
        return f'"{uuid.UUID(bytes=bytes(value[pos + 1:pos + 17]))}"'
    raise vf.malformed()


def _render(value: bytes, keys: list[str], pos: int, zone: str, out: list[str]) -> None:
    if pos >= len(value):
        raise vf.malformed()
    header = value[pos]
    basic = header & 3
    if basic == vf.SHORT_STR:  # the common leaves first, without the general scalar path
        end = pos + 1 + (header >> 2)
        if end > len(value):
            raise vf.malformed()
        out.append(json_string(value[pos + 1:end].decode("utf-8", "surrogatepass")))
    elif basic == vf.PRIMITIVE and vf.INT1 <= header >> 2 <= vf.INT8:
        out.append(str(vf.read_int(value, pos + 1, 1 << ((header >> 2) - vf.INT1), signed=True)))
    elif basic == vf.OBJECT:
        out.append("{")
        for i, (key_id, at) in enumerate(vf.object_fields(value, pos)):
            if key_id >= len(keys):
                raise vf.malformed()
            out.append(("," if i else "") + json_string(keys[key_id]) + ":")
            _render(value, keys, at, zone, out)
        out.append("}")
    elif basic == vf.ARRAY:
        out.append("[")
        for i, at in enumerate(vf.array_elements(value, pos)):
            if i:
                out.append(",")
            _render(value, keys, at, zone, out)
        out.append("]")
    else:
        out.append(_scalar(value, pos, zone, False) or "null")


def spark_json(value: bytes, metadata: bytes, zone: str = "UTC", pos: int = 0) -> str:
    """The variant (or its part at ``pos``) as ``to_json`` prints it (see the module doc)."""
    basic, _ = vf.type_info(value, pos)
    if basic not in (vf.OBJECT, vf.ARRAY):
        return _scalar(value, pos, zone, False) or "null"
    return part_json(value, vf.metadata_keys(metadata), pos, zone)


def part_json(value: bytes, keys: list[str], pos: int, zone: str = "UTC") -> str:
    """:func:`spark_json` of the part at ``pos``, its metadata already read into ``keys``."""
    out: list[str] = []
    _render(value, keys, pos, zone, out)
    return "".join(out)


def variant_text(value: bytes, metadata: bytes, zone: str = "UTC", pos: int = 0) -> str | None:
    """The variant cast to a string (see the module doc); ``None`` for a variant null."""
    basic, _ = vf.type_info(value, pos)
    if basic in (vf.OBJECT, vf.ARRAY):
        return spark_json(value, metadata, zone, pos)
    return _scalar(value, pos, zone, True)
