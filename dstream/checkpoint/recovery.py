"""Recovery: rebuild a StreamingContext from its latest metadata checkpoint.

What this module owns
---------------------
``restore(path)`` (behind ``StreamingContext.getOrCreate``) reads the newest usable
checkpoint file (readable, and every RDD checkpoint it refers to complete: each part
file present with its recorded size; otherwise the previous one, with a warning naming
the damaged file), then:

1. reuses the active SparkContext, or creates one from the saved master, app name
   and configuration;
2. unpickles the graph and attaches it to a new StreamingContext (the setup function
   is not called, as in PySpark);
3. reconnects live inputs (receiver tracker, clock) and gives each input its saved
   position (queue items taken, files selected, Kafka offset ranges; receivers replay
   their write-ahead log);
4. puts each stream's checkpointed RDDs (state, windows) back in its memo, read from
   their RDD checkpoint directories.

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

from rdd import SparkConf, SparkContext
from rdd.checkpoint import verify_checkpoint_dir
from rdd.errors import CheckpointError

from dstream.checkpoint.checkpointer import FORMAT
from dstream.checkpoint.files import CheckpointFile, read_latest

if TYPE_CHECKING:
    from dstream.context import StreamingContext

__all__ = ["Recovery", "restore"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Recovery:
    """What the job generator needs to resume: the grid and the batches to run again."""

    time_ms: int
    zero_ms: int
    pending: tuple[int, ...]


def _spark_context(data: dict[str, Any]) -> SparkContext:
    active = SparkContext._active_spark_context
    if active is not None:
        return active
    conf = SparkConf().setAll((k, v) for k, v in data.get("conf", []))
    if data.get("master"):
        conf.setMaster(data["master"])
    if data.get("app_name"):
        conf.setAppName(data["app_name"])
    return SparkContext(conf=conf)


def restore(path: str) -> StreamingContext | None:
    """The StreamingContext saved in ``path``, or ``None`` if it holds no checkpoint.

    Raises
    ------
    CheckpointError
        When checkpoint files exist but none is usable, or the data is of an unknown
        format; the message names the directory and the problem.
    """
    from dstream.context import StreamingContext

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
    sc = _spark_context(data)
    graph.sc = sc
    ssc = StreamingContext(sc, data["batch_ms"] / 1000.0)
    graph.unpersist = ssc._graph.unpersist
    ssc._graph = graph
    if graph.checkpoint_dir:
        sc.setCheckpointDir(graph.checkpoint_dir)
    ssc._reattach_inputs()
    if ssc._has_receivers:
        ssc._recover_received_blocks()
    inputs = data.get("inputs", {})
    for node in graph.inputs:
        state = inputs.get(node.input_id)
        if state is not None:
            node.restore_state(state)
    _restore_checkpointed_rdds(graph, sc, data.get("nodes", {}))
    ssc._recovery = Recovery(int(data["time_ms"]), int(data["zero_ms"]), tuple(int(t) for t in data["pending"]))
    log.info("recovered the StreamingContext from %s (batch %d; %d pending)", found.path, data["time_ms"],
             len(data["pending"]))
    return ssc


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


def _restore_checkpointed_rdds(graph: Any, sc: SparkContext, nodes: dict[int, dict[int, str]]) -> None:
    from dstream.state.nodes import STATE_STORAGE

    by_id = {node.id: node for node in graph.nodes}
    for node_id, files in nodes.items():
        node = by_id.get(int(node_id))
        if node is None:
            raise CheckpointError(f"the checkpoint refers to stream {node_id}, which the saved graph lacks")
        for time_ms, directory in files.items():
            rdd = sc._checkpoint_file(directory)
            # A state table is updated in place by the next batch: keep it uncached, so
            # the restored record is read from its files once and never seen stale.
            if node.storage_level is not None and node.storage_level != STATE_STORAGE:
                rdd.persist(node.storage_level)
            node.generated[int(time_ms)] = rdd
