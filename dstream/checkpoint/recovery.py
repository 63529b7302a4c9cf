"""Recovery: read a stream's latest metadata checkpoint back, as a value.

What this module owns
---------------------
:func:`read_checkpoint` (behind ``StreamingContext.getOrCreate``) reads the newest usable
checkpoint file (readable, and every RDD checkpoint it refers to complete: each part
file present with its recorded size; otherwise the previous one, with a warning naming
the damaged file), unpickles its graph, checks that every input can resume, and returns
a :class:`Restored` value: the graph, the saved configuration, each input's saved
position, each stream's RDD checkpoint files and where the job generator resumes. It
changes nothing else: no context is touched.

The engine applies the value (:meth:`dstream.engine.StreamingEngine.recover`):

1. the facade reuses the active SparkContext, or creates one from the saved master,
   app name and configuration (:meth:`Restored.spark_context`), and a new
   StreamingContext over it (the setup function is not called, as in PySpark);
2. the engine takes the graph, attaches its live inputs (receiver tracker, clock, rate
   controllers) and gives each input its saved position (queue items taken, files
   selected, Kafka offset ranges; receivers replay their write-ahead log);
3. each stream's checkpointed RDDs (state, windows) go back into its memo, read from
   their RDD checkpoint directories (:func:`restore_checkpointed_rdds`).

Starting the context then re-runs the batches that were pending or missed while the
driver was down (``JobGenerator.start(recovery)``): state streams recompute from their
last RDD checkpoint, inputs hand out exactly the data they had recorded for each time,
and ``saveAsTextFiles`` skips batches whose output is already complete.
"""

from __future__ import annotations

import logging
import pickle
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rdd import CheckpointError, SparkConf, SparkContext
from rdd.engine_api import active_spark_context, checkpoint_file, verify_checkpoint_dir

from dstream.checkpoint.checkpointer import FORMAT
from dstream.checkpoint.files import CheckpointFile, read_latest

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["Recovery", "Restored", "read_checkpoint", "restore_checkpointed_rdds"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Recovery:
    """What the job generator needs to resume: the grid and the batches to run again."""

    time_ms: int
    zero_ms: int
    pending: tuple[int, ...]


@dataclass(frozen=True)
class Restored:
    """A metadata checkpoint read back: everything a new engine needs to resume.

    ``graph`` is not attached to any SparkContext yet; ``input_states`` maps input ids
    to their saved positions; ``rdd_files`` maps stream ids to ``batch time -> RDD
    checkpoint directory``.
    """

    path: str
    batch_ms: int
    master: str | None
    app_name: str | None
    conf: tuple[tuple[str, str], ...]
    graph: DStreamGraph
    input_states: dict[int, Any]
    rdd_files: dict[int, dict[int, str]]
    recovery: Recovery

    def spark_context(self) -> SparkContext:
        """The active SparkContext, else a new one from the saved master, name and conf."""
        active = active_spark_context()
        if active is not None:
            return active
        conf = SparkConf().setAll(self.conf)
        if self.master:
            conf.setMaster(self.master)
        if self.app_name:
            conf.setAppName(self.app_name)
        return SparkContext(conf=conf)

    def log_recovered(self) -> None:
        log.info("recovered the StreamingContext from %s (batch %d; %d pending)", self.path,
                 self.recovery.time_ms, len(self.recovery.pending))


def read_checkpoint(path: str) -> Restored | None:
    """The checkpoint saved in ``path``, or ``None`` if it holds no checkpoint.

    Raises
    ------
    CheckpointError
        When checkpoint files exist but none is usable, or the data is of an unknown
        format; the message names the directory and the problem.
    """
    found = read_latest(path, _check_rdd_checkpoints)
    if found is None:
        return None
    data = found.data
    if data.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {found.path} holds data format {data.get('format')!r}; this version "
                              f"of dstreams reads format {FORMAT}. Use a new checkpoint directory.")
    try:
        graph = pickle.loads(found.graph)
    except Exception as exc:  # noqa: BLE001 - any import or unpickling problem
        raise CheckpointError(f"cannot rebuild the DStream graph saved in {found.path}: {type(exc).__name__}: {exc} "
                              "(the code it refers to may have changed; use a new checkpoint directory)") from exc
    for node in graph.inputs:
        problem = node.recovery_error()
        if problem is not None:
            raise CheckpointError(
                f"cannot recover the StreamingContext saved in {found.path}: {problem}")
    recovery = Recovery(int(data["time_ms"]), int(data["zero_ms"]), tuple(int(t) for t in data["pending"]))
    return Restored(
        path=str(found.path), batch_ms=data["batch_ms"], master=data.get("master"),
        app_name=data.get("app_name"), conf=tuple((k, v) for k, v in data.get("conf", [])),
        graph=graph, input_states=data.get("inputs", {}), rdd_files=data.get("nodes", {}),
        recovery=recovery)


def _check_rdd_checkpoints(found: CheckpointFile) -> None:
    """Refuse a checkpoint whose state RDD checkpoints are damaged (a part file missing or
    truncated): recovering from it would fail every batch. An older checkpoint refers to
    older RDD checkpoints, so recovery falls back to it, as for a damaged metadata file."""
    for files in found.data.get("nodes", {}).values():
        for directory in files.values():
            try:
                verify_checkpoint_dir(directory)
            except CheckpointError as exc:
                raise CheckpointError(
                    f"checkpoint {found.path} refers to a damaged RDD checkpoint: {exc}") from exc


def restore_checkpointed_rdds(graph: Any, sc: SparkContext, nodes: dict[int, dict[int, str]]) -> None:
    """Put each stream's checkpointed RDDs back in its memo (before ``start``).

    Raises
    ------
    CheckpointError
        If the checkpoint refers to a stream the graph lacks.
    """
    from dstream.state.nodes import STATE_STORAGE

    by_id = {node.id: node for node in graph.nodes}
    for node_id, files in nodes.items():
        node = by_id.get(int(node_id))
        if node is None:
            raise CheckpointError(f"the checkpoint refers to stream {node_id}, which the saved graph lacks")
        for time_ms, directory in files.items():
            rdd = checkpoint_file(sc, directory)
            # A state table is updated in place by the next batch: keep it uncached, so
            # the restored record is read from its files once and never seen stale.
            if node.storage_level is not None and node.storage_level != STATE_STORAGE:
                rdd.persist(node.storage_level)
            node.generated[int(time_ms)] = rdd
