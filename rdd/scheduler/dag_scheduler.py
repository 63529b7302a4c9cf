"""DAGScheduler: cuts a job into stages at shuffle boundaries and decides what runs.

It is a state machine: ``submit_job`` and ``handle(event)`` update its state and
return actions (``SubmitTask``, ``MergeAccumulators``, ``JobSucceeded``,
``JobFailed``); it performs no I/O, so it is tested without processes.

State
-----
- Map stages hang off their ``ShuffleDependency`` (``dep.stage``), so they live as long
  as some RDD refers to the shuffle, and a second job over the same shuffle finds its
  outputs (``MapOutputTracker``) and skips it; the scheduler itself keeps no stage
  after a job ends (``end_job``), so old lineage can be garbage-collected.
- Per active job: the stages waiting for parents, the stages running, each stage's
  pending partitions, and the result slots.

Rules
-----
- A stage runs only when every parent map stage has all of its outputs.
- A task failing with the user's exception fails the job (as ``local[N]`` in Spark:
  no retries of user errors). ``FetchFailedError`` unregisters the missing output and
  re-runs the parent map stage, then the failed stage (at most 4 times per stage).
- A task lost with its executor is resubmitted, at most 4 attempts per partition,
  then the job fails with ``BrokenExecutorError``.
- A result is accepted once per partition; accumulator updates only with it.

Notices
-------
Besides its actions, the scheduler notes each stage attempt it starts and ends
(``("submitted", stage, num_tasks)``, ``("completed", stage)``, ``("failed", stage,
reason)``) for the runner to report to listeners (:meth:`take_notices`); they are not
actions because nothing has to be performed for them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import BrokenExecutorError, FetchFailedError, RemoteTraceback
from ..nodes.base import LineageNode, Partition, ShuffleDependency, walk_narrow
from ..serialization.serializer import digest_of, dumps_closure, dumps_with_buffers
from ..shuffle.writer import ShuffleWriteSpec
from ..storage.block_manager import rdd_block_id
from .events import ExecutorLost, TaskFailed, TaskFinished
from .task import TaskSpec
from .tracking import BlockLocations, MapOutputTracker

MAX_TASK_ATTEMPTS = 4
MAX_STAGE_FETCH_FAILURES = 4


@dataclass(eq=False)
class Stage:
    id: int
    node: LineageNode
    parents: list[Stage]
    shuffle_dep: ShuffleDependency | None
    fetch_failures: int = 0
    attempt: int = -1  # the latest attempt's number; -1 before the stage first runs

    @property
    def is_shuffle_map(self) -> bool:
        return self.shuffle_dep is not None

    @property
    def dep(self) -> ShuffleDependency:
        """The shuffle a map stage writes (only map stages have one)."""
        if self.shuffle_dep is None:
            raise TypeError(f"{self!r} is a result stage: it writes no shuffle")
        return self.shuffle_dep

    def __repr__(self) -> str:
        kind = f"ShuffleMapStage(shuffle {self.shuffle_dep.shuffle_id})" if self.shuffle_dep else "ResultStage"
        return f"{kind}[{self.id}]"


@dataclass(frozen=True)
class SubmitTask:
    spec: TaskSpec
    binary: bytes


@dataclass(frozen=True)
class MergeAccumulators:
    updates: dict[int, Any]


@dataclass(frozen=True)
class JobSucceeded:
    job_id: int
    results: list[Any]


@dataclass(frozen=True)
class JobFailed:
    job_id: int
    error: BaseException


Action = SubmitTask | MergeAccumulators | JobSucceeded | JobFailed


@dataclass(eq=False)
class _Job:
    job_id: int
    final: Stage
    func: Callable[[Any], Any]
    partitions: list[int]
    properties: dict[str, str]
    results: dict[int, Any] = field(default_factory=dict)
    waiting: set[Stage] = field(default_factory=set)
    running: set[Stage] = field(default_factory=set)
    pending: dict[int, set[int]] = field(default_factory=dict)
    attempts: dict[tuple[int, int], int] = field(default_factory=dict)
    binaries: dict[int, tuple[str, bytes]] = field(default_factory=dict)
    finished: bool = False


class DAGScheduler:
    def __init__(self, tracker: MapOutputTracker, locations: BlockLocations) -> None:
        self.tracker = tracker
        self.locations = locations
        #: Whether each task lists the shuffle buckets it reads (``TaskSpec.shuffle_reads``):
        #: only a backend that ships map outputs to its tasks (Ray) needs them.
        self.list_shuffle_reads = False
        #: Map outputs of at most this many bytes come back with the task's result and
        #: are sent with the reduce tasks (``rdd.shuffle.writer``); 0: always files.
        self.inline_map_output_bytes = 0
        self._stage_ids = itertools.count()
        self._task_ids = itertools.count()
        self._job: _Job | None = None
        self._stage_by_id: dict[int, Stage] = {}
        self._notices: list[tuple[Any, ...]] = []

    def take_notices(self) -> list[tuple[Any, ...]]:
        """The stage attempts started and ended since the last call (see the module doc)."""
        notices, self._notices = self._notices, []
        return notices

    def job_stages(self) -> list[Stage]:
        """Every stage of the running job, the final one first, then its ancestors."""
        job = self._job
        return [] if job is None else [job.final, *_ancestors(job.final)]

    # -- stage graph -----------------------------------------------------------
    def _parent_stages(self, node: LineageNode) -> list[Stage]:
        parents: list[Stage] = []
        for current in walk_narrow(node):
            for dep in current.dependencies:
                if isinstance(dep, ShuffleDependency):
                    stage = self._map_stage(dep)
                    if stage not in parents:
                        parents.append(stage)
        return parents

    def _map_stage(self, dep: ShuffleDependency) -> Stage:
        stage: Stage | None = dep.stage
        if stage is None:
            # Parents first, as Spark's getOrCreateParentStages: a stage's id is above its parents'.
            parents = self._parent_stages(dep.parent)
            stage = Stage(next(self._stage_ids), dep.parent, parents, dep)
            dep.stage = stage
            self.tracker.register_shuffle(dep.shuffle_id, dep.num_maps)
        self._stage_by_id[stage.id] = stage
        return stage

    def end_job(self) -> None:
        """Forget the finished job's stages; late events of its tasks are then ignored."""
        self._job = None
        self._stage_by_id = {}

    # -- job lifecycle ---------------------------------------------------------
    def submit_job(self, job_id: int, node: LineageNode, func: Callable[[Any], Any], partitions: list[int],
                   properties: dict[str, str] | None = None) -> list[Action]:
        # Parents first, so the map stages of a job are numbered before its result stage (Spark's order).
        parents = self._parent_stages(node)
        final = Stage(next(self._stage_ids), node, parents, None)
        self._stage_by_id[final.id] = final
        job = _Job(job_id, final, func, partitions, properties or {})
        self._job = job
        if not partitions:
            job.finished = True
            return [JobSucceeded(job_id, [])]
        return self._submit_stage(job, final)

    def prepare_waiting(self) -> None:
        """Pickle the functions of the job's stages that wait for their parents (their binaries).

        The runner calls this once the first stages' tasks are sent, while they run: a stage's
        binary is then ready when its parents end, instead of being pickled between the two
        stages, on the job's critical path. A function that cannot be pickled is left for the
        stage's submission, which raises as it did before, at the same point of the job.
        """
        job = self._job
        if job is None:
            return
        for stage in sorted(job.waiting, key=lambda st: st.id):
            try:
                self._binary(job, stage)
            except Exception:  # noqa: BLE001, S112 - raised again, in its place, by the submission
                continue

    def _submit_stage(self, job: _Job, stage: Stage) -> list[Action]:
        # A map stage kept from an earlier job (on its ShuffleDependency) is known again
        # here, whatever the path that reached it: events of its tasks are matched by id.
        self._stage_by_id[stage.id] = stage
        if stage in job.running or stage in job.waiting:
            return []
        missing = [p for p in stage.parents if not self.tracker.is_available(p.dep.shuffle_id)]
        if not missing:
            return self._submit_tasks(job, stage)
        job.waiting.add(stage)
        actions: list[Action] = []
        for parent in missing:
            actions += self._submit_stage(job, parent)
        return actions

    def _submit_tasks(self, job: _Job, stage: Stage) -> list[Action]:
        if stage.is_shuffle_map:
            # A stage kept from an earlier job may have had its shuffle removed since
            # (rdd.cleanShuffleDependencies): known again, all its maps run again.
            self.tracker.register_shuffle(stage.dep.shuffle_id, stage.dep.num_maps)
            todo = self.tracker.missing(stage.dep.shuffle_id)
        else:
            todo = [p for p in job.partitions if p not in job.results]
        if not todo:
            return self._stage_done(job, stage)
        digest, binary = self._binary(job, stage)
        splits = stage.node.partitions()
        narrow = list(walk_narrow(stage.node))
        locality = any(n.storage_level.is_valid for n in narrow) and bool(self.locations)
        strict = any(n.strict_locality for n in narrow)
        job.running.add(stage)
        job.pending[stage.id] = set(todo)
        stage.attempt += 1
        self._notices.append(("submitted", stage, len(todo)))
        actions: list[Action] = []
        buckets, shuffle_id = 0, -1
        if stage.is_shuffle_map:
            assert stage.dep.partitioner is not None
            buckets, shuffle_id = stage.dep.partitioner.numPartitions, stage.dep.shuffle_id
        inline = any(self.tracker.holds_inline(p.dep.shuffle_id) for p in stage.parents)
        for index in todo:
            split = splits[index]
            preferred = _preferred_executor(stage.node, split, self.locations) if locality else None
            reads = _shuffle_reads(stage.node, split) if self.list_shuffle_reads or inline else ()
            split_bytes, split_buffers = dumps_with_buffers(split)
            spec = TaskSpec(next(self._task_ids), job.job_id, stage.id, index,
                            job.attempts.get((stage.id, index), 0), digest, split_bytes,
                            stage.is_shuffle_map, preferred, strict and preferred is not None, job.properties,
                            buckets, shuffle_id, reads if self.list_shuffle_reads else (),
                            self.tracker.inline_buckets(reads) if inline else {}, split_buffers)
            actions.append(SubmitTask(spec, binary))
        return actions

    def _binary(self, job: _Job, stage: Stage) -> tuple[str, bytes]:
        cached = job.binaries.get(stage.id)
        if cached is None:
            if stage.is_shuffle_map:
                dep = stage.dep
                payload: Any = ShuffleWriteSpec(dep.shuffle_id, dep.partitioner, dep.aggregator, dep.map_side_combine,
                                                dep.count_constant, self.inline_map_output_bytes)
            else:
                payload = job.func
            what = f"the functions of stage {stage.id} ({stage.node.describe()})"
            binary = dumps_closure((stage.node, payload), what)
            cached = (digest_of(binary), binary)
            job.binaries[stage.id] = cached
        return cached

    def _stage_done(self, job: _Job, stage: Stage) -> list[Action]:
        if stage in job.running:
            self._notices.append(("completed", stage))
        job.running.discard(stage)
        job.pending.pop(stage.id, None)
        if not stage.is_shuffle_map:
            job.finished = True
            return [JobSucceeded(job.job_id, [job.results[p] for p in job.partitions])]
        actions: list[Action] = []
        if not self.tracker.is_available(stage.dep.shuffle_id):
            return self._submit_tasks(job, stage)  # an output was lost meanwhile
        for child in list(job.waiting):
            if all(self.tracker.is_available(p.dep.shuffle_id) for p in child.parents):
                job.waiting.discard(child)
                actions += self._submit_tasks(job, child)
        return actions

    # -- events ----------------------------------------------------------------
    def handle(self, event: Any) -> list[Action]:
        job = self._job
        if isinstance(event, ExecutorLost):
            self.locations.remove_executor(event.executor_id)
            if job is None or job.finished:
                return []
            actions: list[Action] = []
            for spec in event.tasks:
                if spec.job_id == job.job_id:
                    actions += self._retry_lost(job, spec, event.reason)
                    if job.finished:
                        break
            return actions
        spec = event.spec
        stage = self._stage_by_id.get(spec.stage_id)
        if isinstance(event, TaskFinished):
            for block_id in event.result.blocks_added:
                self.locations.add(block_id, event.result.executor_id)
            if stage is not None and stage.is_shuffle_map:
                self.tracker.register_output(stage.dep.shuffle_id, spec.partition, event.result.value)
            if job is None or job.finished or spec.job_id != job.job_id or stage is None:
                return []
            pending = job.pending.get(stage.id)
            if pending is None or spec.partition not in pending:
                return []  # a duplicate attempt; the first result won
            pending.discard(spec.partition)
            actions = [MergeAccumulators(event.result.accumulator_updates)] if event.result.accumulator_updates else []
            if not stage.is_shuffle_map:
                job.results[spec.partition] = event.result.value
            if not pending:
                actions += self._stage_done(job, stage)
            return actions
        assert isinstance(event, TaskFailed)
        if job is None or job.finished or spec.job_id != job.job_id or stage is None:
            return []
        error = event.failure.error
        if isinstance(error, FetchFailedError):
            return self._fetch_failed(job, stage, error)
        job.finished = True
        _annotate(error, stage, spec, event.failure.traceback_text)
        return [JobFailed(job.job_id, error)]

    def _retry_lost(self, job: _Job, spec: TaskSpec, reason: str) -> list[Action]:
        stage = self._stage_by_id.get(spec.stage_id)
        pending = job.pending.get(spec.stage_id)
        if stage is None or pending is None or spec.partition not in pending:
            return []
        key = (spec.stage_id, spec.partition)
        job.attempts[key] = job.attempts.get(key, spec.attempt) + 1
        if job.attempts[key] >= MAX_TASK_ATTEMPTS:
            job.finished = True
            return [JobFailed(job.job_id, BrokenExecutorError(
                f"Task {spec.partition} in stage {spec.stage_id} failed {job.attempts[key]} times because its "
                f"worker process died (most recent: {reason}). A task that crashes its worker (os._exit, a "
                "segfault in an extension, running out of memory) is retried on a new worker, then the job is "
                "aborted."))]
        retry = replace(spec, task_id=next(self._task_ids), attempt=job.attempts[key], preferred=None,
                        strict_locality=False)
        return [SubmitTask(retry, job.binaries[spec.stage_id][1])]

    def _fetch_failed(self, job: _Job, stage: Stage, error: FetchFailedError) -> list[Action]:
        self.tracker.unregister_output(error.shuffle_id, error.map_id)
        stage.fetch_failures += 1
        if stage.fetch_failures > MAX_STAGE_FETCH_FAILURES:
            job.finished = True
            return [JobFailed(job.job_id, error)]
        if stage in job.running:
            self._notices.append(("failed", stage, f"FetchFailed: {error}"))
        job.running.discard(stage)
        job.pending.pop(stage.id, None)
        job.waiting.add(stage)
        parent = next((p for p in _ancestors(stage) if p.dep.shuffle_id == error.shuffle_id), None)
        if parent is None:
            job.finished = True
            return [JobFailed(job.job_id, error)]
        if parent in job.running:
            self._notices.append(("failed", parent, f"FetchFailed: {error}"))
        job.running.discard(parent)
        job.pending.pop(parent.id, None)
        return self._submit_stage(job, parent)


