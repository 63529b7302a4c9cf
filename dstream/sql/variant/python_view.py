"""A variant as Python objects, and as the JSON text PySpark's ``VariantVal`` prints.

What this module owns
---------------------
* :func:`to_python`: objects as dicts (fields in key order), arrays as lists, integers as
  ``int``, doubles and floats as ``float``, decimals as ``decimal.Decimal`` (at their
  stored scale, in the default decimal context), strings, ``bytes``, ``datetime.date``,
  timestamps as UTC-aware ``datetime`` and timestamps without zone as naive ones.
* :func:`python_json`: the text of ``str(VariantVal)`` and ``VariantVal.toJson(zone)``:
  Python's own spellings (``1000.0``, ``1.5e+300``, ``"\\u00e9"``, ``1.50``), timestamps
  in ``zone`` as ``2024-01-01 00:00:00+00:00``, binaries in base64. Spark's SQL prints a
  variant differently (Java's numbers, no escapes): see :mod:`.render`.

Invariants
----------
* Pure functions of the bytes; they raise ``MALFORMED_VARIANT`` for bytes that are no variant.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
import json
from typing import Any
from zoneinfo import ZoneInfo

from . import format as vf

__all__ = ["to_python", "python_json", "scalar_value"]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_EPOCH_NTZ = _dt.datetime(1970, 1, 1)
_EPOCH_DAY = _dt.date(1970, 1, 1).toordinal()


def scalar_value(value: bytes, pos: int, zone: str = "UTC") -> Any:
    """The Python value of the scalar at ``pos`` (see the module doc for the types)."""
    basic, info = vf.type_info(value, pos)
    if basic == vf.SHORT_STR:
        return vf.read_string(value, pos)
    if basic != vf.PRIMITIVE:
        raise vf.malformed()
    if info == vf.NULL:
        return None
    if info in (vf.TRUE, vf.FALSE):
        return info == vf.TRUE
    if vf.INT1 <= info <= vf.INT8:
        return vf.read_int(value, pos + 1, 1 << (info - vf.INT1), signed=True)
    if info == vf.DOUBLE:
        return vf.read_double(value, pos)
    if info == vf.FLOAT:
        return vf.read_float(value, pos)
    if info in (vf.DECIMAL4, vf.DECIMAL8, vf.DECIMAL16):
        unscaled, scale = vf.read_decimal(value, pos)
        return decimal.Decimal(unscaled) * decimal.Decimal(10) ** -scale
    if info == vf.LONG_STR:
        return vf.read_string(value, pos)
    if info == vf.BINARY:
        return vf.read_binary(value, pos)
    if info == vf.DATE:
        return _dt.date.fromordinal(_EPOCH_DAY + vf.read_int(value, pos + 1, 4, signed=True))
    if info == vf.TIMESTAMP:
        moment = _EPOCH + _dt.timedelta(microseconds=vf.read_int(value, pos + 1, 8, signed=True))
        return moment.astimezone(ZoneInfo(zone))
    if info == vf.TIMESTAMP_NTZ:
        return _EPOCH_NTZ + _dt.timedelta(microseconds=vf.read_int(value, pos + 1, 8, signed=True))
    raise vf.malformed()


def to_python(value: bytes, metadata: bytes, pos: int = 0) -> Any:
    """The variant at ``pos`` as Python objects (see the module doc)."""
    keys = vf.metadata_keys(metadata)
    return _python(value, keys, pos)


def _python(value: bytes, keys: list[str], pos: int) -> Any:
    basic, _ = vf.type_info(value, pos)
    if basic == vf.OBJECT:
        return {_key(keys, key_id): _python(value, keys, at) for key_id, at in vf.object_fields(value, pos)}
    if basic == vf.ARRAY:
        return [_python(value, keys, at) for at in vf.array_elements(value, pos)]
    return scalar_value(value, pos)


def _key(keys: list[str], key_id: int) -> str:
    if key_id >= len(keys):
        raise vf.malformed()
    return keys[key_id]


def python_json(value: bytes, metadata: bytes, zone: str = "UTC") -> str:
    """The JSON text PySpark's ``VariantVal`` prints for the variant (see the module doc)."""
    keys = vf.metadata_keys(metadata)
    out: list[str] = []
    _json(value, keys, 0, zone, out)
    return "".join(out)


def _json(value: bytes, keys: list[str], pos: int, zone: str, out: list[str]) -> None:
    basic, _ = vf.type_info(value, pos)
    if basic == vf.OBJECT:
        out.append("{")
        for i, (key_id, at) in enumerate(vf.object_fields(value, pos)):
            out.append("," if i else "")
            out.append(json.dumps(_key(keys, key_id)) + ":")
            _json(value, keys, at, zone, out)
        out.append("}")
        return
    if basic == vf.ARRAY:
        out.append("[")
        for i, at in enumerate(vf.array_elements(value, pos)):
            out.append("," if i else "")
            _json(value, keys, at, zone, out)
        out.append("]")
        return
    scalar = scalar_value(value, pos, zone)
    if scalar is None:
        out.append("null")
    elif scalar is True or scalar is False:
        out.append("true" if scalar else "false")
    elif isinstance(scalar, str):
        out.append(json.dumps(scalar))
    elif isinstance(scalar, bytes):
        out.append('"' + base64.b64encode(scalar).decode("ascii") + '"')
    elif isinstance(scalar, _dt.date):
        out.append(f'"{scalar}"')
    else:
        out.append(str(scalar))
