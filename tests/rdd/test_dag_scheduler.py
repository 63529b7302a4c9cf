"""The DAG scheduler on its own: events in, actions out, no executor and no context.

``DAGScheduler`` is a pure state machine (``submit_job`` and ``handle(event)`` return
actions), so these tests build real lineage nodes, take the ``SubmitTask`` actions it
returns and answer with the events a backend would send (``TaskFinished``,
``TaskFailed``, ``ExecutorLost``), in any order. The first tests pin the rules one by one
(retry limits, fetch failures, executor loss); :class:`SchedulerMachine` then throws
random jobs over random lineages and random event orders at it and checks the
invariants after every step.
"""

from __future__ import annotations

import itertools
import pickle
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from rdd.errors import BrokenExecutorError, FetchFailedError
from rdd.nodes.base import LineageNode, ShuffleDependency, walk_narrow
from rdd.nodes.narrow import MapPartitionsNode, UnionNode
from rdd.nodes.parallel import ParallelCollectionNode
from rdd.nodes.shuffled import ShuffledNode
from rdd.partitioner import Partitioner, portable_hash
from rdd.scheduler.dag_scheduler import (
    MAX_STAGE_FETCH_FAILURES,
    MAX_TASK_ATTEMPTS,
    DAGScheduler,
    JobFailed,
    JobSucceeded,
    MergeAccumulators,
    SubmitTask,
)
from rdd.scheduler.events import ExecutorLost, TaskFailed, TaskFinished
from rdd.scheduler.task import TaskFailure, TaskResult, TaskSpec
from rdd.scheduler.tracking import BlockLocations, MapOutputTracker
from rdd.shuffle.writer import ShuffleWriteSpec

_shuffle_ids = itertools.count(1000)


def _tag(split: int, iterator: Iterator[Any]) -> Iterator[Any]:
    return ((split, value) for value in iterator)


def _collect(iterator: Iterable[Any]) -> list[Any]:
    return list(iterator)


def source(num_partitions: int) -> ParallelCollectionNode:
    return ParallelCollectionNode([[p] for p in range(num_partitions)])


def shuffled(parent: LineageNode, num_partitions: int) -> ShuffledNode:
    dep = ShuffleDependency(parent, next(_shuffle_ids), Partitioner(num_partitions, portable_hash),
                            None, False, parent.num_partitions)
    return ShuffledNode(dep)


def new_scheduler() -> DAGScheduler:
    return DAGScheduler(MapOutputTracker(), BlockLocations())


def finished(spec: TaskSpec, value: Any = None, executor: str = "0",
             updates: dict[int, Any] | None = None) -> TaskFinished:
    return TaskFinished(spec, TaskResult(spec.task_id, value, [], updates or {}, executor))


def failed(spec: TaskSpec, error: BaseException, executor: str = "0") -> TaskFailed:
    return TaskFailed(spec, TaskFailure(spec.task_id, error, "", executor))


def submitted(actions: list[Any]) -> list[TaskSpec]:
    return [a.spec for a in actions if isinstance(a, SubmitTask)]


def map_output(spec: TaskSpec, num_reduces: int = 2) -> TaskFinished:
    return finished(spec, [1] * num_reduces)


# --- the rules, one at a time -----------------------------------------------------------


def test_a_map_stage_runs_first_and_the_result_stage_after_all_its_outputs() -> None:
    scheduler = new_scheduler()
    node = MapPartitionsNode(shuffled(source(3), 2), _tag)
    maps = submitted(scheduler.submit_job(0, node, _collect, [0, 1]))
    assert [s.is_shuffle_map for s in maps] == [True] * 3
    assert sorted(s.partition for s in maps) == [0, 1, 2]
    assert scheduler.handle(map_output(maps[0])) == []
    assert scheduler.handle(map_output(maps[2])) == []
    results = submitted(scheduler.handle(map_output(maps[1])))
    assert [(s.is_shuffle_map, s.partition) for s in results] == [(False, 0), (False, 1)]
    assert scheduler.handle(finished(results[1], "b")) == []
    assert scheduler.handle(finished(results[0], "a")) == [JobSucceeded(0, ["a", "b"])]


