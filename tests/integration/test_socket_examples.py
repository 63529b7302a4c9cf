"""The socket examples run end to end: embedded server, real nc, Ctrl-C, bounded batches."""

from __future__ import annotations

import ast
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from rdd import CheckpointError

from dstream.checkpoint.files import read_latest
from tests.integration.examples_runner import DEADLINE, ROOT, Example, alive
from tests.receiver.servers import Netcat, free_port, have_netcat

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_network_wordcount_counts_its_sample_text() -> None:
    example = Example("network_wordcount.py", "--batches", "2", "--batch-interval", "0.5")
    assert example.wait() == 0, example.stderr
    assert example.stdout.count("Time: ") == 2  # exactly --batches
    assert "('the', " in example.stdout
    assert "Traceback" not in example.stderr


def test_sql_network_wordcount_queries_each_batch_with_sql() -> None:
    example = Example("sql_network_wordcount.py", "--batches", "2", "--batch-interval", "0.5")
    assert example.wait() == 0, example.stderr
    assert example.stdout.count("========= ") == 2  # one header per batch, as Spark's example prints
    assert "|word|total|" in example.stdout.replace(" ", "")  # a batch's counts, printed by show()
    assert "Traceback" not in example.stderr


@pytest.mark.skipif(not have_netcat(), reason="nc is not installed (run scripts/ensure-netcat.sh)")
def test_network_wordcount_counts_lines_typed_into_nc() -> None:
    port = free_port()
    with Netcat(port) as nc:
        example = Example("network_wordcount.py", "localhost", str(port), "--batch-interval", "0.5")
        try:
            example.wait_line(lambda line: line.startswith("Time: "), "a first batch")
            nc.type("hello streaming world\nhello again\n")
            example.wait_line(lambda line: line == "('hello', 2)", "('hello', 2)")
        finally:
            example.proc.send_signal(signal.SIGINT)
            rc = example.wait()
    assert rc == 0, example.stderr
    assert "('streaming', 1)" in example.stdout


def test_ctrl_c_stops_gracefully_without_traceback_or_leftover_processes() -> None:
    example = Example("network_wordcount.py", "--batch-interval", "0.5", "--master", "local[2]")
    example.wait_line(lambda line: line.startswith("Time: "), "a first batch")
    workers = example.children()
    assert workers, "local[2] should have started worker processes"
    example.proc.send_signal(signal.SIGINT)
    assert example.wait() == 0, example.stderr
    assert "SIGINT received: stopping gracefully" in example.stderr
    assert "Traceback" not in example.stderr and "KeyboardInterrupt" not in example.stderr
    deadline = time.monotonic() + DEADLINE
    while any(alive(pid) for pid in workers):
        assert time.monotonic() < deadline, f"worker processes {workers} outlived the example"
        threading.Event().wait(0.05)


def test_custom_receiver_example() -> None:
    example = Example("custom_receiver.py", "--batches", "2", "--master", "local")
    assert example.wait() == 0, example.stderr
    assert example.stdout.count("Time: ") == 2
    assert "('fox', " in example.stdout


def test_stateful_network_wordcount_keeps_running_totals() -> None:
    example = Example("stateful_network_wordcount.py", "--batches", "3", "--master", "local")
    assert example.wait() == 0, example.stderr
    assert "('hello', 1)" in example.stdout or "('world', 1)" in example.stdout


def test_recoverable_network_wordcount_creates_then_recovers(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from _live import SampleLineServer
    finally:
        sys.path.remove(str(ROOT / "examples"))
    checkpoint, output = tmp_path / "checkpoint", tmp_path / "out.txt"
    server = SampleLineServer()
    try:
        args = [
            server.host,
            str(server.port),
            str(checkpoint),
            str(output),
            "--batches",
            "2",
            "--master",
            "local",
        ]
        first = Example("recoverable_network_wordcount.py", *args)
        assert first.wait() == 0, first.stderr
        assert "Creating new context" in first.stdout
        written = output.read_text().count("Counts at time")
        second = Example("recoverable_network_wordcount.py", *args)
        assert second.wait() == 0, second.stderr
        assert "Creating new context" not in second.stdout, "the second run did not recover"
        assert output.read_text().count("Counts at time") > written
    finally:
        server.stop()


def printed_totals(lines: list[str]) -> list[dict[str, int]]:
    """The pprint blocks of the stateful example: one ``{word: total}`` per batch."""
    blocks: list[dict[str, int]] = []
    for line in lines:
        if line.startswith("Time: "):
            blocks.append({})
        elif line.startswith("('") and blocks:
            word, total = ast.literal_eval(line)
            blocks[-1][word] = total
    return blocks


def test_stateful_network_wordcount_continues_its_totals_after_kill_9(tmp_path: Path) -> None:
    """Killed with SIGKILL and run again with the same --checkpoint, the totals go on.

    The running state is recoverable once the state stream has checkpointed its RDD
    (Spark's default: every 10 s) and a metadata checkpoint written after it names that
    RDD checkpoint, so the first run is killed only then.
    """
    checkpoint = tmp_path / "checkpoint"
    args = ["--checkpoint", str(checkpoint), "--batch-interval", "0.5", "--master", "local"]
    first = Example("stateful_network_wordcount.py", *args)
    try:
        deadline = time.monotonic() + DEADLINE
        before: list[dict[str, int]] = []
        while True:
            assert first.proc.poll() is None, first.stderr
            assert time.monotonic() < deadline, (f"no recoverable state within {DEADLINE} s: "
                                                 f"{first.stderr}")
            # Printed before the state's RDD checkpoint exists: totals it holds, or older ones.
            printed = printed_totals(list(first.lines))
            if any(checkpoint.glob("*/rdd-*/part-*")):
                before = before or printed
                # A metadata checkpoint written after the part files need not name them: one
                # taken while the state's job was still running names only finished RDD
                # checkpoints. Wait for the newest one to name the state's.
                if names_an_rdd_checkpoint(checkpoint):
                    break
            threading.Event().wait(0.1)
    finally:
        first.kill()
    before = [block for block in before if "the" in block]
    assert before and before[-1]["the"] > 50, first.stdout
    second = Example("stateful_network_wordcount.py", *args, "--batches", "2")
    assert second.wait() == 0, second.stderr
    after = [block for block in printed_totals(second.lines) if "the" in block]
    assert after, second.stdout
    # At least the totals that were checkpointed: the last block printed before the
    # state's checkpoint appeared is one of those, or older.
    assert after[0]["the"] >= before[-1]["the"], (before[-1], after[0])


def names_an_rdd_checkpoint(directory: Path) -> bool:
    """Whether the newest metadata checkpoint in ``directory`` names an RDD checkpoint."""
    try:
        found = read_latest(str(directory))
    except CheckpointError:  # every file found was replaced or deleted while it was read
        return False
    return found is not None and any(found.data.get("nodes", {}).values())
