"""The state store's files: ``<v>.delta`` and ``<v>.snapshot``, msgpack records, written atomically.

What this module owns
---------------------
The on-disk format of one store directory (``<root>/<op>/<part>[/<name>]``): the names of
its files (:func:`delta_name`, :func:`snapshot_name`, :func:`list_store_dir`), writing a
file so that it appears complete or not at all (:func:`write_atomic`), reading one into
a dict (:func:`read_snapshot`, :func:`apply_delta`), removing what a crashed writer left (:func:`remove_crashed_temps`)
and choosing the files retention no longer needs (:func:`obsolete_files`).
:mod:`~dstream.sql.streaming.state.store` decides *when* to do each of these.

Format
------
A file is a bare sequence of msgpack objects, one per record, with no header or footer:

* ``[key, value]``: in ``<v>.delta``, a put; in ``<v>.snapshot``, an entry;
* ``[key]``: in ``<v>.delta`` only, a removal.

A delta holds at most one record per key, so its records may be replayed in any order.
Written with ``use_bin_type=True`` (``bytes`` and ``str`` stay apart), read with
``raw=False, strict_map_key=False, use_list=False``: every msgpack array comes back a
tuple, which is exactly what a key is (nested tuples included) at no cost per key;
arrays inside *values* are turned back into lists, the form :meth:`StateStore.put
<dstream.sql.streaming.state.store.StateStore.put>` normalises values to, so a value
reads the same from the in-memory cache and from disk.

Invariants
----------
* A file is written under a temporary name ``.<final>.<pid>.<hex>.tmp`` in its own
  directory, then moved into place with ``os.replace`` (overwriting is allowed: a
  re-run batch rewrites its delta). A reader never sees a partial ``<v>.delta`` or
  ``<v>.snapshot``. Nothing is fsynced: like the query's logs, the state survives a
  crash of the process (what the rename guarantees), not of the machine; an fsync per
  file would cost more than a small micro-batch.
* A temporary file whose pid is not a live process on this machine belongs to a writer
  that crashed; the next commit in the directory removes it. A live pid's temporary
  file is left alone: another attempt of the same task may be writing it.
* A file that ends inside a record, or holds something other than 1- or 2-element
  arrays, is reported as corrupted, naming it; it is never read partially.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import msgpack

from rdd.engine_api import process_is_alive

from ...errors import SparkRuntimeException

__all__ = ["DELTA", "SNAPSHOT", "StoreFiles", "apply_delta", "delta_name", "from_disk",
           "list_store_dir", "obsolete_files", "read_snapshot", "remove_crashed_temps", "remove_files",
           "snapshot_name", "write_atomic"]

DELTA = "delta"
SNAPSHOT = "snapshot"

_FILE = re.compile(r"^(\d+)\.(delta|snapshot)$")
_TEMP = re.compile(r"^\.(\d+)\.(delta|snapshot)\.(\d+)\.[0-9a-f]+\.tmp$")
_WRITE_BUFFER = 1 << 20
_READ_SIZE = 1 << 20
#: Records packed per write: bounds the memory of one packed chunk to a few MB.
_PACK_CHUNK = 1 << 14
_CONTAINERS = (tuple, dict)


def delta_name(version: int) -> str:
    """``<version>.delta``: the changes that turn version ``version - 1`` into ``version``."""
    return f"{version}.{DELTA}"


def snapshot_name(version: int) -> str:
    """``<version>.snapshot``: every entry of version ``version``."""
    return f"{version}.{SNAPSHOT}"


@dataclass
class StoreFiles:
    """What one store directory holds: the versions of its deltas and snapshots, and temp files."""

    deltas: set[int] = field(default_factory=set)
    snapshots: set[int] = field(default_factory=set)
    #: ``(file name, writer pid)`` of each temporary file.
    temps: list[tuple[str, int]] = field(default_factory=list)

    def newest_snapshot(self, at_most: int) -> int:
        """The newest snapshot version ``<= at_most``; 0 (the empty version 0) if there is none."""
        return max((s for s in self.snapshots if s <= at_most), default=0)


def list_store_dir(directory: str) -> StoreFiles:
    """The files of a store directory (an absent directory holds none)."""
    found = StoreFiles()
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return found
    for name in names:
        m = _FILE.match(name)
        if m:
            (found.deltas if m.group(2) == DELTA else found.snapshots).add(int(m.group(1)))
            continue
        t = _TEMP.match(name)
        if t:
            found.temps.append((name, int(t.group(3))))
    return found


def remove_crashed_temps(directory: str, found: StoreFiles) -> list[str]:
    """Remove the temporary files of writers that are no longer running; return their names."""
    removed = []
    for name, pid in found.temps:
        if not process_is_alive(pid):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, name))
            removed.append(name)
    found.temps = [(n, p) for n, p in found.temps if n not in removed]
    return removed


def remove_files(directory: str, names: Iterable[str]) -> bool:
    """Remove ``names`` from ``directory`` (absent ones are fine); whether any existed."""
    any_removed = False
    for name in names:
        try:
            os.unlink(os.path.join(directory, name))
            any_removed = True
        except FileNotFoundError:
            pass
    return any_removed


def obsolete_files(found: StoreFiles, latest: int, min_versions_to_retain: int) -> list[str]:
    """The files not needed to rebuild any version ``>= latest - min_versions_to_retain``.

    Rebuilding version ``v`` reads the newest snapshot ``s <= v`` and the deltas
    ``s+1 .. v``. With ``oldest = latest - min_versions_to_retain`` and ``base`` the newest
    snapshot ``<= oldest``, every version from ``oldest`` up needs only ``base``, later
    snapshots and deltas after ``base``: deltas ``<= base`` and snapshots ``< base`` go.
    Without such a snapshot every delta up to ``oldest`` is still needed.
    """
    oldest = latest - min_versions_to_retain
    base = found.newest_snapshot(oldest) if oldest > 0 else 0
    if base == 0:
        return []
    return ([delta_name(v) for v in sorted(found.deltas) if v <= base]
            + [snapshot_name(s) for s in sorted(found.snapshots) if s < base])


def write_atomic(directory: str, name: str, records: Iterable[Any]) -> None:
    """Write ``records`` (msgpack-able sequences) as ``directory/name``, complete or not at all.

    Raises
    ------
    TypeError
        A record holds a value msgpack cannot store (the message names its key); nothing
        is left on disk.
    """
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    pack = msgpack.Packer(use_bin_type=True).pack
    pending = iter(records)
    try:
        with open(tmp, "wb", buffering=_WRITE_BUFFER) as f:
            write = f.write
            # Packed a chunk at a time by map() and one write: no Python step per record.
            while chunk := list(itertools.islice(pending, _PACK_CHUNK)):
                try:
                    write(b"".join(map(pack, chunk)))
                except (TypeError, ValueError, OverflowError):
                    _raise_unpackable(chunk, pack, name)
                    raise
        os.replace(tmp, os.path.join(directory, name))
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _raise_unpackable(chunk: list[Any], pack: Any, name: str) -> None:
    """Raise the TypeError that names the first record of ``chunk`` msgpack cannot store."""
    for record in chunk:
        try:
            pack(record)
        except (TypeError, ValueError, OverflowError) as exc:
            key = record[0] if isinstance(record, (tuple, list)) and record else record
            raise TypeError(
                f"state entry with key {key!r} cannot be written to {name}: {exc}. Keys are tuples and "
                "values lists, tuples or dicts of None, bool, int (64-bit), float, str and bytes; convert "
                "other values (a datetime to epoch microseconds, a Decimal to str) before storing them"
            ) from exc


def from_disk(value: Any) -> Any:
    """A value as read (arrays as tuples) in its stored form (arrays as lists)."""
    if type(value) is tuple:
        return [from_disk(v) if type(v) in _CONTAINERS else v for v in value]
    if type(value) is dict:
        return {k: from_disk(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    return value


def _corrupted(path: str, rule: str) -> SparkRuntimeException:
    return SparkRuntimeException(
        f"The state file {path} is corrupted: {rule}. State files are written atomically, so it was damaged "
        "after it was written (a disk error, or a file copied partially). Restore the checkpoint directory "
        "from a complete copy, or start the query with a new checkpointLocation.",
        errorClass="CANNOT_LOAD_STATE_STORE.CANNOT_READ_STREAMING_STATE_FILE",
        messageParameters={"fileToRead": path})


def _unpacker(f: BinaryIO) -> msgpack.Unpacker:
    return msgpack.Unpacker(f, use_list=False, raw=False, strict_map_key=False, read_size=_READ_SIZE,
                            max_buffer_size=0)


def _check_end(path: str, unpacker: msgpack.Unpacker) -> None:
    # The iteration also stops when the file ends inside a record: the unpacker then
    # holds the partial record and refuses to hand out raw bytes.
    try:
        trailing = unpacker.read_bytes(1)
    except ValueError as exc:
        raise _corrupted(path, "it ends inside a record") from exc
    if trailing:
        raise _corrupted(path, "it has bytes after its last record")


def _bad_key(path: str, record: Any) -> SparkRuntimeException:
    return _corrupted(path, f"its record {record!r} does not start with a key (an array)")


def read_snapshot(path: str) -> dict[Any, Any]:
    """The entries of a snapshot file."""
    data: dict[Any, Any] = {}
    with open(path, "rb") as f:
        unpacker = _unpacker(f)
        try:
            # dict.update walks the records in C: the restore's hot loop has no Python step
            # per record; the records' shape is checked by it (pairs) and below (keys).
            data.update(unpacker)
        except (ValueError, TypeError) as exc:  # not msgpack, or a record that is not a pair
            raise _corrupted(path, f"it holds something other than [key, value] records ({exc})") from exc
        _check_end(path, unpacker)
    for key, value in data.items():
        if type(value) is tuple:
            # Inlined from_disk for the common value, a flat array (an aggregate's buffers).
            flat = list(value)
            for part in flat:
                if type(part) in _CONTAINERS:
                    flat = from_disk(value)
                    break
            data[key] = flat
        elif type(value) is dict:
            data[key] = from_disk(value)
        if type(key) is not tuple:
            raise _bad_key(path, (key, value))
    return data


def apply_delta(path: str, data: dict[Any, Any]) -> None:
    """Apply the puts and removals of a delta file to ``data``."""
    pop = data.pop
    with open(path, "rb") as f:
        unpacker = _unpacker(f)
        try:
            for record in unpacker:
                if type(record) is not tuple or type(record[0]) is not tuple:
                    raise _bad_key(path, record)
                if len(record) == 2:
                    value = record[1]
                    if type(value) is tuple:
                        # Inlined from_disk for the common value, a flat array (an aggregate's buffers).
                        flat = list(value)
                        for part in flat:
                            if type(part) in _CONTAINERS:
                                flat = from_disk(value)
                                break
                        value = flat
                    elif type(value) is dict:
                        value = from_disk(value)
                    data[record[0]] = value
                elif len(record) == 1:
                    pop(record[0], None)
                else:
                    raise _corrupted(path, f"it holds the record {record!r} where [key, value] or [key] was expected")
        except (ValueError, IndexError, TypeError) as exc:  # not msgpack, an empty array, a map in a key
            raise _corrupted(path, f"it holds something other than [key, value] and [key] records ({exc})") from exc
        _check_end(path, unpacker)
