"""The engine API: what layers built on the RDD engine (``dstream``) may use of it.

What this module owns
---------------------
The one declared seam between the RDD engine and the layers above its facade. A layer
above (streaming today; Structured Streaming later) imports the public ``rdd`` package
(``SparkContext``, ``RDD``, ``StorageLevel``, ``TaskContext``, the errors...) and this
module, and nothing else of ``rdd``: no other submodule, no underscore name, no private
attribute of an rdd object (``tests/dstream/test_seams.py`` enforces it for ``dstream``).
Everything here keeps its contract as long as this module exists; the modules it
draws from may move.

The API, by purpose
-------------------
Building RDDs from lineage nodes (custom sources and operators):

* :class:`SourceNode` — base of a lineage node without parents: implement
  :meth:`SourceNode.make_partitions` and ``compute(split, tctx)`` (an iterator of the
  split's records); ``describe()`` names it in lineage strings. Nodes are pickled into
  tasks: keep driver-only state out of ``__getstate__``.
* :class:`Partition` — base of the splits a node returns (``index`` is its position).
* :class:`ZipPartitionsNode` — a node zipping the same-numbered partitions of its parent
  nodes through ``fn(split_index, iterators)``; subclass it for stateful operators.
* :class:`LineageNode` — the node type (for annotations and ``isinstance``).
* :func:`rdd_of` — the RDD of a node on a SparkContext (``RDD(node, sc)``; subclasses of
  ``RDD`` take the same two arguments); :func:`lineage_of` — the node of an RDD;
  :func:`lineage_depth` — the longest dependency path of a node (bounds recursion).

Checkpoints:

* :func:`checkpoint_file` — the RDD saved in an RDD checkpoint directory (Spark's
  ``sc.checkpointFile``); :func:`verify_checkpoint_dir` — check such a directory
  against its manifest; :func:`set_checkpoint_run_dir` — put back a value read with
  ``sc.getCheckpointDir()``; :func:`process_is_alive` — whether the writer of a
  temporary file still runs.

Runtime:

* :func:`active_spark_context` — the process's active SparkContext, or ``None``;
  :func:`context_stopped` — whether a SparkContext was stopped.
* :func:`cancel_jobs_with_tag` — cancel the jobs carrying a tag and learn the tags of
  each one cancelled (what ``SparkSession.interruptTag`` reports its operations from).
* :func:`block_manager` — this process's block manager (``put``/``get``/``contains``/
  ``remove`` of named blocks; driver and workers each have one).
* :func:`new_rdd_id` — a fresh id from a context's RDD counter, for data a layer keeps
  in the executors under an id of its own; :func:`remove_rdd_everywhere` — drop RDD
  ``id``'s blocks in every executor (no listener event: nothing was persisted), which
  also runs, in each of them, the hooks added with :func:`add_rdd_removal_hook`.
* :data:`MEMORY_ONLY_SHARING_IMMUTABLE` — ``MEMORY_ONLY`` (equal to it, shown as it),
  except that a block of immutable built-in records is kept as the objects: for RDDs a
  layer reads back often in the same worker (no serialize on store, no decode per read).
* :func:`dumps_closure` — cloudpickle a driver object, raising ``SerializationError``
  (or ``DriverOnlyError``) naming the culprit.
* :func:`add_profile_stats` — ``cProfile`` statistics added into others (as ``pstats`` adds
  them), :class:`CollectedStats` — such statistics as ``pstats.Stats`` loads them,
  :class:`ProfileStatsParam` — the accumulator merging them by id, and
  :func:`print_profile` — PySpark's printed form: the RDD profiler's, for a layer's own
  profiles (the UDF profiler).
* :func:`install_default_handler` — Spark's log format on stderr for a package's
  loggers, unless the application configured logging.
* :data:`SPARK_VERSION` — the Spark release whose semantics dstreams follows (what
  ``sc.version`` answers); dstreams' own version is ``rdd.__version__``.

Listener events and application status:

* :class:`ListenerBus` (and :class:`ListenerBusStatistics`) — the generic ordered,
  bounded, one-thread event bus; a layer's own bus subclasses it.
* :func:`listener_bus` — a context's bus (post an event with ``.post``; add a listener,
  an object with ``on_event(event)``, with ``.add_listener``); :class:`SparkListener` —
  base of listeners with Spark's callback names.
* :func:`register_event` — make a layer's event dataclass loggable and replayable;
  :func:`event_from_json` — decode one; :func:`status_store` — a context's
  ``AppStatusStore`` (the jobs/stages/executors the UI shows).

Web UI (the streaming tabs and the history server):

* :func:`spark_ui` — a context's :class:`SparkUI` (``None`` when ``spark.ui.enabled`` is
  false): ``attach_tab(UITab(...))``, ``detach_tab``, ``static_dirs``, ``api.register``.
* :class:`UITab`, :data:`CORE_TABS`, :class:`SparkUI`, :class:`UIServer`,
  :data:`UI_STATIC_DIR` — to serve replayed applications (:func:`rest_api` makes the
  REST API over a store, :func:`rest_answer` its HTTP answer, :class:`AppStatusStore` is
  the store a replay fills).
* :func:`find_event_logs` — the event logs of a directory (``spark.eventLog.dir``);
  :func:`replay_event_log` — feed one log's events, in order, to listeners.

Settings: read them with ``SparkConf``'s typed getters (``sc.getConf().getInt``,
``getBoolean``, ``getTimeAsMs``...). For values that come from elsewhere with the same
rules (Kafka's ``kafkaParams``, the SQL readers' options): :func:`parse_boolean`
(``true``/``false`` in any case, else ``ConfigError`` naming the key) and
:func:`parse_size` (``"128m"``, ``"4k"``, a bare number in the given unit).

Aggregation helpers recognised by the shuffle fast paths (same function objects, so
the fast paths still see them): :func:`singleton_list`, :func:`append_to_list`,
:func:`extend_list`, :func:`constant_pair_value`. :func:`count_partition` — the number
of elements of one partition's iterator, as ``RDD.count`` counts it (a built-in
container's length is read, not stepped through).

PySpark's ``pyspark.resultiterable.ResultIterable`` (what ``groupByKey`` yields per key):
:class:`ResultIterable`. Other public names (``Partitioner``, ``portable_hash``,
``StorageLevel``, ``TaskContext``, the errors) come from the ``rdd`` package itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .aggregator import append_to_list, constant_pair_value, extend_list, singleton_list
from .checkpoint import lineage_depth, process_is_alive, verify_checkpoint_dir
from .conf_parsing import parse_boolean, parse_size
from .logs import install_default_handler
from .nodes.base import LineageNode, Partition
from .nodes.files import codec_of, read_compressed
from .nodes.narrow import ZipPartitionsNode
from .profiler import CollectedStats, ProfileStatsParam, print_profile
from .profiler import add_stats as add_profile_stats
from .resultiterable import ResultIterable
from .serialization.serializer import dumps_closure
from .status.bus import LINGER_S as LISTENER_BUS_LINGER_S
from .status.bus import ListenerBus, ListenerBusStatistics, SparkListener
from .status.events import event_from_json, register_event
from .status.replay import find_event_logs
from .status.replay import replay as replay_event_log
from .status.store import AppStatusStore
from .storage import block_manager as _block_manager
from .storage.level import MEMORY_ONLY_SHARING_IMMUTABLE
from .task_functions import count_partition
from .ui.rest_answer import rest_answer
from .ui.server import UIServer
from .ui.web_ui import CORE_TABS, SparkUI, UITab
from .version import SPARK_VERSION

if TYPE_CHECKING:
    from .context import SparkContext
    from .rdd import RDD
    from .status.bus import LiveListenerBus
    from .storage.block_manager import BlockManager

__all__ = [
    "CORE_TABS",
    "LISTENER_BUS_LINGER_S",
    "MEMORY_ONLY_SHARING_IMMUTABLE",
    "SPARK_VERSION",
    "UI_STATIC_DIR",
    "AppStatusStore",
    "CollectedStats",
    "SparkUI",
    "UIServer",
    "UITab",
    "LineageNode",
    "ListenerBus",
    "ListenerBusStatistics",
    "SparkListener",
    "Partition",
    "ProfileStatsParam",
    "ResultIterable",
    "SourceNode",
    "ZipPartitionsNode",
    "active_spark_context",
    "add_profile_stats",
    "add_rdd_removal_hook",
    "context_stopped",
    "append_to_list",
    "block_manager",
    "cancel_jobs_with_tag",
    "checkpoint_file",
    "codec_of",
    "constant_pair_value",
    "count_partition",
    "dumps_closure",
    "event_from_json",
    "extend_list",
    "find_event_logs",
    "install_default_handler",
    "print_profile",
    "lineage_depth",
    "lineage_of",
    "listener_bus",
    "new_rdd_id",
    "parse_boolean",
    "parse_size",
    "process_is_alive",
    "rdd_of",
    "read_compressed",
    "register_event",
    "replay_event_log",
    "remove_rdd_everywhere",
    "rest_answer",
    "rest_api",
    "spark_ui",
    "set_checkpoint_run_dir",
    "singleton_list",
    "spark_user",
    "status_store",
    "verify_checkpoint_dir",
]


class SourceNode(LineageNode):
    """A lineage node without parents whose partitions a layer above defines.

    Subclasses implement :meth:`make_partitions` (called once per node, on the driver,
    when the partitions are first needed) and ``compute(split, tctx)``.
    """

    def __init__(self) -> None:
        super().__init__([])

    def make_partitions(self) -> list[Partition]:
        """Return the node's partitions, ``index`` 0, 1, ... in order."""
        raise NotImplementedError

    def _make_partitions(self) -> list[Partition]:
        return self.make_partitions()


