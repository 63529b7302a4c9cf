"""Variants to Spark-typed columns (``variant_get``, ``CAST(v AS t)``) and Spark values to variants.

What this module owns
---------------------
:func:`variants_to` converts the parts of a variant column that a path reaches into a
column of a Spark type:

* ``VARIANT``: the part copied into a variant of its own (:func:`.paths.extract`);
* ``STRING``: objects and arrays as JSON (:func:`.render.spark_json`), scalars cast;
* ``STRUCT``, ``MAP<STRING, _>``, ``ARRAY``: objects field by field (missing fields null),
  objects key by key, arrays element by element, each part converted the same way;
* any other type: each scalar cast from its own type (integers ``BIGINT``, doubles, floats,
  decimals at their digits without trailing zeros, strings, booleans, dates, timestamps,
  binaries) with Spark's cast of that type (ANSI), vectorized per source type.

A part that does not convert (an object for an ``INT``, ``"abc"`` for a ``DOUBLE``, 300 for
a ``TINYINT``) raises Spark's ``INVALID_VARIANT_CAST`` naming the part (as JSON) and the
type, or with ``try_`` semantics becomes null; a variant null or a missing part is null.

:func:`variant_of_values` is the other way (``CAST(x AS VARIANT)``, ``to_variant_object``):
each value of a column of a Spark type encoded as a variant; structs and string-keyed maps
become objects, arrays arrays, an SQL null inside a variant null.

Invariants
----------
* The result has one value per input row, of the Arrow type of the target Spark type.
"""

from __future__ import annotations

import datetime as _dt
from collections import defaultdict
from typing import Any

import pyarrow as pa

from ..errors import SparkRuntimeException
from ..types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    LongType,
    MapType,
    StringType,
    StructType,
    TimestampNTZType,
    TimestampType,
    VariantType,
)
from . import format as vf
from .arrow import python_array, variant_array
from .paths import copy_into, extract, find_field
from .render import part_json

__all__ = ["Part", "variants_to", "variant_of_values", "invalid_cast", "cast_variant", "has_temporal"]

#: A part of a variant: (value bytes, metadata keys, position), or None for nothing / SQL null.
Part = tuple[bytes, list[str], int] | None

_EPOCH_DAY = _dt.date(1970, 1, 1).toordinal()
_SOURCE_TYPES: dict[int, DataType] = {
    vf.TRUE: BooleanType(), vf.FALSE: BooleanType(), vf.INT1: LongType(), vf.INT2: LongType(), vf.INT4: LongType(),
    vf.INT8: LongType(), vf.DOUBLE: DoubleType(), vf.FLOAT: FloatType(), vf.DATE: DateType(),
    vf.TIMESTAMP: TimestampType(), vf.TIMESTAMP_NTZ: TimestampNTZType(), vf.BINARY: BinaryType(),
    vf.LONG_STR: StringType(),
}


def invalid_cast(part: tuple[bytes, list[str], int], target: DataType, zone: str) -> SparkRuntimeException:
    """Spark's error for a part that does not convert to ``target``."""
    from ..schema_tree import type_sql  # noqa: PLC0415 - the error path only

    value, keys, pos = part
    text = part_json(value, keys, pos, zone)
    return SparkRuntimeException(
        f'The variant value `{text}` cannot be cast into `"{type_sql(target)}"`. Please use `try_variant_get` '
        "instead.", "INVALID_VARIANT_CAST", {"value": text, "dataType": f'"{type_sql(target)}"'})


def variants_to(parts: list[Part], target: DataType, try_mode: bool, zone: str) -> pa.Array:
    """The parts converted to ``target`` (see the module doc)."""
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - the type mapping imports this package

    arrow = to_arrow_type(target)
    values = _convert(parts, target, try_mode, zone)
    if isinstance(values, pa.Array):
        return values
    return python_array(values, arrow)


