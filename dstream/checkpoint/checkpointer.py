"""Checkpointer: writes a running stream's metadata checkpoints.

What this module owns
---------------------
* The graph is pickled and written **once**, at ``start()``: it cannot change
  afterwards, and this is where a function that captures the SparkContext or a
  StreamingContext (or anything else that cannot be pickled) is reported, naming it.
  Each checkpoint refers to the graph file by digest.
* Per checkpoint, only the data record is built (plain msgpack, see ``files.py``):
  batch and zero time, the batch times not yet completed, each input's position, each
  node's RDD checkpoint directories, the SparkContext's configuration.
* Checkpoints are taken after the jobs of a batch are generated and after a batch
  completes (Spark's ``DoCheckpoint`` points): the record is built at once, on the
  thread that reaches that point, and written by one writer thread in the order the
  records were taken (Spark's ``CheckpointWriter``), so neither submitting a batch
  nor starting the next one waits for a file and an fsync. A record older than the
  newest one written is skipped; ``close()`` (at stop) writes everything taken. A
  stream with receivers writes on the calling thread instead (``synchronous``): its
  received-block cleanup follows each write on the job thread, as it always has.
  Recovery does not depend on a record reaching the disk: a batch whose records were
  lost is found missing and re-run, and outputs are idempotent.
* RDD checkpoint directories that no kept metadata file refers to any more are
  deleted, so a long run does not fill the disk.
"""

from __future__ import annotations

import logging
import shutil
import threading
import zlib
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdd import DriverOnlyError, SerializationError
from rdd.engine_api import dumps_closure

from dstream.checkpoint.files import KEEP, write_checkpoint, write_graph
from dstream.errors import StreamingStateError

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["Checkpointer", "FORMAT", "RDDCheckpointCleaner", "checkpointed_rdds"]

log = logging.getLogger(__name__)

#: Version of the data record's layout (``files.FORMAT_VERSION`` is the file's).
FORMAT = 1

_SAVED_CONF_PREFIXES = ("spark.",)
_UNSAVED_CONF = {"spark.master", "spark.app.name"}  # saved separately


def pickle_graph(graph: DStreamGraph) -> bytes:
    """Pickle the graph; errors say which function or object cannot be saved."""
    try:
        return dumps_closure(graph, "the DStream graph (for checkpointing)")
    except (SerializationError, DriverOnlyError) as exc:
        if isinstance(exc.__cause__, StreamingStateError):  # a node that refuses, with its own fix
            raise StreamingStateError(f"the DStream graph cannot be checkpointed: {exc.__cause__}") from exc.__cause__
        raise StreamingStateError(
            f"the DStream graph cannot be checkpointed: {exc} (Functions given to DStream operations are "
            "saved in the checkpoint so the stream can be recovered; inside transform/foreachRDD use "
            "rdd.context instead of capturing the SparkContext or StreamingContext.)"
        ) from exc


def checkpointed_rdds(graph: DStreamGraph) -> dict[int, dict[int, str]]:
    """Node id -> batch time -> RDD checkpoint directory, for the RDDs the streams remember."""
    nodes: dict[int, dict[int, str]] = {}
    with graph.lock:
        for node in graph.nodes:
            files = node.checkpoint_files()
            if files:
                nodes[node.id] = files
    return nodes


class RDDCheckpointCleaner:
    """Deletes the RDD checkpoint directories that the reference sets of the last
    ``keep`` batch times (one per metadata checkpoint file, or per batch without
    metadata checkpoints) no longer name: the streams forgot those RDDs and no
    checkpoint kept on disk refers to them.

    Keyed by batch time because a batch's second checkpoint (after it completes)
    replaces the file of its first one: the files on disk are the last ``keep`` times.
    """

    def __init__(self, keep: int) -> None:
        self._keep = keep
        self._referenced: dict[int, set[str]] = {}
        self._known: set[str] = set()
        self._lock = threading.Lock()

    def retain(self, time_ms: int, referenced: set[str]) -> None:
        with self._lock:
            self._referenced[time_ms] = referenced
            for old in sorted(self._referenced)[:-self._keep]:
                del self._referenced[old]
            self._known |= referenced
            live = set().union(*self._referenced.values())
            for directory in sorted(self._known - live):
                shutil.rmtree(directory, ignore_errors=True)
                self._known.discard(directory)
                log.debug("deleted RDD checkpoint %s (no stream or checkpoint refers to it)",
                          directory)


