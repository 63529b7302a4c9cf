"""The variant binary encoding: its layout, a builder that writes it, readers of one value.

What this module owns
---------------------
Layout (little-endian throughout):

* metadata: a header byte (version 1 in bits 0-3, bit 4 "keys sorted", bits 6-7 the
  offset width minus one), the key count, ``count + 1`` offsets, then the UTF-8 keys.
* value: a header byte whose low two bits are the *basic type* and the upper six its
  *type info*:

  - primitive (0): the info is the type id (:data:`NULL` ... :data:`LONG_STR`), the bytes
    of the value follow (1, 2, 4 or 8 for integers; a scale byte then 4, 8 or 16 for
    decimals; a 4-byte length then the bytes for binaries and long strings);
  - short string (1): the info is the UTF-8 length (< 64), the bytes follow;
  - object (2): the info holds the offset width (bits 0-1, minus one), the key-id width
    (bits 2-3, minus one) and a "large" bit (4, a 4-byte element count instead of 1); then
    the count, the key ids in key order, ``count + 1`` offsets into the values that follow;
  - array (3): the info holds the offset width (bits 0-1) and the "large" bit (2); then the
    count, ``count + 1`` offsets, the elements.

:class:`VariantBuilder` writes values as Spark's builder does: the narrowest integer type,
decimal widths by precision, short strings under 64 bytes, object fields sorted by key
(Java's string order) with their values left where they were written, keys numbered in the
order first met, widths the smallest that hold the largest id or offset. Two builders fed
the same calls produce the same bytes as Spark's.

Invariants
----------
* A finished object refuses duplicate keys (``VARIANT_DUPLICATE_KEY``), as Spark does by
  default.
* Values and metadata over 128 MiB are refused (``VARIANT_SIZE_LIMIT``).
* Readers check every offset they follow against the buffer and raise
  ``MALFORMED_VARIANT`` rather than read past it.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from decimal import Context, Decimal

from ..errors import SparkRuntimeException

__all__ = [
    "PRIMITIVE", "SHORT_STR", "OBJECT", "ARRAY",
    "NULL", "TRUE", "FALSE", "INT1", "INT2", "INT4", "INT8", "DOUBLE", "DECIMAL4", "DECIMAL8", "DECIMAL16",
    "DATE", "TIMESTAMP", "TIMESTAMP_NTZ", "FLOAT", "BINARY", "LONG_STR", "UUID",
    "EMPTY_METADATA", "SIZE_LIMIT",
    "VariantBuilder", "malformed", "type_info", "scalar_kind", "read_int", "read_double", "read_float",
    "read_decimal", "stripped_decimal", "read_string", "read_binary", "object_fields", "object_field",
    "array_elements", "metadata_keys",
    "value_end", "java_order", "int_width", "encode_metadata", "checked",
]

PRIMITIVE, SHORT_STR, OBJECT, ARRAY = 0, 1, 2, 3
NULL, TRUE, FALSE, INT1, INT2, INT4, INT8, DOUBLE = 0, 1, 2, 3, 4, 5, 6, 7
DECIMAL4, DECIMAL8, DECIMAL16, DATE, TIMESTAMP, TIMESTAMP_NTZ = 8, 9, 10, 11, 12, 13
FLOAT, BINARY, LONG_STR = 14, 15, 16
UUID = 20
_EXACT = Context(prec=100)  # decimals of 38 digits, never rounded

_VERSION = 1
_MAX_SHORT_STR = 0x3F
#: Spark's limit on a variant's value and metadata (128 MiB each).
SIZE_LIMIT = 128 * 1024 * 1024
#: The metadata of a variant without object keys.
EMPTY_METADATA = bytes((_VERSION, 0, 0))

_INT_TYPES = ((1, INT1), (2, INT2), (4, INT4), (8, INT8))
_DECIMAL_WIDTH = {DECIMAL4: 4, DECIMAL8: 8, DECIMAL16: 16}
_FIXED_WIDTH = {NULL: 0, TRUE: 0, FALSE: 0, INT1: 1, INT2: 2, INT4: 4, INT8: 8, DOUBLE: 8, DATE: 4, TIMESTAMP: 8,
                TIMESTAMP_NTZ: 8, FLOAT: 4, UUID: 16}


def malformed() -> SparkRuntimeException:
    """Spark's error for bytes that are no valid variant."""
    return SparkRuntimeException("Variant binary is malformed. Please check the data source is valid.",
                                 "MALFORMED_VARIANT", {})


