"""StreamingEngine: the streaming side's engine, below the ``StreamingContext`` facade.

What this module owns
---------------------
One :class:`StreamingEngine` per StreamingContext (as ``rdd/env.py`` is for the RDD side).
It owns every running part and the whole life of a batch:

* :class:`~dstream.graph.DStreamGraph` — the streams (built while INITIALIZED);
* :class:`~dstream.scheduler.job_generator.JobGenerator` — the control thread;
* :class:`~dstream.scheduler.job_scheduler.JobScheduler` — the job thread;
* :class:`~dstream.checkpoint.checkpointer.Checkpointer` — metadata checkpoints;
* :class:`~dstream.receiver.tracker.ReceiverTracker` and the
  :class:`~dstream.rate.RateController` of every throttled input (created on first use);
* :class:`~dstream.listener_bus.ListenerBus` — the listener thread;
* :class:`~dstream.lifecycle.TerminationWaiter` — what ``awaitTermination`` waits on;
* :class:`~dstream.shutdown.ShutdownHooks` — the exit hook and the SIGTERM handler.

A batch's path (all of it here, in the section "a batch's path")::

    generator thread   on_tick(t): clear metadata of completed batches
                       _before_generate(t)       received blocks -> batch t
                       graph.generate_jobs(t)
                       _after_generate(t, ...)   metadata checkpoint (jobs generated)
                       scheduler.submit(JobSet)
    job thread         run the output jobs, post BatchCompleted to the listener bus
                       _on_batch_done(t)         generator.batch_completed(t), RDD
                                                 checkpoint cleanup, metadata checkpoint
                                                 (batch over), then received-block cleanup,
                                                 then the batch-done hooks

Inputs are connected through :meth:`StreamingEngine.attach`, which calls the input's
:meth:`~dstream.inputs.base.InputNode.attach` with this engine: the same call serves a
stream just created and one restored from a checkpoint, so a new kind of source needs no
edit here. Throttled inputs get their controller from :meth:`StreamingEngine.rate_controller`.

Recovery: :func:`dstream.checkpoint.recovery.read_checkpoint` returns a
:class:`~dstream.checkpoint.recovery.Restored` value, which :meth:`StreamingEngine.recover`
applies to a new engine before ``start``.

Configuration read from the SparkContext's conf
-----------------------------------------------
``spark.streaming.clock`` (``system``; ``manual`` or Spark's
``org.apache.spark.util.ManualClock`` for tests), ``spark.streaming.unpersist``
(``true``), ``spark.streaming.gracefulStopTimeout`` (milliseconds; default 10 batches:
how long a graceful stop waits for received data to be put into batches; the batches
generated are then all run, as in Spark, within an hour),
``spark.streaming.stopGracefullyOnShutdown`` (``false``: how the exit hook stops an
active context, and whether ``start()`` installs a SIGTERM handler: see
:mod:`dstream.shutdown`).

Lifecycle rules
---------------
``INITIALIZED -> ACTIVE -> STOPPED``; one active context per process; operators only
while INITIALIZED; ``start`` on a stopped engine raises; ``stop`` is idempotent and
never joins the thread it is called from (so ``stop`` inside ``foreachRDD`` works).
A failed ``start`` (for example no output operation) leaves the engine STOPPED, as in
Spark.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdd import ConfigError, SparkContext

from dstream.callsite import user_call_site
from dstream.checkpoint.checkpointer import Checkpointer, RDDCheckpointCleaner, checkpointed_rdds
from dstream.checkpoint.recovery import Recovery, Restored, restore_checkpointed_rdds
from dstream.clock import Clock, clock_from_conf
from dstream.errors import StreamingStateError
from dstream.graph import DStreamGraph
from dstream.lifecycle import State, TerminationWaiter, activate, activation_lock, deactivate
from dstream.listener import StreamingListenerStreamingStarted
from dstream.listener_bus import ListenerBus
from dstream.rate.controller import RateController
from dstream.rate.pid import PIDRateEstimator
from dstream.receiver.settings import ReceiverSettings
from dstream.receiver.tracker import ReceiverTracker
from dstream.scheduler.job_generator import JobGenerator
from dstream.scheduler.job_scheduler import JobScheduler
from dstream.shutdown import ShutdownHooks
from dstream.ui.hooks import StreamingUI, set_job_properties

if TYPE_CHECKING:
    from dstream.inputs.base import InputNode

__all__ = ["StreamingEngine"]

# Users see these messages as StreamingContext's (Spark logs them there) and configure
# them under that name: the engine logs as the facade's module.
logger = logging.getLogger("dstream.context")

# How long a non-graceful stop waits for the running job (Spark: 2 s, then interrupts).
_UNGRACEFUL_JOB_WAIT_S = 2.0
# How long a graceful stop waits for the generated batches to run (Spark: one hour).
# spark.streaming.gracefulStopTimeout bounds the wait for received data to be put into
# batches; the batches generated are then run, as Spark's job executor runs its queue.
_GRACEFUL_JOB_WAIT_S = 3600.0
# How long stop waits for the generator's tick in progress and for listener delivery.
_THREAD_STOP_WAIT_S = 10.0


class StreamingEngine:
    """The running parts of one streaming context and the life of its batches.

    Parameters
    ----------
    context
        The facade (``StreamingContext``) registered as the process's active context
        while this engine runs; the engine never calls it.
    sc
        The SparkContext that runs each batch's jobs.
    batch_ms
        The batch interval in milliseconds (validated by the facade).
    """

    def __init__(self, context: Any, sc: SparkContext, batch_ms: int) -> None:
        self.context = context
        self.sc = sc
        self.graph = DStreamGraph(sc, batch_ms)
        # A SparkContext's settings are fixed once it exists: read them once.
        self.conf = sc.getConf()
        self.graph.unpersist = self.conf.getBoolean("spark.streaming.unpersist", True)
        self.clock: Clock = clock_from_conf(self.conf.get("spark.streaming.clock", None))
        self.state = State.INITIALIZED
        self.state_lock = threading.RLock()
        self.waiter = TerminationWaiter()
        self.bus = ListenerBus()
        self.scheduler: JobScheduler | None = None
        self.generator: JobGenerator | None = None
        self.checkpointer: Checkpointer | None = None
        self.rdd_checkpoints: RDDCheckpointCleaner | None = None
        #: Set by :meth:`recover`: where the job generator resumes.
        self.recovery: Recovery | None = None
        self.rate_controllers: list[RateController] = []
        self.shutdown = ShutdownHooks(self)
        # hook(time_ms), on the job thread after each batch with jobs: dstream.testing's
        # stop_after_batches needs a point no later batch has passed yet.
        self.batch_done_hooks: list[Callable[[int], None]] = []
        self.stopping = False
        self._stop_handed_off = False  # a graceful stop from the job thread runs on its own thread
        self._receiver_settings: ReceiverSettings | None = None
        self._receiver_tracker: ReceiverTracker | None = None
        self.ui: StreamingUI | None = None

    @property
    def graph_closed(self) -> bool:
        """Whether operators may no longer be added (started or stopped)."""
        return self.state is not State.INITIALIZED

    def install_clock(self, clock: Clock) -> None:
        """Replace the clock before start (used by :mod:`dstream.testing`)."""
        if self.state is not State.INITIALIZED:
            raise StreamingStateError("the clock can only be replaced before start()")
        self.clock = clock

    # -- inputs ------------------------------------------------------------------------
    @property
    def receiver_settings(self) -> ReceiverSettings:
        """The receiver and rate settings, read once from the SparkConf."""
        if self._receiver_settings is None:
            self._receiver_settings = ReceiverSettings.from_conf(self.sc.getConf())
        return self._receiver_settings

    @property
    def receiver_tracker(self) -> ReceiverTracker:
        """The receiver tracker of every receiver stream (created on first use)."""
        if self._receiver_tracker is None:
            self._receiver_tracker = ReceiverTracker(self.receiver_settings)
        return self._receiver_tracker

    @property
    def has_receivers(self) -> bool:
        tracker = self._receiver_tracker
        return tracker is not None and bool(tracker.stream_ids)

    def attach(self, node: InputNode) -> None:
        """Connect an input to this engine: once created, or once restored from a checkpoint."""
        node.attach(self)

    def prepare_receivers(self) -> None:
        """Hand the tracker the final clock, checkpoint directory and bus (at start)."""
        # Read at start, not at stream creation: the clock (tests) and the checkpoint
        # directory may be set after the streams are defined.
        self.receiver_tracker.prepare(
            clock=self.clock, checkpoint_dir=self.graph.checkpoint_dir, post_event=self.bus.post
        )

    def rate_controller(
        self, stream_id: int, publish: Callable[[float], None] | None = None
    ) -> RateController:
        """Build and register the backpressure controller of input ``stream_id``.

        A PID estimator over this engine's batch interval and the
        ``spark.streaming.backpressure.pid.*`` settings; the controller listens to
        completed batches. ``publish`` pushes each new rate to the source (receivers);
        without it the source pulls :attr:`RateController.latest_rate` (Kafka).
        """
        settings = self.receiver_settings
        estimator = PIDRateEstimator(
            self.graph.batch_ms,
            settings.pid_proportional,
            settings.pid_integral,
            settings.pid_derived,
            settings.pid_min_rate,
        )
        controller = RateController(stream_id, estimator, publish)
        self.rate_controllers.append(controller)
        self.bus.add_listener(controller)
        return controller

    # -- recovery ----------------------------------------------------------------------
    def recover(self, restored: Restored) -> None:
        """Resume from a checkpoint read back: take its graph, inputs' positions and RDDs.

        Called on a new engine, before ``start``. Live inputs are attached to this
        engine; receivers replay their write-ahead log at start.
        """
        graph = restored.graph
        graph.sc = self.sc
        graph.unpersist = self.graph.unpersist
        self.graph = graph
        if graph.checkpoint_dir:
            self.sc.setCheckpointDir(graph.checkpoint_dir)
        for node in graph.inputs:
            self.attach(node)
        if self.has_receivers:
            self.receiver_tracker.recover = True
        for node in graph.inputs:
            state = restored.input_states.get(node.input_id)
            if state is not None:
                node.restore_state(state)
        restore_checkpointed_rdds(graph, self.sc, restored.rdd_files)
        self.recovery = restored.recovery
        restored.log_recovered()

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Validate the graph and start every part (see ``StreamingContext.start``)."""
        with activation_lock(), self.state_lock:
            if self.state is State.ACTIVE:
                logger.warning("StreamingContext has already been started")
                return
            if self.state is State.STOPPED:
                raise StreamingStateError(
                    "this StreamingContext has been stopped and cannot be started again; "
                    "create a new StreamingContext (the SparkContext can be reused if it "
                    "was stopped with stopSparkContext=False)"
                )
            activate(self.context, user_call_site())
            try:
                self.graph.validate()
                self.graph.close("has been started")
                self._start_parts()
            except BaseException:
                self.state = State.STOPPED
                self.graph.close("failed to start")
                self._stop_parts(graceful=False)
                deactivate(self.context)
                self.waiter.notify_stop()
                raise
            self.state = State.ACTIVE
            self.shutdown.install(sigterm=self.stop_gracefully_on_shutdown())

    def stop_gracefully_on_shutdown(self) -> bool:
        return self.conf.getBoolean("spark.streaming.stopGracefullyOnShutdown", False)

    def stop(self, stop_spark_context: bool, graceful: bool) -> None:
        """Stop every part (see ``StreamingContext.stop`` for the contract)."""
        scheduler = self.scheduler
        if graceful and scheduler is not None and scheduler.is_job_thread:
            with self.state_lock:
                if self.state is not State.ACTIVE or self.stopping or self._stop_handed_off:
                    return
                self._stop_handed_off = True
            # Not a daemon: the interpreter waits for the stop to finish before exiting.
            threading.Thread(target=self.stop, args=(stop_spark_context, True),
                             name="StreamingContext-graceful-stop").start()
            return
        interrupted = False
        with self.state_lock:
            if self.state is State.INITIALIZED:
                self.state = State.STOPPED
                self.graph.close("has been stopped")
                self.waiter.notify_stop()
            elif self.state is State.ACTIVE and not self.stopping:
                self.stopping = True
                try:
                    try:
                        self._stop_parts(graceful=graceful)
                    except KeyboardInterrupt:
                        if not graceful:
                            raise
                        interrupted = True
                        self._stop_now(cancel_jobs=stop_spark_context)
                finally:
                    self.state = State.STOPPED
                    self.graph.close("has been stopped")
                    deactivate(self.context)
                    self.waiter.notify_stop()
                    self.shutdown.remove()
        if stop_spark_context:
            self.sc.stop()
        if interrupted:
            raise KeyboardInterrupt

    def _start_parts(self) -> None:
        self.scheduler = JobScheduler(self.clock, self.bus, self.waiter, self._on_batch_done,
                                      before_job=lambda job: set_job_properties(self.sc, job))
        self.generator = JobGenerator(self.graph, self.clock, self.scheduler, self._before_generate,
                                      self._after_graph_start, self._after_generate)
        self.bus.start()
        # Before StreamingStarted: the forwarder must see every event of this context.
        self.ui = StreamingUI(self.sc, self.bus, self.graph.batch_ms, _input_names(self.graph),
                              self.clock.now_ms())
        self.bus.post(StreamingListenerStreamingStarted(self.clock.now_ms()))
        self.scheduler.start()
        self.generator.start(self.recovery)

    def _stop_parts(self, graceful: bool) -> None:
        generator, scheduler = self.generator, self.scheduler
        if graceful and generator is not None and self.has_receivers:
            self._drain_receivers(self._graceful_timeout_s())
        if generator is not None:
            generator.stop(_THREAD_STOP_WAIT_S)
        if scheduler is not None:
            if graceful:
                scheduler.stop(graceful=True, timeout=_GRACEFUL_JOB_WAIT_S)
            else:
                scheduler.stop(graceful=False, timeout=_UNGRACEFUL_JOB_WAIT_S)
        if self.checkpointer is not None:
            self.checkpointer.close(_THREAD_STOP_WAIT_S)  # what was taken reaches the disk
        try:
            self.graph.stop()
        finally:
            self.bus.stop(_THREAD_STOP_WAIT_S)
            if self.ui is not None:
                self.ui.stop()

    def _stop_now(self, cancel_jobs: bool) -> None:
        """A graceful stop was interrupted (Ctrl-C): drop the queued batches, stop now."""
        logger.warning("graceful stop interrupted: stopping now; the queued batches are dropped")
        if self.scheduler is not None:
            self.scheduler.abandon()
        if cancel_jobs:
            self.sc.cancelAllJobs()  # the SparkContext stops next: the running batch cannot finish
        self._stop_parts(graceful=False)

    def _drain_receivers(self, timeout: float) -> None:
        """Graceful stop: stop receiving, then let batches run until every block is allocated."""
        deadline = time.monotonic() + timeout
        tracker = self.receiver_tracker
        tracker.stop_receivers(graceful=True, timeout=timeout)
        generator = self.generator
        logger.debug("graceful stop: receivers stopped; unallocated blocks: %s; last batch %s",
                     tracker.has_unallocated_blocks(), generator and generator.last_generated)
        while generator is not None and tracker.has_unallocated_blocks():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                logger.warning("graceful stop: received data was still unprocessed after %.1f s; "
                               "stopping anyway (raise spark.streaming.gracefulStopTimeout)", timeout)
                return
            last = generator.last_generated
            generator.wait_generated((last or 0) + self.graph.batch_ms, min(remaining, 0.5))

    def _graceful_timeout_s(self) -> float:
        default_ms = 10 * self.graph.batch_ms
        try:
            return self.conf.getTimeAsMs("spark.streaming.gracefulStopTimeout", f"{default_ms}ms") / 1000.0
        except ConfigError as exc:  # a stop must still stop: say so and use the default
            logger.warning("%s; using the default, %d ms (10 batch intervals)", exc, default_ms)
            return default_ms / 1000.0

    # -- a batch's path ----------------------------------------------------------------
    def _after_graph_start(self) -> None:
        """Between graph start and the first tick: rebuild recovered batches, start checkpointing."""
        graph = self.graph
        if self.recovery is not None:
            for node in graph.inputs:
                node.rebuild_recorded_batches()
        if not graph.checkpoint_dir and self.sc.getCheckpointDir() is not None:
            # RDD checkpoints without metadata checkpoints (sc.setCheckpointDir only): an
            # RDD checkpoint is garbage once the streams forget it.
            self.rdd_checkpoints = RDDCheckpointCleaner(keep=1)
        if graph.checkpoint_dir:
            self.checkpointer = Checkpointer(graph, self.sc, graph.checkpoint_dir,
                                             on_error=lambda exc, _t: self.waiter.notify_error(exc),
                                             synchronous=self.has_receivers)
            if self.has_receivers:
                # Received blocks are dropped only once a checkpoint no longer needs them.
                self.receiver_tracker.cleanup_on_clear_metadata = False

    def _before_generate(self, time_ms: int) -> None:
        """Per tick, before the jobs: received blocks go to batch ``time_ms`` (Spark's order)."""
        if self.has_receivers:
            self.receiver_tracker.allocate_blocks_to_batch(time_ms)

    def _after_generate(self, time_ms: int, pending: list[int]) -> None:
        checkpointer = self.checkpointer
        if checkpointer is not None:
            checkpointer.write(time_ms, pending)

    def _on_batch_done(self, time_ms: int) -> None:
        generator = self.generator
        if generator is not None:
            generator.batch_completed(time_ms)
        if self.rdd_checkpoints is not None:
            nodes = checkpointed_rdds(self.graph).values()
            self.rdd_checkpoints.retain(time_ms, {d for files in nodes for d in files.values()})
        checkpointer = self.checkpointer
        if checkpointer is not None and generator is not None:
            then = None
            if self.has_receivers:
                # Received blocks may go once a checkpoint no longer needs them: after it is on disk.
                longest = max((n.remember_ms for n in self.graph.inputs), default=0)
                tracker = self.receiver_tracker
                then = lambda: tracker.cleanup_old_blocks_and_batches(time_ms - longest)  # noqa: E731
            try:
                checkpointer.write(time_ms, generator.pending_times(), then)
            except Exception as exc:  # noqa: BLE001 - report, keep the stream running
                logger.exception("writing the checkpoint of batch %d failed", time_ms)
                self.waiter.notify_error(exc)
        for hook in self.batch_done_hooks:
            hook(time_ms)


def _input_names(graph: DStreamGraph) -> dict[int, str]:
    """Spark's input stream names: ``QueueInputNode`` id 0 -> ``'Queue stream [0]'``."""
    names = {}
    for node in graph.inputs:
        kind = type(node).__name__.removesuffix("InputNode")
        words = "".join(f" {c}" if c.isupper() else c for c in kind).split()
        names[node.input_id] = " ".join([*(w.lower() for w in words), "stream"]).capitalize() + f" [{node.input_id}]"
    return names