class Checkpointer:
    """Takes a running stream's metadata checkpoints and writes them on its own thread.

    Parameters
    ----------
    graph, sc, directory
        The stream's graph, its SparkContext, the checkpoint directory.
    on_error
        Called on the writer thread with the exception and the batch time when a
        checkpoint cannot be written (the stream keeps running).
    synchronous
        Write on the calling thread (no writer thread); errors then propagate.
    """

    def __init__(self, graph: DStreamGraph, sc: Any, directory: str,
                 on_error: Callable[[BaseException, int], object] | None = None, synchronous: bool = False) -> None:
        self.graph = graph
        self.sc = sc
        self.directory = directory
        self.graph_bytes = pickle_graph(graph)
        self.graph_digest = write_graph(directory, self.graph_bytes)  # once: checkpoints refer to it
        self.graph_crc = zlib.crc32(self.graph_bytes)
        self._on_error = on_error
        self._cleaner = RDDCheckpointCleaner(KEEP)
        self.last_time: int | None = None
        self._cond = threading.Condition()
        self._queue: deque[tuple[int, dict[str, Any], Callable[[], None] | None]] = deque()
        self._busy = False
        self._closed = False
        self._sync_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        if not synchronous:
            self._thread = threading.Thread(target=self._run, name="CheckpointWriter", daemon=True)
            self._thread.start()

    def data(self, time_ms: int, pending: list[int]) -> dict[str, Any]:
        graph = self.graph
        conf = self.sc.getConf()
        nodes = checkpointed_rdds(graph)
        with graph.lock:
            inputs = {}
            for node in graph.inputs:
                state = node.checkpoint_state()
                if state is not None:
                    inputs[node.input_id] = state
        return {
            "format": FORMAT,
            "time_ms": time_ms,
            "batch_ms": graph.batch_ms,
            "zero_ms": graph.zero_time,
            "pending": sorted(set(pending)),
            "nodes": nodes,
            "inputs": inputs,
            "master": conf.get("spark.master"),
            "app_name": conf.get("spark.app.name"),
            "conf": [[k, v] for k, v in conf.getAll()
                     if k.startswith(_SAVED_CONF_PREFIXES) and k not in _UNSAVED_CONF],
        }

    def write(self, time_ms: int, pending: list[int], then: Callable[[], None] | None = None) -> None:
        """Take the checkpoint of ``time_ms`` now (``pending``: batches not yet completed)
        and queue it for the writer thread; ``then`` runs there once it is on disk (or
        once a newer checkpoint is)."""
        if self._thread is None:
            with self._sync_lock:
                self._write_now(time_ms, self.data(time_ms, pending))
            if then is not None:
                then()
            return
        record = self.data(time_ms, pending)
        with self._cond:
            if self._closed:  # a job that outlived stop() completing: its batch re-runs on recovery
                log.debug("checkpoint of batch %d taken after the writer stopped; not written", time_ms)
                return
            self._queue.append((time_ms, record, then))
            self._cond.notify_all()

    def flush(self, timeout: float) -> bool:
        """Wait until every checkpoint taken so far is written; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._busy, timeout)

    def close(self, timeout: float) -> None:
        """Write what is queued (waiting at most ``timeout`` s), then stop the writer thread."""
        if not self.flush(timeout):
            log.warning("checkpoint writer: %d checkpoint(s) still unwritten after %.1f s; stopping anyway",
                        len(self._queue), timeout)
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._closed)
                if not self._queue:
                    return
                time_ms, record, then = self._queue.popleft()
                self._busy = True
            try:
                self._write_now(time_ms, record)
                if then is not None:
                    then()
            except Exception as exc:  # noqa: BLE001 - reported; the stream keeps running
                log.exception("writing the checkpoint of batch %d failed", time_ms)
                if self._on_error is not None:
                    self._on_error(exc, time_ms)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _write_now(self, time_ms: int, record: dict[str, Any]) -> None:
        if self.last_time is not None and time_ms < self.last_time:
            return  # a later checkpoint is already on disk
        write_checkpoint(self.directory, time_ms, record, self.graph_bytes, digest=self.graph_digest,
                         graph_crc=self.graph_crc)
        self.last_time = time_ms
        self._cleaner.retain(time_ms, {d for files in record["nodes"].values()
                                       for d in files.values()})

