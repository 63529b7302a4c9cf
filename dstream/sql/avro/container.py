"""Avro object container files: the header, the data blocks and their codecs.

What this module owns
---------------------
* :func:`read_header` and :func:`iter_blocks`: a container file as the Avro specification
  lays it out (``Obj\\x01``, a metadata map with ``avro.schema`` and ``avro.codec``, a
  16-byte sync marker, then blocks of ``count``, ``size``, the encoded data and the
  marker again), each block's data decompressed.
* :func:`write_container`: encoded data into such a file, in blocks of about 64 KiB
  before compression (as Avro's Java writer flushes them), with a random sync marker.
* The codecs Spark writes: ``null``, ``deflate`` (raw deflate), ``snappy`` (raw snappy and
  the big-endian CRC-32 of the uncompressed data), ``zstandard``, ``bzip2`` and ``xz``;
  snappy and zstandard through pyarrow's codecs, the others through the standard library.

Invariants
----------
* A block whose sync marker differs from the header's, a snappy block whose checksum
  does not match, or a codec this module does not know is an error naming the file:
  nothing is skipped silently.
"""

from __future__ import annotations

import bz2
import lzma
import os
import zlib
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

from .codec import MalformedAvroError, Reader, blocks
from .codec import encode_long as _long

__all__ = ["CODECS", "Header", "iter_blocks", "read_header", "write_container"]

MAGIC = b"Obj\x01"
_SYNC_SIZE = 16
_BLOCK_BYTES = 64 * 1024
#: Spark's ``compression`` names -> the ``avro.codec`` written in the file.
CODECS = {"uncompressed": "null", "none": "null", "null": "null", "snappy": "snappy", "deflate": "deflate",
          "zstandard": "zstandard", "bzip2": "bzip2", "xz": "xz"}


class Header:
    """A container file's header: its schema's JSON, codec, sync marker and where the blocks start."""

    def __init__(self, schema: str, codec: str, sync: bytes, data_start: int) -> None:
        self.schema, self.codec, self.sync, self.data_start = schema, codec, sync, data_start


def _bad(path: str, reason: str) -> MalformedAvroError:
    return MalformedAvroError(f"{path} is not a readable Avro container file: {reason}")


def read_header(path: str, data: bytes) -> Header:
    """The header of the container file ``path`` whose bytes are ``data``."""
    if not data.startswith(MAGIC):
        raise _bad(path, "it does not start with the Avro magic bytes Obj\\x01")
    r = Reader(data)
    r.pos = len(MAGIC)
    meta: dict[str, bytes] = {}
    for _ in blocks(r):
        key = r.take(r.long()).decode("utf-8")
        meta[key] = r.take(r.long())
    if "avro.schema" not in meta:
        raise _bad(path, "its header has no avro.schema")
    sync = r.take(_SYNC_SIZE)
    codec = meta.get("avro.codec", b"null").decode("utf-8") or "null"
    return Header(meta["avro.schema"].decode("utf-8"), codec, sync, r.pos)


def iter_blocks(path: str, data: bytes, header: Header) -> Iterator[tuple[int, bytes]]:
    """Each data block of the file as ``(record count, decompressed bytes)``."""
    r = Reader(data)
    r.pos = header.data_start
    while r.pos < len(data):
        count = r.long()
        size = r.long()
        raw = r.take(size)
        if r.take(_SYNC_SIZE) != header.sync:
            raise _bad(path, f"the block ending at byte {r.pos} is not followed by the file's sync marker")
        yield count, _decompress(raw, header.codec, path)


def _decompress(raw: bytes, codec: str, path: str) -> bytes:
    if codec == "null":
        return raw
    if codec == "deflate":
        return zlib.decompress(raw, -15)
    if codec == "snappy":
        body, checksum = raw[:-4], raw[-4:]
        out = pa.decompress(body, decompressed_size=_snappy_length(body), codec="snappy", asbytes=True)
        if zlib.crc32(out).to_bytes(4, "big") != checksum:
            raise _bad(path, "a snappy block's CRC-32 does not match its data")
        return bytes(out)
    if codec == "zstandard":
        with pa.input_stream(pa.py_buffer(raw), compression="zstd") as stream:
            return bytes(stream.read())
    if codec == "bzip2":
        return bz2.decompress(raw)
    if codec == "xz":
        return lzma.decompress(raw)
    raise _bad(path, f'its codec "{codec}" is not one of {", ".join(sorted(set(CODECS.values())))}')


def _snappy_length(body: bytes) -> int:
    """The uncompressed length a raw snappy block starts with (a varint)."""
    length = shift = 0
    for byte in body[:5]:
        length |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return length
        shift += 7
    raise MalformedAvroError("a snappy block without its length")


def _compress(raw: bytes, codec: str, level: int) -> bytes:
    if codec == "null":
        return raw
    if codec == "deflate":
        packer = zlib.compressobj(level, zlib.DEFLATED, -15)
        return packer.compress(raw) + packer.flush()
    if codec == "snappy":
        return bytes(pa.compress(raw, codec="snappy", asbytes=True)) + zlib.crc32(raw).to_bytes(4, "big")
    if codec == "zstandard":
        return bytes(pa.compress(raw, codec="zstd", asbytes=True))
    if codec == "bzip2":
        return bz2.compress(raw)
    return lzma.compress(raw)


def write_container(target: str, schema_json: str, codec: str, records: Sequence[bytes],
                    deflate_level: int = -1) -> None:
    """Write the encoded ``records`` as the container file ``target`` (see the module doc)."""
    sync = os.urandom(_SYNC_SIZE)
    meta = {"avro.schema": schema_json.encode("utf-8"), "avro.codec": codec.encode("utf-8")}
    out: list[bytes] = [MAGIC, _long(len(meta))]
    for key, value in meta.items():
        out += [_long(len(key)), key.encode("utf-8"), _long(len(value)), value]
    out += [_long(0), sync]
    start = 0
    while start < len(records):
        end, size = start, 0
        while end < len(records) and (size < _BLOCK_BYTES or end == start):
            size += len(records[end])
            end += 1
        block = _compress(b"".join(records[start:end]), codec, deflate_level)
        out += [_long(end - start), _long(len(block)), block, sync]
        start = end
    with open(target, "wb") as handle:
        handle.write(b"".join(out))


def read_records(path: str) -> tuple[Header, Iterator[tuple[int, Any]]]:
    """The header of ``path`` and its blocks (see :func:`iter_blocks`), the file read once."""
    with open(path, "rb") as handle:
        data = handle.read()
    header = read_header(path, data)
    return header, iter_blocks(path, data, header)