def _basic(part: tuple[bytes, list[str], int]) -> int:
    return part[0][part[2]] & 3


def _is_null(part: tuple[bytes, list[str], int]) -> bool:
    value, _, pos = part
    return value[pos] == 0  # a primitive of type NULL


def _convert(parts: list[Part], target: DataType, try_mode: bool, zone: str) -> Any:
    """A list of Python values of ``target`` (its Arrow storage form), or an Arrow array."""
    if isinstance(target, VariantType):  # a variant null stays a variant (not an SQL null)
        return variant_array([None if p is None else extract(*p) for p in parts])
    live = [None if p is None or _is_null(p) else p for p in parts]
    if isinstance(target, (StructType, MapType, ArrayType)):
        return _nested(live, target, try_mode, zone)
    scalars: dict[DataType, list[tuple[int, Any]]] = defaultdict(list)
    out: list[Any] = [None] * len(live)
    for i, p in enumerate(live):
        if p is None:
            continue
        if _basic(p) in (vf.OBJECT, vf.ARRAY):
            if isinstance(target, StringType):
                out[i] = part_json(p[0], p[1], p[2], zone)
                continue
            if not try_mode:
                raise invalid_cast(p, target, zone)
            continue
        source, value = _scalar(p)
        scalars[source].append((i, value))
    for source, rows in scalars.items():
        _cast_group(live, rows, source, target, try_mode, zone, out)
    return out


def _scalar(part: tuple[bytes, list[str], int]) -> tuple[DataType, Any]:
    """The Spark type and Python value of a scalar part (decimals without trailing zeros)."""
    value, _, pos = part
    kind = vf.scalar_kind(value, pos)
    if kind in (vf.DECIMAL4, vf.DECIMAL8, vf.DECIMAL16):
        number, precision, scale = vf.stripped_decimal(value, pos)
        return DecimalType(min(precision, 38), scale), number
    source = _SOURCE_TYPES.get(kind)
    if source is None:
        raise vf.malformed()
    if kind in (vf.TRUE, vf.FALSE):
        return source, kind == vf.TRUE
    if vf.INT1 <= kind <= vf.INT8:
        return source, vf.read_int(value, pos + 1, 1 << (kind - vf.INT1), signed=True)
    if kind == vf.DOUBLE:
        return source, vf.read_double(value, pos)
    if kind == vf.FLOAT:
        return source, vf.read_float(value, pos)
    if kind == vf.LONG_STR:
        return source, vf.read_string(value, pos)
    if kind == vf.BINARY:
        return source, vf.read_binary(value, pos)
    return source, vf.read_int(value, pos + 1, 4 if kind == vf.DATE else 8, signed=True)


def _cast_group(live: list[Part], rows: list[tuple[int, Any]], source: DataType, target: DataType, try_mode: bool,
                zone: str, out: list[Any]) -> None:
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - the type mapping imports this package
    from ..expressions.castability import can_cast  # noqa: PLC0415 - the expressions load when used
    from ..kernels import cast as cast_kernels  # noqa: PLC0415 - kernels load at run time

    if not can_cast(source, target):
        if not try_mode:
            first = live[rows[0][0]]
            assert first is not None
            raise invalid_cast(first, target, zone)
        return
    if source == target:  # nothing to cast (a BIGINT, a STRING...)
        for i, value in rows:
            out[i] = value
        return
    values = [value for _, value in rows]
    src_arrow = to_arrow_type(source)
    if isinstance(source, (DateType, TimestampType, TimestampNTZType)):
        raw = pa.array(values, pa.int32() if isinstance(source, DateType) else pa.int64()).view(src_arrow)
    else:
        raw = pa.array(values, src_arrow)
    cast = cast_kernels.cast(raw, source, target, "try", zone)
    converted = cast.to_pylist() if not pa.types.is_timestamp(cast.type) and not pa.types.is_date(cast.type) \
        else cast.view(pa.int64() if pa.types.is_timestamp(cast.type) else pa.int32()).to_pylist()
    for (i, _), got in zip(rows, converted):
        if got is None and not try_mode:
            part = live[i]
            assert part is not None
            raise invalid_cast(part, target, zone)
        out[i] = got


