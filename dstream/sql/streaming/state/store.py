"""The state store: a versioned key/value map per (operator, partition, store name), kept on disk.

What this module owns
---------------------
:class:`StateStore`, the map a stateful operator's task reads and updates for one
shuffle partition, :func:`get_store` (opening version ``N`` in batch ``N``),
:func:`read_state` (an uncached read, for tests and tools), :class:`StateStoreId`,
:class:`StateStoreConf`, and the per-process cache of loaded maps. The file format is
:mod:`~dstream.sql.streaming.state.files`'.

Versions
--------
Version 0 is the empty map. Batch ``N`` opens version ``N`` and :meth:`StateStore.commit`
writes ``<N+1>.delta``, producing version ``N + 1``. A re-run batch (after a crash, or a
retried task) opens ``N`` again and rewrites ``<N+1>.delta``. After a commit that leaves
``min_deltas_for_snapshot`` or more deltas after the newest snapshot, ``<N+1>.snapshot``
holds the whole map; then the files no longer needed to rebuild any version
``>= N + 1 - min_batches_to_retain`` are deleted (see :func:`files.obsolete_files
<dstream.sql.streaming.state.files.obsolete_files>`).

Invariants
----------
* Rebuilding version ``v`` reads the newest ``<s>.snapshot`` with ``s <= v`` and replays
  ``<s+1>.delta .. <v>.delta``; a missing delta is an error naming the file, the version
  and the checkpoint, never an empty or partial map.
* After ``commit()`` returns version ``v``, no file of a version above ``v`` and no
  snapshot at ``v`` from an earlier attempt is on disk: files of a superseded run
  (a batch re-run after a restart) cannot shadow the new delta chain.
* ``abort()`` leaves nothing on disk and puts the map back at the opened version.
* The cache holds at most one map per store id, at one (run id, version): the version a
  commit produced, or the opened one after an abort. It is reused only by a
  :func:`get_store` with the same run id and version; any other request rebuilds from
  disk. A map that a :class:`StateStore` has open is out of the cache, so two stores
  never share a map (a concurrent open of the same id rebuilds its own).
* No copy of the map per version: changes are made in place and an undo log (each
  changed key's value before the first change) restores the map on abort and gives the
  delta's records on commit, so a batch costs O(keys it changed), plus a snapshot every
  ``min_deltas_for_snapshot`` batches.
* Values are normalised on ``put`` (tuples become lists, recursively) and taken as the
  store's own: never change a value in place after ``put`` or one ``get`` returned; put
  a new value instead.

A :class:`StateStore` is used by one task (one thread); the cache is shared by the
threads of a process (tasks run in the driver's threads under master ``local``) and is
guarded by a lock. Each worker process has its own cache.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import IllegalArgumentException, SparkRuntimeException
from . import files, residency
from .collector import collector_paused

__all__ = ["StateLocation", "StateStore", "StateStoreConf", "StateStoreId", "clear_cache", "get_store", "read_state"]

_log = logging.getLogger(__name__)

_STORE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_SCALARS = frozenset({type(None), bool, int, float, str, bytes})
#: Entries measured to estimate a map's memory (see :meth:`StateStore.metrics`).
_MEMORY_SAMPLE = 32


class _Absent:
    """The undo log's mark of a key that was not in the map when the version was opened."""

    def __repr__(self) -> str:
        return "<absent>"


_ABSENT = _Absent()


@dataclass(frozen=True)
class StateStoreId:
    """Which store: an operator's state for one shuffle partition.

    Parameters
    ----------
    root : str
        The query's state directory, ``<checkpoint>/state``.
    operator_id : int
        The stateful operator's id in the query plan.
    partition_id : int
        The shuffle partition.
    store_name : str, default "default"
        An operator with several stores (a stream-stream join) names them; letters,
        digits, ``-`` and ``_``, starting with a letter.
    """

    root: str
    operator_id: int
    partition_id: int
    store_name: str = "default"

    def __post_init__(self) -> None:
        if not _STORE_NAME.match(self.store_name):
            raise IllegalArgumentException(
                f"State store name {self.store_name!r} is not allowed: a store name is letters, digits, '-' and "
                "'_', starting with a letter (it becomes a directory next to the store's files). Use a name "
                "such as 'left-keyToNumValues'.")
        if self.operator_id < 0 or self.partition_id < 0:
            raise IllegalArgumentException(
                f"State store ids must be >= 0, got operator {self.operator_id} and partition {self.partition_id}.")

    def path(self) -> str:
        """The store's directory: ``root/operator/partition``, plus ``/store_name`` unless ``"default"``."""
        path = os.path.join(self.root, str(self.operator_id), str(self.partition_id))
        return path if self.store_name == "default" else os.path.join(path, self.store_name)

    def checkpoint(self) -> str:
        """The checkpoint directory the store belongs to (the parent of a root named ``state``)."""
        root = os.path.normpath(self.root)
        return os.path.dirname(root) if os.path.basename(root) == "state" else root


