"""Exactly-once through driver crashes: SIGKILL at random batches, then getOrCreate.

The metadata checkpoint saves ``DirectKafkaInputNode.checkpoint_state()`` (the offset
ranges of every remembered batch) and ``getOrCreate`` gives it back before ``start()``,
so the batches re-run after a crash read exactly their recorded ranges.

The scenario: a topic of 3 partitions x 300 records; the driver
(``tests/kafka/recovery_app.py``) reads it at 10 records per partition per 0.25 s batch
and writes one file per batch time (offset ranges + word counts), idempotently. It is
killed with SIGKILL 5 times, each after a random number of further batch files, and
restarted on the same checkpoint directory. Afterwards the batch files must hold every
offset of every partition exactly once (ranges disjoint and complete) and the word
counts must equal those of the records produced. The drivers run on ``local[2]``, or
with ``--ray`` (``make test-ray``) on master ``ray``, joining the session's Ray cluster.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.kafka.utils import KAFKA_PYTHON_WARNINGS

ROOT = Path(__file__).resolve().parents[2]
KILLS = 5
DEADLINE_S = 90


pytestmark = [
    pytest.mark.kafka, pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(600), *KAFKA_PYTHON_WARNINGS,
]


def batch_files(out: Path) -> dict[int, dict]:
    found = {}
    for path in out.glob("batch-*.json"):
        try:
            found[int(path.stem.split("-")[1])] = json.loads(path.read_text())
        except (ValueError, OSError):
            continue  # a file being replaced right now
    return found


def covered(out: Path) -> int:
    return sum(u - f for data in batch_files(out).values() for _, _, f, u in data["ranges"])


@pytest.fixture
def master(request: pytest.FixtureRequest, no_active_context: None) -> tuple[str, dict[str, str]]:
    """The drivers' master and extra environment: ``local[2]``, or with ``--ray`` the session's Ray cluster.

    No context of this process is left (``no_active_context``): on Ray, a shared context
    would hold the cluster's CPUs that the drivers' executors need.
    """
    if request.config.getoption("ray"):
        cluster = request.getfixturevalue("ray_cluster")
        return "ray", {"RAY_ADDRESS": cluster.cluster.address}
    return "local[2]", {}


def start_driver(bootstrap: str, topic: str, checkpoint: Path, out: Path,
                 master: tuple[str, dict[str, str]]) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **master[1])
    return subprocess.Popen([sys.executable, "-m", "tests.kafka.recovery_app", bootstrap, topic, str(checkpoint),
                             str(out), "--batch-interval", "0.25", "--rate", "40", "--master", master[0]],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until(predicate, what: str, driver: subprocess.Popen) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not predicate():
        if driver.poll() is not None:
            raise AssertionError(f"the driver exited ({driver.returncode}) while waiting for {what}:\n"
                                 f"{driver.stderr.read()[-4000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_sigkill_at_random_batches_counts_every_record_once(kafka, tmp_path, master):
    rng = random.Random(20240611)
    topic = kafka.new_topic(partitions=3)
    words = ["alpha", "beta", "gamma", "delta", "epsilon"]
    produced: Counter[str] = Counter()
    for p in range(3):
        lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) for _ in range(300)]
        kafka.send(topic, lines, partition=p)
        produced.update(w for line in lines for w in line.split())
    total = 900
    checkpoint, out = tmp_path / "checkpoint", tmp_path / "out"
    out.mkdir()

    for kill in range(KILLS):
        driver = start_driver(kafka.bootstrap, topic, checkpoint, out, master)
        try:
            target = len(batch_files(out)) + rng.randint(1, 3)
            wait_until(lambda target=target: len(batch_files(out)) >= target, f"batch files before kill {kill + 1}",
                       driver)
        finally:
            driver.send_signal(signal.SIGKILL)
            driver.wait(30)
    assert covered(out) < total  # the kills happened while the topic was being read

    driver = start_driver(kafka.bootstrap, topic, checkpoint, out, master)
    try:
        wait_until(lambda: covered(out) >= total, "every offset in some batch file", driver)
        time.sleep(1.0)  # a few empty batches more: nothing may be read twice
    finally:
        driver.send_signal(signal.SIGTERM)
        try:
            driver.wait(60)
        except subprocess.TimeoutExpired:
            driver.kill()

    files = batch_files(out)
    assert {data["master"] for data in files.values()} == {master[0]}
    seen: dict[tuple[str, int], set[int]] = {}
    for data in files.values():
        for t, p, f, u in data["ranges"]:
            offsets = seen.setdefault((t, p), set())
            overlap = offsets & set(range(f, u))
            assert not overlap, f"offsets {sorted(overlap)[:5]}... of {t}-{p} are in two batches"
            offsets.update(range(f, u))
    assert seen == {(topic, p): set(range(300)) for p in range(3)}
    counted = Counter()
    for data in files.values():
        counted.update(data["counts"])
    assert counted == produced
