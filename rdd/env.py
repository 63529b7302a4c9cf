"""Env: everything one SparkContext owns at run time.

It creates the context's local directory (shuffle files, broadcasts, disk blocks;
owned as ``local_dir.py`` describes, after removing those of dead drivers), installs
the driver's executor environment and block manager, builds the executor backend for
the master, and wires the job runner to it. It owns the context's listener bus, the
status store listening on it and the reporter that posts the engine's events. ``stop``
cancels the running jobs, shuts the backend down (no worker survives it), deletes the
local directory, then delivers the last events and stops the bus (no thread survives).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from . import accumulators
from .cleaner import ContextCleaner
from .conf import SparkConf
from .errors import FetchFailedError
from .executor.inline import InlineBackend
from .executor.process_pool import ProcessPoolBackend
from .executor.task_runner import CLOSURE_CACHE_KEY, DEFAULT_CLOSURE_CACHE_BYTES
from .local_dir import LocalDir
from .master import Master, MasterKind
from .runtime import environment
from .runtime.environment import ExecutorEnv
from .scheduler.reporter import JobReporter
from .scheduler.runner import JobRunner
from .shuffle.store import FileShuffleStore, MemoryShuffleStore
from .status import event_log
from .status.bus import CAPACITY_KEY, DEFAULT_CAPACITY, LiveListenerBus
from .status.event_log import EventLoggingListener
from .status.events import SparkListenerUnpersistRDD
from .status.store import AppStatusStore
from .storage import block_manager
from .storage.block_manager import BlockManager

#: A size (``64k``, or bytes): map outputs up to it travel through the driver, not files
#: (``rdd.shuffle.writer``); ``0`` writes every map output to a file.
INLINE_MAP_OUTPUT_KEY = "spark.shuffle.inlineMapOutputBytes"
DEFAULT_INLINE_MAP_OUTPUT_BYTES = 64 * 1024
START_METHOD_KEY = "spark.executor.startMethod"
#: Each worker is a fresh interpreter (see executor/launcher.py for why).
DEFAULT_START_METHOD = "exec"


class Env:
    def __init__(self, conf: SparkConf, master: Master) -> None:
        self.num_workers = master.workers
        # Every setting is read before anything is created: a bad value leaves nothing behind.
        start_method = conf.get(START_METHOD_KEY, DEFAULT_START_METHOD)
        if start_method not in ("exec", "fork"):
            raise ValueError(f"{START_METHOD_KEY}={start_method!r}: use 'exec' (a fresh interpreter per "
                             "worker, the default) or 'fork' (fork the driver)")
        closure_bytes = conf.getSizeAsBytes(CLOSURE_CACHE_KEY, DEFAULT_CLOSURE_CACHE_BYTES)
        inline_bytes = conf.getSizeAsBytes(INLINE_MAP_OUTPUT_KEY, DEFAULT_INLINE_MAP_OUTPUT_BYTES)
        locality_wait_s = conf.getTimeAsMs("spark.locality.wait", "3s") / 1000
        env_vars = {k[len("spark.executorEnv."):]: v for k, v in conf.getAll()
                    if k.startswith("spark.executorEnv.")}
        capacity = conf.getInt(CAPACITY_KEY, DEFAULT_CAPACITY)
        cores = conf.getInt("spark.executor.cores", 1)
        # Joining (or starting) a Ray cluster comes first: if Ray is missing or unreachable,
        # nothing else has been made.
        ray_connection = None
        if master.kind is MasterKind.RAY:
            from .executor.ray_cluster import ADDRESS_KEY, RayConnection

            ray_connection = RayConnection.open(conf.get(ADDRESS_KEY) or None)
        # The bus is filled from here on (executors added while the pool starts) and its
        # thread starts last: a failed set-up leaves no thread behind.
        self.bus = LiveListenerBus(capacity)
        self.status_store = AppStatusStore(conf)
        self._tracking_lock = threading.Lock()
        # The store is fed only when something reads it (the web UI, the console progress
        # bar): with neither, and no other listener, the scheduler builds no event at all.
        if conf.getBoolean("spark.ui.enabled", True) or conf.getBoolean("spark.ui.showConsoleProgress", False):
            self.bus.add_listener(self.status_store)
        self.reporter = JobReporter(self.bus)
        self.event_log: EventLoggingListener | None = None
        if conf.getBoolean(event_log.ENABLED_KEY, False):
            self.event_log = EventLoggingListener(event_log.log_dir(conf), conf.get("spark.app.id") or "app")
            self.bus.add_listener(self.event_log)
        self._dir = LocalDir(conf.get("spark.local.dir") or None)
        self.local_dir = self._dir.path
        store: Any = MemoryShuffleStore() if master.inline else FileShuffleStore(self.local_dir)
        if ray_connection is not None:
            store = _NoDriverShuffle()
        self.driver_env = ExecutorEnv("driver", self.local_dir, store)
        environment.install(self.driver_env)
        block_manager.install(BlockManager("driver", os.path.join(self.local_dir, "blocks", "driver")))
        self.cleaner = ContextCleaner()
        self.runner = JobRunner(accumulators.merge_updates, self.cleaner, self._remove_shuffle, self._remove_rdd,
                                self.reporter)
        self.reporter.executor_added("driver", os.getpid(), 1 if master.inline else 0)
        self.backend: Any
        if master.inline:
            self.backend = InlineBackend(self.runner.on_event, closure_bytes, self.reporter)
        elif ray_connection is not None:
            from .executor.ray_backend import RayBackend

            executors = conf.getInt("spark.executor.instances", master.workers or ray_connection.cpus() // cores)
            try:
                self.backend = RayBackend(ray_connection, max(1, executors), cores, self.runner.on_event,
                                          self.local_dir, env_vars, locality_wait_s, closure_bytes, self.reporter)
            except BaseException:
                ray_connection.close()
                self._dir.remove()
                raise
            self.runner.scheduler.list_shuffle_reads = True
            store.backend = self.backend
        else:
            self.backend = ProcessPoolBackend(self.num_workers, self.local_dir, self.runner.on_event,
                                              start_method, env_vars, locality_wait_s, closure_bytes,
                                              self.reporter)
            self.runner.scheduler.inline_map_output_bytes = inline_bytes
        self.runner.backend = self.backend
        self.bus.start()

    def track_status(self) -> None:
        """Feed the status store from now on, if nothing does yet (``sc.statusTracker()`` reads it)."""
        with self._tracking_lock:
            if self.status_store not in self.bus.listeners:
                self.bus.add_listener(self.status_store)

    def _remove_shuffle(self, shuffle_id: int) -> None:
        self.runner.tracker.remove_shuffle(shuffle_id)
        self.driver_env.shuffle_store.remove_shuffle(shuffle_id)

    def _remove_rdd(self, rdd_id: int) -> None:
        self.runner.locations.remove_rdd(rdd_id)
        self.backend.remove_rdd(rdd_id)
        self.bus.post(SparkListenerUnpersistRDD(rdd_id))

    def broadcast_created(self, broadcast_id: int, path: str) -> None:
        """A broadcast's file is written: a backend whose executors may not see it ships it."""
        ship = getattr(self.backend, "add_broadcast", None)
        if ship is not None:
            ship(broadcast_id, path)

    def broadcast_destroyed(self, broadcast_id: int) -> None:
        drop = getattr(self.backend, "remove_broadcast", None)
        if drop is not None:
            drop(broadcast_id)

    def unpersist_rdd(self, rdd_id: int) -> None:
        """Drop RDD ``rdd_id``'s cached blocks everywhere (``RDD.unpersist``)."""
        self._remove_rdd(rdd_id)

    def stop(self, last_event: object = None) -> None:
        """Stop the engine; ``last_event`` (ApplicationEnd) is delivered before the bus stops."""
        self.runner.stop()
        try:
            self.backend.shutdown()
        finally:
            close_store = getattr(self.driver_env.shuffle_store, "close", None)
            if close_store is not None:
                close_store()  # its deleting thread must not outlive the context
            block_manager.current().clear()
            self._dir.remove()
            if last_event is not None:
                self.bus.post(last_event)
            self.bus.stop()
            if self.event_log is not None:
                self.event_log.close()  # if ApplicationEnd never reached it (the bus timed out)


class _NoDriverShuffle:
    """The driver's shuffle store on Ray: map outputs are objects the backend holds.

    The driver runs no task there, so it reads no bucket; removing a shuffle drops the
    backend's references to its objects.
    """

    backend: Any = None

    def put(self, shuffle_id: int, map_id: int, attempt_id: int, blob: bytes, offsets: Any) -> None:
        raise RuntimeError("the driver runs no task on master 'ray'")

    def get(self, shuffle_id: int, map_id: int, reduce_id: int) -> bytes:
        raise FetchFailedError(shuffle_id, map_id, "map outputs of master 'ray' are read by executors only")

    def remove_shuffle(self, shuffle_id: int) -> None:
        if self.backend is not None:
            self.backend.remove_shuffle(shuffle_id)