_MIN_DELTAS = "spark.sql.streaming.stateStore.minDeltasForSnapshot"
_MIN_BATCHES = "spark.sql.streaming.minBatchesToRetain"


def _positive_int(conf: Mapping[str, Any], key: str, default: int) -> int:
    raw = conf.get(key)
    if raw is None:
        return default
    value: int | None = None
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif isinstance(raw, str) and re.fullmatch(r"\s*[+-]?\d+\s*", raw):
        value = int(raw)
    if value is None or value < 1:
        raise IllegalArgumentException(
            f"{key} must be a positive integer (1 or more), got {raw!r}. Set it to a whole number such as "
            f"{default} (the default), or unset it.")
    return value


@dataclass(frozen=True)
class StateStoreConf:
    """The settings a state store reads.

    Parameters
    ----------
    min_deltas_for_snapshot : int, default 10
        ``spark.sql.streaming.stateStore.minDeltasForSnapshot``: a commit that leaves this
        many deltas after the newest snapshot also writes a snapshot.
    min_batches_to_retain : int, default 100
        ``spark.sql.streaming.minBatchesToRetain``: every version from the latest minus
        this many stays rebuildable from the files kept.
    """

    min_deltas_for_snapshot: int = 10
    min_batches_to_retain: int = 100

    @classmethod
    def from_conf(cls, conf: Mapping[str, Any]) -> StateStoreConf:
        """Read the settings from a session's conf (missing keys take the defaults).

        Raises
        ------
        IllegalArgumentException
            A value is not a positive integer; the message names the key and the value.
        """
        return cls(_positive_int(conf, _MIN_DELTAS, cls.min_deltas_for_snapshot),
                   _positive_int(conf, _MIN_BATCHES, cls.min_batches_to_retain))


@dataclass
class _Loaded:
    run_id: str
    version: int
    data: dict[Any, Any]


_cache: dict[StateStoreId, _Loaded] = {}
_cache_lock = threading.Lock()


def _new_lock_after_fork() -> None:
    # A fork while another thread held the lock would leave it held forever in the child.
    global _cache_lock
    _cache_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_after_fork)


def clear_cache(root: str | None = None, run_id: str | None = None) -> None:
    """Forget this process's loaded maps (of the stores under ``root``, or all; of run ``run_id``
    only, if given): the next open reads disk."""
    with _cache_lock:
        for store_id in [s for s, loaded in _cache.items()
                         if (root is None or s.root == root) and (run_id is None or loaded.run_id == run_id)]:
            del _cache[store_id]


residency.on_release(clear_cache)  # a run's end: its maps under its state root


def _missing_delta(store_id: StateStoreId, version: int, missing: int, base: int) -> SparkRuntimeException:
    file = os.path.join(store_id.path(), files.delta_name(missing))
    start = f"the snapshot {files.snapshot_name(base)}" if base else "the empty version 0 (there is no snapshot)"
    return SparkRuntimeException(
        f"Cannot load version {version} of the state store {store_id.path()} (operator {store_id.operator_id}, "
        f"partition {store_id.partition_id}, store {store_id.store_name!r}): the delta file {file} does not exist. "
        f"Version {version} is rebuilt from {start} and every delta after it. The checkpoint "
        f"{store_id.checkpoint()} is damaged or incomplete (state files deleted, or the directory copied "
        "partially): restore it from a complete copy, or start the query with a new checkpointLocation "
        "(its state then starts empty).",
        errorClass="CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS",
        messageParameters={"fileToRead": file, "version": str(version), "checkpoint": store_id.checkpoint()})


