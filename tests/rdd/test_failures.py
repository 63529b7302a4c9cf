"""Failures with real processes: task exceptions, unpicklable closures, driver-only
objects used in tasks, a worker killed mid-job, and leaks of worker processes.

- A task that raises surfaces on the driver as the *same* exception type, with the
  stage and partition in its message or notes and the worker's traceback text attached
  (``__cause__`` chain or notes). The context keeps working afterwards.
- A closure capturing something that cannot be pickled (a lock, a socket, the
  SparkContext, an RDD) fails when the job is built, naming the object's type; the
  context and RDDs say they only work on the driver.
- A worker killed with SIGKILL in the middle of a job (the task kills its own process
  on its first attempt; a marker file makes that happen once) does not change the
  job's answer on ``local[2]``.
- After ``stop()`` no worker process is left, and a driver killed with SIGKILL leaves
  no worker behind either (checked through ``/proc`` within a 10 s deadline).

Contexts here are fresh per test (``make_sc``): these tests break workers on purpose.
"""

from __future__ import annotations

import json
import multiprocessing
import operator
import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rdd.errors import DriverOnlyError, SerializationError

from tests.rdd.processes import (
    ProcessId,
    descendants,
    identify,
    is_running,
    kill_survivors,
    wait_until,
    worker_pids,
)

MASTERS = ["local", "local[2]"]

#: How long stopped or orphaned workers may take to disappear.
EXIT_DEADLINE_S = 10.0


class QuotaExceeded(Exception):  # noqa: N818 - a user's exception, named as users name them
    """A user-defined exception with two constructor arguments."""

    def __init__(self, user: str, limit: int) -> None:
        super().__init__(user, limit)
        self.user = user
        self.limit = limit


def fail_in_partition_two(index: int, it: Iterator[int]) -> Iterator[int]:
    if index == 2:
        raise KeyError("missing-key")
    return it


def exceed_quota_in_partition_one(index: int, it: Iterator[int]) -> Iterator[int]:
    if index == 1:
        raise QuotaExceeded("ada", 3)
    return it


def printed(exc: BaseException) -> str:
    """What Python prints for ``exc``: its traceback, notes and causes.

    With ``local`` the task's frames are the exception's own traceback; from a worker they
    come as the text of a ``RemoteTraceback`` cause. Either way they are printed once.
    """
    return "".join(traceback.format_exception(exc))


def message_and_notes(exc: BaseException) -> str:
    return "\n".join([str(exc), *getattr(exc, "__notes__", [])])


# ------------------------------------------------------------------ task exceptions


@pytest.mark.parametrize("master", MASTERS)
def test_task_exception_keeps_its_type_and_names_stage_and_partition(make_sc: Callable[..., Any],
                                                                     master: str) -> None:
    sc = make_sc(master)
    rdd = sc.parallelize(range(40), 4).mapPartitionsWithIndex(fail_in_partition_two)
    with pytest.raises(KeyError) as excinfo:
        rdd.collect()
    exc = excinfo.value
    assert exc.args == ("missing-key",)
    text = message_and_notes(exc)
    assert re.search(r"stage \d+", text), text
    assert re.search(r"partition 2\b", text), text
    remote = printed(exc)
    raising_line = fail_in_partition_two.__code__.co_firstlineno + 2
    frame = f'File "{__file__}", line {raising_line}, in fail_in_partition_two'
    assert remote.count(frame) == 1, f"the task's traceback names the function once: {remote}"
    assert "KeyError" in remote
    assert sc.parallelize(range(10), 2).sum() == 45, "the context still works after a failed job"


@pytest.mark.parametrize("master", MASTERS)
def test_custom_exception_crosses_back_intact(make_sc: Callable[..., Any], master: str) -> None:
    sc = make_sc(master)
    rdd = sc.parallelize(range(12), 3).mapPartitionsWithIndex(exceed_quota_in_partition_one)
    with pytest.raises(QuotaExceeded) as excinfo:
        rdd.count()
    assert (excinfo.value.user, excinfo.value.limit) == ("ada", 3)
    assert re.search(r"partition 1\b", message_and_notes(excinfo.value))
    assert printed(excinfo.value).count(", in exceed_quota_in_partition_one") == 1