def test_a_waiting_stage_s_binary_made_while_its_parents_run_is_the_one_its_tasks_carry() -> None:
    scheduler = new_scheduler()
    node = MapPartitionsNode(shuffled(source(2), 2), _tag)
    maps = submitted(scheduler.submit_job(0, node, _collect, [0, 1]))
    scheduler.prepare_waiting()
    job = scheduler._job
    assert job is not None
    prepared = {stage_id: binary for stage_id, binary in job.binaries.items() if stage_id != maps[0].stage_id}
    assert len(prepared) == 1  # the result stage's, pickled before any map output exists
    scheduler.handle(map_output(maps[0]))
    actions = scheduler.handle(map_output(maps[1]))
    (digest, binary), = prepared.values()
    assert {a.spec.digest for a in actions if isinstance(a, SubmitTask)} == {digest}
    assert {a.binary for a in actions if isinstance(a, SubmitTask)} == {binary}


def test_a_waiting_stage_that_cannot_be_pickled_fails_when_it_is_submitted_as_before() -> None:
    import threading

    from rdd.errors import SerializationError

    lock = threading.Lock()  # cannot be pickled: the result stage's function captures it

    def holds_a_lock(iterator: Iterable[Any]) -> list[Any]:
        with lock:
            return list(iterator)

    scheduler = new_scheduler()
    maps = submitted(scheduler.submit_job(0, MapPartitionsNode(shuffled(source(1), 1), _tag), holds_a_lock, [0]))
    scheduler.prepare_waiting()  # swallows the error: it belongs to the submission
    with pytest.raises(SerializationError, match="lock"):
        scheduler.handle(map_output(maps[0], 1))


def test_a_user_error_fails_the_job_at_once() -> None:
    scheduler = new_scheduler()
    specs = submitted(scheduler.submit_job(0, source(2), _collect, [0, 1]))
    error = ValueError("bad record")
    actions = scheduler.handle(failed(specs[0], error))
    assert actions == [JobFailed(0, error)]
    assert any("partition 0" in note for note in error.__notes__)
    assert scheduler.handle(finished(specs[1], "late")) == []  # the job is over


def test_a_task_lost_with_its_executor_is_retried_until_the_attempt_limit() -> None:
    scheduler = new_scheduler()
    [spec] = submitted(scheduler.submit_job(0, source(1), _collect, [0]))
    for attempt in range(1, MAX_TASK_ATTEMPTS):
        [spec] = submitted(scheduler.handle(ExecutorLost(str(attempt), "killed", (spec,))))
        assert (spec.partition, spec.attempt, spec.preferred) == (0, attempt, None)
    [outcome] = scheduler.handle(ExecutorLost("last", "killed", (spec,)))
    assert isinstance(outcome, JobFailed)
    assert isinstance(outcome.error, BrokenExecutorError)
    assert f"failed {MAX_TASK_ATTEMPTS} times" in str(outcome.error)


def test_a_retried_task_that_succeeds_ends_the_job_normally() -> None:
    scheduler = new_scheduler()
    [spec] = submitted(scheduler.submit_job(0, source(1), _collect, [0]))
    [retry] = submitted(scheduler.handle(ExecutorLost("0", "killed", (spec,))))
    assert retry.task_id != spec.task_id
    assert scheduler.handle(finished(retry, "done")) == [JobSucceeded(0, ["done"])]


def test_a_fetch_failure_reruns_only_the_lost_map_output_then_the_stage() -> None:
    scheduler = new_scheduler()
    reduce_node = shuffled(source(3), 2)
    shuffle_id = reduce_node.shuffle_id
    maps = submitted(scheduler.submit_job(0, reduce_node, _collect, [0, 1]))
    results: list[TaskSpec] = []
    for spec in maps:
        results += submitted(scheduler.handle(map_output(spec)))
    assert scheduler.handle(finished(results[0], "r0")) == []
    lost = FetchFailedError(shuffle_id, 1, "the output file is gone")
    [rerun] = submitted(scheduler.handle(failed(results[1], lost)))
    assert (rerun.is_shuffle_map, rerun.partition) == (True, 1)
    assert not scheduler.tracker.is_available(shuffle_id)
    [again] = submitted(scheduler.handle(map_output(rerun)))
    assert (again.is_shuffle_map, again.partition) == (False, 1)  # r0 is kept
    assert scheduler.handle(finished(again, "r1")) == [JobSucceeded(0, ["r0", "r1"])]


