"""The main loop of a worker process.

::

    driver ──("task", spec, binary|None, [stale digest])──▶ worker: drop the stale, cache binary by digest, run_task
    driver ◀──────────── pickled TaskResult | TaskFailure ──── worker
    driver ──("remove_rdd", id) / ("drop_binaries", [digest]) / ("stop",)──▶ worker

A worker runs one task at a time. It exits when it is told to stop, when its pipe
closes, or when its parent process is gone (a watchdog thread polls ``getppid``), so
no worker outlives its driver even after a ``kill -9`` of the driver. SIGINT, SIGTERM
and SIGHUP are ignored (see launcher.py): the driver decides when workers stop.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from ..errors import SerializationError
from ..runtime import environment
from ..runtime.environment import ExecutorEnv
from ..scheduler.task import TaskFailure, TaskResult
from ..serialization.serializer import SerializedRecords, dumps_data
from ..shuffle.store import FileShuffleStore
from ..storage import block_manager
from ..storage.block_manager import BlockManager
from .messages import recv_message
from .task_runner import BinaryCache, run_task

if TYPE_CHECKING:  # an exec worker never imports multiprocessing (see fd_connection.py)
    from multiprocessing.connection import Connection

    from .fd_connection import FdConnection

_PARENT_POLL_SECONDS = 0.2


def worker_main(conn: Connection | FdConnection, executor_id: str, local_dir: str, parent_pid: int,
                inherited: list[Connection], env_vars: dict[str, str]) -> None:
    for other in inherited:  # driver ends of other workers' pipes, inherited through fork
        try:
            other.close()
        except OSError:
            pass
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    os.environ.update(env_vars)
    env = ExecutorEnv(executor_id, local_dir, FileShuffleStore(local_dir))
    environment.install(env)
    block_manager.install(BlockManager(executor_id, env.block_dir()))
    threading.Thread(target=_watch_parent, args=(parent_pid, local_dir), daemon=True,
                     name="parent-watchdog").start()
    cache = BinaryCache(max_bytes=None)  # the driver says what to drop: it knows what it sent
    while True:
        try:
            message = recv_message(conn)
        except (EOFError, OSError):
            break
        kind = message[0]
        if kind == "task":
            _, spec, binary, stale = message
            if stale:
                cache.drop(stale)  # released at the end of an earlier job (see process_pool.py)
            try:
                stage = cache.get(spec.digest)
                if stage is None:
                    if binary is None:
                        raise RuntimeError(f"stage binary {spec.digest} was not sent to executor {executor_id}")
                    stage = cache.put(spec.digest, binary)
                outcome: Any = run_task(spec, stage)
            except BaseException as exc:  # noqa: BLE001 - unpickling user code can raise anything
                import traceback
                outcome = TaskFailure(spec.task_id, exc, traceback.format_exc(), executor_id)
            conn.send_bytes(dump_outcome(outcome))
        elif kind == "remove_rdd":
            block_manager.current().remove_rdd(message[1])
        elif kind == "drop_binaries":
            cache.drop(message[1])
        elif kind == "stop":
            break
    conn.close()
    sys.stdout.flush()


def dump_outcome(outcome: Any) -> bytes:
    try:
        if isinstance(outcome, TaskResult) and type(outcome.value) is list:
            outcome.value = SerializedRecords(outcome.value)  # collect()'s rows: marshal when it can
        return dumps_data(outcome)
    except Exception as exc:  # noqa: BLE001
        if isinstance(outcome, TaskFailure):
            substitute = RuntimeError(f"{type(outcome.error).__name__}: {outcome.error} "
                                      "(the original exception could not be pickled)")
            return pickle.dumps(TaskFailure(outcome.task_id, substitute, outcome.traceback_text,
                                            outcome.executor_id), protocol=5)
        error = SerializationError(f"the result of task {outcome.task_id} could not be pickled to return to "
                                   f"the driver: {type(exc).__name__}: {exc}")
        return pickle.dumps(TaskFailure(outcome.task_id, error, "", outcome.executor_id), protocol=5)


def _watch_parent(parent_pid: int, local_dir: str) -> None:
    while True:
        time.sleep(_PARENT_POLL_SECONDS)
        if os.getppid() != parent_pid:
            # Imported here: local_dir's imports (tempfile, shutil...) would slow every start.
            from ..local_dir import remove_orphaned

            remove_orphaned(local_dir)  # unless another process already is removing it
            os._exit(0)