def test_exception_in_a_shuffle_map_stage(make_sc: Callable[..., Any]) -> None:
    sc = make_sc("local[2]")

    def key_of(x: int) -> tuple[int, int]:
        if x == 13:
            raise ZeroDivisionError("bad record 13")
        return (x % 3, x)

    with pytest.raises(ZeroDivisionError, match="bad record 13"):
        sc.parallelize(range(20), 4).map(key_of).reduceByKey(operator.add).collect()
    assert sc.parallelize([(1, 2), (1, 3)], 2).reduceByKey(operator.add).collect() == [(1, 5)]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("master", MASTERS)
def test_a_job_that_failed_in_the_first_of_two_shuffles_runs_again(make_sc: Callable[..., Any],
                                                                    master: str,
                                                                    tmp_path: Path) -> None:
    """The second run used to wait forever: the new job resubmitted the first shuffle's map
    stage (a stage of the failed job) without registering it, and dropped its results."""
    sc = make_sc(master)
    flag = tmp_path / "fail"
    flag.touch()

    def pair(x: int) -> tuple[int, int]:
        if os.path.exists(flag):
            raise ValueError("transient failure")
        return (x, 1)

    rdd = sc.parallelize(range(10), 2).map(pair).partitionBy(2).mapValues(lambda v: v + 1)
    rdd = rdd.partitionBy(3)
    with pytest.raises(ValueError, match="transient failure"):
        rdd.collect()
    flag.unlink()
    assert sorted(rdd.collect()) == [(x, 2) for x in range(10)]


# ------------------------------------------------------------------ what cannot cross into a task


def _unpicklable_objects(sc: Any) -> list[tuple[str, Any, str]]:
    """(label, object, expected type name in the message)."""
    return [
        ("lock", threading.Lock(), "lock"),
        ("socket", socket.socket(socket.AF_INET, socket.SOCK_STREAM), "socket"),
        ("context", sc, "SparkContext"),
        ("rdd", sc.parallelize([1, 2]), "RDD"),
    ]


@pytest.mark.parametrize("label", ["lock", "socket", "context", "rdd"])
@pytest.mark.parametrize("master", MASTERS)
def test_unpicklable_closure_fails_at_job_build_naming_the_object(make_sc: Callable[..., Any], master: str,
                                                                  label: str) -> None:
    sc = make_sc(master)
    objects = {name: (obj, type_name) for name, obj, type_name in _unpicklable_objects(sc)}
    captured, type_name = objects[label]
    ran = sc.accumulator(0)

    def uses_it(x: int) -> Any:
        ran.add(1)
        return (x, captured)

    try:
        with pytest.raises((SerializationError, DriverOnlyError)) as excinfo:
            sc.parallelize(range(4), 2).map(uses_it).collect()
        assert type_name in str(excinfo.value), str(excinfo.value)
        assert ran.value == 0, "no task ran: the error is raised when the job is built"
        if label in ("context", "rdd"):
            assert "driver" in str(excinfo.value)
        assert sc.parallelize(range(4), 2).sum() == 6, "the context still works"
    finally:
        for obj, _ in objects.values():
            if isinstance(obj, socket.socket):
                obj.close()


@pytest.mark.parametrize("master", MASTERS)
def test_rdd_used_inside_a_task_says_driver_only(make_sc: Callable[..., Any], master: str) -> None:
    sc = make_sc(master)
    lookup = sc.parallelize([1, 2, 3])
    with pytest.raises(DriverOnlyError, match="driver"):
        sc.parallelize(range(3)).map(lambda x: lookup.count() + x).collect()