def test_a_stage_failing_to_fetch_too_often_fails_the_job() -> None:
    scheduler = new_scheduler()
    reduce_node = shuffled(source(1), 1)
    [spec] = submitted(scheduler.submit_job(0, reduce_node, _collect, [0]))
    for _ in range(MAX_STAGE_FETCH_FAILURES):
        [spec] = submitted(scheduler.handle(map_output(spec, 1)))
        assert not spec.is_shuffle_map
        [spec] = submitted(scheduler.handle(
            failed(spec, FetchFailedError(reduce_node.shuffle_id, 0, "gone"))))
        assert spec.is_shuffle_map
    [spec] = submitted(scheduler.handle(map_output(spec, 1)))
    error = FetchFailedError(reduce_node.shuffle_id, 0, "gone again")
    assert scheduler.handle(failed(spec, error)) == [JobFailed(0, error)]


def test_executor_loss_retries_its_tasks_and_forgets_its_blocks_not_shuffle_files() -> None:
    scheduler = new_scheduler()
    reduce_node = shuffled(source(2), 1)
    maps = submitted(scheduler.submit_job(0, reduce_node, _collect, [0]))
    scheduler.locations.add("rdd_1_0", "A")
    assert scheduler.handle(map_output(maps[0], 1)) == []  # map output 0 written by "0"
    # Executor "0" dies running map task 1: only that task is retried. Map output 0 is a
    # file in the context's shared directory, readable after its writer died; were it
    # gone, the reduce task's fetch failure would rerun it.
    [retry] = submitted(scheduler.handle(ExecutorLost("A", "killed", (maps[1],))))
    assert (retry.is_shuffle_map, retry.partition, retry.attempt) == (True, 1, 1)
    assert scheduler.locations.get("rdd_1_0") == set()
    assert scheduler.tracker.missing(reduce_node.shuffle_id) == [1]
    [result] = submitted(scheduler.handle(map_output(retry, 1)))
    assert scheduler.handle(finished(result, "r")) == [JobSucceeded(0, ["r"])]


def test_a_second_job_over_a_finished_shuffle_skips_its_map_stage() -> None:
    scheduler = new_scheduler()
    reduce_node = shuffled(source(2), 1)
    maps = submitted(scheduler.submit_job(0, reduce_node, _collect, [0]))
    [result] = submitted(scheduler.handle(map_output(maps[0], 1)) +
                         scheduler.handle(map_output(maps[1], 1)))
    scheduler.handle(finished(result, "r"))
    scheduler.end_job()
    [again] = submitted(scheduler.submit_job(1, reduce_node, _collect, [0]))
    assert not again.is_shuffle_map


def test_a_job_rerun_after_failing_in_its_first_shuffle_accepts_that_stage_s_results() -> None:
    scheduler = new_scheduler()
    node = shuffled(shuffled(source(1), 1), 1)
    [first] = submitted(scheduler.submit_job(0, node, _collect, [0]))
    assert isinstance(scheduler.handle(failed(first, ValueError("transient")))[0], JobFailed)
    scheduler.end_job()
    [first] = submitted(scheduler.submit_job(1, node, _collect, [0]))
    [second] = submitted(scheduler.handle(map_output(first, 1)))
    [result] = submitted(scheduler.handle(map_output(second, 1)))
    assert scheduler.handle(finished(result, "r")) == [JobSucceeded(1, ["r"])]


# --- random jobs, random lineages, random event orders ----------------------------------


