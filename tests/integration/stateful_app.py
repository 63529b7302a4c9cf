"""A stateful word count driver for the crash test (``test_recovery_end_to_end.py``).

Run as a separate process::

    python -m tests.integration.stateful_app --checkpoint DIR --out DIR [--pause-after K]

It builds its StreamingContext with ``StreamingContext.getOrCreate(checkpoint, setup)``
(a restart rebuilds it from the checkpoint without calling ``setup``), on ``local[2]``
with the manual clock (``spark.streaming.clock=manual``, saved in the checkpoint's
configuration, so a restored context gets it back), and advances the clock one batch at
a time until :data:`BATCHES` batches are done. Each batch:

* ``updateStateByKey``: running totals per word (a key is removed when its total is a
  multiple of 7), saved with ``saveAsTextFiles(<out>/totals)``;
* ``reduceByKeyAndWindow(add, sub, 5, 1)``: the incremental window (``>= 5`` slides),
  saved to ``<out>/window``;
* ``mapWithState`` with a 3 s timeout: the mapped values to ``<out>/mapped`` and the
  state snapshots to ``<out>/snapshots``.

Input: a ``queueStream`` of lists of lines (the lists are saved in the checkpoint).

Crash points, for the test to kill the process at a known place:

* ``--pause-after K``: once batch ``K`` is done (its completion checkpoint written),
  print ``paused <t>`` and block reading stdin;
* environment ``STATEFUL_APP_HANG=<time_ms>:<phase>``: in batch ``time_ms``, an output
  operation registered at position ``phase`` (0: before every output, 1: after the
  totals, 2: after the window, 3: after all outputs) prints ``hanging <t> <phase>``
  and blocks reading stdin. The hook is in the checkpointed graph, so it reads the
  environment when it runs: a restarted driver without the variable does not hang.

Both blocks end when stdin closes (the test died), so the driver never outlives it.

Stdout protocol (one line each, flushed): ``started now=<ms> recovered=<0|1>
master=<m> clock=<class>``, ``workers <pid> ...``, ``done <t>`` per completed batch,
``finished`` after a clean stop; ``error <message>`` (and exit status 2) if a batch
failed.

The functions of the graph are defined at module level and the process imports this
module by name (see the ``__main__`` block), so the checkpoint refers to them as
``tests.integration.stateful_app.<name>`` and a restarted driver finds them.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

BATCHES = 24
BATCH_S = 1
WORDS = ["apple", "bean", "corn", "date", "egg", "fig", "grape"]


def make_data(batches: int = BATCHES) -> list[list[str]]:
    """Deterministic lines per batch: some empty batches, words that come and go."""
    data: list[list[str]] = []
    for i in range(batches):
        if i % 5 == 3:
            data.append([])  # an empty batch: windows shrink, state carries over
            continue
        lines = []
        for j in range(1 + i % 3):
            chosen = [WORDS[(i * 3 + j * 5 + k * k) % len(WORDS)] for k in range(2 + (i + j) % 3)]
            if 8 <= i < 18:
                chosen = [w for w in chosen if w not in ("apple", "bean")]  # idle keys time out
            lines.append(" ".join(chosen))
        data.append(lines)
    return data


# ------------------------------------------------------------------ graph functions


def split_line(line: str) -> list[str]:
    return line.split()


def one(word: str) -> tuple[str, int]:
    return (word, 1)


def add(a: int, b: int) -> int:
    return a + b


def sub(a: int, b: int) -> int:
    return a - b


def running_total(values: list[int], total: int | None) -> int | None:
    new = (total or 0) + sum(values)
    return None if new % 7 == 0 else new


def track(key: str, value: int | None, state: Any) -> tuple[str, str, int]:
    """Count per word; remove at 5; a timed-out key reports its last count."""
    if state.isTimingOut():
        return (key, "timeout", state.get())
    count = (state.getOption() or 0) + value
    if count >= 5:
        state.remove()
        return (key, "reset", count)
    state.update(count)
    return (key, "count", count)


class Hang:
    """Blocks the batch named by ``STATEFUL_APP_HANG`` at this output's position."""

    def __init__(self, phase: int) -> None:
        self.phase = phase

    def __call__(self, time: Any, rdd: Any) -> None:
        target = os.environ.get("STATEFUL_APP_HANG")
        if not target:
            return
        time_ms, phase = (int(x) for x in target.split(":"))
        if phase == self.phase and round(time.timestamp() * 1000) == time_ms:
            print(f"hanging {time_ms} {phase}", flush=True)
            sys.stdin.readline()  # until the test kills us (or dies: EOF)
            os._exit(3)