def _size_error() -> SparkRuntimeException:
    return SparkRuntimeException(
        f"Cannot build variant bigger than {SIZE_LIMIT // (1024 * 1024)} MiB in size. Please avoid storing "
        "large values in a variant.", "VARIANT_SIZE_LIMIT",
        {"sizeLimit": "128.0 MiB", "functionName": "`parse_json`"})


def int_width(value: int) -> int:
    """The fewest bytes (1-4) an unsigned offset or id needs."""
    if value <= 0xFF:
        return 1
    if value <= 0xFFFF:
        return 2
    return 3 if value <= 0xFFFFFF else 4


def java_order(key: str) -> bytes:
    # Java compares strings by UTF-16 code units; big-endian UTF-16 bytes sort the same way.
    return key.encode("utf-16-be", "surrogatepass")


class VariantBuilder:
    """Writes one variant: append values, open and finish objects and arrays, then :meth:`result`.

    Objects and arrays are written in two steps, as Spark's builder does: note
    ``start = builder.position`` before writing the elements, collect each element's
    ``(key, id, offset)`` (objects, ids from :meth:`add_key`) or offset (arrays), relative
    to ``start``, then call :meth:`finish_object` / :meth:`finish_array`, which insert the
    header in front of the elements.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._keys: dict[str, int] = {}

    @property
    def position(self) -> int:
        """Where the next value starts."""
        return len(self._buffer)

    def add_key(self, key: str) -> int:
        """The id of ``key`` in the metadata dictionary (added on first use)."""
        found = self._keys.get(key)
        if found is None:
            found = self._keys[key] = len(self._keys)
        return found

    def _primitive(self, type_id: int) -> None:
        self._buffer.append(type_id << 2)

    def append_null(self) -> None:
        """A variant null (not an SQL null)."""
        self._primitive(NULL)

    def append_bool(self, value: bool) -> None:
        """``true`` or ``false``."""
        self._primitive(TRUE if value else FALSE)

    def append_long(self, value: int) -> None:
        """An integer in the narrowest of 1, 2, 4 and 8 bytes that holds it."""
        for width, type_id in _INT_TYPES:
            if -(1 << (8 * width - 1)) <= value < (1 << (8 * width - 1)):
                self._primitive(type_id)
                self._buffer += value.to_bytes(width, "little", signed=True)
                return
        raise ValueError(f"{value} does not fit in a 64-bit integer")

    def append_double(self, value: float) -> None:
        """A double."""
        self._primitive(DOUBLE)
        self._buffer += struct.pack("<d", value)

    def append_float(self, value: float) -> None:
        """A float (4 bytes)."""
        self._primitive(FLOAT)
        self._buffer += struct.pack("<f", value)

    def append_decimal(self, unscaled: int, scale: int, precision: int) -> None:
        """A decimal ``unscaled * 10**-scale``: 4, 8 or 16 bytes by ``precision`` (and ``scale``)."""
        for type_id, limit in ((DECIMAL4, 9), (DECIMAL8, 18), (DECIMAL16, 38)):
            if (scale <= limit and precision <= limit) or type_id == DECIMAL16:
                self._primitive(type_id)
                self._buffer.append(scale)
                self._buffer += unscaled.to_bytes(_DECIMAL_WIDTH[type_id], "little", signed=True)
                return

    def append_date(self, days: int) -> None:
        """A date: days since 1970-01-01."""
        self._primitive(DATE)
        self._buffer += days.to_bytes(4, "little", signed=True)

    def append_timestamp(self, micros: int, ntz: bool = False) -> None:
        """A timestamp: microseconds since the epoch (UTC, or wall-clock for ``ntz``)."""
        self._primitive(TIMESTAMP_NTZ if ntz else TIMESTAMP)
        self._buffer += micros.to_bytes(8, "little", signed=True)

    def append_binary(self, value: bytes) -> None:
        """Bytes, with a 4-byte length."""
        self._primitive(BINARY)
        self._buffer += len(value).to_bytes(4, "little")
        self._buffer += value

    def append_string(self, value: str) -> None:
        """A string: short (its length in the header) under 64 UTF-8 bytes, else long."""
        data = value.encode("utf-8", "surrogatepass")
        if len(data) <= _MAX_SHORT_STR:
            self._buffer.append((len(data) << 2) | SHORT_STR)
        else:
            self._primitive(LONG_STR)
            self._buffer += len(data).to_bytes(4, "little")
        self._buffer += data

    def append_encoded(self, value: bytes) -> None:
        """An already encoded value without object keys (a scalar read from another variant)."""
        self._buffer += value

    def finish_object(self, start: int, fields: list[tuple[str, int, int]]) -> None:
        """Put an object header in front of the values written since ``start``.

        Parameters
        ----------
        start : int
            :attr:`position` before the first field's value.
        fields : list of (key, id, offset)
            One per field, in the order written; offsets relative to ``start``.
        """
        fields.sort(key=lambda f: java_order(f[0]))
        for before, after in zip(fields, fields[1:]):
            if before[0] == after[0]:
                raise SparkRuntimeException(
                    f"Failed to build variant because of a duplicate object key `{after[0]}`.",
                    "VARIANT_DUPLICATE_KEY", {"key": after[0]})
        size = len(fields)
        data_size = len(self._buffer) - start
        large = size > 0xFF
        count_width = 4 if large else 1
        id_width = int_width(max((f[1] for f in fields), default=0))
        offset_width = int_width(data_size)
        header = bytearray()
        header.append((int(large) << 6) | ((id_width - 1) << 4) | ((offset_width - 1) << 2) | OBJECT)
        header += size.to_bytes(count_width, "little")
        for _, key_id, _ in fields:
            header += key_id.to_bytes(id_width, "little")
        for _, _, offset in fields:
            header += offset.to_bytes(offset_width, "little")
        header += data_size.to_bytes(offset_width, "little")
        self._buffer[start:start] = header

    def finish_array(self, start: int, offsets: list[int]) -> None:
        """Put an array header in front of the elements written since ``start`` (offsets relative to it)."""
        size = len(offsets)
        data_size = len(self._buffer) - start
        large = size > 0xFF
        offset_width = int_width(data_size)
        header = bytearray()
        header.append((int(large) << 4) | ((offset_width - 1) << 2) | ARRAY)
        header += size.to_bytes(4 if large else 1, "little")
        for offset in offsets:
            header += offset.to_bytes(offset_width, "little")
        header += data_size.to_bytes(offset_width, "little")
        self._buffer[start:start] = header

    def value_bytes(self) -> bytes:
        """The value written so far (for a builder of one scalar)."""
        return bytes(self._buffer)

    def result(self) -> tuple[bytes, bytes]:
        """The finished ``(value, metadata)``."""
        return checked(bytes(self._buffer), encode_metadata(self._keys))


def encode_metadata(keys: Iterable[str]) -> bytes:
    """The metadata of a dictionary whose key ids are the keys' positions."""
    encoded = [k.encode("utf-8", "surrogatepass") for k in keys]
    total = sum(len(k) for k in encoded)
    width = int_width(max(total, len(encoded)))
    metadata = bytearray()
    metadata.append(_VERSION | ((width - 1) << 6))
    metadata += len(encoded).to_bytes(width, "little")
    offset = 0
    metadata += offset.to_bytes(width, "little")
    for k in encoded:
        offset += len(k)
        metadata += offset.to_bytes(width, "little")
    for k in encoded:
        metadata += k
    return bytes(metadata)