def _nested(live: list[Part], target: DataType, try_mode: bool, zone: str) -> list[Any]:
    wanted = vf.ARRAY if isinstance(target, ArrayType) else vf.OBJECT
    out: list[Any] = [None] * len(live)
    kept: list[int] = []
    for i, p in enumerate(live):
        if p is None:
            continue
        if _basic(p) != wanted:
            if not try_mode:
                raise invalid_cast(p, target, zone)
            continue
        kept.append(i)
    if isinstance(target, StructType):
        columns = []
        for field in target.fields:
            found: list[Part] = []
            for i in kept:
                value, keys, pos = live[i]  # type: ignore[misc]
                at = find_field(value, keys, pos, field.name)
                found.append(None if at is None else (value, keys, at))
            columns.append(_plain(_convert(found, field.dataType, try_mode, zone)))
        for j, i in enumerate(kept):
            out[i] = {f.name: column[j] for f, column in zip(target.fields, columns)}
        return out
    children: list[Part] = []
    names: list[str] = []
    counts: list[int] = []
    for i in kept:
        value, keys, pos = live[i]  # type: ignore[misc]
        if isinstance(target, ArrayType):
            at_list = [(value, keys, at) for at in vf.array_elements(value, pos)]
        else:
            fields = list(vf.object_fields(value, pos))
            names.extend(keys[k] for k, _ in fields)
            at_list = [(value, keys, at) for _, at in fields]
        children.extend(at_list)
        counts.append(len(at_list))
    assert isinstance(target, ArrayType | MapType)
    element = target.elementType if isinstance(target, ArrayType) else target.valueType
    items = _plain(_convert(children, element, try_mode, zone))
    start = 0
    for i, n in zip(kept, counts):
        chunk = items[start:start + n]
        out[i] = chunk if isinstance(target, ArrayType) else list(zip(names[start:start + n], chunk))
        start += n
    return out


def _plain(values: Any) -> list[Any]:
    """Python values in Arrow storage form (variants as their two parts)."""
    if isinstance(values, pa.ExtensionArray):
        storage = values.storage
        return [None if not ok else {"value": v, "metadata": m} for v, m, ok in zip(
            storage.field("value").to_pylist(), storage.field("metadata").to_pylist(),
            storage.is_valid().to_pylist())]
    return list(values)


def variant_of_values(array: pa.Array, source: DataType) -> pa.Array:
    """Each value of ``array`` (of Spark type ``source``) encoded as a variant; nulls stay null."""
    pairs: list[tuple[bytes, bytes] | None] = []
    for value in _python_values(array, source):
        if value is None:
            pairs.append(None)
            continue
        builder = vf.VariantBuilder()
        _append_value(builder, value, source)
        pairs.append(builder.result())
    return variant_array(pairs)


def _python_values(array: pa.Array, source: DataType) -> list[Any]:
    if isinstance(source, (TimestampType, TimestampNTZType)):
        return array.cast(pa.int64()).to_pylist()
    if isinstance(source, DateType):
        return array.cast(pa.int32()).to_pylist()
    if has_temporal(source):
        return [_dates_to_numbers(v, source) for v in array.to_pylist()]
    return array.to_pylist()


def has_temporal(dt: DataType) -> bool:
    """Whether ``dt`` holds dates or timestamps (whose Python values need converting back)."""
    if isinstance(dt, (DateType, TimestampType, TimestampNTZType)):
        return True
    if isinstance(dt, ArrayType):
        return has_temporal(dt.elementType)
    if isinstance(dt, MapType):
        return has_temporal(dt.valueType)
    return isinstance(dt, StructType) and any(has_temporal(f.dataType) for f in dt.fields)