def _preferred_executor(node: LineageNode, split: Partition, locations: BlockLocations, depth: int = 0) -> str | None:
    """The executor holding a cached block this task will read, following narrow deps."""
    if node.storage_level.is_valid:
        holders = locations.get(rdd_block_id(node.id, split.index))
        if holders:
            return min(holders)
    if depth > 200:
        return None
    for parent, parent_split in node.parent_splits(split):
        found = _preferred_executor(parent, parent_split, locations, depth + 1)
        if found:
            return found
    return None


def _shuffle_reads(node: LineageNode, split: Partition) -> tuple[tuple[int, int], ...]:
    """The ``(shuffle_id, reduce_id)`` buckets a task of ``node`` reads, following narrow deps."""
    found: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    stack = [(node, split)]
    while stack:
        current, part = stack.pop()
        key = (current.id, part.index)
        if key in seen:
            continue
        seen.add(key)
        for dep in current.dependencies:
            if isinstance(dep, ShuffleDependency):
                found.append((dep.shuffle_id, part.index))
        stack.extend(current.parent_splits(part))
    return tuple(found)


def _ancestors(stage: Stage) -> list[Stage]:
    found: list[Stage] = []
    stack = list(stage.parents)
    while stack:
        current = stack.pop()
        if current not in found:
            found.append(current)
            stack.extend(current.parents)
    return found


def _annotate(error: BaseException, stage: Stage, spec: TaskSpec, traceback_text: str) -> None:
    """Attach the worker's traceback and say where the task ran.

    Only an error that crossed from a worker process lacks its own traceback; one raised
    inline (``local``) has it already, and the text would print the same frames twice.
    """
    if traceback_text and error.__cause__ is None and error.__traceback__ is None:
        error.__cause__ = RemoteTraceback(traceback_text)
    note = f"(in stage {stage.id}, partition {spec.partition}, attempt {spec.attempt}: {stage.node.describe()})"
    if hasattr(error, "add_note"):
        error.add_note(note)
