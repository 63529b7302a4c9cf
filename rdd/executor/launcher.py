"""Starting worker processes: a fresh interpreter each (default), or a fork of the driver.

``exec`` (the default, as PySpark's workers): a fresh interpreter runs
``rdd.executor.worker_entry`` with one end of a socket pair passed as a file descriptor.
The worker starts with a clean heap, so it neither inherits nor copies whatever the
driver holds, it never re-runs the user's ``__main__`` (unlike multiprocessing's spawn
and forkserver), and replacing a dead worker while driver threads run is safe. It gets
the driver's ``sys.path``, in the driver's order, through ``PYTHONPATH`` (the current
directory, where the driver has it, as an absolute path) so functions pickled by
reference resolve to the modules the driver uses; and nothing else first: ``python -m``
would put the current directory ahead of it, where a user's ``rdd.py`` or ``dstream/``
would stand in for the engine's own package (the worker then died at start). And a
pinned ``PYTHONHASHSEED`` (the driver's, else ``0``) so every worker of every run hashes
keys alike, ``OMP_NUM_THREADS=1`` unless set (one task per worker per core: native
thread pools such as Arrow's would otherwise oversubscribe the cores), and glibc's malloc
thresholds pinned at their ceilings unless set (a task's freed arrays stay in the heap for
the next task instead of page-faulting in again).

``fork``: ``multiprocessing``'s fork, fastest to start, sharing the driver's heap
copy-on-write (so a driver holding a large dataset when the workers start ends up with
it twice: the workers keep the old pages that the driver then copies) and its
string-hash seed.

Signals: a worker ignores SIGINT, SIGTERM and SIGHUP from its first instruction. A
Ctrl-C or a SIGTERM sent to the driver's process group (a terminal, a supervisor) is
the driver's to handle: it may still need its workers to finish a graceful stop, and a
worker dying of it mid-import would print a traceback and look like a failure. An
``exec`` worker is started in a session (and so a process group) of its own, which
signals sent to the driver's group never reach, and through ``/bin/sh``, which sets the
three to ignored and execs Python: an ignored signal stays ignored across ``exec`` and
Python keeps it so. A forked worker ignores them first thing
in ``worker_main``. Workers still end when told to, when their pipe closes, when the
driver is gone, or on SIGKILL.

Both give the pool the same handle: ``pid``, ``conn``, ``is_alive``, ``join``,
``kill``, ``exitcode`` and ``sentinel`` (``None`` for ``exec`` workers, whose death
the pool sees as the end of their socket). There is no ``terminate``: SIGTERM is
ignored.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from ..partitioner import worker_hash_seed

#: ``sh -c`` script: ignore the signals meant for the driver, then become ``"$0" "$@"``.
_IGNORE_SIGNALS_AND_EXEC = 'trap "" INT TERM HUP; exec "$0" "$@"'

#: The worker's program (``python -c``): drop the current directory that ``-c`` puts
#: first on ``sys.path`` (absent under ``-P``/``PYTHONSAFEPATH``), then run the entry
#: point with the arguments that follow.
_WORKER_BOOT = ("import sys\n"
                "if sys.path[:1] == ['']:\n"
                "    del sys.path[0]\n"
                "from rdd.executor.worker_entry import main\n"
                "main(sys.argv[1:])\n")


class ExecWorker:
    """A worker running in a fresh interpreter, connected by a socket pair."""

    sentinel = None

    def __init__(self, executor_id: str, local_dir: str, env_vars: dict[str, str]) -> None:
        ours, theirs = socket.socketpair()
        env = dict(os.environ)
        env.update(env_vars)
        # Every worker, and every run's workers, must hash keys alike (rdd/partitioner.py).
        env["PYTHONHASHSEED"] = worker_hash_seed(env_vars.get("PYTHONHASHSEED"))
        env["PYTHONPATH"] = os.pathsep.join(p or os.getcwd() for p in sys.path)
        # A worker runs one task at a time on one core: native thread pools (Arrow's compute
        # pool, BLAS) must not start a thread per core in every worker and fight over the
        # cores. PySpark sets the same for its workers unless the user chose a value.
        env.setdefault("OMP_NUM_THREADS", "1")
        # glibc's malloc (read at start; other C libraries ignore them): a task allocates and
        # frees arrays of a batch's size, and glibc's default returns the freed top of the heap
        # to the OS once more than twice the largest freed block is free there, so the next
        # task's arrays page-fault again (~360 faults, 0.7-0.9 ms of a 4 ms Arrow task). These
        # are the ceilings glibc's own sliding thresholds may reach, pinned from the start:
        # blocks under 32 MiB come from the heap, and up to 64 MiB of free heap is kept.
        env.setdefault("MALLOC_MMAP_THRESHOLD_", str(32 << 20))
        env.setdefault("MALLOC_TRIM_THRESHOLD_", str(64 << 20))
        command = ["/bin/sh", "-c", _IGNORE_SIGNALS_AND_EXEC, sys.executable, "-c", _WORKER_BOOT,
                   str(theirs.fileno()), executor_id, local_dir, str(os.getpid())]
        try:
            # A session of its own: a signal sent to the driver's process group (Ctrl-C in a
            # terminal) never reaches the worker, not even in the instant before the shell
            # has set its traps (setsid runs in the child before exec, in C).
            self._popen = subprocess.Popen(command, pass_fds=[theirs.fileno()], env=env,
                                           stdin=subprocess.DEVNULL, close_fds=True, start_new_session=True)
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        self.pid = self._popen.pid

    @property
    def exitcode(self) -> int | None:
        return self._popen.poll()

    def is_alive(self) -> bool:
        return self._popen.poll() is None

    def join(self, timeout: float | None = None) -> None:
        try:
            self._popen.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

    def kill(self) -> None:
        if self.is_alive():
            self._popen.kill()


class ForkedWorker:
    """A worker forked by multiprocessing, with the same handle as :class:`ExecWorker`."""

    def __init__(self, mp: Any, target: Callable[..., None], args_of: Callable[[Connection], tuple], name: str) -> None:
        ours, theirs = mp.Pipe(duplex=True)
        self._process = mp.Process(target=target, name=name, daemon=True, args=args_of(theirs))
        self._process.start()
        theirs.close()
        self.conn = ours
        self.pid = self._process.pid
        self.sentinel = self._process.sentinel

    @property
    def exitcode(self) -> int | None:
        return self._process.exitcode

    def is_alive(self) -> bool:
        return self._process.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._process.join(timeout)

    def kill(self) -> None:
        self._process.kill()
