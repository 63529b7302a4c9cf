"""Stopping and cancelling while a task runs, with real worker processes and drivers.

- ``sc.stop()`` while another thread's job runs a task that sleeps: ``stop`` returns
  within seconds (it used to wait for the job), the job raises ``JobCancelledError``
  ("... cancelled because SparkContext was shut down") in its own thread, and no
  worker process is left. With ``local`` the task runs in the job's thread and cannot
  be killed: ``stop`` still returns and the driver still exits.
- ``sys.exit()`` in a driver whose other (daemon) thread runs such a job: the exit hook
  stops the context, and the driver exits with its status, leaving no worker.
- ``cancelJobGroup`` / ``cancelJobsWithTag`` / ``cancelAllJobs`` from another thread end the running job with
  ``JobCancelledError``; the killed workers are replaced and the context keeps working.

A task proves it has started by creating a file; every wait has a deadline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rdd import JobCancelledError

from tests.rdd.processes import identify, is_running, kill_survivors, wait_until

ROOT = Path(__file__).resolve().parents[2]
#: How long a stopping driver, or its workers, may take to be gone.
DEADLINE_S = 20.0

DRIVER = textwrap.dedent(
    """
    import json, os, sys, threading, time
    from rdd import SparkContext

    master, action, markers = sys.argv[1:4]
    sc = SparkContext(master, "stop-while-a-task-runs")

    def slow(x):
        open(os.path.join(markers, f"started-{x}"), "w").close()
        time.sleep(600)
        return x

    def job():
        try:
            sc.parallelize(range(2), 2).map(slow).collect()
            print("job: finished", flush=True)
        except BaseException as exc:
            print(f"job: {type(exc).__name__}: {exc}", flush=True)

    thread = threading.Thread(target=job, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not os.listdir(markers):
        if time.monotonic() > deadline:
            sys.exit("no task started within 60 s")
        time.sleep(0.02)
    print(json.dumps(sc._env.backend.worker_pids()), flush=True)
    if action == "exit":
        sys.exit(3)
    sc.stop()
    print("stopped", flush=True)
    if master != "local":  # an inline task cannot be killed: its daemon thread dies with us
        thread.join(60)
    """
)


def run_driver(master: str, action: str, tmp_path: Path) -> tuple[int, list[str], str]:
    """Run :data:`DRIVER`; its exit status, stdout lines and stderr (killed after the deadline)."""
    markers = tmp_path / "markers"
    markers.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, master, action, str(markers)],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        out, err = proc.communicate(timeout=60 + DEADLINE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"the driver ({master}, {action}) did not exit; stdout {out!r}; "
                             f"stderr {err[-2000:]}") from None
    return proc.returncode, out.splitlines(), err


def assert_gone(pids: list[int]) -> None:
    workers = [p for p in (identify(pid) for pid in pids) if p is not None]
    try:
        wait_until(lambda: not any(is_running(w) for w in workers), DEADLINE_S,
                   f"workers {pids} exit")
    finally:
        kill_survivors(workers)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("master", ["local", "local[2]"])
def test_stop_returns_and_cancels_the_running_job(master: str, tmp_path: Path) -> None:
    rc, lines, err = run_driver(master, "stop", tmp_path)
    assert rc == 0, err[-2000:]
    assert "stopped" in lines, (lines, err[-2000:])
    pids = json.loads(lines[0])
    assert_gone(pids)
    if master == "local[2]":
        assert len(pids) == 2
        expected = "job: JobCancelledError: Job 0 cancelled because SparkContext was shut down"
        assert expected in lines, lines
    assert "Traceback" not in err, err[-2000:]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("master", ["local", "local[2]"])
def test_sys_exit_while_a_daemon_thread_runs_a_job(master: str, tmp_path: Path) -> None:
    rc, lines, err = run_driver(master, "exit", tmp_path)
    assert rc == 3, err[-2000:]
    assert_gone(json.loads(lines[0]))
    assert "Traceback" not in err, err[-2000:]


def sleeping_job(sc: Any, markers: Path, group: str | None,
                 tag: str | None = None) -> tuple[threading.Thread, list[BaseException]]:
    """Start, in a thread, a job whose two tasks sleep; return it once both tasks run."""
    errors: list[BaseException] = []
    marker_dir = str(markers)

    def slow(x: int) -> int:
        open(os.path.join(marker_dir, f"started-{x}"), "w").close()
        time.sleep(600)
        return x

    def job() -> None:
        if group is not None:
            sc.setJobGroup(group, "sleeps")
        if tag is not None:
            sc.addJobTag(tag)
            sc.addJobTag("another-tag")
        try:
            sc.parallelize(range(2), 2).map(slow).collect()
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            errors.append(exc)

    markers.mkdir()
    thread = threading.Thread(target=job, daemon=True)
    thread.start()
    wait_until(lambda: len(os.listdir(markers)) == 2, DEADLINE_S, "both tasks run")
    return thread, errors


@pytest.mark.parametrize("how", ["group", "tag", "all"])
def test_cancelling_kills_the_tasks_and_the_context_keeps_working(make_sc: Callable[..., Any],
                                                                  tmp_path: Path, how: str) -> None:
    sc = make_sc("local[2]")
    before = list(sc._env.backend.worker_pids())
    thread, errors = sleeping_job(sc, tmp_path / "markers", "nightly", "etl")
    if how == "tag":
        sc.cancelJobsWithTag("not-this-one")  # no job carries it: nothing happens
        assert thread.is_alive()
        sc.cancelJobsWithTag("etl")
        expected = "cancelled part of cancelled job tags etl"
    elif how == "group":
        sc.cancelJobGroup("another-group")  # not this job's group: nothing happens
        sc.cancelJobGroup("nightly")
        expected = "cancelled part of cancelled job group nightly"
    else:
        sc.cancelAllJobs()
        expected = "cancelled as part of cancellation of all jobs"
    thread.join(DEADLINE_S)
    assert not thread.is_alive(), "the cancelled job did not end"
    assert len(errors) == 1 and isinstance(errors[0], JobCancelledError), errors
    assert expected in str(errors[0])
    assert_gone(before)  # killed, not left sleeping
    assert sc.parallelize(range(10), 2).map(lambda x: x * 2).sum() == 90
    assert len(sc._env.backend.worker_pids()) == 2