def rdd_of(sc: SparkContext, node: LineageNode) -> RDD[Any]:
    """An RDD over ``node`` on ``sc``; RDDs over one node share its id, cache and checkpoint."""
    return sc._wrap(node)


def lineage_of(rdd: RDD[Any]) -> LineageNode:
    """The lineage node behind ``rdd`` (shared by the RDD's caching and checkpointing)."""
    return rdd._node


def checkpoint_file(sc: SparkContext, directory: str) -> RDD[Any]:
    """The RDD saved in the RDD checkpoint ``directory``; its run directory is kept.

    Raises
    ------
    CheckpointError
        When the directory is missing or holds no partition files.
    """
    return sc._checkpoint_file(directory)


def set_checkpoint_run_dir(sc: SparkContext, directory: str | None) -> None:
    """Put back a checkpoint directory read with ``sc.getCheckpointDir()`` (or ``None``).

    Unlike ``setCheckpointDir``, which creates a new run directory below the one given,
    this restores the exact previous value.
    """
    sc._checkpoint_dir = directory


def active_spark_context() -> SparkContext | None:
    """The SparkContext that is active in this process, or ``None``."""
    from .context import SparkContext

    return SparkContext._active_spark_context


def spark_user() -> str:
    """The user running the application, as ``SparkContext.sparkUser`` says (usable without a context)."""
    from .context import spark_user as user

    return user()


