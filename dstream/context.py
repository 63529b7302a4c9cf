"""StreamingContext: PySpark's entry point for streams, a facade over the engine.

What this module owns
---------------------
The public surface of PySpark's ``StreamingContext``: the lifecycle (``start``,
``stop``, ``awaitTermination*``, ``getActive``, ``getOrCreate``), the stream factories
(``queueStream``, ``union``, ``transform``; the live inputs come from
:class:`~dstream.context_inputs.InputMethods`), settings (``remember``,
``checkpoint``) and listener registration. It checks and translates arguments; the
running parts and the life of every batch belong to its
:class:`~dstream.engine.StreamingEngine` (``_engine``), which also documents the
configuration read from the SparkConf. Stopping at exit and on SIGTERM is
:mod:`dstream.shutdown`'s.

Lifecycle rules
---------------
``INITIALIZED -> ACTIVE -> STOPPED``; one active context per process; operators only
while INITIALIZED; ``start`` on a stopped context raises; ``stop`` is idempotent and
never joins the thread it is called from (so ``stop`` inside ``foreachRDD`` works).
A failed ``start`` (for example no output operation) leaves the context STOPPED, as in
Spark.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rdd import RDD, DriverOnlyError, SparkContext

from dstream.callbacks import returns_rdd
from dstream.checkpoint.recovery import read_checkpoint
from dstream.context_inputs import InputMethods
from dstream.dstream import DStream
from dstream.engine import StreamingEngine
from dstream.errors import DurationError, StreamingStateError
from dstream.inputs.queue import QueueInputNode
from dstream.lifecycle import State, get_active
from dstream.listener import StreamingListener
from dstream.nodes.transformed import TransformedNode
from dstream.nodes.union import UnionNode
from dstream.time import duration_ms, format_ms

__all__ = ["StreamingContext"]


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
        self._engine = StreamingEngine(self, sparkContext, batch_ms)

    def __repr__(self) -> str:
        engine = self._engine
        return f"<StreamingContext batch={format_ms(engine.graph.batch_ms)} state={engine.state.value}>"

    def __reduce__(self) -> Any:
        # Referencing a stream or the context inside an RDD function would ship the
        # whole graph to the workers; refuse at pickling time with the fix.
        raise DriverOnlyError(
            "A StreamingContext can only be used on the driver. It appears that it is referenced "
            "inside a function that runs on RDD data (map, filter, foreachPartition...): "
            "use the batch's RDD instead, for example dstream.transform(lambda rdd: "
            "rdd.map(f)), and rdd.context for the SparkContext."
        )

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
        self._engine.start()

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
        self._engine.stop(bool(stopSparkContext), bool(stopGraceFully))

    def awaitTermination(self, timeout: float | None = None) -> None:  # noqa: N802
        """Wait until the context is stopped, or ``timeout`` seconds pass.

        Raises
        ------
        Exception
            The first exception raised by a batch (the user's own exception, with its
            traceback), as soon as there is one.
        """
        self._engine.waiter.wait(None if timeout is None else float(timeout))

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
        return self._engine.waiter.wait(float(timeout))

    # -- settings --------------------------------------------------------------------
    def remember(self, duration: float) -> None:
        """Keep every stream's RDDs for at least ``duration`` seconds (for ``slice``)."""
        if self._engine.state is not State.INITIALIZED:
            raise StreamingStateError("remember() must be called before start()")
        self._engine.graph.set_remember(duration_ms(duration, "duration"))

    def checkpoint(self, directory: str) -> None:
        """Set the directory for checkpoints (created if missing)."""
        graph = self._engine.graph
        if directory is None:
            graph.checkpoint_dir = None
            return
        directory = os.path.abspath(os.fspath(directory))
        os.makedirs(directory, exist_ok=True)
        set_dir = getattr(self._sc, "setCheckpointDir", None)
        if set_dir is not None:
            set_dir(directory)
        graph.checkpoint_dir = directory

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
        restored = read_checkpoint(checkpointPath)
        if restored is not None:
            ssc = StreamingContext(restored.spark_context(), restored.batch_ms / 1000.0)
            ssc._engine.recover(restored)
            return ssc
        ssc = setupFunc()
        if not isinstance(ssc, StreamingContext):
            raise TypeError(f"setupFunc must return a StreamingContext, it returned {ssc!r}")
        if not ssc._engine.graph.checkpoint_dir:
            ssc.checkpoint(checkpointPath)
        return ssc

    @classmethod
    def getActiveOrCreate(
        cls, checkpointPath: str | None, setupFunc: Callable[[], StreamingContext]  # noqa: N803
    ) -> StreamingContext:  # noqa: N802
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
        self._engine.bus.add_listener(streamingListener)

    def removeStreamingListener(self, streamingListener: StreamingListener) -> None:  # noqa: N802, N803
        """Unregister a listener added with :meth:`addStreamingListener`."""
        self._engine.bus.remove_listener(streamingListener)

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
        return DStream(QueueInputNode(self._engine.graph, items, bool(oneAtATime), default), self)

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
        slides = sorted({ds._stream_node.slide_ms for ds in dstreams})
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
        return DStream(UnionNode(self._engine.graph, [ds._stream_node for ds in dstreams]), self)

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

        parents = [ds._stream_node for ds in dstreams]
        node = TransformedNode(self._engine.graph, parents, returns_rdd("transform", fn), "transform")
        return DStream(node, self)

