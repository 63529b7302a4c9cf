"""Avro's binary encoding of one datum, to and from the Python values of Spark's types.

What this module owns
---------------------
:func:`decode` (``from_avro``) and :func:`encode` (``to_avro``) of one value against a
parsed schema (:mod:`.schema`), in the encoding of the Avro specification: ``int`` and
``long`` as zig-zag varints, ``float``/``double`` little-endian IEEE, ``bytes``/``string``
length-prefixed, ``fixed`` as its bytes, an ``enum`` as its symbol's index, arrays and
maps in blocks ended by a zero count (written as one block, as Avro's Java writer does),
a union as its branch's index then the value, a record as its fields in order. A value
is written into a union of one type and ``null`` (or of ``int`` and ``long``, ``float``
and ``double``); into a union of several types a struct of one member per type is
written as its first member that is not null.

The Python values are those Arrow takes for the matching Spark types: ``int`` days for
DATE, ``int`` microseconds for TIMESTAMP and TIMESTAMP_NTZ (``*-millis`` scaled),
``Decimal`` for DECIMAL, ``bytes``, dicts by field name for STRUCT (a union of several
types is the dict of its ``member<i>``), lists of pairs for MAP.

Invariants
----------
* :func:`decode` raises :class:`MalformedAvroError` for bytes the schema cannot read (too few
  bytes, a bad union or enum index, a string that is not UTF-8); bytes left over after
  the datum are ignored, as Avro's reader ignores them.
* :func:`encode` raises :class:`MalformedAvroError` for a value the schema cannot hold (a null
  where no union has ``null``, a symbol not in an enum, a decimal too wide for a fixed).
"""

from __future__ import annotations

import struct
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Any

from .schema import Node, members, widened

__all__ = ["MalformedAvroError", "Reader", "blocks", "decode", "encode", "encode_long", "read_value"]

_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")
_EPOCH = datetime(1970, 1, 1)
_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EPOCH_DAY = date(1970, 1, 1).toordinal()


class MalformedAvroError(ValueError):
    """Bytes that are no datum of the schema, or a value the schema cannot hold."""


class Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise MalformedAvroError(
                f"the datum ends early: {n} more bytes wanted at byte {self.pos} of {len(self.data)}")
        out = self.data[self.pos:end]
        self.pos = end
        return out

    def long(self) -> int:
        shift = result = 0
        data, pos = self.data, self.pos
        while True:
            if pos >= len(data):
                raise MalformedAvroError(f"the datum ends inside a number at byte {pos}")
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                break
            shift += 7
            if shift > 63:
                raise MalformedAvroError(f"a number longer than 10 bytes at byte {self.pos}")
        self.pos = pos
        return (result >> 1) ^ -(result & 1)


def decode(data: bytes, node: Node) -> Any:
    """The value ``data`` holds as a datum of ``node`` (see the module doc)."""
    return read_value(Reader(data), node)


def read_value(r: Reader, node: Node) -> Any:
    kind = node.kind
    if kind == "null":
        return None
    if kind == "boolean":
        return r.take(1) != b"\x00"
    if kind == "int" or kind == "long":
        value = r.long()
        if kind == "int" and not -(2**31) <= value < 2**31:
            raise MalformedAvroError(f"{value} is out of an int's range")
        if node.logical in ("timestamp-millis", "local-timestamp-millis"):
            return value * 1000
        return value
    if kind == "float":
        return _FLOAT.unpack(r.take(4))[0]
    if kind == "double":
        return _DOUBLE.unpack(r.take(8))[0]
    if kind in ("bytes", "fixed"):
        raw = r.take(r.long() if kind == "bytes" else node.size)
        if node.logical == "decimal" and node.precision <= 38:
            return Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-node.scale)
        return raw
    if kind == "string":
        raw = r.take(r.long())
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedAvroError(f"a string that is not UTF-8 ({exc})") from None
    if kind == "enum":
        index = r.long()
        if not 0 <= index < len(node.symbols):
            raise MalformedAvroError(f"enum index {index} of {node.name}, which has {len(node.symbols)} symbols")
        return node.symbols[index]
    if kind == "record":
        return {name: read_value(r, child) for name, child in node.fields}
    if kind == "array":
        assert node.items is not None
        return [read_value(r, node.items) for _ in blocks(r)]
    if kind == "map":
        assert node.items is not None
        return [(read_value(r, _STRING), read_value(r, node.items)) for _ in blocks(r)]
    return _read_union(r, node)


_STRING = Node("string")


def blocks(r: Reader) -> Any:
    while True:
        count = r.long()
        if count == 0:
            return
        if count < 0:  # a block with its size in bytes first
            count = -count
            r.long()
        yield from range(count)


def _read_union(r: Reader, node: Node) -> Any:
    index = r.long()
    if not 0 <= index < len(node.branches):
        raise MalformedAvroError(f"union index {index} of a union of {len(node.branches)} branches")
    value = read_value(r, node.branches[index])
    present = [b for b in node.branches if b.kind != "null"]
    if len(present) <= 1 or widened(present):
        return value
    chosen = node.branches[index]
    if chosen.kind == "null":
        return None
    return members(present, chosen, value)