def checked(value: bytes, metadata: bytes) -> tuple[bytes, bytes]:
    """``(value, metadata)``, or ``VARIANT_SIZE_LIMIT`` when either is over Spark's limit."""
    if len(value) > SIZE_LIMIT or len(metadata) > SIZE_LIMIT:
        raise _size_error()
    return value, metadata


# -- reading ------------------------------------------------------------------------------


def _check(value: bytes, end: int) -> None:
    if end > len(value):
        raise malformed()


def read_int(data: bytes, pos: int, width: int, signed: bool = False) -> int:
    """The little-endian integer of ``width`` bytes at ``pos``."""
    if width == 1 and not signed:
        if pos >= len(data):
            raise malformed()
        return data[pos]
    _check(data, pos + width)
    return int.from_bytes(data[pos:pos + width], "little", signed=signed)


def type_info(value: bytes, pos: int) -> tuple[int, int]:
    """``(basic type, type info)`` of the value starting at ``pos``."""
    _check(value, pos + 1)
    header = value[pos]
    return header & 3, header >> 2


def scalar_kind(value: bytes, pos: int) -> int:
    """The primitive type id of the value at ``pos``; short strings count as :data:`LONG_STR`,
    objects as -2 and arrays as -3."""
    basic, info = type_info(value, pos)
    if basic == PRIMITIVE:
        return info
    if basic == SHORT_STR:
        return LONG_STR
    return -2 if basic == OBJECT else -3