@pytest.mark.parametrize("master", MASTERS)
def test_context_used_inside_a_task_says_driver_only(make_sc: Callable[..., Any], master: str) -> None:
    sc = make_sc(master)
    with pytest.raises(DriverOnlyError, match="driver"):
        sc.parallelize(range(3)).map(lambda x: sc.parallelize([x]).count()).collect()


def test_broadcasting_an_rdd_or_the_context_says_driver_only(make_sc: Callable[..., Any]) -> None:
    sc = make_sc("local")
    with pytest.raises(DriverOnlyError, match="driver"):
        sc.broadcast(sc.parallelize([1]))
    with pytest.raises(DriverOnlyError, match="driver"):
        sc.broadcast(sc)


# ------------------------------------------------------------------ a worker killed mid-job


def kill_own_worker_once(marker: str, driver_pid: int, victim: int) -> Callable[[int], int]:
    """A function that SIGKILLs its worker process the first time it sees ``victim``."""

    def f(x: int) -> int:
        if x == victim and os.getpid() != driver_pid:
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return x
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)
        return x

    return f


@pytest.mark.timeout(120)
def test_worker_killed_in_a_result_stage(make_sc: Callable[..., Any], tmp_path: Path) -> None:
    sc = make_sc("local[2]")
    marker = tmp_path / "killed"
    before = set(worker_pids(sc))
    f = kill_own_worker_once(str(marker), os.getpid(), victim=17)
    assert sc.parallelize(range(40), 4).map(f).map(lambda x: x * 2).collect() == [2 * x for x in range(40)]
    assert marker.exists(), "a worker was really killed"
    killed = int(marker.read_text())
    assert killed in before
    assert killed not in worker_pids(sc), "the dead worker was replaced"
    assert len(worker_pids(sc)) == 2
    assert sc.parallelize(range(10), 2).sum() == 45


@pytest.mark.timeout(120)
def test_worker_killed_on_a_large_slice(make_sc: Callable[..., Any], tmp_path: Path) -> None:
    """The retried task sends its slice again: records that travel beside the task's pickle."""
    sc = make_sc("local[2]")
    marker = tmp_path / "killed"
    lines = [f"{i} " + "w" * (i % 50) for i in range(30_000)]  # slices past the out-of-band size
    kill = kill_own_worker_once(str(marker), os.getpid(), victim=17)
    f = lambda line: f"{kill(int(line.split()[0]))} {line}"  # noqa: E731
    assert sc.parallelize(lines, 2).map(f).collect() == [f"{i} {line}" for i, line in enumerate(lines)]
    assert marker.exists(), "a worker was really killed"


@pytest.mark.timeout(120)
def test_worker_killed_in_a_reduce_stage(make_sc: Callable[..., Any], tmp_path: Path) -> None:
    """The dead worker may hold map outputs: they are recomputed from lineage."""
    sc = make_sc("local[2]")
    marker = tmp_path / "killed"
    f = kill_own_worker_once(str(marker), os.getpid(), victim=2)
    pairs = sc.parallelize(range(60), 6).map(lambda x: (x % 5, x))
    result = pairs.reduceByKey(operator.add, 4).map(lambda kv: (f(kv[0]), kv[1])).collect()
    assert marker.exists()
    assert sorted(result) == sorted((k, sum(x for x in range(60) if x % 5 == k)) for k in range(5))


@pytest.mark.timeout(120)
def test_worker_killed_while_reading_a_cached_rdd(make_sc: Callable[..., Any], tmp_path: Path) -> None:
    """Cached partitions of the dead worker are gone: they are recomputed from lineage."""
    sc = make_sc("local[2]")
    marker = tmp_path / "killed"
    cached = sc.parallelize(range(40), 4).map(lambda x: x * 3).cache()
    assert cached.count() == 40
    f = kill_own_worker_once(str(marker), os.getpid(), victim=9)
    assert cached.map(f).collect() == [3 * x for x in range(40)]
    assert marker.exists()
    assert cached.sum() == 3 * sum(range(40))