def _rebuild(store_id: StateStoreId, version: int) -> dict[Any, Any]:
    """Version ``version`` read from disk: the newest snapshot at or below it, then the deltas after it."""
    if version == 0:
        return {}
    directory = store_id.path()
    found = files.list_store_dir(directory)
    base = found.newest_snapshot(version)
    for missing in range(base + 1, version + 1):
        if missing not in found.deltas:
            raise _missing_delta(store_id, version, missing, base)
    current = base
    try:
        # Every record read makes objects that all survive: see collector_paused.
        with collector_paused():
            data = files.read_snapshot(os.path.join(directory, files.snapshot_name(base))) if base else {}
            for current in range(base + 1, version + 1):
                files.apply_delta(os.path.join(directory, files.delta_name(current)), data)
    except FileNotFoundError:  # removed by a cleanup between the listing and the read
        raise _missing_delta(store_id, version, current, base) from None
    return data


def _check_version(version: int) -> None:
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise IllegalArgumentException(f"A state store version is an int >= 0 (0 is the empty store), got {version!r}.")


@dataclass(frozen=True)
class StateLocation:
    """Where one stateful operator's stores are, and the version its batch reads (shipped with its tasks)."""

    root: str
    operator_id: int
    version: int
    run_id: str
    conf: StateStoreConf
    #: The run's residency scope (:mod:`.residency`): what the run caches in a worker is
    #: dropped when the run ends; -1 for a location outside a run.
    scope: int = -1

    @classmethod
    def of(cls, info: Any, operator_id: int) -> StateLocation:
        """The location of operator ``operator_id`` in a micro-batch (``info``: its ``MicroBatchInfo``)."""
        return cls(info.state_root, operator_id, info.batch_id, info.run_id, StateStoreConf.from_conf(info.conf),
                   info.state_scope)

    def note_resident(self) -> None:
        """Record that this run's state is cached in this process (a task is about to open a store)."""
        residency.note(self.scope, self.root, self.run_id)

    def store_id(self, partition: int, name: str = "default") -> StateStoreId:
        """The id of one partition's store (``name`` for operators with several stores a partition)."""
        return StateStoreId(self.root, self.operator_id, partition, name)

    def open(self, partition: int, name: str = "default") -> StateStore:
        """The batch's version of one partition's store, opened for update."""
        self.note_resident()
        return get_store(self.store_id(partition, name), self.version, self.run_id, self.conf)


def get_store(store_id: StateStoreId, version: int, run_id: str, conf: StateStoreConf) -> StateStore:
    """Open version ``version`` of a store, for the task of batch ``version``.

    Parameters
    ----------
    store_id : StateStoreId
        The store.
    version : int
        The version to open: the batch id (0 is the empty store).
    run_id : str
        The query run's id; a map cached by another run is never reused.
    conf : StateStoreConf
        Snapshot and retention settings, applied on commit.

    Returns
    -------
    StateStore
        The store, open for updates.

    Raises
    ------
    SparkRuntimeException
        A file the version needs is missing or corrupted (the message names it).
    """
    _check_version(version)
    with _cache_lock:
        loaded = _cache.pop(store_id, None)
    if loaded is not None and loaded.run_id == run_id and loaded.version == version:
        data = loaded.data
    else:
        data = _rebuild(store_id, version)
    return StateStore(store_id, version, run_id, conf, data)


def read_state(store_id: StateStoreId, version: int) -> dict[Any, Any]:
    """Version ``version`` of a store, read from disk (the cache is neither used nor changed).

    Raises
    ------
    SparkRuntimeException
        A file the version needs is missing or corrupted.
    """
    _check_version(version)
    return _rebuild(store_id, version)


def _check_key(key: Any, whole: Any) -> None:
    if type(key) is not tuple:
        raise TypeError(f"A state key is a tuple, got {type(whole).__name__} {whole!r}; wrap it: (key,).")
    for part in key:
        if type(part) not in _SCALARS:
            if type(part) is tuple:
                _check_key(part, whole)
            else:
                raise TypeError(
                    f"State key {whole!r} holds a {type(part).__name__}: keys are tuples of None, bool, int, float, "
                    "str, bytes and tuples of them. Convert the value (a datetime to epoch microseconds, a Decimal "
                    "to str) first.")


def _stored_value(value: Any, key: Any) -> Any:
    """``value`` as the store keeps it: containers copied, tuples as lists (what a read from disk gives)."""
    t = type(value)
    if t in _SCALARS:
        return value
    if t is list or t is tuple:
        return [v if type(v) in _SCALARS else _stored_value(v, key) for v in value]
    if t is dict:
        out = {}
        for k, v in value.items():
            if type(k) not in _SCALARS or k is None:
                raise TypeError(f"The state value for key {key!r} is a dict with the key {k!r}: dict keys in state "
                                "values are bool, int, float, str or bytes.")
            out[k] = v if type(v) in _SCALARS else _stored_value(v, key)
        return out
    raise TypeError(
        f"The state value for key {key!r} holds a {t.__name__} ({value!r}): values are None, bool, int, float, "
        "str, bytes, and lists, tuples and dicts of them. Convert it first (a datetime to epoch microseconds, "
        "a Decimal to str, a Row to a list).")


