"""The state of a streaming aggregation as an Arrow table: one row of buffers per group.

What this module owns
---------------------
:class:`AggregationState`, the state store of the aggregation operator (the other
stateful operators keep Python values in :mod:`.store`). A partition's state is an
Arrow table of the grouping keys and the merged aggregation buffers; a batch merges its
partial buffers into it with one Arrow group-by, evicts with one vectorised filter, and
emits slices of it, so no step touches a group in Python. On disk, under
``<checkpoint>/state/<operator>/<partition>/`` as the other stores:

* ``<v>.delta``: an Arrow IPC stream of the rows version ``v`` changed (upserted groups,
  and removed groups with ``__removed`` set);
* ``<v>.snapshot``: every row of version ``v``, every
  ``spark.sql.streaming.stateStore.minDeltasForSnapshot`` versions.

Invariants
----------
* Batch N reads version N and writes N+1 (``0`` is empty); a version is rebuilt from
  the newest snapshot at or before it and the deltas after it, a missing delta being an
  error naming the file. A re-run batch rewrites its delta (files are written under a
  temporary name and renamed).
* The worker process keeps the latest table per partition, reused only for the same
  run and version, until the run ends (:mod:`.residency`); tables are immutable, so an
  abandoned batch leaves nothing to undo.
* The layout is positional (keys, then buffers): each planning of a batch names the
  columns anew, so a table read back is renamed to the reader's names.
* Files not needed to rebuild the last ``spark.sql.streaming.minBatchesToRetain``
  versions are deleted after each commit.
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...errors import SparkRuntimeException
from ...execution.aggregate import encode_key
from ...execution.arrays import arange, constant
from . import files, residency
from .store import StateStoreConf, StateStoreId

__all__ = ["AggregationState", "REMOVED", "apply_delta", "memory_bytes", "read_state_table"]

#: The delta column marking a removed group.
REMOVED = "__removed"

_lock = threading.Lock()
#: (root, operator, partition, store name) -> (run id, version, table) of this process.
_cache: dict[tuple[str, int, int, str], tuple[str, int, pa.Table]] = {}
#: (root, operator, partition, store name) -> the files this process knows the directory holds.
_listings: dict[tuple[str, int, int, str], files.StoreFiles] = {}


def _key(store_id: StateStoreId) -> tuple[str, int, int, str]:
    return (store_id.root, store_id.operator_id, store_id.partition_id, store_id.store_name)


#: Schema metadata of every state file: how many leading columns are the keys.
_KEYS_META = b"dstreams.keys"


def _write_ipc(directory: str, name: str, table: pa.Table, keys: int) -> None:
    table = table.replace_schema_metadata({_KEYS_META: str(keys).encode()})
    # Serialized in memory, then written with one call: a state file is small, and opening
    # it through Arrow's file layer costs more than the bytes (a delta is written per batch).
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    data = sink.getvalue()
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(directory, name))
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _read_ipc(path: str) -> pa.Table:
    with pa.memory_map(path) as source:
        return pa.ipc.open_stream(source).read_all()


def _group_ids(table: pa.Table, key_names: Sequence[str]) -> dict[str, pa.Array]:
    cols: dict[str, pa.Array] = {}
    for i, name in enumerate(key_names):
        encode_key(f"k{i}", table.column(name).combine_chunks(), cols)
    return cols


def apply_delta(table: pa.Table, delta: pa.Table, key_names: Sequence[str]) -> pa.Table:
    """``table`` with ``delta``'s rows upserted and its removed keys dropped (last row per key wins)."""
    both = pa.concat_tables([table.append_column(REMOVED, constant(table.num_rows, False, pa.bool_())),
                             delta.select(table.column_names + [REMOVED])], promote_options="permissive")
    if not key_names:
        last = both.slice(both.num_rows - 1, 1) if both.num_rows else both
    else:
        cols = _group_ids(both, key_names)
        cols["__row"] = arange(both.num_rows)
        rows = pa.table(cols).group_by([c for c in cols if c != "__row"], use_threads=False) \
            .aggregate([("__row", "max")]).column("__row_max")
        last = both.take(rows.take(pc.sort_indices(rows)))
    kept = last.filter(pc.invert(last.column(REMOVED)))
    return kept.drop_columns([REMOVED])


