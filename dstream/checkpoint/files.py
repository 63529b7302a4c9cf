"""Metadata checkpoint files: format, atomic writing, keep-last-N, reading with fallback.

A checkpoint is one small file ``checkpoint-<batch time ms>`` in the checkpoint
directory, plus the pickled graph it refers to, ``graph-<digest>``, written once::

    checkpoint-<t>:  b"DSTRCKPT" + msgpack {"format": 2, "time_ms": int, "data": bytes,
                                            "crc": int, "graph": digest, "graph_crc": int}
    graph-<digest>:  b"DSTRGRPH" + the pickled DStream graph

``data`` is the msgpack-encoded, code-free part (pending batch times, input positions,
state checkpoint paths, configuration): plain msgpack types only, versioned by
``format``, so that recovery can one day survive a change of code. The graph (functions
included) never changes while a context runs, so it is written once and every
checkpoint names it by digest: a batch's checkpoint costs only its data, however large
the graph (an initial state of a million keys, say). ``crc`` and ``graph_crc`` are
CRC-32s of the data and of the graph bytes.

Writing: a temporary file (``<name>.tmp-<writer pid>``), ``fsync``, ``os.replace``,
then ``fsync`` of the directory, so a crash leaves either the old set of files or the
new one, plus at most a temporary file, which the next checkpoint written removes once
its writer is gone. The newest ``KEEP`` checkpoints are kept, and the graph files they
refer to. Reading: newest
first; a file that is truncated, corrupt, of an unknown format, or whose graph is
missing or corrupt is skipped with a warning naming it, and the previous one used.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack

from rdd import CheckpointError
from rdd.engine_api import process_is_alive

from dstream.durable import fsync_directory

log = logging.getLogger(__name__)

MAGIC = b"DSTRCKPT"
GRAPH_MAGIC = b"DSTRGRPH"
FORMAT_VERSION = 2
KEEP = 10
_NAME = re.compile(r"^checkpoint-(\d+)$")
_GRAPH_NAME = re.compile(r"^graph-([0-9a-f]+)$")
_TMP_NAME = re.compile(r"^(?:checkpoint-\d+|graph-[0-9a-f]+)\.tmp-(\d+)$")


@dataclass(frozen=True)
class CheckpointFile:
    time_ms: int
    data: dict[str, Any]
    graph: bytes
    path: str


def checkpoint_path(directory: str, time_ms: int) -> str:
    return os.path.join(directory, f"checkpoint-{time_ms}")


def graph_path(directory: str, digest: str) -> str:
    return os.path.join(directory, f"graph-{digest}")


def graph_digest(graph: bytes) -> str:
    return hashlib.blake2b(graph, digest_size=16).hexdigest()


def _write_atomically(directory: str, path: str, parts: tuple[bytes, ...]) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        for part in parts:
            f.write(part)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_directory(directory)


def write_graph(directory: str, graph: bytes) -> str:
    """Write the graph file once (it is content-addressed); returns its digest."""
    os.makedirs(directory, exist_ok=True)
    digest = graph_digest(graph)
    path = graph_path(directory, digest)
    if not os.path.exists(path):
        _write_atomically(directory, path, (GRAPH_MAGIC, graph))
    return digest


def write_checkpoint(directory: str, time_ms: int, data: dict[str, Any], graph: bytes, keep: int = KEEP,
                     digest: str | None = None, graph_crc: int | None = None) -> str:
    """Write the checkpoint of batch ``time_ms`` atomically; returns its path.

    ``digest`` and ``graph_crc``: the graph's, when the caller already wrote it with
    :func:`write_graph` and computed its CRC (a graph holding an initial state can be
    megabytes, and it is the same for every checkpoint of a run).
    """
    if digest is None:
        digest = write_graph(directory, graph)
    if graph_crc is None:
        graph_crc = zlib.crc32(graph)
    packed_data = msgpack.packb(data, use_bin_type=True)
    body = msgpack.packb({"format": FORMAT_VERSION, "time_ms": time_ms, "data": packed_data,
                          "crc": zlib.crc32(packed_data), "graph": digest, "graph_crc": graph_crc},
                         use_bin_type=True)
    path = checkpoint_path(directory, time_ms)
    _write_atomically(directory, path, (MAGIC, body))
    times = list_checkpoints(directory)
    for old in times[:-keep]:
        try:
            os.unlink(checkpoint_path(directory, old))
        except FileNotFoundError:
            pass
    _forget_unused_graphs(directory, digest, times[-keep:])
    _remove_dead_writers_files(directory)
    return path


def _remove_dead_writers_files(directory: str) -> None:
    """Temporary files of writers that crashed before their rename (never a live one's)."""
    for name in os.listdir(directory):
        found = _TMP_NAME.match(name)
        if found and not process_is_alive(int(found.group(1))):
            log.info("removing %s, left by a checkpoint writer that is gone", name)
            try:
                os.unlink(os.path.join(directory, name))
            except FileNotFoundError:
                pass


def _forget_unused_graphs(directory: str, current: str, kept: list[int]) -> None:
    digests = [m.group(1) for m in map(_GRAPH_NAME.match, os.listdir(directory)) if m]
    if len(digests) <= 1:
        return
    used = {current}
    for time_ms in kept:
        try:
            used.add(_read_header(checkpoint_path(directory, time_ms))["graph"])
        except (CheckpointError, KeyError):
            continue
    for digest in digests:
        if digest not in used:
            try:
                os.unlink(graph_path(directory, digest))
            except FileNotFoundError:
                pass


def list_checkpoints(directory: str) -> list[int]:
    """Batch times of the checkpoint files in ``directory``, oldest first."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    return sorted(int(m.group(1)) for m in map(_NAME.match, names) if m)


def _read_header(path: str) -> dict[str, Any]:
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
        found = body.get("format") if isinstance(body, dict) else "?"
        raise CheckpointError(f"checkpoint file {path} has format {found}, this version reads format {FORMAT_VERSION}")
    return body


def read_checkpoint(path: str) -> CheckpointFile:
    """Read and verify one checkpoint file and its graph; :class:`CheckpointError` says what is wrong."""
    body = _read_header(path)
    packed, digest = body.get("data"), body.get("graph")
    if not isinstance(packed, bytes) or not isinstance(digest, str):
        raise CheckpointError(f"checkpoint file {path} lacks its data or its graph reference")
    if zlib.crc32(packed) != body.get("crc"):
        raise CheckpointError(f"checkpoint file {path} fails its checksum (corrupted on disk)")
    gpath = graph_path(os.path.dirname(path), digest)
    try:
        with open(gpath, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise CheckpointError(f"the graph {gpath} of checkpoint {path} cannot be read: {exc}") from exc
    graph = raw[len(GRAPH_MAGIC):]
    if not raw.startswith(GRAPH_MAGIC) or zlib.crc32(graph) != body.get("graph_crc"):
        raise CheckpointError(f"the graph {gpath} of checkpoint {path} is corrupt (bad magic or checksum)")
    return CheckpointFile(int(body["time_ms"]), msgpack.unpackb(packed, raw=False, strict_map_key=False), graph, path)


def read_latest(directory: str,
                check: Callable[[CheckpointFile], None] | None = None) -> CheckpointFile | None:
    """The newest usable checkpoint, falling back past broken ones; ``None`` if there are none.

    ``check`` may refuse a readable checkpoint by raising :class:`CheckpointError`
    (recovery checks the RDD checkpoints it refers to); the previous one is then tried.

    Raises
    ------
    CheckpointError
        When checkpoint files exist but none is usable: names the directory and
        what is wrong with each file.
    """
    times = list_checkpoints(directory)
    problems: list[str] = []
    for time_ms in reversed(times):
        path = checkpoint_path(directory, time_ms)
        try:
            found = read_checkpoint(path)
            if check is not None:
                check(found)
        except CheckpointError as exc:
            log.warning("skipping unusable checkpoint: %s; trying the previous one", exc)
            problems.append(str(exc))
            continue
        return found
    if problems:
        raise CheckpointError(f"no usable checkpoint in {directory}: " + "; ".join(problems))
    return None