def _deep_size(obj: Any, depth: int = 0) -> int:
    size = sys.getsizeof(obj)
    if depth < 3:
        if type(obj) is tuple or type(obj) is list:
            size += sum(_deep_size(x, depth + 1) for x in obj)
        elif type(obj) is dict:
            size += sum(_deep_size(k, depth + 1) + _deep_size(v, depth + 1) for k, v in obj.items())
    return size


def _estimate_memory(data: dict[Any, Any]) -> int:
    # The dict's own table is measured exactly; the entries by the average size of the
    # first _MEMORY_SAMPLE (keys and values, three levels deep), times the count. Shared
    # objects (small ints, interned strings) are counted per use, so it errs on the high side.
    sample = list(itertools.islice(data.items(), _MEMORY_SAMPLE))
    if not sample:
        return sys.getsizeof(data)
    per_entry = sum(_deep_size(k) + _deep_size(v) for k, v in sample) / len(sample)
    return sys.getsizeof(data) + int(per_entry * len(data))


_OPEN, _COMMITTED, _ABORTED = "open", "committed", "aborted"


class StateStore:
    """One version of a store, open in a task: read, change, then :meth:`commit` or :meth:`abort`.

    Made by :func:`get_store`. Reads (``get``, ``items``, ``len``, ``metrics``) stay
    allowed after ``commit`` and ``abort`` and see the map as they left it, until the
    store is opened again; changes are refused.

    Attributes
    ----------
    version : int
        The version opened; after :meth:`commit`, the version written.
    """

    def __init__(self, store_id: StateStoreId, version: int, run_id: str, conf: StateStoreConf,
                 data: dict[Any, Any]) -> None:
        self.id = store_id
        self.version = version
        self.run_id = run_id
        self.conf = conf
        self._data = data
        self._undo: dict[Any, Any] = {}
        self._state = _OPEN
        self._num_updated = 0
        self._num_removed = 0
        self._commit_time_ms = 0

    def _check_open(self, action: str) -> None:
        if self._state != _OPEN:
            raise SparkRuntimeException(
                f"Cannot {action} state store {self.id.path()}: version {self.version} was already {self._state}. "
                "Open the store again with get_store for the next version.")

    def get(self, key: tuple[Any, ...]) -> Any | None:
        """The value of ``key``, or ``None``."""
        return self._data.get(key)

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        """Set ``key`` to ``value`` (not ``None``; lists, tuples and dicts are copied, tuples as lists)."""
        if self._state is not _OPEN:
            self._check_open("put into")
        if type(key) is not tuple:
            _check_key(key, key)
        for part in key:  # the common flat key is checked here, without a call
            if type(part) not in _SCALARS:
                _check_key(key, key)
                break
        if value is None:
            raise TypeError(f"Cannot put None as the state value of {key!r}: remove the key instead.")
        t = type(value)
        if t is list or t is tuple:
            # The common value, a flat sequence (an aggregate's buffers), is copied here
            # without the two calls of _stored_value: operators put every key they touch.
            flat = list(value)
            for part in flat:
                if type(part) not in _SCALARS:
                    flat = _stored_value(value, key)
                    break
            value = flat
        elif t not in _SCALARS:
            value = _stored_value(value, key)
        data = self._data
        undo = self._undo
        if key not in undo:
            undo[key] = data.get(key, _ABSENT)
        data[key] = value

    def remove(self, key: tuple[Any, ...]) -> None:
        """Remove ``key`` (absent keys are fine)."""
        if self._state is not _OPEN:
            self._check_open("remove from")
        data = self._data
        if key in data:
            if key not in self._undo:
                self._undo[key] = data[key]
            del data[key]

    def items(self) -> Iterator[tuple[tuple[Any, ...], Any]]:
        """The entries, uncommitted changes included.

        The keys are taken when the iteration starts, so the loop may put and remove
        (evicting expired keys, say): a key removed meanwhile is skipped, one added is not seen.
        """
        data = self._data
        for key in list(data):
            value = data.get(key, _ABSENT)
            if value is not _ABSENT:
                yield key, value

    def entries(self) -> list[tuple[tuple[Any, ...], Any]]:
        """The entries as a list (uncommitted changes included): :meth:`items` copied at once."""
        return list(self._data.items())

    def __len__(self) -> int:
        return len(self._data)

    def _delta_records(self) -> Iterator[tuple[Any, ...]]:
        data = self._data
        updated = removed = 0
        for key, before in self._undo.items():
            now = data.get(key, _ABSENT)
            if now is not _ABSENT:
                updated += 1
                yield key, now
            elif before is not _ABSENT:
                removed += 1
                yield (key,)
        self._num_updated, self._num_removed = updated, removed

    def commit(self) -> int:
        """Write ``<version+1>.delta``, maybe a snapshot, drop files retention no longer needs.

        Returns
        -------
        int
            The version written, ``version + 1``.

        Raises
        ------
        TypeError
            A key holds something msgpack cannot store (an int beyond 64 bits); the store
            stays open, to be aborted.
        OSError
            The delta could not be written; the store stays open, to be aborted.
        """
        self._check_open("commit")
        started = time.perf_counter()
        new_version = self.version + 1
        directory = self.id.path()
        os.makedirs(directory, exist_ok=True)
        found = files.list_store_dir(directory)
        files.remove_crashed_temps(directory, found)
        # Files of a superseded attempt: deleted before the new delta exists, so no crash
        # can leave an old snapshot shadowing it.
        stale = ([files.snapshot_name(s) for s in found.snapshots if s >= new_version]
                 + [files.delta_name(d) for d in found.deltas if d > new_version])
        if stale:
            files.remove_files(directory, stale)
        found.snapshots = {s for s in found.snapshots if s < new_version}
        found.deltas = {d for d in found.deltas if d <= new_version}
        files.write_atomic(directory, files.delta_name(new_version), self._delta_records())
        found.deltas.add(new_version)
        self._undo = {}
        self.version = new_version
        self._state = _COMMITTED
        try:
            self._maintain(directory, found)
        except OSError as exc:  # the version is committed; a later commit snapshots and cleans again
            _log.warning("State store %s: snapshot or cleanup after version %d failed: %s", directory,
                         new_version, exc)
        self._commit_time_ms = int((time.perf_counter() - started) * 1000)
        self._return_to_cache()
        return new_version

    def _maintain(self, directory: str, found: files.StoreFiles) -> None:
        version = self.version
        if version - found.newest_snapshot(version) >= self.conf.min_deltas_for_snapshot:
            files.write_atomic(directory, files.snapshot_name(version), self._data.items())
            found.snapshots.add(version)
        obsolete = files.obsolete_files(found, version, self.conf.min_batches_to_retain)
        if obsolete:
            files.remove_files(directory, obsolete)

    def abort(self) -> None:
        """Forget the uncommitted changes: the map is back at the opened version (no-op after commit)."""
        if self._state != _OPEN:
            return
        data = self._data
        for key, before in self._undo.items():
            if before is _ABSENT:
                data.pop(key, None)
            else:
                data[key] = before
        self._undo = {}
        self._state = _ABORTED
        self._return_to_cache()

    def _return_to_cache(self) -> None:
        with _cache_lock:
            _cache[self.id] = _Loaded(self.run_id, self.version, self._data)

    def metrics(self) -> dict[str, int]:
        """``numKeys``, ``numUpdated``, ``numRemoved`` (of this version), ``memoryUsedBytes``, ``commitTimeMs``.

        ``numUpdated`` and ``numRemoved`` count keys, not calls: a key put twice is one
        update, a key put then removed that was absent before is neither. Before
        ``commit`` they describe the changes so far. ``memoryUsedBytes`` is an estimate:
        the dict's table plus the count times the mean deep ``sys.getsizeof`` of the
        first 32 entries.
        """
        if self._state == _OPEN:
            data = self._data
            updated = sum(1 for key in self._undo if key in data)
            removed = sum(1 for key, before in self._undo.items() if before is not _ABSENT and key not in data)
        else:
            updated, removed = self._num_updated, self._num_removed
        return {"numKeys": len(self._data), "numUpdated": updated, "numRemoved": removed,
                "memoryUsedBytes": _estimate_memory(self._data), "commitTimeMs": self._commit_time_ms}

    def __repr__(self) -> str:
        return f"StateStore({self.id.path()!r}, version={self.version}, {self._state}, {len(self._data)} keys)"
