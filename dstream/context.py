"""StreamingContext: PySpark's entry point for streams, over our engine.

What this module owns
---------------------
The public lifecycle (``start``, ``stop``, ``awaitTermination*``, ``getActive``), the
stream factories (``queueStream``, ``union``, ``transform``), settings (``remember``,
``checkpoint``) and listener registration. The engine parts it assembles at ``start``:

* :class:`~dstream.graph.DStreamGraph` — the streams (built while INITIALIZED);
* :class:`~dstream.scheduler.job_generator.JobGenerator` — the control thread;
* :class:`~dstream.scheduler.job_scheduler.JobScheduler` — the job thread;
* :class:`~dstream.listener_bus.ListenerBus` — the listener thread;
* :class:`~dstream.lifecycle.TerminationWaiter` — what ``awaitTermination`` waits on.

Configuration read from the SparkContext's conf
-----------------------------------------------
``spark.streaming.clock`` (``system``; ``manual`` or Spark's
``org.apache.spark.util.ManualClock`` for tests), ``spark.streaming.unpersist``
(``true``), ``spark.streaming.gracefulStopTimeout`` (milliseconds; default 10 batches:
how long a graceful stop waits for received data to be put into batches; the batches
generated are then all run, as in Spark, within an hour),
``spark.streaming.stopGracefullyOnShutdown`` (``false``: how the exit hook stops an
active context; when ``true``, ``start()`` called on the main thread also installs a
SIGTERM handler, see below).

Shutdown (``spark.streaming.stopGracefullyOnShutdown=true``)
------------------------------------------------------------
Spark stops the context gracefully from a JVM shutdown hook, which a SIGTERM triggers.
Here ``start()`` (on the main thread only: Python runs signal handlers there) installs a
SIGTERM handler, remembering the previous one; ``stop()`` puts the previous one back
(when called on the main thread; otherwise the handler forwards to it once the context
is stopped). On SIGTERM the handler, on the main thread, stops the context gracefully
(receivers stop, everything received is processed: see ``stop``), then hands the
signal to the previous handler: a Python handler is called; the default action becomes
``SystemExit(143)`` (128 + SIGTERM, what a JVM reports), so ``finally`` blocks and exit
hooks still run and the SparkContext's hook stops the worker processes. A SIGTERM that was ignored
(``SIG_IGN``) before ``start()`` stays ignored.

Lifecycle rules (SPARK-INTERNALS §10)
-------------------------------------
``INITIALIZED -> ACTIVE -> STOPPED``; one active context per process; operators only
while INITIALIZED; ``start`` on a stopped context raises; ``stop`` is idempotent and
never joins the thread it is called from (so ``stop`` inside ``foreachRDD`` works).
A failed ``start`` (for example no output operation) leaves the context STOPPED, as in
Spark.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rdd import RDD, DriverOnlyError, SparkContext

from dstream.callsite import user_call_site
from dstream.checkpoint.checkpointer import Checkpointer, RDDCheckpointCleaner, checkpointed_rdds
from dstream.checkpoint.recovery import Recovery, restore
from dstream.clock import Clock, clock_from_conf
from dstream.context_inputs import InputMethods
from dstream.callbacks import returns_rdd
from dstream.dstream import DStream
from dstream.errors import DurationError, StreamingStateError
from dstream.graph import DStreamGraph
from dstream.inputs.queue import QueueInputNode
from dstream.lifecycle import State, TerminationWaiter, activate, activation_lock, deactivate, get_active
from dstream.listener import StreamingListener, StreamingListenerStreamingStarted
from dstream.listener_bus import ListenerBus
from dstream.nodes.transformed import TransformedNode
from dstream.nodes.union import UnionNode
from dstream.scheduler.job_generator import JobGenerator
from dstream.scheduler.job_scheduler import JobScheduler
from dstream.time import duration_ms, format_ms

__all__ = ["StreamingContext"]

logger = logging.getLogger(__name__)

# How long a non-graceful stop waits for the running job (Spark: 2 s, then interrupts).
_UNGRACEFUL_JOB_WAIT_S = 2.0
# How long a graceful stop waits for the generated batches to run (Spark: one hour).
# spark.streaming.gracefulStopTimeout bounds the wait for received data to be put into
# batches; the batches generated are then run, as Spark's job executor runs its queue.
_GRACEFUL_JOB_WAIT_S = 3600.0
# How long stop waits for the generator's tick in progress and for listener delivery.
_THREAD_STOP_WAIT_S = 10.0


def _conf_get(sc: Any, key: str) -> str | None:
    conf = getattr(sc, "_conf", None)
    if conf is None:
        return None
    value = conf.get(key, None)
    return None if value is None else str(value)


class StreamingContext(InputMethods):
    """Main entry point for streaming: builds DStreams and runs them every batch.

    Parameters
    ----------
    sparkContext
        The :class:`rdd.SparkContext` that runs each batch's jobs.
    batchDuration
        Seconds between batches (``int``/``float``, a whole number of milliseconds,
        positive), or a :class:`~dstream.Duration`.
    jssc
        PySpark's JVM handle; there is no JVM here, so it must be ``None``.

    Examples
    --------
    >>> from dstream import StreamingContext
    >>> from dstream.testing import advance_batches, manual_clock
    >>> ssc = StreamingContext(sc, 1)
    >>> clock = manual_clock(ssc)
    >>> ssc.queueStream([[1, 2], [3]]).map(lambda x: x * 2).pprint()
    >>> ssc.start()
    >>> advance_batches(ssc, 1)  # doctest: +ELLIPSIS
    -------------------------------------------
    Time: ...
    -------------------------------------------
    2
    4
    <BLANKLINE>
    >>> ssc.stop(stopSparkContext=False)
    """

    def __init__(
        self,
        sparkContext: SparkContext,  # noqa: N803
        batchDuration: float | None = None,  # noqa: N803
        jssc: Any = None,
    ) -> None:
        if jssc is not None:
            raise TypeError(
                "jssc is a PySpark JVM handle; there is no JVM here, pass only (sparkContext, batchDuration)"
            )
        if batchDuration is None:
            raise DurationError(
                "batchDuration is required: pass the batch interval in seconds, for example "
                "StreamingContext(sc, 1)"
            )
        batch_ms = duration_ms(batchDuration, "batchDuration")
        self._sc = sparkContext
        self._graph = DStreamGraph(sparkContext, batch_ms)
        unpersist = _conf_get(sparkContext, "spark.streaming.unpersist")
        self._graph.unpersist = unpersist is None or unpersist.strip().lower() != "false"
        self._clock: Clock = clock_from_conf(_conf_get(sparkContext, "spark.streaming.clock"))
        self._state = State.INITIALIZED
        self._state_lock = threading.RLock()
        self._waiter = TerminationWaiter()
        self._bus = ListenerBus()
        self._scheduler: JobScheduler | None = None
        self._generator: JobGenerator | None = None
        self._checkpointer: Checkpointer | None = None
        self._rdd_checkpoints: RDDCheckpointCleaner | None = None
        self._recovery: Recovery | None = None
        self._stopping = False
        self._stop_handed_off = False  # a graceful stop from the job thread runs on its own thread
        # hook(time_ms), on the job thread after each batch with jobs: dstream.testing's
        # stop_after_batches needs a point no later batch has passed yet.
        self._batch_done_hooks: list[Callable[[int], None]] = []
        # The SIGTERM handler that start() replaced (see "Shutdown" above), if it did.
        self._sigterm_previous: Any = None
        self._sigterm_installed = False

    def __repr__(self) -> str:
        return f"<StreamingContext batch={format_ms(self._graph.batch_ms)} state={self._state.value}>"

    def __reduce__(self) -> Any:
        # Referencing a stream or the context inside an RDD function would ship the
        # whole graph to the workers; refuse at pickling time with the fix.
        raise DriverOnlyError(
            "A StreamingContext can only be used on the driver. It appears that it is referenced "
            "inside a function that runs on RDD data (map, filter, foreachPartition...): "
            "use the batch's RDD instead, for example dstream.transform(lambda rdd: "
            "rdd.map(f)), and rdd.context for the SparkContext."
        )

    # -- engine access for the facade and the testing helpers -------------------------
    @property
    def _graph_closed(self) -> bool:
        return self._state is not State.INITIALIZED

    def _install_clock(self, clock: Clock) -> None:
        """Replace the clock before start (used by :mod:`dstream.testing`)."""
        if self._state is not State.INITIALIZED:
            raise StreamingStateError("the clock can only be replaced before start()")
        self._clock = clock

    # -- properties ------------------------------------------------------------------
    @property
    def sparkContext(self) -> SparkContext:  # noqa: N802
        """Return the SparkContext this streaming context runs on."""
        return self._sc

    # -- lifecycle -------------------------------------------------------------------
    @classmethod
    def getActive(cls) -> StreamingContext | None:  # noqa: N802
        """Return the started-and-not-stopped StreamingContext of this process, or ``None``."""
        return get_active()

    def start(self) -> None:
        """Start the stream: validate the graph, then run a batch every batch interval.

        Raises
        ------
        ValueError
            If no output operation is registered (the context is then stopped).
        RuntimeError
            If the context was stopped, or another context is active in this process.
        """
        with activation_lock(), self._state_lock:
            if self._state is State.ACTIVE:
                logger.warning("StreamingContext has already been started")
                return
            if self._state is State.STOPPED:
                raise StreamingStateError(
                    "this StreamingContext has been stopped and cannot be started again; "
                    "create a new StreamingContext (the SparkContext can be reused if it "
                    "was stopped with stopSparkContext=False)"
                )
            activate(self, user_call_site())
            try:
                self._graph.validate()
                self._graph.close("has been started")
                self._start_engine()
            except BaseException:
                self._state = State.STOPPED
                self._graph.close("failed to start")
                self._stop_engine(graceful=False)
                deactivate(self)
                self._waiter.notify_stop()
                raise
            self._state = State.ACTIVE
            # Stop before the SparkContext's own exit hook (atexit runs hooks last in,
            # first out), so no batch runs on a stopped SparkContext at interpreter exit.
            atexit.register(self._stop_at_exit)
            if self._stop_gracefully_on_shutdown():
                self._install_sigterm_handler()

    def _stop_gracefully_on_shutdown(self) -> bool:
        setting = _conf_get(self._sc, "spark.streaming.stopGracefullyOnShutdown") or ""
        return setting.strip().lower() == "true"

    # -- SIGTERM (spark.streaming.stopGracefullyOnShutdown) ------------------------------
    def _install_sigterm_handler(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            logger.warning(
                "spark.streaming.stopGracefullyOnShutdown is true but start() was called from "
                "thread %r: Python handles signals only on the main thread, so SIGTERM is not "
                "handled (the exit hook still stops the context gracefully)",
                threading.current_thread().name,
            )
            return
        previous = signal.getsignal(signal.SIGTERM)
        if previous is signal.SIG_IGN:
            logger.info("SIGTERM is ignored in this process; leaving it ignored")
            return
        signal.signal(signal.SIGTERM, self._on_sigterm)
        self._sigterm_previous = previous
        self._sigterm_installed = True

    def _restore_sigterm_handler(self) -> None:
        """Put back the handler start() replaced (main thread only; else the handler forwards)."""
        if not self._sigterm_installed or threading.current_thread() is not threading.main_thread():
            return
        self._sigterm_installed = False
        # A handler installed after ours (by the application) stays.
        if signal.getsignal(signal.SIGTERM) == self._on_sigterm:
            previous = self._sigterm_previous
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)

    def _on_sigterm(self, signum: int, frame: Any) -> None:
        if self._state is State.ACTIVE:
            if self._stopping:
                logger.warning("SIGTERM received while the StreamingContext is already stopping; "
                               "the stop in progress continues")
                return
            logger.warning("SIGTERM received: stopping the StreamingContext gracefully, processing "
                           "the data received so far (spark.streaming.stopGracefullyOnShutdown)")
            self.stop(stopSparkContext=False, stopGraceFully=True)
        # Stopped (here, or earlier on another thread, which could not restore the
        # handler): put the previous handler back and hand it the signal.
        self._restore_sigterm_handler()
        previous = self._sigterm_previous
        if callable(previous):
            previous(signum, frame)
        elif previous is not signal.SIG_IGN:
            # The default action would kill the process without running exit hooks; exit
            # with the status a SIGTERM-ed JVM reports instead, so the SparkContext's exit
            # hook still stops the workers.
            raise SystemExit(128 + signum)

    def _stop_at_exit(self) -> None:
        graceful = self._stop_gracefully_on_shutdown()
        try:
            self.stop(stopSparkContext=False, stopGraceFully=graceful)
        except Exception:  # noqa: BLE001 - never fail interpreter exit
            logger.exception("error while stopping the StreamingContext at exit")

    def _start_engine(self) -> None:
        self._scheduler = JobScheduler(self._clock, self._bus, self._waiter, self._on_batch_done)
        self._generator = JobGenerator(self._graph, self._clock, self._scheduler, self._before_generate,
                                       self._after_graph_start, self._after_generate)
        self._bus.start()
        self._bus.post(StreamingListenerStreamingStarted(self._clock.now_ms()))
        self._scheduler.start()
        self._generator.start(self._recovery)

    def _after_graph_start(self) -> None:
        """Between graph start and the first tick: rebuild recovered batches, start checkpointing."""
        graph = self._graph
        if self._recovery is not None:
            for node in graph.inputs:
                node.rebuild_recorded_batches()
        if not graph.checkpoint_dir and self._sc.getCheckpointDir() is not None:
            # RDD checkpoints without metadata checkpoints (sc.setCheckpointDir only): an
            # RDD checkpoint is garbage once the streams forget it.
            self._rdd_checkpoints = RDDCheckpointCleaner(keep=1)
        if graph.checkpoint_dir:
            self._checkpointer = Checkpointer(graph, self._sc, graph.checkpoint_dir,
                                              on_error=lambda exc, _t: self._waiter.notify_error(exc),
                                              synchronous=self._has_receivers)
            if self._has_receivers:
                # Received blocks are dropped only once a checkpoint no longer needs them.
                self._receiver_tracker.cleanup_on_clear_metadata = False

    def _after_generate(self, time_ms: int, pending: list[int]) -> None:
        checkpointer = self._checkpointer
        if checkpointer is not None:
            checkpointer.write(time_ms, pending)

    def _before_generate(self, time_ms: int) -> None:
        """Per tick, before the jobs: received blocks go to batch ``time_ms`` (Spark's order)."""
        if self._has_receivers:
            self._receiver_tracker.allocate_blocks_to_batch(time_ms)

    def _drain_receivers(self, timeout: float) -> None:
        """Graceful stop: stop receiving, then let batches run until every block is allocated."""
        deadline = time.monotonic() + timeout
        tracker = self._receiver_tracker
        tracker.stop_receivers(graceful=True, timeout=timeout)
        generator = self._generator
        logger.debug("graceful stop: receivers stopped; unallocated blocks: %s; last batch %s",
                     tracker.has_unallocated_blocks(), generator and generator.last_generated)
        while generator is not None and tracker.has_unallocated_blocks():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                logger.warning("graceful stop: received data was still unprocessed after %.1f s; "
                               "stopping anyway (raise spark.streaming.gracefulStopTimeout)", timeout)
                return
            last = generator.last_generated
            generator.wait_generated((last or 0) + self._graph.batch_ms, min(remaining, 0.5))

    def _on_batch_done(self, time_ms: int) -> None:
        generator = self._generator
        if generator is not None:
            generator.batch_completed(time_ms)
        if self._rdd_checkpoints is not None:
            nodes = checkpointed_rdds(self._graph).values()
            self._rdd_checkpoints.retain(time_ms, {d for files in nodes for d in files.values()})
        checkpointer = self._checkpointer
        if checkpointer is not None and generator is not None:
            then = None
            if self._has_receivers:
                # Received blocks may go once a checkpoint no longer needs them: after it is on disk.
                longest = max((n.remember_ms for n in self._graph.inputs), default=0)
                tracker = self._receiver_tracker
                then = lambda: tracker.cleanup_old_blocks_and_batches(time_ms - longest)  # noqa: E731
            try:
                checkpointer.write(time_ms, generator.pending_times(), then)
            except Exception as exc:  # noqa: BLE001 - report, keep the stream running
                logger.exception("writing the checkpoint of batch %d failed", time_ms)
                self._waiter.notify_error(exc)
        for hook in self._batch_done_hooks:
            hook(time_ms)

    def _stop_engine(self, graceful: bool) -> None:
        generator, scheduler = self._generator, self._scheduler
        if graceful and generator is not None and self._has_receivers:
            self._drain_receivers(self._graceful_timeout_s())
        if generator is not None:
            generator.stop(_THREAD_STOP_WAIT_S)
        if scheduler is not None:
            if graceful:
                scheduler.stop(graceful=True, timeout=_GRACEFUL_JOB_WAIT_S)
            else:
                scheduler.stop(graceful=False, timeout=_UNGRACEFUL_JOB_WAIT_S)
        if self._checkpointer is not None:
            self._checkpointer.close(_THREAD_STOP_WAIT_S)  # what was taken reaches the disk
        try:
            self._graph.stop()
        finally:
            self._bus.stop(_THREAD_STOP_WAIT_S)

    def _graceful_timeout_s(self) -> float:
        value = _conf_get(self._sc, "spark.streaming.gracefulStopTimeout")
        if value is not None:
            try:
                return int(value) / 1000.0
            except ValueError:
                logger.warning(
                    "ignoring spark.streaming.gracefulStopTimeout=%r (expected milliseconds)", value
                )
        return 10 * self._graph.batch_ms / 1000.0

    def stop(self, stopSparkContext: bool = True, stopGraceFully: bool = False) -> None:  # noqa: N803
        """Stop the stream, and by default the SparkContext too.

        Parameters
        ----------
        stopSparkContext
            Also stop the SparkContext. Pass ``False`` to start a new StreamingContext on
            the same SparkContext.
        stopGraceFully
            Stop receiving, then process everything received and every batch already
            generated before stopping. Waiting for received data to be put into batches
            is bounded by ``spark.streaming.gracefulStopTimeout`` (default 10 batch
            intervals); the batches generated are then run (as in Spark, for at most an
            hour). Otherwise queued batches are dropped and only the running job
            finishes. A ``KeyboardInterrupt`` (a second Ctrl-C) during a graceful stop
            turns it into an immediate one (with ``stopSparkContext``, the running job
            is cancelled too), then is raised again.

        Notes
        -----
        Idempotent. Safe to call from an output operation: it does not wait for the
        job thread it runs on. A graceful stop from there cannot wait on that thread
        either (the queued batches run on it once the output operation returns), so it
        continues on a thread of its own and returns at once; ``awaitTermination``
        returns when it is complete.
        """
        scheduler = self._scheduler
        if stopGraceFully and scheduler is not None and scheduler.is_job_thread:
            with self._state_lock:
                if self._state is not State.ACTIVE or self._stopping or self._stop_handed_off:
                    return
                self._stop_handed_off = True
            # Not a daemon: the interpreter waits for the stop to finish before exiting.
            threading.Thread(target=self.stop, args=(stopSparkContext, True),
                             name="StreamingContext-graceful-stop").start()
            return
        interrupted = False
        with self._state_lock:
            if self._state is State.INITIALIZED:
                self._state = State.STOPPED
                self._graph.close("has been stopped")
                self._waiter.notify_stop()
            elif self._state is State.ACTIVE and not self._stopping:
                self._stopping = True
                try:
                    try:
                        self._stop_engine(graceful=bool(stopGraceFully))
                    except KeyboardInterrupt:
                        if not stopGraceFully:
                            raise
                        interrupted = True
                        self._stop_now(cancel_jobs=stopSparkContext)
                finally:
                    self._state = State.STOPPED
                    self._graph.close("has been stopped")
                    deactivate(self)
                    self._waiter.notify_stop()
                    atexit.unregister(self._stop_at_exit)
                    self._restore_sigterm_handler()
        if stopSparkContext:
            self._sc.stop()
        if interrupted:
            raise KeyboardInterrupt

    def _stop_now(self, cancel_jobs: bool) -> None:
        """A graceful stop was interrupted (Ctrl-C): drop the queued batches, stop now."""
        logger.warning("graceful stop interrupted: stopping now; the queued batches are dropped")
        if self._scheduler is not None:
            self._scheduler.abandon()
        if cancel_jobs:
            self._sc.cancelAllJobs()  # the SparkContext stops next: the running batch cannot finish
        self._stop_engine(graceful=False)

    def awaitTermination(self, timeout: float | None = None) -> None:  # noqa: N802
        """Wait until the context is stopped, or ``timeout`` seconds pass.

        Raises
        ------
        Exception
            The first exception raised by a batch (the user's own exception, with its
            traceback), as soon as there is one.
        """
        self._waiter.wait(None if timeout is None else float(timeout))

    def awaitTerminationOrTimeout(self, timeout: float) -> bool:  # noqa: N802
        """Wait until the context is stopped or ``timeout`` seconds pass.

        Returns
        -------
        bool
            ``True`` if stopped, ``False`` on timeout.

        Raises
        ------
        Exception
            The first exception raised by a batch, as for :meth:`awaitTermination`.
        """
        return self._waiter.wait(float(timeout))

    # -- settings --------------------------------------------------------------------
    def remember(self, duration: float) -> None:
        """Keep every stream's RDDs for at least ``duration`` seconds (for ``slice``)."""
        if self._state is not State.INITIALIZED:
            raise StreamingStateError("remember() must be called before start()")
        self._graph.set_remember(duration_ms(duration, "duration"))

    def checkpoint(self, directory: str) -> None:
        """Set the directory for checkpoints (created if missing)."""
        if directory is None:
            self._graph.checkpoint_dir = None
            return
        directory = os.path.abspath(os.fspath(directory))
        os.makedirs(directory, exist_ok=True)
        set_dir = getattr(self._sc, "setCheckpointDir", None)
        if set_dir is not None:
            set_dir(directory)
        self._graph.checkpoint_dir = directory

    @classmethod
    def getOrCreate(cls, checkpointPath: str, setupFunc: Callable[[], StreamingContext]) -> StreamingContext:  # noqa: N802, N803
        """Recreate a StreamingContext from ``checkpointPath``, or create one with ``setupFunc``.

        With a usable checkpoint the context, its graph and its position are rebuilt
        from it, without calling ``setupFunc`` (PySpark's behaviour); the active
        SparkContext is reused if there is one. On ``start()`` the batches that were
        pending at the crash, and those missed while the driver was down, run again.
        Without a checkpoint, ``setupFunc()`` builds the context, which checkpoints to
        ``checkpointPath`` unless it set a directory itself.

        Raises
        ------
        CheckpointError
            When checkpoint files exist but none is usable (the newest corrupt ones are
            skipped with a warning first).

        Examples
        --------
        >>> def create():
        ...     ssc = StreamingContext(sc, 1)
        ...     ssc.queueStream([[1, 2]]).count().pprint()
        ...     return ssc
        >>> ssc = StreamingContext.getOrCreate("/tmp/my-checkpoints", create)  # doctest: +SKIP
        """
        restored = restore(checkpointPath)
        if restored is not None:
            return restored
        ssc = setupFunc()
        if not isinstance(ssc, StreamingContext):
            raise TypeError(f"setupFunc must return a StreamingContext, it returned {ssc!r}")
        if not ssc._graph.checkpoint_dir:
            ssc.checkpoint(checkpointPath)
        return ssc

    @classmethod
    def getActiveOrCreate(cls, checkpointPath: str | None, setupFunc: Callable[[], StreamingContext]) -> StreamingContext:  # noqa: N802, N803
        """The active StreamingContext, else :meth:`getOrCreate` (or ``setupFunc()`` without a path)."""
        active = get_active()
        if active is not None:
            return active
        if checkpointPath is None:
            return setupFunc()
        return cls.getOrCreate(checkpointPath, setupFunc)

    # -- listeners -------------------------------------------------------------------
    def addStreamingListener(self, streamingListener: StreamingListener) -> None:  # noqa: N802, N803
        """Register a :class:`~dstream.StreamingListener` (allowed at any time)."""
        self._bus.add_listener(streamingListener)

    def removeStreamingListener(self, streamingListener: StreamingListener) -> None:  # noqa: N802, N803
        """Unregister a listener added with :meth:`addStreamingListener`."""
        self._bus.remove_listener(streamingListener)

    # -- stream factories ------------------------------------------------------------
    def queueStream(
        self,
        rdds: Iterable[RDD[Any] | Iterable[Any]],
        oneAtATime: bool = True,  # noqa: N803
        default: RDD[Any] | Iterable[Any] | None = None,
    ) -> DStream[Any]:
        """Create a DStream from a sequence of RDDs (or lists, which are parallelized).

        Parameters
        ----------
        rdds
            The batches, in order. The sequence is copied: later changes are not seen.
        oneAtATime
            One RDD per batch (default), or all of them in the first batch.
        default
            RDD (or list) given to every batch once the queue is empty; by default such
            batches are empty.

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> run_batches(sc, [[1], [2, 3]], lambda s: s, num_batches=3)
        [[1], [2, 3], []]
        """
        items = [r if isinstance(r, RDD) else list(r) for r in rdds]
        if default is not None and not isinstance(default, RDD):
            default = list(default)
        return DStream(QueueInputNode(self._graph, items, bool(oneAtATime), default), self)

    def _check_streams(self, dstreams: Sequence[DStream[Any]], what: str) -> None:
        if not dstreams:
            raise ValueError(f"{what} needs at least one DStream")
        for ds in dstreams:
            if not isinstance(ds, DStream):
                raise TypeError(f"{what} expects DStreams, got {ds!r} of type {type(ds).__name__}")
            if ds._ssc is not self:
                raise ValueError(
                    f"{what} needs DStreams of this StreamingContext; {ds!r} belongs to another one"
                )
        slides = sorted({ds._node.slide_ms for ds in dstreams})
        if len(slides) > 1:
            raise DurationError(
                f"{what} needs DStreams with the same slide duration, got "
                f"{', '.join(format_ms(s) for s in slides)}; window them so their slides match"
            )

    def union(self, *dstreams: DStream[Any]) -> DStream[Any]:
        """Return a DStream of the elements of all ``dstreams`` in each batch.

        Raises
        ------
        ValueError
            If no stream is given or their slide durations differ.
        """
        self._check_streams(dstreams, "union")
        if len(dstreams) == 1:
            return dstreams[0]
        return DStream(UnionNode(self._graph, [ds._node for ds in dstreams]), self)

    def transform(
        self,
        dstreams: Sequence[DStream[Any]],
        transformFunc: Callable[[list[RDD[Any]]], RDD[Any]],  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of ``transformFunc(rdds)``, ``rdds`` the list of the streams' RDDs per batch."""
        dstreams = list(dstreams)
        self._check_streams(dstreams, "transform")
        if not callable(transformFunc):
            raise TypeError(f"transform expects a function of the list of RDDs, got {transformFunc!r}")

        def fn(time_ms: int, *rdds: Any) -> Any:
            return transformFunc(list(rdds))

        parents = [ds._node for ds in dstreams]
        node = TransformedNode(self._graph, parents, returns_rdd("transform", fn), "transform")
        return DStream(node, self)