# ------------------------------------------------------------------ setup and main


def setup(checkpoint: str, out: str) -> Any:
    from rdd import SparkConf, SparkContext

    from dstream import StateSpec, StreamingContext

    conf = SparkConf().setMaster("local[2]").setAppName("stateful-app").set("spark.streaming.clock", "manual")
    sc = SparkContext.getOrCreate(conf)
    ssc = StreamingContext(sc, BATCH_S)
    ssc.checkpoint(checkpoint)
    words = ssc.queueStream(make_data()).flatMap(split_line).map(one)
    words.foreachRDD(Hang(0))
    totals = words.updateStateByKey(running_total, 2)
    totals.checkpoint(3 * BATCH_S)
    totals.saveAsTextFiles(os.path.join(out, "totals"))
    words.foreachRDD(Hang(1))
    window = words.reduceByKeyAndWindow(add, sub, 5 * BATCH_S, BATCH_S, 2)
    window.checkpoint(2 * BATCH_S)
    window.saveAsTextFiles(os.path.join(out, "window"))
    words.foreachRDD(Hang(2))
    mapped = words.mapWithState(StateSpec.function(track).timeout(3 * BATCH_S).numPartitions(2))
    mapped.checkpoint(4 * BATCH_S)
    mapped.saveAsTextFiles(os.path.join(out, "mapped"))
    mapped.stateSnapshots().saveAsTextFiles(os.path.join(out, "snapshots"))
    words.foreachRDD(Hang(3))
    return ssc


def main(argv: list[str] | None = None) -> int:
    from dstream import StreamingContext
    from dstream.testing import advance_batches, manual_clock

    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--pause-after", type=int, default=None, help="batch number (1-based)")
    args = parser.parse_args(argv)

    created: list[bool] = []

    def create() -> Any:
        created.append(True)
        return setup(args.checkpoint, args.out)

    ssc = StreamingContext.getOrCreate(args.checkpoint, create)
    sc = ssc.sparkContext
    ssc.start()
    clock = manual_clock(ssc)
    print(f"started now={clock.now_ms()} recovered={0 if created else 1} master={sc.master} "
          f"clock={type(ssc._engine.clock).__name__}", flush=True)
    print("workers " + " ".join(str(p) for p in sc._env.backend.worker_pids()), flush=True)
    batch_ms = BATCH_S * 1000
    advance_batches(ssc, 0)  # the batches a recovery re-runs by itself
    status = 0
    while True:
        done = ssc._engine.scheduler.done_time
        if done is not None and done >= BATCHES * batch_ms:
            break
        advance_batches(ssc, 1)
        done = ssc._engine.scheduler.done_time
        error = ssc._engine.waiter.error
        if error is not None:
            print(f"error {type(error).__name__}: {error}".replace("\n", " | "), flush=True)
            status = 2
            break
        print(f"done {done}", flush=True)
        if args.pause_after is not None and done >= args.pause_after * batch_ms:
            print(f"paused {done}", flush=True)
            sys.stdin.readline()
            os._exit(3)
    ssc.stop(stopSparkContext=True)
    if status == 0:
        print("finished", flush=True)
    return status


if __name__ == "__main__":
    # Import by name, so the graph's functions pickle as tests.integration.stateful_app.*
    from tests.integration import stateful_app  # noqa: PLW0406 - by name, on purpose (see above)

    sys.exit(stateful_app.main())