def context_stopped(sc: SparkContext) -> bool:
    """Whether ``sc.stop()`` was called (a session over it must not be handed out again)."""
    return sc._stopped


def cancel_jobs_with_tag(sc: SparkContext, tag: str, reason: str) -> list[frozenset[str]]:
    """Cancel ``sc``'s running and waiting jobs tagged ``tag`` (as ``sc.cancelJobsWithTag``);
    the tags of each job cancelled, for a layer that names its operations by tag."""
    return sc._env.runner.cancel(reason, tag=tag)


def block_manager() -> BlockManager:
    """This process's block manager (the driver's is created on first use)."""
    return _block_manager.current()


def new_rdd_id(sc: SparkContext) -> int:
    """A fresh id from ``sc``'s RDD counter: no RDD of ``sc`` has it or will get it."""
    return sc._new_id()


def remove_rdd_everywhere(sc: SparkContext, rdd_id: int) -> None:
    """Drop RDD ``rdd_id``'s blocks in every executor of ``sc`` and run their removal hooks there.

    Asynchronous with the process pool (each worker handles it before its next task);
    no ``SparkListenerUnpersistRDD`` is posted. Does nothing once ``sc`` is stopped (its
    executors are gone, and what they held with them).
    """
    if not sc._stopped:
        sc._env.backend.remove_rdd(rdd_id)


def add_rdd_removal_hook(hook: Callable[[int], None]) -> None:
    """Call ``hook(rdd_id)`` in this process whenever it drops an RDD's blocks (see :func:`remove_rdd_everywhere`)."""
    _block_manager.add_rdd_removal_hook(hook)


def listener_bus(sc: SparkContext) -> LiveListenerBus:
    """The listener bus of ``sc`` (created with it, stopped by ``sc.stop()``)."""
    return sc._listener_bus


def status_store(sc: SparkContext) -> AppStatusStore:
    """The status store of ``sc``: its jobs, stages, executors and storage, as the UI shows them."""
    return sc._status_store


#: The folder of the UI's own static files (``ui.js``, ``ui.css``, ``favicon.svg``).
UI_STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ui", "static")


def spark_ui(sc: SparkContext) -> SparkUI | None:
    """The web UI of ``sc``, or ``None`` when ``spark.ui.enabled`` is false."""
    return getattr(sc, "_ui", None)


def rest_api(store_provider: Any) -> Any:
    """The REST API (``ApiV1``) over the store ``store_provider()`` returns (a replayed one)."""
    from .status.api import ApiV1

    return ApiV1(store_provider)
