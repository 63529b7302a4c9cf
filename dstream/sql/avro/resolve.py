"""Avro schema resolution: data written with one schema read as another (``from_avro``'s ``avroSchema``).

What this module owns
---------------------
:func:`decode_as`: a datum of the *writer's* schema read as a value of the *reader's*
schema, by the Avro specification's resolution rules, which Spark's ``from_avro`` follows
when the option ``avroSchema`` gives the reader's schema:

* records match fields by name: a writer's field the reader lacks is read and dropped; a
  reader's field the writer lacks takes the reader's default (none: the datum cannot be read);
* ``int`` is promoted to ``long``, ``float`` or ``double``, ``long`` to ``float`` or
  ``double``, ``float`` to ``double``; ``string`` and ``bytes`` read as each other;
* an enum symbol the reader lacks takes the reader enum's default (none: unreadable);
* a writer's union is resolved by the branch the datum holds; a reader's union by the
  first branch the writer's type resolves to;
* anything else (``int`` read as ``string``, a null read as a non-union) is unreadable:
  :class:`~.codec.MalformedAvroError`, which ``FAILFAST`` reports and ``PERMISSIVE`` turns into null.

Defaults are Avro's JSON defaults: ``bytes`` and ``fixed`` as ISO-8859-1 strings, a
union's default for its first branch.
"""

from __future__ import annotations

from typing import Any

from .codec import MalformedAvroError, Reader, blocks, read_value
from .schema import Node, members, widened

__all__ = ["decode_as", "read_as"]

_PROMOTIONS = {("int", "long"), ("int", "float"), ("int", "double"), ("long", "float"), ("long", "double"),
               ("float", "double"), ("string", "bytes"), ("bytes", "string")}


def decode_as(data: bytes, writer: Node, reader: Node) -> Any:
    """The datum ``data`` of ``writer`` read as a value of ``reader`` (see the module doc)."""
    return read_as(Reader(data), writer, reader)


def _resolves(writer: Node, reader: Node) -> bool:
    """Whether a value of ``writer`` (not a union) can be read as ``reader`` (not a union)."""
    if writer.kind == reader.kind:
        return writer.kind not in ("record", "enum", "fixed") or _same_name(writer, reader)
    return (writer.kind, reader.kind) in _PROMOTIONS


def _same_name(writer: Node, reader: Node) -> bool:
    # Named types match by their unqualified names (a top-level record of any name matches).
    return writer.kind == "record" or writer.name.rpartition(".")[2] == reader.name.rpartition(".")[2]


def read_as(r: Reader, writer: Node, reader: Node) -> Any:
    if writer.kind == "union":
        index = r.long()
        if not 0 <= index < len(writer.branches):
            raise MalformedAvroError(f"union index {index} of a union of {len(writer.branches)} branches")
        return read_as(r, writer.branches[index], reader)
    if reader.kind == "union":
        return _into_union(r, writer, reader)
    if not _resolves(writer, reader):
        raise MalformedAvroError(f"a value written as {writer.kind} cannot be read as {reader.kind}")
    kind = reader.kind
    if kind == "record":
        return _record(r, writer, reader)
    if kind == "enum":
        symbol = read_value(r, writer)
        if symbol in reader.symbols:
            return symbol
        if reader.default is not None:
            return reader.default
        raise MalformedAvroError(
            f'the symbol "{symbol}" is not in the reader\'s enum {reader.name}, which has no default')
    if kind == "array":
        assert writer.items is not None and reader.items is not None
        return [read_as(r, writer.items, reader.items) for _ in blocks(r)]
    if kind == "map":
        assert writer.items is not None and reader.items is not None
        return [(read_value(r, _STRING), read_as(r, writer.items, reader.items)) for _ in blocks(r)]
    if kind == "fixed" and writer.size != reader.size:
        raise MalformedAvroError(f"a fixed of {writer.size} bytes cannot be read as one of {reader.size}")
    value = read_value(r, writer)
    if writer.kind != kind:  # a promotion
        if kind == "string":
            return bytes(value).decode("utf-8", errors="strict")
        if kind == "bytes":
            return value.encode("utf-8")
        return float(value) if kind in ("float", "double") else value
    if reader.logical != writer.logical:  # the same bytes, the reader's meaning
        return _reinterpret(value, writer, reader)
    return value


_STRING = Node("string")


def _reinterpret(value: Any, writer: Node, reader: Node) -> Any:
    """A value read with the writer's logical type, as the reader's logical type means the same bytes."""
    scale = {"timestamp-millis": 1000, "local-timestamp-millis": 1000}
    if writer.kind in ("int", "long"):
        raw = value // scale.get(writer.logical or "", 1)
        return raw * scale.get(reader.logical or "", 1)
    return value


def _into_union(r: Reader, writer: Node, reader: Node) -> Any:
    present = [b for b in reader.branches if b.kind != "null"]
    if writer.kind == "null":
        if len(present) < len(reader.branches):
            return None
        raise MalformedAvroError("a null written cannot be read as a union without null")
    for branch in present:
        if _resolves(writer, branch):
            value = read_as(r, writer, branch)
            if len(present) > 1 and not widened(present):
                return members(present, branch, value)
            return value
    raise MalformedAvroError(f"a value written as {writer.kind} matches no branch of the reader's union")


def _record(r: Reader, writer: Node, reader: Node) -> dict[str, Any]:
    wanted = dict(reader.fields)
    values: dict[str, Any] = {}
    for name, node in writer.fields:
        if name in wanted:
            values[name] = read_as(r, node, wanted[name])
        else:
            read_value(r, node)  # a field the reader dropped: read past it
    for name, node in reader.fields:
        if name not in values:
            if name not in reader.defaults:
                raise MalformedAvroError(f'the reader\'s field "{name}" is not written and has no default')
            values[name] = _default(reader.defaults[name], node)
    return {name: values[name] for name, _ in reader.fields}


def _default(value: Any, node: Node) -> Any:
    """A field's JSON default as a value of ``node`` (a union's for its first branch)."""
    kind = node.kind
    if kind == "union":
        first = node.branches[0]
        converted = _default(value, first)
        present = [b for b in node.branches if b.kind != "null"]
        if first.kind != "null" and len(present) > 1 and not widened(present):
            return members(present, first, converted)
        return converted
    if value is None:
        return None
    if kind in ("bytes", "fixed"):
        return str(value).encode("latin-1")
    if kind in ("float", "double"):
        return float(value)
    if kind == "array":
        assert node.items is not None
        return [_default(v, node.items) for v in value]
    if kind == "map":
        assert node.items is not None
        return [(k, _default(v, node.items)) for k, v in value.items()]
    if kind == "record":
        fields = dict(node.fields)
        return {name: _default(value.get(name, node.defaults.get(name)), fields[name]) for name, _ in node.fields}
    if kind in ("int", "long") and node.logical in ("timestamp-millis", "local-timestamp-millis"):
        return int(value) * 1000
    return value
