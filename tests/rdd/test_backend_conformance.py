"""Every executor backend keeps the contract of ``rdd.executor.backend``.

Each test builds a backend directly (no ``SparkContext``) with a sink that records the
events it reports, feeds it tasks made by the real ``DAGScheduler`` over real lineage
nodes, and checks what the contract promises: one event per submitted task, an
``ExecutorLost`` for a killed worker, removed blocks gone, nothing left running or alive
after ``cancel_job`` and ``shutdown``. Each backend is one entry in :data:`BACKENDS`
(Ray's runs with ``make test-ray`` on the session's Ray cluster); the tests that need
killable executor processes take the entries of :data:`PROCESS_BACKENDS`.

Tasks that must be caught running write ``<dir>/<partition>`` (their pid) and then
block until they are killed; every wait has a deadline.
"""

from __future__ import annotations

import functools
import os
import queue
import signal
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from rdd.executor.inline import InlineBackend
from rdd.executor.process_pool import ProcessPoolBackend
from rdd.local_dir import LocalDir
from rdd.nodes.base import LineageNode
from rdd.nodes.narrow import MapPartitionsNode
from rdd.nodes.parallel import ParallelCollectionNode, serialize_slices
from rdd.runtime import environment
from rdd.runtime.environment import ExecutorEnv
from rdd.runtime.task_context import TaskContext
from rdd.scheduler.dag_scheduler import DAGScheduler, SubmitTask
from rdd.scheduler.events import BackendEvent, ExecutorLost, TaskFailed, TaskFinished
from rdd.scheduler.tracking import BlockLocations, MapOutputTracker
from rdd.serialization.serializer import OUT_OF_BAND_MIN_BYTES, dumps_records
from rdd.shuffle.store import MemoryShuffleStore
from rdd.storage import block_manager
from rdd.storage.block_manager import BlockManager, rdd_block_id
from rdd.storage.level import StorageLevel

from tests.rdd.processes import identify, is_running, kill_survivors, wait_until

DEADLINE_S = 30.0


@dataclass(frozen=True)
class BackendKind:
    name: str
    make: Callable[[Callable[[BackendEvent], None], str], Any]
    #: Its executors are processes of their own, which a test can kill.
    processes: bool

    def __repr__(self) -> str:
        return self.name


def _ray_backend(sink: Callable[[BackendEvent], None], local_dir: str) -> Any:
    from rdd.executor.ray_backend import RayBackend
    from rdd.executor.ray_cluster import RayConnection

    return RayBackend(RayConnection.open(None), 2, 1, sink, local_dir)  # joins the session's cluster


PROCESS_BACKENDS = [
    BackendKind("process_pool", lambda sink, local_dir: ProcessPoolBackend(2, local_dir, sink),
                processes=True),
    pytest.param(BackendKind("ray", _ray_backend, processes=True), marks=pytest.mark.ray, id="ray"),
]
BACKENDS = [BackendKind("inline", lambda sink, local_dir: InlineBackend(sink), processes=False), *PROCESS_BACKENDS]


# --- task functions (module level: workers import them by reference) ---------------------


def _sum_or_fail(fail_on: frozenset[int], iterator: Iterable[int]) -> int:
    partition = TaskContext.get().partitionId()  # type: ignore[union-attr]
    if partition in fail_on:
        raise ValueError(f"partition {partition} fails on purpose")
    return sum(iterator)


