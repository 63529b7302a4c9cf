"""Env: everything one SparkContext owns at run time.

It creates the context's local directory (shuffle files, broadcasts, disk blocks;
owned as ``local_dir.py`` describes, after removing those of dead drivers), installs
the driver's executor environment and block manager, builds the executor backend for
the master, and wires the job runner to it. ``stop`` cancels the running jobs, shuts
the backend down (no worker survives it) and deletes the local directory.
"""

from __future__ import annotations

import os

from . import accumulators
from .cleaner import ContextCleaner
from .conf import SparkConf
from .executor.inline import InlineBackend
from .executor.process_pool import ProcessPoolBackend
from .executor.task_runner import CLOSURE_CACHE_KEY, DEFAULT_CLOSURE_CACHE_BYTES
from .local_dir import LocalDir
from .master import Master
from .runtime import environment
from .runtime.environment import ExecutorEnv
from .scheduler.runner import JobRunner
from .shuffle.store import FileShuffleStore, MemoryShuffleStore
from .storage import block_manager
from .storage.block_manager import BlockManager

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
        locality_wait_s = conf.getTimeAsMs("spark.locality.wait", "3s") / 1000
        env_vars = {k[len("spark.executorEnv."):]: v for k, v in conf.getAll()
                    if k.startswith("spark.executorEnv.")}
        self._dir = LocalDir(conf.get("spark.local.dir") or None)
        self.local_dir = self._dir.path
        store = MemoryShuffleStore() if self.num_workers == 0 else FileShuffleStore(self.local_dir)
        self.driver_env = ExecutorEnv("driver", self.local_dir, store)
        environment.install(self.driver_env)
        block_manager.install(BlockManager("driver", os.path.join(self.local_dir, "blocks", "driver")))
        self.cleaner = ContextCleaner()
        self.runner = JobRunner(accumulators.merge_updates, self.cleaner, self._remove_shuffle, self._remove_rdd)
        if self.num_workers == 0:
            self.backend: InlineBackend | ProcessPoolBackend = InlineBackend(self.runner.on_event,
                                                                             closure_bytes)
        else:
            self.backend = ProcessPoolBackend(self.num_workers, self.local_dir, self.runner.on_event,
                                              start_method, env_vars, locality_wait_s, closure_bytes)
        self.runner.backend = self.backend

    def _remove_shuffle(self, shuffle_id: int) -> None:
        self.runner.tracker.remove_shuffle(shuffle_id)
        self.driver_env.shuffle_store.remove_shuffle(shuffle_id)

    def _remove_rdd(self, rdd_id: int) -> None:
        self.runner.locations.remove_rdd(rdd_id)
        self.backend.remove_rdd(rdd_id)

    def stop(self) -> None:
        self.runner.stop()
        try:
            self.backend.shutdown()
        finally:
            block_manager.current().clear()
            self._dir.remove()
