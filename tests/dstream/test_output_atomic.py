"""A ``saveAsTextFiles`` batch directory is never visible half-written.

One partition's write is held (its function waits for a flag file the test creates),
while the other partitions finish: during that time ``prefix-<time>`` must not exist,
and the batch's output lives in a hidden temporary sibling. Once released, the
directory appears complete, with every part and ``_SUCCESS``, and nothing else is left.
Flag files, not events, so the hold works the same inline and in worker processes.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from dstream import StreamingContext
from dstream.testing import advance_batches, manual_clock

DEADLINE_S = 30.0


def hold_at(record: int, started: str, release: str) -> Any:
    def hold(x: int) -> int:
        if x == record:
            Path(started).touch()
            deadline = time.monotonic() + DEADLINE_S
            while not os.path.exists(release):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the test never created {release}")
                time.sleep(0.005)
        return x
    return hold


def wait_for(path: Path, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not path.exists():
        assert time.monotonic() < deadline, f"{what} did not happen within {DEADLINE_S} s"
        time.sleep(0.005)


def test_batch_directory_appears_only_when_complete(ctx: Any, tmp_path: Path) -> None:
    out, started, release = tmp_path / "out", tmp_path / "started", tmp_path / "release"
    ssc = StreamingContext(ctx, 1)
    manual_clock(ssc)
    stream = ssc.queueStream([list(range(40))]).repartition(4)
    stream.map(hold_at(17, str(started), str(release))).saveAsTextFiles(str(out / "batch"))
    ssc.start()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            advance_batches(ssc, 1, timeout=DEADLINE_S)
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            errors.append(exc)

    runner = threading.Thread(target=run, name="advance-batches")
    runner.start()
    try:
        wait_for(started, "the write of the partition holding 17")
        names = os.listdir(out)
        assert "batch-1000" not in names, f"the batch directory is visible half-written: {names}"
        assert [n for n in names if n.startswith(".batch-1000.")], f"no write in progress: {names}"
    finally:
        release.touch()
        runner.join(DEADLINE_S)
        ssc.stop(stopSparkContext=False)
    assert not runner.is_alive() and not errors, errors
    assert sorted(os.listdir(out)) == ["batch-1000"], "no temporary directory is left"
    done = out / "batch-1000"
    assert (done / "_SUCCESS").exists()
    lines = [line for part in sorted(done.glob("part-*")) for line in part.read_text().splitlines()]
    assert sorted(map(int, lines)) == list(range(40))
