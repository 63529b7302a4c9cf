"""The micro-batch engine: one thread per started query, one batch at a time.

What this module owns
---------------------
:class:`MicroBatchExecution`, the loop behind a :class:`~.query.StreamingQuery`. Each
iteration is a *trigger*, which constructs and runs one micro-batch or finds nothing
to do:

1. ask every source for the end offset of the next batch ("latestOffset");
2. run a batch if a source has new data, or, with no new data, if the last batch's
   stateful operators would do work at the new watermark (the *no-data batch* that
   emits append-mode windows and evicts state);
3. write ``offsets/N`` (the batch's end offsets, its watermark and timestamp, the
   pinned settings) *before* running it ("walCommit"), then let the sources discard
   what batch N-1 read;
4. build the batch's plan, every streaming relation replaced by its source's rows of
   ``(start, end]`` ("getBatch", "queryPlanning"), and hand it to the sink, which runs
   it ("addBatch"); stateful operators read state version N and write N+1;
5. advance the watermark from the batch's event times and write ``commits/N``
   ("commitOffsets"); report progress.

Recovery (on start): the latest ``offsets/L`` and ``commits/C``. If ``C == L`` the next
batch is ``L + 1``; otherwise batch ``L`` is run again with exactly its logged offsets,
watermark and timestamp, so a sink that skips batch ids it has (file, memory) or
writes idempotently by batch id (``foreachBatch``) sees every row once.

Invariants
----------
* Never more than one batch in flight; offsets are logged before the batch runs and
  the commit is written after the sink returned.
* A batch not yet handed to the sink when ``stop()`` is called never reaches it: the
  engine checks for a stop before getting the batch and before adding it to the sink
  (jobs already running are cancelled), so no batch starts writing after ``stop()``.
  Such a batch stays logged but uncommitted; a restart runs it again.
* With ``stop_after(n)`` the loop ends right after the run's n-th batch committed,
  before the next trigger (``testing.stop_after_batches``).
* The number of state partitions is pinned at the first batch (in ``offsets/N``'s
  conf) and read back on restart, so a key's state stays in its partition.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import AnalysisException, CapturedException, StreamingQueryException
from ..observation import observed_metrics
from ..plan.logical import FileRelation, LocalRelation, LogicalPlan
from . import operators as _operators  # noqa: F401 - registers the stateful operators
from . import temporary_checkpoints
from .clock import streaming_clock
from .incremental import IncrementalExecution, MicroBatchInfo, micro_batch_dataframe
from .logs import CommitLog, OffsetSeq, OffsetSeqLog
from .progress import (
    ProgressRecorder,
    StreamingQueryProgress,
    build_progress,
    event_time_progress,
    operators_progress,
    sink_progress,
    source_progress,
)
from .relation import MicroBatchSource, StreamingRelation, streaming_relations
from .sinks.base import Sink
from .sources.base import Source
from .spare_files import FilePreparer
from .state import residency
from .triggers import Trigger
from .watermark import WatermarkTracker, watermark_nodes

if TYPE_CHECKING:
    from ..session import SparkSession

__all__ = ["MicroBatchExecution"]

_log = logging.getLogger("dstream.sql.streaming")

#: Settings a checkpoint pins at its first batch (a restart uses the logged values).
PINNED = ("spark.sql.shuffle.partitions", "spark.sql.streaming.multipleWatermarkPolicy",
          "spark.sql.streaming.stateStore.providerClass")


class _StoppedError(Exception):
    """Ends the loop when ``stop()`` came while a batch was being prepared."""


class MicroBatchExecution:
    """The engine of one run of a streaming query (see the module docstring)."""

    def __init__(self, *, session: SparkSession, plan: LogicalPlan, sink: Sink, trigger: Trigger, output_mode: str,
                 checkpoint: str, temporary_checkpoint: bool, name: str | None,
                 on_event: Callable[[Any], None], on_terminated: Callable[[MicroBatchExecution], None]) -> None:
        self.session = session
        self.sc = session.sparkContext
        self.plan = plan
        self.sink = sink
        self.trigger = trigger
        self.output_mode = output_mode
        self.checkpoint = checkpoint
        self.temporary_checkpoint = temporary_checkpoint
        self.name = name
        self.clock = streaming_clock(session)
        self.conf = session.conf.getAll()
        self.relations = streaming_relations(plan)
        self.id = self._query_id()
        self.run_id = str(uuid.uuid4())
        #: What this run's tasks cache in the executors is released under this id when it ends.
        self.state_scope = residency.new_scope(self.sc)
        # Both logs get a file per batch: their next files are made ahead, off this thread.
        self._file_preparer = FilePreparer(name or self.id)
        self.offset_log = OffsetSeqLog(os.path.join(checkpoint, "offsets"), self._file_preparer)
        self.commit_log = CommitLog(os.path.join(checkpoint, "commits"), self._file_preparer)
        nodes = watermark_nodes(plan)
        self.tracker = WatermarkTracker({n.watermark_id: n.delay_ms for n in nodes},
                                        self.conf.get("spark.sql.streaming.multipleWatermarkPolicy", "min").lower())
        self.sources: list[Source] = []
        self.committed: list[Any] = [None] * len(self.relations)
        self.batch_id = 0
        self.pending: OffsetSeq | None = None
        self.previous_watermark_ms = 0
        self.last_info: MicroBatchInfo | None = None
        self.last_execution: Any = None
        self.state_partitions = 1
        self._on_event = on_event
        self._on_terminated = on_terminated
        self._stop = threading.Event()
        #: Set to make an idle query look for data now instead of at its next poll.
        self._wake = threading.Event()
        self._cond = threading.Condition()
        self._triggers_started = 0
        self._batches_run = 0  # in this run, no-data batches included
        self._stop_after: int | None = None
        self._last_idle_trigger = -1
        self._last_progress_ms: int | None = None
        self._previous_trigger_start: int | None = None
        settings = session.conf
        self.polling_delay_ms = settings.get_time_ms("spark.sql.streaming.pollingDelay", "10ms")
        self.idle_progress_ms = settings.get_time_ms("spark.sql.streaming.noDataProgressEventInterval", "10000ms")
        # A failed query keeps its temporary checkpoint (to look at) unless this is set.
        self.force_delete_checkpoint = settings.get_boolean("spark.sql.streaming.forceDeleteTempCheckpointLocation",
                                                            False)
        self.no_data_batches = settings.get_boolean("spark.sql.streaming.noDataMicroBatches.enabled", True)
        self.batches_to_retain = settings.get_int("spark.sql.streaming.minBatchesToRetain", 100)
        keep = settings.get_int("spark.sql.streaming.numRecentProgressUpdates", 100)
        self.recent: deque[StreamingQueryProgress] = deque(maxlen=max(1, keep - 1))
        self.status = {"message": "Initializing sources", "isDataAvailable": False, "isTriggerActive": False}
        self.exception: StreamingQueryException | None = None
        self.active = True
        self._thread = threading.Thread(target=self._run, name=f"stream execution thread for {name or self.id}",
                                        daemon=True)

    # -- life -------------------------------------------------------------------------

    def _query_id(self) -> str:
        os.makedirs(self.checkpoint, exist_ok=True)
        path = os.path.join(self.checkpoint, "metadata")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                return str(json.loads(f.read() or "{}")["id"])
        qid = str(uuid.uuid4())
        tmp = f"{path}.{uuid.uuid4().hex}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps({"id": qid}))
        os.replace(tmp, path)
        return qid

    def start(self) -> None:
        from ..types import StructField, StructType

        self.sink.started(StructType([StructField(a.name, a.dtype, a.nullable, dict(a.metadata))
                                      for a in self.plan.output()]))
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        """Stop after the current phase: the running batch's jobs are cancelled."""
        self._stop.set()
        self._wake.set()
        self.clock.interrupt()
        if threading.current_thread() is not self._thread:
            self.sc.cancelJobGroup(self.run_id)
            self._thread.join(timeout)

    def await_termination(self, timeout: float | None) -> bool:
        with self._cond:
            self._cond.wait_for(lambda: not self.active, timeout)
            return not self.active

    def stop_after(self, batches: int) -> None:
        """End the run right after its ``batches``-th micro-batch (at once if it ran that many)."""
        with self._cond:
            self._stop_after = batches
            if self._batches_run < batches:
                return
        self.stop()

    def process_all_available(self, timeout: float | None) -> None:
        self._wake.set()
        # Sources that know their latest offset (MemoryStream) let the wait end as soon as a
        # batch reached it; the others need a trigger that found nothing new.
        sources = list(self.sources)
        latest = [s.reports_latest_offset() for s in sources]
        known = bool(sources) and all(offset is not None for offset in latest)
        with self._cond:
            target = self._triggers_started
            done = self._cond.wait_for(lambda: not self.active or self._last_idle_trigger > target
                                       or (known and self._caught_up(latest)), timeout)
        if self.exception is not None:
            raise self.exception
        if not done:
            raise TimeoutError(f"processAllAvailable: the query {self.name or self.id} still had data to process "
                               f"after {timeout} s.")

    def _caught_up(self, latest: list[Any]) -> bool:
        """Whether every batch up to the sources' ``latest`` offsets has run (no-data batches too)."""
        return self.pending is None and self.committed == latest and not self._no_data_batch_needed()

    def _run(self) -> None:
        failure: BaseException | None = None
        try:
            self.sc.setJobGroup(self.run_id, f"streaming query {self.name or self.id}", True)
            self._set_status("Initializing sources", False, True)
            self.sources = [rel.spec.provider.create(self.session, rel.spec.options, rel.spec.schema,
                                                     os.path.join(self.checkpoint, "sources", str(i)))
                            for i, rel in enumerate(self.relations)]
            self._recover()
            if self.trigger.kind == "available_now":
                for source in self.sources:
                    source.prepare_for_available_now()
            while not self._stop.is_set():
                start_ms = self.clock.now_ms()
                ran = self._trigger(start_ms)
                if self.trigger.kind == "once" or (self.trigger.kind == "available_now" and not ran):
                    break
                self._wait_next(start_ms, ran)
        except BaseException as exc:  # the query's death cause: reported, never lost
            if not self._stop.is_set():
                failure = exc
        finally:
            self._terminate(failure)

    def _terminate(self, failure: BaseException | None) -> None:
        parts: list[Source | Sink] = [*self.sources, self.sink]
        for part in parts:
            try:
                part.stop()
            except Exception:
                _log.exception("stopping %s failed", part)
        if failure is not None:
            named = f"{self.name} " if self.name else ""  # Spark's prettyIdString
            # Spark's text ends with the cause's message: one of Spark's errors reads as its
            # message ("[CONDITION] ..." when it has one), a Python error by its type too.
            cause = str(failure) if isinstance(failure, CapturedException) else f"{type(failure).__name__}: {failure}"
            self.exception = StreamingQueryException(
                f"Query {named}[id = {self.id}, runId = {self.run_id}] terminated with exception: {cause}",
                "STREAM_FAILED",
                {"id": self.id, "runId": self.run_id})
            self.exception.__cause__ = failure
            _log.error("Query %s terminated with error", self.name or self.id, exc_info=failure)
        self._set_status("Stopped", False, False)
        try:
            # Spark unloads a stopped query's state store providers in the executors; the
            # state's files stay in the checkpoint for the next run.
            residency.release(self.sc, self.state_scope)
        except Exception:
            _log.exception("releasing the state cached by query %s failed", self.name or self.id)
        self.offset_log.close()
        self.commit_log.close()
        self._file_preparer.close()
        if self.temporary_checkpoint and (failure is None or self.force_delete_checkpoint):
            temporary_checkpoints.remove(self.checkpoint)
        with self._cond:
            self.active = False
            self._cond.notify_all()
        from .listener import QueryTerminatedEvent

        self._on_event(QueryTerminatedEvent(self.id, self.run_id, None if failure is None else str(self.exception),
                                            None if failure is None else "STREAM_FAILED"))
        self._on_terminated(self)

    def _wait_next(self, start_ms: int, ran: bool) -> None:
        if self.trigger.kind == "processing_time" and self.trigger.interval_ms > 0:
            interval = self.trigger.interval_ms
            elapsed = self.clock.now_ms() - start_ms
            if elapsed > interval:
                _log.warning("Current batch is falling behind. The trigger interval is %d milliseconds, but spent "
                             "%d milliseconds", interval, elapsed)
            self.clock.wait_till_time(start_ms // interval * interval + interval, self._stop)
        elif not ran:
            self._wake.wait(self.polling_delay_ms / 1000.0)
            self._wake.clear()

    def _set_status(self, message: str, data: bool, active: bool) -> None:
        self.status = {"message": message, "isDataAvailable": data, "isTriggerActive": active}

    # -- recovery ---------------------------------------------------------------------

    def _recover(self) -> None:
        latest = self.offset_log.latest_offsets()
        self.state_partitions = self._pin_partitions(None if latest is None else latest[1])
        if latest is None:
            return
        last, seq = latest
        if len(seq.offsets) != len(self.sources):
            raise AnalysisException(
                f"The checkpoint {self.checkpoint} was written by a query with {len(seq.offsets)} sources, but this "
                f"query has {len(self.sources)}. Sources cannot be added or removed across restarts: use a new "
                f"checkpointLocation.")
        done = self.commit_log.latest_id()
        if done is not None and done >= last:
            self.committed = list(seq.offsets)
            self.batch_id = last + 1
            self.previous_watermark_ms = seq.batch_watermark_ms
            self.tracker.set_current(max(seq.batch_watermark_ms, self.commit_log.next_watermark(last) or 0))
            return
        previous = self.offset_log.get_offsets(last - 1) if last > 0 else None
        if last > 0 and previous is None:
            raise AnalysisException(f"batch {last - 1} doesn't exist in {self.offset_log.path}: the checkpoint is "
                                    f"incomplete; restore it or start from a new checkpointLocation.")
        self.committed = list(previous.offsets) if previous is not None else [None] * len(self.sources)
        self.previous_watermark_ms = previous.batch_watermark_ms if previous is not None else 0
        self.tracker.set_current(seq.batch_watermark_ms)
        self.batch_id = last
        self.pending = seq

    def _pin_partitions(self, seq: OffsetSeq | None) -> int:
        if seq is not None and "spark.sql.shuffle.partitions" in seq.conf:
            return max(1, int(seq.conf["spark.sql.shuffle.partitions"]))
        text = self.conf.get("spark.sql.shuffle.partitions", "200")
        if text == "200":
            # Spark's default, sized for clusters: use the cores, as batch queries here do.
            return max(1, self.sc.defaultParallelism)
        return max(1, int(text))

    # -- one trigger ------------------------------------------------------------------

    def _trigger(self, start_ms: int) -> bool:
        with self._cond:
            self._triggers_started += 1
            trigger_number = self._triggers_started
        recorder = ProgressRecorder(start_ms)
        self._set_status("Getting offsets from " + ", ".join(s.description for s in self.sources), False, True)
        if self.pending is None and not self._construct(recorder):
            self._set_status("Waiting for data to arrive", False, False)
            self._idle_progress(start_ms)
            with self._cond:
                self._last_idle_trigger = trigger_number
                self._cond.notify_all()
            return False
        seq = self.pending
        assert seq is not None
        if seq.offsets == self.committed and seq.batch_watermark_ms == self.previous_watermark_ms:
            # A batch without data at an unchanged watermark only polls time-outs
            # (processing-time GroupState timeouts ask for one every trigger): there is
            # nothing left to process for processAllAvailable to wait for.
            with self._cond:
                self._last_idle_trigger = trigger_number
                self._cond.notify_all()
        self._run_batch(recorder)
        with self._cond:
            self._batches_run += 1
            if self._stop_after is not None and self._batches_run >= self._stop_after:
                self._stop.set()  # the loop ends before the next trigger
        self._previous_trigger_start = start_ms
        if self.trigger.kind == "processing_time":
            self._set_status("Waiting for next trigger", True, False)
        return True

    def _construct(self, recorder: ProgressRecorder) -> bool:
        limited = self.trigger.kind != "once"
        with recorder.phase("latestOffset"):
            ends = [s.latest_offset(start, limited) for s, start in zip(self.sources, self.committed)]
        ends = [start if end is None else end for end, start in zip(ends, self.committed)]
        new_data = any(end != start for end, start in zip(ends, self.committed))
        if not new_data and not self._no_data_batch_needed():
            return False
        conf = {k: self.conf[k] for k in PINNED if k in self.conf}
        conf["spark.sql.shuffle.partitions"] = str(self.state_partitions)
        seq = OffsetSeq(ends, self.tracker.current_ms, self.clock.now_ms(), conf)
        self._set_status("Writing offsets to log", new_data, True)
        with recorder.phase("walCommit"):
            if not self.offset_log.add_offsets(self.batch_id, seq):
                raise AnalysisException(
                    f"Concurrent update to the log: batch {self.batch_id} already exists in {self.offset_log.path}. "
                    f"Multiple streaming queries are concurrently using {self.checkpoint}.")
            for source, end in zip(self.sources, self.committed):
                if end is not None:
                    source.commit(end)
            self.offset_log.purge(self.batch_id - self.batches_to_retain)
            self.commit_log.purge(self.batch_id - self.batches_to_retain)
        self.pending = seq
        return True

    def _no_data_batch_needed(self) -> bool:
        if not self.no_data_batches:
            return False
        info = self.last_info
        if info is None:
            return False
        return any(op.needs_batch(self.tracker.current_ms) for op in info.operators.values())

    def _run_batch(self, recorder: ProgressRecorder) -> None:
        seq = self.pending
        assert seq is not None
        batch_id = self.batch_id
        starts, ends = self.committed, seq.offsets
        has_data = any(e != s for e, s in zip(ends, starts))
        info = MicroBatchInfo(
            sc=self.sc, batch_id=batch_id, run_id=self.run_id, state_root=os.path.join(self.checkpoint, "state"),
            state_partitions=self.state_partitions, output_mode=self.output_mode,
            batch_timestamp_ms=seq.batch_timestamp_ms, has_watermark=bool(self.tracker.delays),
            watermark_for_late_ms=self.previous_watermark_ms, watermark_for_eviction_ms=seq.batch_watermark_ms,
            conf=self.conf, query_id=self.id, state_scope=self.state_scope)
        self._set_status("Processing new data" if has_data else "No new data but cleaning up state", has_data, True)
        counters = [self.sc.accumulator(0) for _ in self.relations]
        self._abandon_if_stopped(batch_id)
        with recorder.phase("getBatch"):
            plan = self._batch_plan(starts, ends, counters)
        with recorder.phase("queryPlanning"):
            execution = IncrementalExecution(self.session, plan, info)
            df = micro_batch_dataframe(self.session, execution)
        self._abandon_if_stopped(batch_id)
        with recorder.phase("addBatch"):
            output_rows = self.sink.add_batch(batch_id, df)
        stats = {wid: acc.value for wid, acc in info.watermark_stats.items()}
        next_watermark = self.tracker.update(stats)
        with recorder.phase("commitOffsets"):
            self.commit_log.add_commit(batch_id, next_watermark)
        self.committed = list(ends)
        self.previous_watermark_ms = seq.batch_watermark_ms
        self.last_info = info
        self.last_execution = execution
        self.pending = None
        self.batch_id = batch_id + 1
        sources = [source_progress(source.description, starts[i], ends[i], source.reports_latest_offset(),
                                   int(counters[i].value), source.offset_text) for i, source in enumerate(self.sources)]
        event_time = event_time_progress(bool(self.tracker.delays), list(stats.values()), seq.batch_watermark_ms)
        operators = operators_progress(sorted(info.operators.items()), idle=False)
        progress = build_progress(
            query_id=self.id, run_id=self.run_id, name=self.name, recorder=recorder, batch_id=batch_id,
            previous_start_ms=self._previous_trigger_start, sources=sources,
            sink=sink_progress(self.sink.description, output_rows),
            event_time=event_time, state_operators=operators, observed=observed_metrics(self.plan))
        self._report(progress, idle=False)

    def _abandon_if_stopped(self, batch_id: int) -> None:
        # A job submitted after stop() cancelled the group would still run: check first.
        if self._stop.is_set():
            raise _StoppedError(f"batch {batch_id} abandoned: the query was stopped")

    def _batch_plan(self, starts: list[Any], ends: list[Any], counters: list[Any]) -> LogicalPlan:
        replacements: dict[int, LogicalPlan] = {}
        for i, rel in enumerate(self.relations):
            output = rel.output()
            if ends[i] is not None and ends[i] != starts[i]:
                leaf = self.sources[i].get_batch(starts[i], ends[i], output)
                if isinstance(leaf, FileRelation) and rel.metadata is not None:
                    leaf = leaf.with_metadata(rel.metadata)
            else:
                from ..execution.physical import arrow_schema

                shown = output if rel.metadata is None else [*output, rel.metadata]
                leaf = LocalRelation(shown, arrow_schema(shown).empty_table())
            replacements[id(rel)] = MicroBatchSource(leaf, i, counters[i])
        return self.plan.transform_up(
            lambda node: replacements.get(id(node)) if isinstance(node, StreamingRelation) else None)

    # -- progress ---------------------------------------------------------------------

    def _idle_progress(self, start_ms: int) -> None:
        if self._last_progress_ms is not None and start_ms - self._last_progress_ms < self.idle_progress_ms:
            return
        recorder = ProgressRecorder(start_ms)
        sources = [source_progress(s.description, c, c, c, 0, s.offset_text)
                   for s, c in zip(self.sources, self.committed)]
        known = sorted(self.last_info.operators.items()) if self.last_info is not None else []
        operators = operators_progress(known, idle=True)
        event_time = event_time_progress(bool(self.tracker.delays), [], self.tracker.current_ms)
        progress = build_progress(
            query_id=self.id, run_id=self.run_id, name=self.name, recorder=recorder, batch_id=self.batch_id,
            previous_start_ms=self._previous_trigger_start, sources=sources,
            sink=sink_progress(self.sink.description, 0),
            event_time=event_time, state_operators=operators, clock_elapsed_ms=0)
        self._report(progress, idle=True)

    def _report(self, progress: StreamingQueryProgress, idle: bool) -> None:
        from .listener import QueryIdleEvent, QueryProgressEvent

        self._last_progress_ms = self.clock.now_ms()
        with self._cond:
            self.recent.append(progress)
            self._cond.notify_all()
        if idle:
            self._on_event(QueryIdleEvent(self.id, self.run_id, progress["timestamp"]))
        else:
            self._on_event(QueryProgressEvent(progress))