def _dates_to_numbers(value: Any, dt: DataType) -> Any:
    if value is None:
        return None
    if isinstance(dt, DateType):
        return value.toordinal() - _EPOCH_DAY
    if isinstance(dt, TimestampType):
        return (value - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)) // _dt.timedelta(microseconds=1)
    if isinstance(dt, TimestampNTZType):
        return (value - _dt.datetime(1970, 1, 1)) // _dt.timedelta(microseconds=1)
    if isinstance(dt, ArrayType):
        return [_dates_to_numbers(v, dt.elementType) for v in value]
    if isinstance(dt, MapType):
        return [(k, _dates_to_numbers(v, dt.valueType)) for k, v in value]
    if isinstance(dt, StructType):
        return {f.name: _dates_to_numbers(value[f.name], f.dataType) for f in dt.fields}
    return value


def _append_value(builder: vf.VariantBuilder, value: Any, dt: DataType) -> None:
    if value is None:
        builder.append_null()
    elif isinstance(dt, (StructType, MapType)):
        items = [(f.name, value[f.name], f.dataType) for f in dt.fields] if isinstance(dt, StructType) \
            else [(k, v, dt.valueType) for k, v in value]
        start = builder.position
        fields = []
        for key, item, item_type in items:
            fields.append((key, builder.add_key(key), builder.position - start))
            _append_value(builder, item, item_type)
        builder.finish_object(start, fields)
    elif isinstance(dt, ArrayType):
        start = builder.position
        offsets = []
        for item in value:
            offsets.append(builder.position - start)
            _append_value(builder, item, dt.elementType)
        builder.finish_array(start, offsets)
    elif isinstance(dt, VariantType):
        _append_variant(builder, value)
    else:
        _append_scalar(builder, value, dt)


def _append_variant(builder: vf.VariantBuilder, value: Any) -> None:
    raw = value.value if hasattr(value, "value") else value["value"]
    meta = value.metadata if hasattr(value, "metadata") else value["metadata"]
    copy_into(builder, bytes(raw), vf.metadata_keys(bytes(meta)), 0)


def _append_scalar(builder: vf.VariantBuilder, value: Any, dt: DataType) -> None:
    if isinstance(dt, BooleanType):
        builder.append_bool(value)
    elif isinstance(dt, StringType):
        builder.append_string(value)
    elif isinstance(dt, DoubleType):
        builder.append_double(value)
    elif isinstance(dt, FloatType):
        builder.append_float(value)
    elif isinstance(dt, DecimalType):
        sign, digits, exponent = value.as_tuple()
        unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
        scale = -int(exponent)
        if scale < dt.scale:
            unscaled *= 10 ** (dt.scale - scale)
            scale = dt.scale
        builder.append_decimal(unscaled, scale, len(str(abs(unscaled))))
    elif isinstance(dt, DateType):
        builder.append_date(value)
    elif isinstance(dt, (TimestampType, TimestampNTZType)):
        builder.append_timestamp(value, ntz=isinstance(dt, TimestampNTZType))
    elif isinstance(dt, BinaryType):
        builder.append_binary(bytes(value))
    else:
        builder.append_long(int(value))


def cast_variant(values: pa.Array | pa.ChunkedArray, src: DataType, dst: DataType, mode: str,
                 time_zone: str) -> pa.Array:
    """``CAST`` from or to VARIANT; ``mode`` ``"ansi"`` raises ``INVALID_VARIANT_CAST``, others give null."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(dst, VariantType):
        return variant_of_values(values, src)
    from .arrow import parts  # noqa: PLC0415 - beside the conversions, for symmetry with variant_array

    found: list[Part] = [None if p is None else (p[0], vf.metadata_keys(p[1]), 0) for p in parts(values)]
    return variants_to(found, dst, mode != "ansi", time_zone)