class SchedulerMachine(RuleBasedStateMachine):
    """Random lineages, jobs over them, and completions, failures and executor losses
    delivered in random order, as a backend could.

    The model knows only what it sent: which map outputs exist (a map task that finished
    wrote one; a fetch failure says one is gone), which tasks are in flight (submitted,
    no event yet), and which result each event carried. Events obey the backend
    contract: one per submitted task, or the task in one ``ExecutorLost``.
    """

    def __init__(self) -> None:
        super().__init__()
        self.scheduler = new_scheduler()
        self.nodes: list[LineageNode] = []
        self.by_id: dict[int, LineageNode] = {}
        self.job_ids = itertools.count()
        self.job: int | None = None               # the running job
        self.partitions: list[int] = []
        self.ends: Counter[int] = Counter()
        self.in_flight: list[TaskSpec] = []
        self.outputs: defaultdict[int, set[int]] = defaultdict(set)
        # digest: the stage's node id, and its map side (None for a result stage)
        self.stage_info: dict[str, tuple[int, ShuffleWriteSpec | None]] = {}
        self.accepted: defaultdict[int, list[Any]] = defaultdict(list)  # partition: values merged
        self.executors = itertools.count()

    # -- lineage -------------------------------------------------------------------------
    def _add(self, node: LineageNode) -> None:
        self.nodes.append(node)
        for current in walk_narrow(node):
            self.by_id[current.id] = current

    @precondition(lambda self: len(self.nodes) < 8)
    @rule(n=st.integers(1, 3))
    def add_source(self, n: int) -> None:
        self._add(source(n))

    @precondition(lambda self: self.nodes and len(self.nodes) < 8)
    @rule(data=st.data())
    def add_map(self, data: st.DataObject) -> None:
        self._add(MapPartitionsNode(data.draw(st.sampled_from(self.nodes)), _tag))

    @precondition(lambda self: self.nodes and len(self.nodes) < 8)
    @rule(data=st.data())
    def add_union(self, data: st.DataObject) -> None:
        a, b = data.draw(st.lists(st.sampled_from(self.nodes), min_size=2, max_size=2))
        self._add(UnionNode([a, b]))

    @precondition(lambda self: self.nodes and len(self.nodes) < 8)
    @rule(data=st.data(), n=st.integers(1, 3))
    def add_shuffle(self, data: st.DataObject, n: int) -> None:
        self._add(shuffled(data.draw(st.sampled_from(self.nodes)), n))

    # -- jobs and events -----------------------------------------------------------------
    @precondition(lambda self: self.nodes and self.job is None)
    @rule(data=st.data())
    def submit_job(self, data: st.DataObject) -> None:
        node = data.draw(st.sampled_from(self.nodes))
        self.partitions = data.draw(st.lists(st.sampled_from(range(node.num_partitions)),
                                             min_size=1, unique=True))
        self.job = next(self.job_ids)
        self.accepted.clear()
        self._perform(self.scheduler.submit_job(self.job, node, _collect, self.partitions), None)

    @precondition(lambda self: self.in_flight)
    @rule(data=st.data())
    def end_task(self, data: st.DataObject) -> None:
        spec = self.in_flight.pop(data.draw(st.integers(0, len(self.in_flight) - 1)))
        # Mostly a success: a user error ends the job at once, and deep jobs must finish.
        if data.draw(st.integers(0, 9)) == 0:
            self._perform(self.scheduler.handle(failed(spec, ValueError("user error"))), spec)
        else:
            self._finish(spec)

    @precondition(lambda self: any(self._fetchable(s) for s in self.in_flight))
    @rule(data=st.data())
    def fail_fetch(self, data: st.DataObject) -> None:
        spec = data.draw(st.sampled_from([s for s in self.in_flight if self._fetchable(s)]))
        self.in_flight.remove(spec)
        dep = data.draw(st.sampled_from(self._parent_shuffles(spec)))
        map_id = data.draw(st.integers(0, dep.num_maps - 1))
        self.outputs[dep.shuffle_id].discard(map_id)  # its file is gone
        error = FetchFailedError(dep.shuffle_id, map_id, "the output file is gone")
        self._perform(self.scheduler.handle(failed(spec, error)), spec)

    @precondition(lambda self: self.in_flight)
    @rule(data=st.data())
    def lose_executor(self, data: st.DataObject) -> None:
        lost = data.draw(st.lists(st.sampled_from(self.in_flight), min_size=1, max_size=2,
                                  unique_by=id))
        for spec in lost:
            self.in_flight.remove(spec)
        event = ExecutorLost(f"e{next(self.executors)}", "killed", tuple(lost))
        stale = all(spec.job_id != self.job for spec in lost)
        self._perform(self.scheduler.handle(event), lost[0] if stale else None, retries=True)

    # -- the model -----------------------------------------------------------------------
    def _stage(self, spec: TaskSpec) -> tuple[LineageNode, ShuffleWriteSpec | None]:
        node_id, write = self.stage_info[spec.digest]
        return self.by_id[node_id], write

    def _parent_shuffles(self, spec: TaskSpec) -> list[ShuffleDependency]:
        node, _ = self._stage(spec)
        return [dep for current in walk_narrow(node) for dep in current.dependencies
                if isinstance(dep, ShuffleDependency)]

    def _fetchable(self, spec: TaskSpec) -> bool:
        # A fetch failure is only told to the running job (a stale task's is ignored, and
        # the model could not tell whether the scheduler learnt the output was gone).
        return spec.job_id == self.job and bool(self._parent_shuffles(spec))

    def _finish(self, spec: TaskSpec) -> None:
        """The task ends as it would: a fetch failure if an output it reads is gone."""
        for dep in self._parent_shuffles(spec):
            gone = sorted(set(range(dep.num_maps)) - self.outputs[dep.shuffle_id])
            if gone:
                error = FetchFailedError(dep.shuffle_id, gone[0], "the output file is gone")
                self._perform(self.scheduler.handle(failed(spec, error)), spec)
                return
        _, write = self._stage(spec)
        if write is not None:
            self.outputs[write.shuffle_id].add(spec.partition)
            value: Any = [1] * write.partitioner.numPartitions
        else:
            value = ("result", spec.partition, spec.task_id)
        event = finished(spec, value, updates={0: (spec.task_id, spec.partition, value)})
        self._perform(self.scheduler.handle(event), spec)

    def _perform(self, actions: list[Any], cause: TaskSpec | None, retries: bool = False) -> None:
        """Check the scheduler's answer to one call, then do what the runner would.

        ``retries``: the answer to an ``ExecutorLost``, whose tasks are retries within
        running stages; those are not stage submissions, and a retry may be sent while an
        output its stage reads is gone (it then fails to fetch it, as in Spark).
        """
        if cause is not None and cause.job_id != self.job:
            assert actions == [], f"an event of job {cause.job_id}, over, produced {actions}"
        for action in actions:
            assert self.job is not None and self.ends[self.job] == 0, f"{action} after the end"
            if isinstance(action, SubmitTask):
                spec = action.spec
                assert spec.job_id == self.job
                if spec.digest not in self.stage_info:
                    node, payload = pickle.loads(action.binary)
                    write = payload if isinstance(payload, ShuffleWriteSpec) else None
                    self.stage_info[spec.digest] = (node.id, write)
                for dep in [] if retries else self._parent_shuffles(spec):
                    assert self.scheduler.tracker.is_available(dep.shuffle_id), (
                        f"task {spec} submitted before shuffle {dep.shuffle_id} is complete")
                    missing = set(range(dep.num_maps)) - self.outputs[dep.shuffle_id]
                    assert not missing, (f"task {spec} submitted while map outputs {missing} of "
                                         f"shuffle {dep.shuffle_id} do not exist")
                self.in_flight.append(spec)
                # Replayable draws: the order of submissions may follow set order.
                self.in_flight.sort(key=lambda t: (t.job_id, t.stage_id, t.partition, t.attempt))
            elif isinstance(action, MergeAccumulators):
                task_id, partition, value = action.updates[0]
                if isinstance(value, tuple):  # a result task's: accepted with its result
                    self.accepted[partition].append(value)
            else:
                assert action.job_id == self.job
                self.ends[self.job] += 1
                if isinstance(action, JobSucceeded):
                    expected = []
                    for p in self.partitions:
                        assert len(self.accepted[p]) == 1, (
                            f"partition {p}: {len(self.accepted[p])} results accepted")
                        expected.append(self.accepted[p][0])
                    assert action.results == expected
                else:
                    assert isinstance(action.error, (ValueError, BrokenExecutorError,
                                                     FetchFailedError)), action.error
                self.scheduler.end_job()
                self.job = None

    @invariant()
    def a_running_job_has_a_task_in_flight(self) -> None:
        if self.job is not None:
            assert any(s.job_id == self.job for s in self.in_flight), "the job can never end"

    @invariant()
    def every_job_ends_at_most_once(self) -> None:
        assert all(count == 1 for count in self.ends.values())

    def teardown(self) -> None:
        """Let the running job finish: it must end, exactly once."""
        job = self.job
        if job is None:
            return
        for _ in range(500):
            ours = [s for s in self.in_flight if s.job_id == job]
            if self.job is None or not ours:
                break
            self.in_flight.remove(ours[0])
            self._finish(ours[0])
        assert self.ends[job] == 1, f"job {job} did not end once every task finished"


SchedulerMachine.TestCase.settings = settings(max_examples=100, stateful_step_count=60)
test_scheduler_state_machine = SchedulerMachine.TestCase