class AggregationState:
    """One partition's aggregation state at one version (see the module docstring).

    Parameters
    ----------
    store_id : StateStoreId
        Where the partition's files are.
    version : int
        The version to read (the batch id).
    run_id : str
        The query run (the in-process table is reused only within one run).
    conf : StateStoreConf
        Snapshot and retention settings.
    empty : pyarrow.Table
        An empty table of the state's layout (key columns, then buffers).
    key_names : sequence of str
        The key columns of ``empty``.
    """

    def __init__(self, store_id: StateStoreId, version: int, run_id: str, conf: StateStoreConf, empty: pa.Table,
                 key_names: Sequence[str], use_cache: bool = True) -> None:
        self.store_id = store_id
        self.version = version
        self.run_id = run_id
        self.conf = conf
        self.key_names = list(key_names)
        self.directory = store_id.path()
        with _lock:
            cached = _cache.get(_key(store_id)) if use_cache else None
        self._from_cache = cached is not None and cached[0] == run_id and cached[1] == version
        if cached is not None and self._from_cache:
            table = cached[2]
        else:
            table = self._rebuild(empty)
        # Columns are named by the planning that wrote them: the layout is positional.
        self.table = table if table.column_names == empty.column_names else table.rename_columns(empty.column_names)

    def _rebuild(self, empty: pa.Table) -> pa.Table:
        if self.version == 0:
            return empty
        found = files.list_store_dir(self.directory)
        base = found.newest_snapshot(self.version)
        names = empty.column_names
        table = empty if base == 0 else \
            _read_ipc(os.path.join(self.directory, files.snapshot_name(base))).rename_columns(names)
        for v in range(base + 1, self.version + 1):
            path = os.path.join(self.directory, files.delta_name(v))
            if not os.path.exists(path):
                raise SparkRuntimeException(
                    f"Error reading delta file {path} of the state of operator {self.store_id.operator_id}, "
                    f"partition {self.store_id.partition_id}: it does not exist, so version {self.version} "
                    f"cannot be rebuilt. The checkpoint {self.store_id.root} is damaged or incomplete: restore it, "
                    "or start the query on a new checkpointLocation.",
                    "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS", {"fileToRead": path})
            delta = _read_ipc(path).rename_columns(names + [REMOVED])
            table = apply_delta(table, delta.cast(pa.schema(list(empty.schema) + [pa.field(REMOVED, pa.bool_())])),
                                self.key_names)
        return table.cast(empty.schema) if table.schema != empty.schema else table

    def commit(self, table: pa.Table, upserted: pa.Table, removed: pa.Table) -> None:
        """Make ``table`` version ``version + 1``: its delta holds ``upserted`` rows and ``removed`` keys."""
        new_version = self.version + 1
        with _lock:
            found = _listings.pop(_key(self.store_id), None) if self._from_cache else None
        if found is None:
            # Listed when this process did not write the previous version itself (a restart,
            # a partition moved from another worker): another writer's files are possible.
            os.makedirs(self.directory, exist_ok=True)
            found = files.list_store_dir(self.directory)
            files.remove_crashed_temps(self.directory, found)
        stale = ([files.snapshot_name(s) for s in found.snapshots if s >= new_version]
                 + [files.delta_name(d) for d in found.deltas if d > new_version])
        if stale:
            files.remove_files(self.directory, stale)
        found.snapshots = {s for s in found.snapshots if s < new_version}
        found.deltas = {d for d in found.deltas if d <= new_version}
        flags = pa.concat_arrays([constant(upserted.num_rows, False, pa.bool_()),
                                  constant(removed.num_rows, True, pa.bool_())])
        padded = pa.table({name: pa.nulls(removed.num_rows, table.schema.field(name).type)
                           if name not in removed.column_names else removed.column(name)
                           for name in table.column_names})
        if padded.schema != table.schema:
            padded = padded.cast(table.schema)
        delta = pa.concat_tables([upserted.select(table.column_names), padded])
        _write_ipc(self.directory, files.delta_name(new_version), delta.append_column(REMOVED, flags),
                   len(self.key_names))
        found.deltas.add(new_version)
        if new_version - found.newest_snapshot(new_version) >= self.conf.min_deltas_for_snapshot:
            _write_ipc(self.directory, files.snapshot_name(new_version), table, len(self.key_names))
            found.snapshots.add(new_version)
        obsolete = files.obsolete_files(found, new_version, self.conf.min_batches_to_retain)
        if obsolete:
            files.remove_files(self.directory, obsolete)
            gone = set(obsolete)
            found.deltas = {d for d in found.deltas if files.delta_name(d) not in gone}
            found.snapshots = {s for s in found.snapshots if files.snapshot_name(s) not in gone}
        self.version = new_version
        self.table = table
        with _lock:
            _cache[_key(self.store_id)] = (self.run_id, new_version, table)
            _listings[_key(self.store_id)] = found


def read_state_table(store_id: StateStoreId, version: int) -> pa.Table:
    """Version ``version`` of a partition's aggregation state, read from its files (no cache; tools, tests)."""
    directory = store_id.path()
    found = files.list_store_dir(directory)
    names = ([files.snapshot_name(s) for s in sorted(found.snapshots)]
             + [files.delta_name(d) for d in sorted(found.deltas)])
    if not names:
        raise SparkRuntimeException(f"No state files in {directory}: nothing to read for version {version}.")
    schema = pa.ipc.open_stream(pa.memory_map(os.path.join(directory, names[0]))).schema
    keys = int((schema.metadata or {}).get(_KEYS_META, b"0"))
    fields = [f for f in schema if f.name != REMOVED]
    empty = pa.schema(fields).empty_table()
    return AggregationState(store_id, version, "", StateStoreConf(), empty, [f.name for f in fields[:keys]],
                            use_cache=False).table


def memory_bytes(table: pa.Table) -> int:
    """The bytes a state table holds."""
    return int(table.nbytes)


def _forget_run(root: str, run_id: str) -> None:
    with _lock:
        for key in [k for k, (run, _, _) in _cache.items() if k[0] == root and run == run_id]:
            del _cache[key]
            _listings.pop(key, None)


residency.on_release(_forget_run)


def cached_tables() -> dict[tuple[str, int, int, str], Any]:
    """The tables this process holds (tests)."""
    with _lock:
        return dict(_cache)