def _block_forever(started_dir: str, iterator: Iterable[Any]) -> None:
    partition = TaskContext.get().partitionId()  # type: ignore[union-attr]
    path = os.path.join(started_dir, str(partition))
    with open(path + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(path + ".tmp", path)
    threading.Event().wait()  # until the backend kills this process


def _count(iterator: Iterable[Any]) -> int:
    return sum(1 for _ in iterator)


def _lines_digest(iterator: Iterable[str]) -> tuple[int, int]:
    lines = list(iterator)
    return len(lines), zlib.crc32("\n".join(lines).encode())


def _holds_block(block_id: str, iterator: Iterable[Any]) -> bool:
    return block_manager.current().contains(block_id)


def _identity(split: int, iterator: Iterator[Any]) -> Iterator[Any]:
    return iterator


# --- the harness ------------------------------------------------------------------------


class Harness:
    """One backend, its recorded events, and a DAG scheduler that makes its tasks."""

    def __init__(self, kind: BackendKind, local_dir: str) -> None:
        self.events: queue.SimpleQueue[BackendEvent] = queue.SimpleQueue()
        self.seen: list[BackendEvent] = []
        self.scheduler = DAGScheduler(MapOutputTracker(), BlockLocations())
        self.local_dir = local_dir
        self.backend = kind.make(self.events.put, local_dir)

    def tasks(self, job_id: int, node: LineageNode, func: Callable[[Any], Any],
              partitions: list[int] | None = None) -> list[SubmitTask]:
        if partitions is None:
            partitions = list(range(node.num_partitions))
        actions = self.scheduler.submit_job(job_id, node, func, partitions)
        assert all(isinstance(a, SubmitTask) for a in actions)
        return actions  # type: ignore[return-value]

    def submit(self, tasks: list[SubmitTask]) -> None:
        for task in tasks:
            self.backend.submit(task.spec, task.binary)

    def next_events(self, count: int) -> list[BackendEvent]:
        got: list[BackendEvent] = []
        deadline = time.monotonic() + DEADLINE_S
        while len(got) < count:
            event = self._next_event(deadline)
            if event is None:
                raise AssertionError(f"the backend reported {len(got)} of {count} events within "
                                     f"{DEADLINE_S} s: {got}")
            got.append(event)
        self.seen.extend(got)
        return got

    def _next_event(self, deadline: float) -> BackendEvent | None:
        """The next event before ``deadline``, reading the executors on this thread where the backend asks it."""
        pump = getattr(self.backend, "pump", None)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                if pump is None:
                    return self.events.get(timeout=left)
                return self.events.get_nowait()
            except queue.Empty:
                if pump is None:
                    return None
                pump(min(left, 0.05))

    def assert_no_more_events(self) -> None:
        """Nothing beyond what was expected: waited for (and read, for a pumped backend) 0.2 s, then shut down."""
        extra = self._next_event(time.monotonic() + 0.2)
        assert extra is None, f"an extra event: {extra}"
        self.backend.shutdown()  # no event may come after the last one expected
        assert self.events.empty(), f"an extra event: {self.events.get()}"

    def run(self, tasks: list[SubmitTask]) -> list[BackendEvent]:
        self.submit(tasks)
        return self.next_events(len(tasks))


def nodes(num_partitions: int, per_partition: int = 3) -> ParallelCollectionNode:
    slices = [list(range(p * per_partition, (p + 1) * per_partition))
              for p in range(num_partitions)]
    return ParallelCollectionNode(slices)


@pytest.fixture
def local_dir(tmp_path: Path) -> Iterator[str]:
    """A context's local directory and the driver's runtime, as ``Env`` installs them."""
    directory = LocalDir(str(tmp_path))
    saved_env = environment._current
    saved_blocks = block_manager._current
    environment.install(ExecutorEnv("driver", directory.path, MemoryShuffleStore()))
    block_manager.install(BlockManager("driver", os.path.join(directory.path, "blocks", "driver")))
    try:
        yield directory.path
    finally:
        environment._current = saved_env
        block_manager._current = saved_blocks
        directory.remove()


@pytest.fixture(params=BACKENDS, ids=repr)
def harness(request: pytest.FixtureRequest, local_dir: str) -> Iterator[Harness]:
    yield from _harness(request, local_dir)


@pytest.fixture(params=PROCESS_BACKENDS, ids=repr)
def process_harness(request: pytest.FixtureRequest, local_dir: str) -> Iterator[Harness]:
    yield from _harness(request, local_dir)


def _harness(request: pytest.FixtureRequest, local_dir: str) -> Iterator[Harness]:
    kind = request.param
    if kind.name == "ray":
        request.getfixturevalue("ray_cluster")
    h = Harness(kind, local_dir)
    pids = [identify(pid) for pid in h.backend.worker_pids()]
    try:
        yield h
    finally:
        h.backend.shutdown()
        kill_survivors([p for p in pids if p is not None])


def _started(directory: Path) -> dict[int, int]:
    """Partition -> pid of the blocking tasks that have started."""
    return {int(p.name): int(p.read_text()) for p in directory.iterdir() if p.name.isdigit()}


# --- the contract -----------------------------------------------------------------------


def test_every_submitted_task_yields_exactly_one_event(harness: Harness) -> None:
    fail_on = frozenset({2, 5})
    tasks = harness.tasks(0, nodes(6), functools.partial(_sum_or_fail, fail_on))
    executors = set(harness.backend.executor_ids())
    events = harness.run(tasks)
    harness.assert_no_more_events()

    by_task = {}
    for event in events:
        assert isinstance(event, (TaskFinished, TaskFailed)), event
        assert event.spec.task_id not in by_task, f"two events for task {event.spec.task_id}"
        by_task[event.spec.task_id] = event
    assert sorted(by_task) == sorted(t.spec.task_id for t in tasks)
    for task in tasks:
        event = by_task[task.spec.task_id]
        partition = task.spec.partition
        if partition in fail_on:
            assert isinstance(event, TaskFailed)
            assert isinstance(event.failure.error, ValueError)
            assert event.failure.task_id == task.spec.task_id
            assert event.failure.executor_id in executors
        else:
            assert isinstance(event, TaskFinished)
            assert event.result.value == sum(range(partition * 3, partition * 3 + 3))
            assert event.result.task_id == task.spec.task_id
            assert event.result.executor_id in executors


_FORKED_POOL = BackendKind("process_pool_fork",
                           lambda sink, local_dir: ProcessPoolBackend(2, local_dir, sink, start_method="fork"),
                           processes=True)


@pytest.mark.parametrize("harness", [*BACKENDS, _FORKED_POOL], ids=repr, indirect=True)
def test_a_large_parallelized_slice_reaches_the_executor_whole(harness: Harness) -> None:
    """A slice's records travel beside the task's pickle (out of band), not inside it,
    whichever end reads them (a forked worker reads with multiprocessing's Connection)."""
    lines = [f"line {i} " + "x" * (i % 97) for i in range(40_000)]
    node = ParallelCollectionNode(serialize_slices(lines, 3, dumps_records))
    tasks = harness.tasks(0, node, _lines_digest)
    assert all(len(t.spec.split_buffers) == 1 for t in tasks), "each slice is kept out of the task's pickle"
    assert all(len(t.spec.split_bytes) < OUT_OF_BAND_MIN_BYTES for t in tasks)
    events = harness.run(tasks)
    harness.assert_no_more_events()
    expected = {}
    for partition in range(3):
        part = lines[partition * len(lines) // 3:(partition + 1) * len(lines) // 3]
        expected[partition] = (len(part), zlib.crc32("\n".join(part).encode()))
    got = {}
    for event in events:
        assert isinstance(event, TaskFinished), event
        got[event.spec.partition] = event.result.value
    assert got == expected


def test_a_killed_executor_yields_executor_lost(process_harness: Harness, tmp_path: Path) -> None:
    h = process_harness
    started = tmp_path / "started"
    started.mkdir()
    before = set(h.backend.executor_ids())
    [task] = h.tasks(0, nodes(1), functools.partial(_block_forever, str(started)))
    h.submit([task])
    wait_until(lambda: 0 in _started(started), DEADLINE_S, "the task started")
    os.kill(_started(started)[0], signal.SIGKILL)

    [event] = h.next_events(1)
    assert isinstance(event, ExecutorLost), event
    assert event.tasks == (task.spec,)
    assert event.executor_id in before
    assert event.executor_id not in h.backend.executor_ids()
    assert len(h.backend.executor_ids()) == len(before)  # replaced

    # The replacement runs tasks, and the lost task produced no other event.
    [done] = h.run(h.tasks(1, nodes(1), _count))
    assert isinstance(done, TaskFinished) and done.result.value == 3
    h.assert_no_more_events()


@pytest.mark.parametrize("level", [StorageLevel.MEMORY_ONLY, StorageLevel.DISK_ONLY],
                         ids=["memory", "disk"])
def test_removed_blocks_are_gone(harness: Harness, level: StorageLevel) -> None:
    cached = MapPartitionsNode(nodes(3), _identity)
    cached.storage_level = level
    events = harness.run(harness.tasks(0, cached, _count))
    holders = {}
    for event in events:
        assert isinstance(event, TaskFinished), event
        [block] = event.result.blocks_added
        holders[block] = event.result.executor_id
    assert sorted(holders) == [rdd_block_id(cached.id, p) for p in range(3)]

    def probe(job_id: int) -> dict[str, bool]:
        """Whether each holder still has its block, asked in the holder's own process."""
        tasks = []
        for block_id, executor in holders.items():
            [task] = harness.tasks(job_id, nodes(1), functools.partial(_holds_block, block_id))
            spec = replace(task.spec, preferred=executor, strict_locality=True)
            tasks.append(SubmitTask(spec, task.binary))
        found = {}
        for event in harness.run(tasks):
            assert isinstance(event, TaskFinished), event
            block_id = next(b for b, t in zip(holders, tasks)
                            if t.spec.task_id == event.spec.task_id)
            assert event.result.executor_id == holders[block_id]
            found[block_id] = event.result.value
        return found

    assert probe(1) == {block: True for block in holders}
    harness.backend.remove_rdd(cached.id)
    assert probe(2) == {block: False for block in holders}
    blocks_dir = Path(harness.local_dir) / "blocks"
    left = [p.name for p in blocks_dir.rglob("rdd_*")] if blocks_dir.exists() else []
    assert left == [], f"block files left after remove_rdd: {left}"


def test_cancel_job_leaves_no_task_of_the_job_running(process_harness: Harness,
                                                      tmp_path: Path) -> None:
    h = process_harness
    started = tmp_path / "started"
    started.mkdir()
    workers = len(h.backend.executor_ids())
    # One more task than workers: all workers busy, one task queued.
    h.submit(h.tasks(0, nodes(workers + 1), functools.partial(_block_forever, str(started))))
    wait_until(lambda: len(_started(started)) == workers, DEADLINE_S,
               f"{workers} tasks started")
    running = [identify(pid) for pid in _started(started).values()]
    assert all(p is not None for p in running)

    h.backend.cancel_job(0)
    wait_until(lambda: not any(is_running(p) for p in running if p is not None), DEADLINE_S,
               "the processes running the cancelled job's tasks are gone")
    # The queue is first in, first out: had the queued task of job 0 survived, it would
    # start before job 1's task ends.
    events = h.run(h.tasks(1, nodes(1), _count))
    while not any(isinstance(e, TaskFinished) and e.spec.job_id == 1 for e in events):
        events = h.next_events(1)
    assert sorted(_started(started)) == list(range(workers)), "a cancelled queued task ran"
    assert len(h.backend.executor_ids()) == workers  # killed workers were replaced


def test_shutdown_leaves_no_task_running_and_no_process_alive(harness: Harness,
                                                              tmp_path: Path) -> None:
    h = harness
    pids = [identify(pid) for pid in h.backend.worker_pids()]
    assert all(p is not None for p in pids)
    if h.backend.worker_pids():
        started = tmp_path / "started"
        started.mkdir()
        h.submit(h.tasks(0, nodes(1), functools.partial(_block_forever, str(started))))
        wait_until(lambda: 0 in _started(started), DEADLINE_S, "the task started")
    else:
        h.run(h.tasks(0, nodes(2), _count))  # inline: tasks run inside submit()
    h.backend.shutdown()
    alive = [p for p in pids if p is not None and is_running(p)]
    assert alive == [], f"processes alive after shutdown: {alive}"
    assert not [p for p in (identify(pid) for pid in h.backend.worker_pids())
                if p is not None and is_running(p)]
