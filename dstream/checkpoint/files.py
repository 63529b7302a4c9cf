"""Metadata checkpoint files: format, atomic writing, keep-last-N, reading with fallback.

A checkpoint is one file ``checkpoint-<batch time ms>`` in the checkpoint directory::

    b"DSTRCKPT"  magic (8 bytes)
    msgpack map  {"format": 1, "time_ms": int, "data": {...}, "graph": bytes, "crc": int}

``data`` is the code-free part (pending batch times, input positions, state
checkpoint paths, configuration): plain msgpack types only, versioned by
``format``, so that recovery can one day survive a change of code. ``graph`` is the
pickled DStream graph (functions included), kept apart so the data can be read
without unpickling any code. ``crc`` is the CRC-32 of the msgpack-encoded data
followed by the graph bytes.

Writing: a temporary file, ``fsync``, ``os.replace``, then ``fsync`` of the
directory, so a crash leaves either the old set of files or the new one. The newest
``KEEP`` files are kept. Reading: newest first; a file that is truncated, corrupt or
of an unknown format is skipped with a warning naming it, and the previous one used.
"""

from __future__ import annotations

import logging
import os
import re
import zlib
from dataclasses import dataclass
from typing import Any

import msgpack

from rdd.errors import CheckpointError

log = logging.getLogger(__name__)

MAGIC = b"DSTRCKPT"
FORMAT_VERSION = 1
KEEP = 10
_NAME = re.compile(r"^checkpoint-(\d+)$")


@dataclass(frozen=True)
class CheckpointFile:
    time_ms: int
    data: dict[str, Any]
    graph: bytes
    path: str


def checkpoint_path(directory: str, time_ms: int) -> str:
    return os.path.join(directory, f"checkpoint-{time_ms}")


def write_checkpoint(directory: str, time_ms: int, data: dict[str, Any], graph: bytes, keep: int = KEEP) -> str:
    """Write the checkpoint of batch ``time_ms`` atomically; returns its path."""
    os.makedirs(directory, exist_ok=True)
    packed_data = msgpack.packb(data, use_bin_type=True)
    crc = zlib.crc32(graph, zlib.crc32(packed_data))
    body = msgpack.packb({"format": FORMAT_VERSION, "time_ms": time_ms, "data": packed_data,
                          "graph": graph, "crc": crc}, use_bin_type=True)
    path = checkpoint_path(directory, time_ms)
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(MAGIC)
        f.write(body)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(directory)
    for old in list_checkpoints(directory)[:-keep]:
        try:
            os.unlink(checkpoint_path(directory, old))
        except FileNotFoundError:
            pass
    return path


def list_checkpoints(directory: str) -> list[int]:
    """Batch times of the checkpoint files in ``directory``, oldest first."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    return sorted(int(m.group(1)) for m in map(_NAME.match, names) if m)


def read_checkpoint(path: str) -> CheckpointFile:
    """Read and verify one checkpoint file; :class:`CheckpointError` says what is wrong."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise CheckpointError(f"cannot read checkpoint file {path}: {exc}") from exc
    if not raw.startswith(MAGIC):
        raise CheckpointError(f"{path} is not a dstreams checkpoint file (bad magic bytes)")
    try:
        body = msgpack.unpackb(raw[len(MAGIC):], raw=False)
    except Exception as exc:  # noqa: BLE001 - msgpack raises several types on truncation
        raise CheckpointError(f"checkpoint file {path} is truncated or corrupt ({type(exc).__name__}: {exc})") from exc
    if not isinstance(body, dict) or body.get("format") != FORMAT_VERSION:
        raise CheckpointError(f"checkpoint file {path} has format {body.get('format') if isinstance(body, dict) else '?'}"
                              f", this version reads format {FORMAT_VERSION}")
    packed, graph = body.get("data"), body.get("graph")
    if not isinstance(packed, bytes) or not isinstance(graph, bytes):
        raise CheckpointError(f"checkpoint file {path} lacks its data or graph part")
    if zlib.crc32(graph, zlib.crc32(packed)) != body.get("crc"):
        raise CheckpointError(f"checkpoint file {path} fails its checksum (corrupted on disk)")
    return CheckpointFile(int(body["time_ms"]), msgpack.unpackb(packed, raw=False, strict_map_key=False), graph, path)


def read_latest(directory: str) -> CheckpointFile | None:
    """The newest readable checkpoint, falling back past broken ones; ``None`` if there are none.

    Raises
    ------
    CheckpointError
        When checkpoint files exist but none is readable: names the directory and
        what is wrong with each file.
    """
    times = list_checkpoints(directory)
    problems: list[str] = []
    for time_ms in reversed(times):
        path = checkpoint_path(directory, time_ms)
        try:
            found = read_checkpoint(path)
        except CheckpointError as exc:
            log.warning("skipping unusable checkpoint: %s; trying the previous one", exc)
            problems.append(str(exc))
            continue
        return found
    if problems:
        raise CheckpointError(f"no usable checkpoint in {directory}: " + "; ".join(problems))
    return None


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
