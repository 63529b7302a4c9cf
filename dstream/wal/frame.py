"""The on-disk format of write-ahead log segments: checksummed, length-prefixed frames.

What this module owns
---------------------
The byte layout, and nothing about files' names or lifetimes (that is
:mod:`dstream.wal.log`)::

    segment := MAGIC frame*
    MAGIC   := b"DSWAL\\x00\\x01\\n"                  (8 bytes: format name, version 1)
    frame   := length:u32be  crc32:u32be  payload   (payload = one msgpack document)

``crc32`` is ``zlib.crc32(payload)``. A record handle points at a frame as
``(path, offset, length)`` with ``length`` counting header and payload.

Reading a segment (:func:`scan`) yields good frames in order and stops at the first one
that is not whole. Two kinds of damage are told apart:

* a **torn tail**: the last frame runs past the end of the file, or it is the last frame
  and its checksum fails. This is what a crash in the middle of a write leaves; the
  frame was never acknowledged, so dropping it loses nothing that was stored.
* **corruption**: a frame in the middle fails its checksum or has an impossible length.
  Records after it cannot be trusted to be aligned, so the reader raises
  :class:`~dstream.wal.errors.WALCorruptionError` naming the file and offset.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgpack

from dstream.wal.errors import WALCorruptionError

__all__ = ["HEADER", "MAGIC", "MAX_PAYLOAD", "ScanResult", "encode", "decode_frame", "scan"]

MAGIC = b"DSWAL\x00\x01\n"
HEADER = struct.Struct(">II")
#: Frames larger than this are refused on write and treated as damage on read: a
#: received block is at most a few seconds of records, far below it.
MAX_PAYLOAD = 1 << 30


def encode(record: Any) -> bytes:
    """Return the frame (header + payload) of a msgpack-able ``record``."""
    payload = msgpack.packb(record, use_bin_type=True)
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(
            f"a write-ahead log record of {len(payload)} bytes exceeds the {MAX_PAYLOAD}-byte "
            "limit; store smaller blocks (shorter spark.streaming.blockInterval)"
        )
    return HEADER.pack(len(payload), zlib.crc32(payload)) + payload


def _unpack(payload: bytes) -> Any:
    return msgpack.unpackb(payload, raw=False, strict_map_key=False)


def decode_frame(frame: bytes, where: str) -> Any:
    """Check and decode one whole frame read through a handle; ``where`` names it in errors."""
    if len(frame) < HEADER.size:
        raise WALCorruptionError(
            f"write-ahead log record {where} is truncated ({len(frame)} bytes)"
        )
    length, crc = HEADER.unpack_from(frame)
    payload = frame[HEADER.size :]
    if length != len(payload) or zlib.crc32(payload) != crc:
        raise WALCorruptionError(
            f"write-ahead log record {where} fails its checksum or length check; the file "
            "was modified or damaged after it was written"
        )
    return _unpack(payload)


@dataclass(frozen=True, slots=True)
class ScanResult:
    """Where a scan of a segment stopped."""

    good_end: int  #: offset just after the last good frame
    size: int  #: file size
    torn: bool  #: the bytes after ``good_end`` are a torn tail


def scan(data: bytes, path: str) -> tuple[list[tuple[int, int, Any]], ScanResult]:
    """Decode every good frame of a segment's bytes.

    Returns
    -------
    frames, result
        ``(offset, length, record)`` per good frame, and where the scan stopped.

    Raises
    ------
    WALCorruptionError
        If the file does not start with the magic, or a frame other than the last one
        is damaged.
    """
    size = len(data)
    if size < len(MAGIC):
        # A segment whose creation was cut short: nothing was ever stored in it.
        if MAGIC.startswith(data):
            return [], ScanResult(0, size, size > 0)
        raise WALCorruptionError(f"{path} is not a write-ahead log segment (bad header)")
    if data[: len(MAGIC)] != MAGIC:
        raise WALCorruptionError(
            f"{path} is not a write-ahead log segment of this version (header {data[:8]!r}); "
            "move it out of the log directory"
        )
    frames: list[tuple[int, int, Any]] = []
    offset = len(MAGIC)
    while offset < size:
        if offset + HEADER.size > size:
            return frames, ScanResult(offset, size, True)
        length, crc = HEADER.unpack_from(data, offset)
        end = offset + HEADER.size + length
        if length > MAX_PAYLOAD or end > size:
            return frames, ScanResult(offset, size, True)
        payload = data[offset + HEADER.size : end]
        if zlib.crc32(payload) != crc:
            if end == size:
                return frames, ScanResult(offset, size, True)
            raise WALCorruptionError(
                f"write-ahead log {path} is damaged at offset {offset} (checksum mismatch with "
                f"{size - end} bytes after the record); the records from there on cannot be read. "
                "Move the file away to drop them"
            )
        frames.append((offset, end - offset, _unpack(payload)))
        offset = end
    return frames, ScanResult(offset, size, False)


def iter_records(frames: list[tuple[int, int, Any]]) -> Iterator[Any]:
    """Yield the records of scanned frames."""
    for _, _, record in frames:
        yield record
