"""A driver that dies without stopping leaves no local directory behind for good.

- A driver killed with SIGKILL cannot delete its ``dstreams-*`` directory (shuffle files
  included); the next context created on the same base directory removes it, and
  leaves alone the directory of a driver that is still alive.
- SIGTERM and SIGHUP make a driver (whose main thread waits for a job that runs a
  sleeping task) exit through its exit hooks with 128 + the signal: the context
  stops, its directory is deleted, its workers exit.

Drivers are real subprocesses with their ``spark.local.dir`` under the test's
``tmp_path``, so no other process's directories are involved.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf

from tests.rdd.processes import identify, is_running, kill_survivors, wait_until

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 30.0

DRIVER = textwrap.dedent(
    """
    import json, os, sys, time
    from rdd import SparkConf, SparkContext

    master, base, wait = sys.argv[1:4]
    # Every map output in a file (none held by the driver), so the directory holds shuffle
    # files (local[N]) when the driver dies.
    conf = SparkConf().set("spark.local.dir", base).set("spark.shuffle.inlineMapOutputBytes", "0")
    sc = SparkContext(master, "local-dir", conf=conf)
    sc.parallelize(range(100), 4).map(lambda x: (x % 7, x)).reduceByKey(lambda a, b: a + b).count()
    report = {"dir": sc._env.local_dir, "workers": sc._env.backend.worker_pids()}
    print(json.dumps(report), flush=True)
    # A driver still alive long after the signal prints every thread's stack and exits,
    # so a hang fails the test with where it hung.
    import faulthandler
    faulthandler.dump_traceback_later(20, exit=True)
    if wait == "job":
        sc.parallelize(range(2), 2).map(lambda x: time.sleep(600)).collect()
    else:
        sys.stdin.read()
    """
)


def _default_signals() -> None:
    # The driver starts as from a terminal: a test run under `nohup` (SIGHUP ignored) or
    # a CI runner that ignores SIGTERM would hand it ignored signals, which the engine
    # rightly leaves ignored.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


class Driver:
    def __init__(self, master: str, base: Path, wait: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, "-c", DRIVER, master, str(base), wait],
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, preexec_fn=_default_signals)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # the driver prints it within seconds, or exits
        if not line:
            _, err = self.proc.communicate(timeout=DEADLINE_S)
            raise AssertionError(f"the driver exited: {err[-2000:]}")
        report = json.loads(line)
        self.dir = Path(report["dir"])
        self.workers = [p for p in (identify(pid) for pid in report["workers"]) if p is not None]

    def finish(self, signum: int) -> tuple[int, str]:
        self.proc.send_signal(signum)
        try:
            _, err = self.proc.communicate(timeout=DEADLINE_S)
        finally:
            self.kill()
        return self.proc.returncode, err

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=DEADLINE_S)
        kill_survivors(self.workers)


def test_the_next_context_removes_the_directory_of_a_killed_driver(make_sc: Callable[..., Any],
                                                                   tmp_path: Path) -> None:
    base = tmp_path / "local"
    killed = Driver("local[2]", base, "stdin")
    alive = Driver("local", base, "stdin")
    try:
        killed.finish(signal.SIGKILL)
        wait_until(lambda: not any(is_running(w) for w in killed.workers), DEADLINE_S,
                   "orphaned workers exit")
        # The orphaned workers may delete it themselves; a driver without workers cannot.
        lone = Driver("local", base, "stdin")
        lone.finish(signal.SIGKILL)
        assert lone.dir.is_dir(), "a SIGKILLed local driver cannot delete its directory"
        assert alive.dir.is_dir()
        sc = make_sc("local", SparkConf().set("spark.local.dir", str(base)))
        assert not killed.dir.exists() and not lone.dir.exists(), os.listdir(base)
        assert alive.dir.is_dir(), "the directory of a live driver was removed"
        assert Path(sc._env.local_dir).is_dir()
    finally:
        alive.kill()
        killed.kill()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_the_context_and_delete_its_directory(tmp_path: Path,
                                                                     signum: int) -> None:
    driver = Driver("local[2]", tmp_path / "local", "job")
    assert driver.dir.is_dir() and len(driver.workers) == 2
    rc, err = driver.finish(signum)
    assert rc == 128 + signum, err[-6000:]
    assert not driver.dir.exists(), os.listdir(driver.dir)
    wait_until(lambda: not any(is_running(w) for w in driver.workers), DEADLINE_S,
               "the workers exit")
    assert "Traceback" not in err, err[-2000:]


def test_a_signal_handled_inside_a_finalizer_still_stops_the_driver(tmp_path: Path) -> None:
    """The garbage collector may run a finalizer (the context cleaner's) just as SIGTERM is
    handled; an exception raised there is dropped, so the handler sends the signal again."""
    script = textwrap.dedent(
        """
        import signal, sys, time, weakref
        from rdd import SparkConf, SparkContext
        sc = SparkContext("local", "finalizer-signal", conf=SparkConf().set("spark.local.dir", sys.argv[1]))

        class Box:
            pass

        box = Box()
        weakref.finalize(box, signal.raise_signal, signal.SIGTERM)
        del box  # the finalizer runs now, and the handler with it
        time.sleep(30)
        """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "local")], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr[-3000:]
    assert not list((tmp_path / "local").glob("dstreams-*")), "the context's directory was left behind"