def read_double(value: bytes, pos: int) -> float:
    """The double at ``pos`` (its header included)."""
    _check(value, pos + 9)
    return float(struct.unpack_from("<d", value, pos + 1)[0])


def read_float(value: bytes, pos: int) -> float:
    """The float at ``pos`` (its header included)."""
    _check(value, pos + 5)
    return float(struct.unpack_from("<f", value, pos + 1)[0])


def read_decimal(value: bytes, pos: int) -> tuple[int, int]:
    """``(unscaled, scale)`` of the decimal at ``pos``."""
    _, info = type_info(value, pos)
    width = _DECIMAL_WIDTH.get(info)
    if width is None:
        raise malformed()
    _check(value, pos + 2 + width)
    scale = value[pos + 1]
    if scale > 38:
        raise malformed()
    return read_int(value, pos + 2, width, signed=True), scale


def stripped_decimal(value: bytes, pos: int) -> tuple[Decimal, int, int]:
    """The decimal at ``pos`` as Spark reads a variant's decimal: ``(number, precision, scale)``
    without trailing zeros (``1.50`` is 1.5 of ``(2, 1)``), a whole number at scale 0 (100, not
    1E+2), the precision at least the scale (0.001 is ``(3, 3)``)."""
    unscaled, scale = read_decimal(value, pos)
    number = Decimal(unscaled).scaleb(-scale, _EXACT).normalize(_EXACT)
    if int(number.as_tuple().exponent) > 0:
        number = number.quantize(Decimal(1), context=_EXACT)
    _, digits, exponent = number.as_tuple()
    scale = -int(exponent)
    return number, max(len(digits), scale), scale


def read_string(value: bytes, pos: int) -> str:
    """The string (short or long) at ``pos``."""
    basic, info = type_info(value, pos)
    if basic == SHORT_STR:
        start, length = pos + 1, info
    elif basic == PRIMITIVE and info == LONG_STR:
        start, length = pos + 5, read_int(value, pos + 1, 4)
    else:
        raise malformed()
    _check(value, start + length)
    return value[start:start + length].decode("utf-8", "surrogatepass")


def read_binary(value: bytes, pos: int) -> bytes:
    """The bytes of the binary at ``pos``."""
    length = read_int(value, pos + 1, 4)
    _check(value, pos + 5 + length)
    return bytes(value[pos + 5:pos + 5 + length])


def _uints(data: bytes, at: int, count: int, width: int) -> list[int]:
    """``count`` little-endian unsigned integers of ``width`` bytes from ``at`` (bounds checked)."""
    end = at + count * width
    _check(data, end)
    if width == 1:
        return list(data[at:end])
    if width in (2, 4):
        return list(struct.unpack_from(f"<{count}{'H' if width == 2 else 'I'}", data, at))
    return [int.from_bytes(data[i:i + 3], "little") for i in range(at, end, 3)]


#: Parsed metadata dictionaries by their bytes: the rows of a column mostly share a handful.
_KEYS_CACHE: dict[bytes, list[str]] = {}
_KEYS_CACHE_SIZE = 1024


