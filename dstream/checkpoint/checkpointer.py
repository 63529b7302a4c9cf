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
* Checkpoints are written after the jobs of a batch are generated and after a batch
  completes (Spark's ``DoCheckpoint`` points), from whichever thread reaches them; a
  lock keeps the writes whole and in order.
* RDD checkpoint directories that no kept metadata file refers to any more are
  deleted, so a long run does not fill the disk.
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections import deque
from typing import TYPE_CHECKING, Any

from rdd.errors import DriverOnlyError, SerializationError
from rdd.executor.serializer import dumps_closure

from dstream.checkpoint.files import KEEP, write_checkpoint, write_graph
from dstream.errors import StreamingStateError

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["Checkpointer", "FORMAT"]

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


class Checkpointer:
    def __init__(self, graph: DStreamGraph, sc: Any, directory: str) -> None:
        self.graph = graph
        self.sc = sc
        self.directory = directory
        self.graph_bytes = pickle_graph(graph)
        self.graph_digest = write_graph(directory, self.graph_bytes)  # once: checkpoints refer to it
        self._lock = threading.Lock()
        self._referenced: deque[set[str]] = deque(maxlen=KEEP)
        self._known: set[str] = set()
        self.last_time: int | None = None

    def data(self, time_ms: int, pending: list[int]) -> dict[str, Any]:
        graph = self.graph
        conf = self.sc._conf
        nodes: dict[int, dict[int, str]] = {}
        with graph.lock:
            for node in graph.nodes:
                files = node.checkpoint_files()
                if files:
                    nodes[node.id] = files
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

    def write(self, time_ms: int, pending: list[int]) -> None:
        """Write the checkpoint of ``time_ms`` (``pending``: batches not yet completed)."""
        with self._lock:
            if self.last_time is not None and time_ms < self.last_time:
                return  # a later checkpoint is already on disk
            record = self.data(time_ms, pending)
            write_checkpoint(self.directory, time_ms, record, self.graph_bytes, digest=self.graph_digest)
            self.last_time = time_ms
            self._forget_unreferenced({d for files in record["nodes"].values() for d in files.values()})

    def _forget_unreferenced(self, referenced: set[str]) -> None:
        self._referenced.append(referenced)
        self._known |= referenced
        live = set().union(*self._referenced)
        for directory in sorted(self._known - live):
            shutil.rmtree(directory, ignore_errors=True)
            self._known.discard(directory)
            log.debug("deleted RDD checkpoint %s (no metadata checkpoint refers to it)", directory)