@pytest.mark.timeout(120)
def test_worker_killed_during_foreach_counts_accumulators_once(make_sc: Callable[..., Any],
                                                               tmp_path: Path) -> None:
    """Spark's guarantee for actions: a retried task's accumulator updates apply once.

    The replacement worker also has to load the broadcast variable afresh.
    """
    sc = make_sc("local[2]")
    marker = tmp_path / "killed"
    seen = sc.accumulator(0)
    total = sc.accumulator(0)
    offset = sc.broadcast(1000)
    f = kill_own_worker_once(str(marker), os.getpid(), victim=25)

    def visit(x: int) -> None:
        seen.add(1)
        total.add(f(x) + offset.value)

    sc.parallelize(range(40), 4).foreach(visit)
    assert marker.exists()
    assert seen.value == 40
    assert total.value == sum(range(40)) + 40 * 1000


# ------------------------------------------------------------------ no worker outlives its driver


def test_stop_leaves_no_worker_process(make_sc: Callable[..., Any]) -> None:
    sc = make_sc("local[2]")
    assert sc.parallelize(range(8), 4).map(lambda x: x + 1).sum() == 36
    workers = [identify(pid) for pid in worker_pids(sc)]
    assert len(workers) == 2 and all(w is not None and is_running(w) for w in workers)
    sc.stop()
    try:
        wait_until(lambda: not any(is_running(w) for w in workers if w is not None), EXIT_DEADLINE_S,
                   "the stopped context's workers exit")
        assert multiprocessing.active_children() == []
        for worker in workers:
            assert worker is not None
            with pytest.raises(ProcessLookupError):
                os.kill(worker.pid, 0)  # our own children: gone and reaped, not zombies
    finally:
        kill_survivors([w for w in workers if w is not None])


ORPHAN_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from rdd import SparkContext
    sc = SparkContext("local[2]", "orphan-check")
    assert sc.parallelize(range(8), 4).map(lambda x: x * 2).sum() == 56
    print(json.dumps({"driver": os.getpid(), "workers": sc._env.backend.worker_pids()}), flush=True)
    sys.stdin.read()  # block until the test kills this process
    """
)


def read_line_before(proc: subprocess.Popen[str], deadline_s: float) -> str:
    """One line of the child's stdout, failing after ``deadline_s`` seconds."""
    assert proc.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=deadline_s):
            raise AssertionError(f"the driver script printed nothing within {deadline_s} s")
    return proc.stdout.readline()


@pytest.mark.timeout(120)
def test_driver_killed_with_sigkill_leaves_no_worker(tmp_path: Path) -> None:
    env = dict(os.environ)
    repo_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [repo_root, env.get("PYTHONPATH")]))
    proc = subprocess.Popen([sys.executable, "-c", ORPHAN_SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    tracked: list[ProcessId] = []
    try:
        line = read_line_before(proc, 60.0)
        assert line, f"the driver script exited early: {proc.stderr.read() if proc.stderr else ''}"
        report = json.loads(line)
        assert report["driver"] == proc.pid
        tracked = [p for p in (identify(pid) for pid in report["workers"]) if p is not None]
        assert len(tracked) == 2 and all(is_running(p) for p in tracked), report
        # every process the driver started (workers, and any helper such as a resource tracker)
        tracked += [p for p in descendants(proc.pid) if p not in tracked]

        proc.kill()
        proc.wait(timeout=10)
        deadline = time.monotonic() + EXIT_DEADLINE_S
        while any(is_running(p) for p in tracked) and time.monotonic() < deadline:
            time.sleep(0.05)
        survivors = [p.pid for p in tracked if is_running(p)]
        assert not survivors, (f"processes {survivors} of the SIGKILLed driver {proc.pid} still run "
                               f"{EXIT_DEADLINE_S} s later")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        kill_survivors(tracked)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