def encode_long(value: int) -> bytes:
    """An ``int`` or ``long`` as Avro writes it: zig-zag, then a varint."""
    n = (value << 1) ^ (value >> 63)
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def encode(value: Any, node: Node) -> bytes:
    """``value`` as a datum of ``node`` (see the module doc)."""
    out: list[bytes] = []
    _write(out, value, node)
    return b"".join(out)


def _write(out: list[bytes], value: Any, node: Node) -> None:
    kind = node.kind
    if kind == "union":
        _write_union(out, value, node)
        return
    if value is None and kind != "null":
        raise MalformedAvroError(
            f"a null value where the Avro type {kind} has no null: make the type a union with null")
    if kind == "null":
        if value is not None:
            raise MalformedAvroError(f"the value {value!r} where the Avro type is null")
    elif kind == "boolean":
        out.append(b"\x01" if value else b"\x00")
    elif kind in ("int", "long"):
        out.append(encode_long(_integer(value, node)))
    elif kind == "float":
        out.append(_FLOAT.pack(value))
    elif kind == "double":
        out.append(_DOUBLE.pack(value))
    elif kind in ("bytes", "fixed"):
        raw = _decimal_bytes(value, node) if node.logical == "decimal" else bytes(value)
        if kind == "fixed" and len(raw) != node.size:
            raise MalformedAvroError(f"{len(raw)} bytes for the fixed {node.name} of size {node.size}")
        out.append(encode_long(len(raw)) + raw if kind == "bytes" else raw)
    elif kind == "string":
        raw = str(value).encode("utf-8")
        out.append(encode_long(len(raw)) + raw)
    elif kind == "enum":
        if value not in node.symbols:
            raise MalformedAvroError(f'"{value}" is not a symbol of the enum {node.name} ({", ".join(node.symbols)})')
        out.append(encode_long(node.symbols.index(value)))
    elif kind == "record":
        get = value.get if isinstance(value, dict) else value.__getitem__
        for name, child in node.fields:
            _write(out, get(name), child)
    elif kind in ("array", "map"):
        assert node.items is not None
        entries = list(value.items()) if isinstance(value, dict) else list(value)
        if entries:
            out.append(encode_long(len(entries)))
            for entry in entries:
                if kind == "map":
                    _write(out, entry[0], _STRING)
                    _write(out, entry[1], node.items)
                else:
                    _write(out, entry, node.items)
        out.append(b"\x00")


def _write_union(out: list[bytes], value: Any, node: Node) -> None:
    present = [b for b in node.branches if b.kind != "null"]
    if value is None:
        nulls = [i for i, b in enumerate(node.branches) if b.kind == "null"]
        if not nulls:
            raise MalformedAvroError("a null value where the Avro union has no null branch: add \"null\" to the union")
        out.append(encode_long(nulls[0]))
        return
    if len(present) > 1 and not widened(present):
        # A union of several types comes as its struct of members: the first member set is written.
        parts = list(value.values()) if isinstance(value, dict) else list(value)
        for member, branch in zip(parts, present):
            if member is not None:
                out.append(encode_long(node.branches.index(branch)))
                _write(out, member, branch)
                return
        _write_union(out, None, node)
        return
    branch = _branch_for(value, present) if len(present) > 1 else present[0]
    out.append(encode_long(node.branches.index(branch)))
    _write(out, value, branch)


def _branch_for(value: Any, present: list[Node]) -> Node:
    """The branch of a widened union (``int``/``long``, ``float``/``double``) a value is written as."""
    if isinstance(value, int) and not isinstance(value, bool):
        for b in present:
            if b.kind == "int" and -(2**31) <= value < 2**31:
                return b
        return next(b for b in present if b.kind in ("long", "int"))
    return next((b for b in present if b.kind == "double"), present[0])


def _integer(value: Any, node: Node) -> int:
    if isinstance(value, datetime):
        epoch = _EPOCH_UTC if value.tzinfo is not None else _EPOCH
        delta = value - epoch
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return micros // 1000 if node.logical in ("timestamp-millis", "local-timestamp-millis") else micros
    if isinstance(value, date):
        return value.toordinal() - _EPOCH_DAY
    return int(value)


def _decimal_bytes(value: Any, node: Node) -> bytes:
    scaled = Decimal(value).scaleb(node.scale)
    unscaled = int(scaled)
    if unscaled != scaled:
        raise MalformedAvroError(
            f"the decimal {value} has more digits after the point than the Avro scale {node.scale}")
    if node.kind == "fixed":
        try:
            return unscaled.to_bytes(node.size, "big", signed=True)
        except OverflowError:
            raise MalformedAvroError(f"the decimal {value} does not fit the {node.size} bytes of {node.name}") from None
    # The fewest bytes of two's complement (Java's BigInteger.toByteArray): the bits, and a sign bit.
    length = ((unscaled if unscaled >= 0 else ~unscaled).bit_length() + 8) // 8
    return unscaled.to_bytes(length, "big", signed=True)
