"""A streaming driver whose batches are slower than its interval.

``python -m tests.integration.slow_batches_app [run | stop MARKERS | exit MARKERS]``
runs, on ``local[2]``, a queue stream of one record per 0.2 s batch whose map sleeps
in a worker, then:

* ``run`` (default): each map sleeps 1 s and the examples' loop (``examples/_live.run``:
  Ctrl-C and SIGTERM handling) runs it; batches queue up, so a graceful stop has
  batches to wait for. Each batch prints ``batch [i]``.
* ``stop`` / ``exit``: each map creates a file in ``MARKERS`` and sleeps 600 s; once a
  task runs, the main thread calls ``ssc.stop()`` (then prints ``stopped``), or
  ``sys.exit(3)``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from _live import install_stop_handlers, run  # noqa: E402

install_stop_handlers()  # as an example's import of _live does: before the engine loads

from rdd import SparkContext  # noqa: E402

from dstream import StreamingContext  # noqa: E402 - after the handlers


def slow(x: int) -> int:
    time.sleep(1.0)
    return x


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else "run"
    sc = SparkContext("local[2]", "slow-batches")
    ssc = StreamingContext(sc, 0.2)
    stream = ssc.queueStream([[i] for i in range(1000)])
    if mode == "run":
        stream.map(slow).foreachRDD(lambda rdd: print(f"batch {rdd.collect()}", flush=True))
        return run(ssc)
    markers = argv[1]

    def very_slow(x: int) -> int:
        open(os.path.join(markers, f"started-{x}"), "w").close()
        time.sleep(600)
        return x

    stream.map(very_slow).foreachRDD(lambda rdd: rdd.collect())
    ssc.start()
    deadline = time.monotonic() + 60
    while not os.listdir(markers):
        if time.monotonic() > deadline:
            return 2
        time.sleep(0.02)
    if mode == "exit":
        sys.exit(3)
    ssc.stop()
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