def metadata_keys(metadata: bytes) -> list[str]:
    """The dictionary of a metadata buffer, by key id (a shared list: do not change it)."""
    if not isinstance(metadata, bytes):
        metadata = bytes(metadata)
    found = _KEYS_CACHE.get(metadata)
    if found is not None:
        return found
    if not metadata or (metadata[0] & 0x0F) != _VERSION:
        raise malformed()
    width = ((metadata[0] >> 6) & 3) + 1
    count = read_int(metadata, 1, width)
    offsets_at = 1 + width
    strings_at = offsets_at + (count + 1) * width
    offsets = _uints(metadata, offsets_at, count + 1, width)
    _check(metadata, strings_at + offsets[-1])
    keys = [bytes(metadata[strings_at + a:strings_at + b]).decode("utf-8", "surrogatepass")
            for a, b in zip(offsets, offsets[1:])]
    if len(_KEYS_CACHE) >= _KEYS_CACHE_SIZE:
        _KEYS_CACHE.clear()
    _KEYS_CACHE[metadata] = keys
    return keys


def _object_layout(value: bytes, pos: int) -> tuple[int, int, int, int, int]:
    """``(count, ids at, id width, offsets at, offset width)`` of the object at ``pos``."""
    _, info = type_info(value, pos)
    offset_width = (info & 3) + 1
    id_width = ((info >> 2) & 3) + 1
    count_width = 4 if (info >> 4) & 1 else 1
    count = read_int(value, pos + 1, count_width)
    ids_at = pos + 1 + count_width
    return count, ids_at, id_width, ids_at + count * id_width, offset_width


def object_fields(value: bytes, pos: int) -> list[tuple[int, int]]:
    """``(key id, value position)`` of each field of the object at ``pos``, in key order."""
    count, ids_at, id_width, offsets_at, offset_width = _object_layout(value, pos)
    ids = _uints(value, ids_at, count, id_width)
    offsets = _uints(value, offsets_at, count + 1, offset_width)
    data_at = offsets_at + (count + 1) * offset_width
    return [(key_id, data_at + offset) for key_id, offset in zip(ids, offsets)]


def object_field(value: bytes, keys: list[str], pos: int, key: str) -> int | None:
    """The position of field ``key`` of the object at ``pos``, or ``None`` when it has none."""
    count, ids_at, id_width, offsets_at, offset_width = _object_layout(value, pos)
    for i, key_id in enumerate(_uints(value, ids_at, count, id_width)):
        if key_id >= len(keys):
            raise malformed()
        if keys[key_id] == key:
            data_at = offsets_at + (count + 1) * offset_width
            return data_at + read_int(value, offsets_at + i * offset_width, offset_width)
    return None


def array_elements(value: bytes, pos: int) -> list[int]:
    """The position of each element of the array at ``pos``."""
    _, info = type_info(value, pos)
    offset_width = (info & 3) + 1
    count_width = 4 if (info >> 2) & 1 else 1
    count = read_int(value, pos + 1, count_width)
    offsets_at = pos + 1 + count_width
    data_at = offsets_at + (count + 1) * offset_width
    return [data_at + offset for offset in _uints(value, offsets_at, count, offset_width)]


def value_end(value: bytes, pos: int) -> int:
    """Where the value starting at ``pos`` ends (exclusive)."""
    basic, info = type_info(value, pos)
    if basic == SHORT_STR:
        return pos + 1 + info
    if basic == PRIMITIVE:
        if info in _FIXED_WIDTH:
            return pos + 1 + _FIXED_WIDTH[info]
        if info in _DECIMAL_WIDTH:
            return pos + 2 + _DECIMAL_WIDTH[info]
        if info in (BINARY, LONG_STR):
            return pos + 5 + read_int(value, pos + 1, 4)
        raise malformed()
    if basic == OBJECT:
        offset_width = (info & 3) + 1
        id_width = ((info >> 2) & 3) + 1
        count_width = 4 if (info >> 4) & 1 else 1
        count = read_int(value, pos + 1, count_width)
        offsets_at = pos + 1 + count_width + count * id_width
    else:
        offset_width = (info & 3) + 1
        count_width = 4 if (info >> 2) & 1 else 1
        count = read_int(value, pos + 1, count_width)
        offsets_at = pos + 1 + count_width
    data_at = offsets_at + (count + 1) * offset_width
    return data_at + read_int(value, offsets_at + count * offset_width, offset_width)
