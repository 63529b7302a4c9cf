"""Helpers to test streaming code deterministically, on a manual clock, without sleeping.

What this module owns
---------------------
The public test harness (Spark's ``TestSuiteBase`` idea): build a graph over a
``queueStream``, drive it one batch at a time on a :class:`~dstream.clock.ManualClock`
and collect each batch's output. Every wait has a deadline and fails with
:class:`~dstream.errors.BatchTimeoutError` naming the batch it waited for.

* :func:`run_batches` — the one-call form: input batches in, output batches out.
* :func:`manual_clock`, :func:`advance_batches`, :func:`collect_batches` — the pieces,
  for tests that need the StreamingContext itself (listeners, lifecycle, several
  outputs).
* :func:`stop_after_batches` — on any clock, exactly N batches run: for programs that
  must stop after a given number of batches (the examples' ``--batches N``).

A batch is "done" when its output operations finished (or failed, or it had none);
``advance_batches`` returns only when every batch it advanced through is done.

Examples
--------
>>> from dstream.testing import run_batches
>>> run_batches(sc, [[1, 2], [3]], lambda s: s.map(lambda x: x * 2))
[[2, 4], [6]]
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

from rdd.engine_api import set_checkpoint_run_dir

from dstream.clock import ManualClock
from dstream.context import StreamingContext
from dstream.dstream import DStream
from dstream.errors import BatchTimeoutError, StreamingStateError
from dstream.lifecycle import State
from dstream.nodes.stateful import StatefulNode

__all__ = [
    "DEFAULT_BATCH_TIMEOUT",
    "ManualClock",
    "advance_batches",
    "collect_batches",
    "manual_clock",
    "run_batches",
    "stop_after_batches",
]

#: Seconds to wait for one batch before failing. Generous: a batch of a unit test takes
#: milliseconds, so reaching this means a hang, and the error says where.
DEFAULT_BATCH_TIMEOUT = 30.0


def manual_clock(ssc: StreamingContext) -> ManualClock:
    """Return the context's :class:`ManualClock`, installing one if it is not started yet.

    Raises
    ------
    StreamingStateError
        If the context already runs on another clock.
    """
    engine = ssc._engine
    clock = engine.clock
    if isinstance(clock, ManualClock):
        return clock
    if engine.state is not State.INITIALIZED:
        raise StreamingStateError(
            f"this StreamingContext runs on {clock!r}; call manual_clock(ssc) before "
            "ssc.start(), or set spark.streaming.clock=manual in the SparkConf"
        )
    clock = ManualClock()
    engine.install_clock(clock)
    return clock


def advance_batches(ssc: StreamingContext, n: int = 1, timeout: float = DEFAULT_BATCH_TIMEOUT) -> None:
    """Advance the manual clock ``n`` batch intervals, returning when those batches are done.

    After a recovery, the batches that the restart re-runs by itself are waited for
    first; they do not count among the ``n``. With checkpointing on, it also waits
    until the metadata checkpoints of those batches are written (they are written on
    a thread of their own), so a test may read the checkpoint directory at once.

    Parameters
    ----------
    ssc
        A started context on a :class:`ManualClock`.
    n
        Number of batches to run.
    timeout
        Seconds to wait for each batch.

    Raises
    ------
    BatchTimeoutError
        If a batch is not done within ``timeout``.
    """
    engine = ssc._engine
    generator, scheduler = engine.generator, engine.scheduler
    if engine.state is not State.ACTIVE or generator is None or scheduler is None:
        raise StreamingStateError(f"advance_batches needs a started StreamingContext, got {ssc!r}")
    clock = engine.clock
    if not isinstance(clock, ManualClock):
        raise StreamingStateError(f"advance_batches needs a ManualClock, the context runs on {clock!r}")
    batch = engine.graph.batch_ms
    replayed = generator.replayed_until
    if replayed is not None and not scheduler.wait_batch_done(replayed, timeout):
        raise BatchTimeoutError(f"the batches re-run by recovery (up to {replayed}) were not done within "
                                f"{timeout} s (last done: {scheduler.done_time})")
    for _ in range(n):
        done = scheduler.done_time
        target = (done if done is not None else engine.graph.zero_time) + batch  # type: ignore[operator]
        if clock.now_ms() < target:
            clock.set_time(target)
        if not scheduler.wait_batch_done(target, timeout):
            raise BatchTimeoutError(
                f"batch {target} was not done within {timeout} s (last done: "
                f"{scheduler.done_time}, last generated: {generator.last_generated}, "
                f"queued: {scheduler.pending_batches()}); an output operation or a "
                "transform function may be blocked"
            )
    checkpointer = engine.checkpointer
    if checkpointer is not None and not checkpointer.flush(timeout):
        raise BatchTimeoutError(f"the metadata checkpoints of the batches run were not written within {timeout} s")


def stop_after_batches(ssc: StreamingContext, batches: int) -> None:
    """Stop ``ssc`` right after its ``batches``-th batch, so that exactly that many run.

    The stop is made on the job thread when that batch's output operations are over,
    before another batch can start: batches generated meanwhile are dropped and data
    received after that batch is not processed (``stop(stopGraceFully=False)``). A
    graceful stop could not promise the count: it runs one more batch for what was
    received while it stopped. ``awaitTermination`` returns once the stop is done; the
    SparkContext keeps running (``ssc.stop()`` stops it afterwards). Only batches with
    jobs count (a batch without output operations has nothing to show); after a
    recovery from a checkpoint, the batches the restart runs again count too.

    Parameters
    ----------
    ssc
        A StreamingContext that is not started yet.
    batches
        How many batches to run, at least 1.

    Raises
    ------
    ValueError
        If ``batches`` is not a positive integer.
    StreamingStateError
        If ``ssc`` was already started or stopped.
    """
    if isinstance(batches, bool) or not isinstance(batches, int) or batches < 1:
        raise ValueError(f"batches must be a positive integer (the number of batches to run), "
                         f"got {batches!r}")
    engine = ssc._engine
    if engine.state is not State.INITIALIZED:
        raise StreamingStateError(
            f"stop_after_batches needs a StreamingContext that is not started yet; this one is "
            f"{engine.state.value}: call it before ssc.start()"
        )
    done = 0

    def count(time_ms: int) -> None:
        nonlocal done
        done += 1
        if done == batches:
            ssc.stop(stopSparkContext=False, stopGraceFully=False)

    engine.batch_done_hooks.append(count)


def collect_batches(dstream: DStream[Any], with_time: bool = False) -> list[Any]:
    """Register an output operation that appends each batch's ``rdd.collect()`` to a list.

    Returns the list, which fills as batches run: one entry per batch that produced an
    RDD (a windowed stream produces one every slide), as ``(time_ms, records)`` if
    ``with_time``.
    """
    out: list[Any] = []
    if with_time:
        dstream._register_output(lambda t, rdd: out.append((t, rdd.collect())), "collect")
    else:
        dstream._register_output(lambda t, rdd: out.append(rdd.collect()), "collect")
    return out


def run_batches(
    sc: Any,
    batches: Sequence[Any],
    operation: Callable[..., DStream[Any]],
    num_batches: int | None = None,
    *,
    others: Sequence[Sequence[Any]] = (),
    batch_duration: float = 1.0,
    timeout: float = DEFAULT_BATCH_TIMEOUT,
    checkpoint_dir: str | None = None,
) -> list[list[Any]]:
    """Run ``operation`` over queued input batches and return each output batch's records.

    Parameters
    ----------
    sc
        The SparkContext (it stays running).
    batches
        The input: one list (or RDD) per batch.
    operation
        ``operation(stream, *other_streams) -> DStream``; output operations it registers
        run too.
    num_batches
        Batches to run (default: as many as the longest input). Use more to see
        windows drain after the input ends.
    others
        Inputs of further streams passed to ``operation``, for joins and the like.
    batch_duration
        Batch interval in seconds (only the ratio to window durations matters).
    timeout
        Seconds to wait for each batch.
    checkpoint_dir
        Checkpoint directory. By default a graph with stateful operators (state,
        incremental windows) gets a temporary one (deleted afterwards), so it runs
        without setup; other graphs are not checkpointed.

    Returns
    -------
    list of list
        The ``collect()`` of the result's RDD for every batch that produced one.

    Raises
    ------
    Exception
        The first exception raised by a batch (after all batches ran).
    """
    ssc = StreamingContext(sc, batch_duration)
    manual_clock(ssc)
    inputs = [ssc.queueStream(list(b)) for b in (batches, *others)]
    result = operation(*inputs)
    if not isinstance(result, DStream):
        raise TypeError(f"operation must return a DStream, got {result!r}")
    scratch = None
    if checkpoint_dir is None and any(isinstance(n, StatefulNode) for n in ssc._engine.graph.nodes):
        scratch = tempfile.mkdtemp(prefix="dstreams-test-checkpoint-")
        checkpoint_dir = scratch
    previous_dir = sc.getCheckpointDir()
    if checkpoint_dir is not None:
        ssc.checkpoint(checkpoint_dir)
    out = collect_batches(result)
    if num_batches is None:
        num_batches = max(len(b) for b in (batches, *others))
    ssc.start()
    try:
        advance_batches(ssc, num_batches, timeout)
        error = ssc._engine.waiter.error
    finally:
        ssc.stop(stopSparkContext=False)
        if scratch is not None:
            # The SparkContext outlives the run: it must not go on checkpointing RDDs
            # into a deleted scratch directory, nor let a later graph pass the start-time
            # check of stateful streams because of it.
            set_checkpoint_run_dir(sc, previous_dir)
            shutil.rmtree(scratch, ignore_errors=True)
    if error is not None:
        raise error
    return out
