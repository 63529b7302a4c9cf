"""The Structured Streaming examples (``examples/sql/streaming``) run end to end.

Each example runs in a subprocess (``tests.integration.examples_runner.Example``) and
the tests read what its console sink prints: one block per micro-batch, ``Batch: N``
then the table. The socket examples read their own sample server or a line server of
the test on 127.0.0.1, which sends lines only once the previous ones were printed, so
every expected table is exact: word counts equal a plain-Python count of the lines
sent, windows hold the lines whose arrival falls in them, sessions count their events.
The Kafka example reads topics of the session's real broker. Every wait has a deadline.
"""

from __future__ import annotations

import importlib.util
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.integration.examples_runner import DEADLINE, ROOT, Example, alive
from tests.kafka.utils import KAFKA_PYTHON_WARNINGS
from tests.receiver.servers import LineServer

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FOLDER = "sql/streaming"
EXAMPLES = ROOT / "examples"


def sample_text() -> list[str]:
    """The lines the examples' built-in sample server sends, in order, again and again."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        from _live import SAMPLE_TEXT
    finally:
        sys.path.remove(str(EXAMPLES))
    return list(SAMPLE_TEXT)


@dataclass
class Block:
    """What the console sink printed for one micro-batch."""

    batch_id: int
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    borders: int = 0  # a table is complete after its third border line

    def counts(self) -> dict[str, int]:
        """``{word: count}`` of a two-column (word, count) table."""
        return {word: int(n) for word, n in self.rows}


def blocks(lines: list[str]) -> list[Block]:
    """The complete blocks among ``lines`` (a block still being read is left out)."""
    found: list[Block] = []
    for line in lines:
        if line.startswith("Batch: "):
            found.append(Block(int(line[len("Batch: "):])))
        elif found and line.startswith("+"):
            found[-1].borders += 1
        elif found and line.startswith("|"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            if found[-1].header:
                found[-1].rows.append(cells)
            else:
                found[-1].header = cells
    return [b for b in found if b.borders >= 3]


def run(script: str, *args: str, env: dict[str, str] | None = None) -> Example:
    return Example(f"{FOLDER}/{script}", *args, env=env)


def finished(example: Example) -> list[Block]:
    """The blocks of an example that must exit 0, cleanly, on its own (``--batches``)."""
    assert example.wait() == 0, example.stderr
    assert "Traceback" not in example.stderr, example.stderr
    return blocks(example.lines)


def wait_block(example: Example, predicate: Callable[[Block], bool], what: str) -> Block:
    """The first complete block matching ``predicate``; fails after :data:`DEADLINE` seconds."""
    deadline = time.monotonic() + DEADLINE
    while True:
        match = next((b for b in blocks(list(example.lines)) if predicate(b)), None)
        if match is not None:
            return match
        assert example.proc.poll() is None, f"the example exited without printing {what}: {example.stderr}"
        assert time.monotonic() < deadline, (f"the example printed no {what} within {DEADLINE} s; stdout tail "
                                             f"{example.lines[-30:]}; stderr {example.stderr[-2000:]}")
        threading.Event().wait(0.05)


@contextmanager
def killed_on_error(example: Example) -> Iterator[None]:
    """Kill the example if the block fails, so the block's own error is what the test reports."""
    try:
        yield
    except BaseException:
        example.kill()
        raise


def stop_with_ctrl_c(example: Example) -> None:
    example.proc.send_signal(signal.SIGINT)
    assert example.wait() == 0, example.stderr
    assert "SIGINT received: stopping the query" in example.stderr
    assert "Traceback" not in example.stderr and "KeyboardInterrupt" not in example.stderr, example.stderr


def words(lines: list[str]) -> Counter[str]:
    return Counter(word for line in lines for word in line.split(" "))


# -- the built-in sample server: exactly --batches micro-batches ------------------------------------------------

SAMPLE_RUNS = {
    "structured_network_wordcount.py": [],
    "structured_network_wordcount_windowed.py": ["10", "5"],
    "structured_sessionization.py": [],
}


@pytest.mark.parametrize("script", sorted(SAMPLE_RUNS))
def test_batches_n_prints_exactly_n_micro_batches_of_the_sample_text(script: str) -> None:
    example = run(script, *SAMPLE_RUNS[script], "--batches", "2", "--master", "local")
    printed = finished(example)
    assert [b.batch_id for b in printed] == [0, 1], example.stdout
    assert example.stdout.count("Batch: ") == 2
    assert "No <hostname> <port> given: sending sample text from 127.0.0.1:" in example.stderr
    assert all(b.rows for b in printed), example.stdout
    if script == "structured_network_wordcount.py":
        for block in printed:
            assert counts_of_the_first_lines(block.counts(), sample_text()), block


def counts_of_the_first_lines(shown: dict[str, int], text: list[str], limit: int = 10_000) -> bool:
    """Whether ``shown`` is the word count of the first k lines of ``text`` (repeated), for some k.

    The console shows 20 rows: with fewer, the table must hold every word of those lines.
    """
    running: Counter[str] = Counter()
    for i in range(limit):
        running.update(text[i % len(text)].split(" "))
        if any(running[w] > n for w, n in shown.items()):
            return False
        if all(running[w] == n for w, n in shown.items()):
            return len(shown) == 20 or set(shown) == set(running)
    return False


# -- a line server of the test: exact tables ---------------------------------------------------------------------

def test_wordcount_counts_the_lines_sent_then_stops_on_ctrl_c() -> None:
    first = ["to be or not to be", "that is the question"]
    second = ["to sleep perchance to dream", "to be"]
    with LineServer() as server:
        example = run("structured_network_wordcount.py", "127.0.0.1", str(server.port), "--master", "local[2]")
        with killed_on_error(example):
            server.wait_connections(1, timeout=DEADLINE)
            server.send("".join(f"{line}\n" for line in first))
            wait_block(example, lambda b: b.counts() == words(first), f"table of {dict(words(first))}")
            workers = example.children()
            server.send("".join(f"{line}\n" for line in second))
            total = words(first + second)
            block = wait_block(example, lambda b: b.counts() == total, f"table of {dict(total)}")
            assert block.header == ["word", "count"]
        stop_with_ctrl_c(example)
    assert workers, "local[2] should have started worker processes"
    deadline = time.monotonic() + DEADLINE
    while any(alive(pid) for pid in workers):
        assert time.monotonic() < deadline, f"worker processes {workers} outlived the example"
        threading.Event().wait(0.05)


def windows(block: Block) -> list[tuple[datetime, datetime, str, int]]:
    """``(start, end, word, count)`` of the windowed example's rows, in printed order."""
    out = []
    for cell, word, count in block.rows:
        start, end = (datetime.strptime(t.strip(), "%Y-%m-%d %H:%M:%S") for t in cell.strip("{}").split(","))
        out.append((start, end, word, int(count)))
    return out


def per_window(block: Block) -> dict[datetime, dict[str, int]]:
    table: dict[datetime, dict[str, int]] = {}
    for start, _, word, count in windows(block):
        table.setdefault(start, {})[word] = count
    return table


def test_windowed_wordcount_counts_each_line_in_every_window_of_its_arrival() -> None:
    first, second = "cat dog cat", "dog bird"
    with LineServer() as server:
        example = run("structured_network_wordcount_windowed.py", "127.0.0.1", str(server.port), "10", "5",
                      "--master", "local")
        with killed_on_error(example):
            server.wait_connections(1, timeout=DEADLINE)
            server.send(f"{first}\n")
            block = wait_block(example, lambda b: bool(b.rows), "a first table")
            assert block.header == ["window", "word", "count"]
            rows = windows(block)
            assert all(end - start == timedelta(seconds=10) and start.second % 5 == 0 for start, end, _, _ in rows)
            # One arrival time: the two 10-second windows, 5 seconds apart, that hold it.
            starts = sorted(per_window(block))
            assert len(starts) == 2 and starts[1] - starts[0] == timedelta(seconds=5), rows
            assert all(table == {"cat": 2, "dog": 1} for table in per_window(block).values()), rows
            assert [r[0] for r in rows] == sorted(r[0] for r in rows)  # orderBy('window')
            first_windows = set(starts)

            server.send(f"{second}\n")
            block = wait_block(example, lambda b: "bird" in {r[1] for r in b.rows}, "the second line's table")
        stop_with_ctrl_c(example)
    rows = windows(block)
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    second_windows = {start for start, _, word, _ in rows if word == "bird"}
    assert len(second_windows) == 2 and max(second_windows) - min(second_windows) == timedelta(seconds=5)
    # Rows per window: the lines whose arrival falls in it, counted together.
    expected: dict[datetime, Counter[str]] = {start: Counter() for start in first_windows | second_windows}
    for line, held_in in ((first, first_windows), (second, second_windows)):
        for start in held_in:
            expected[start].update(line.split(" "))
    assert per_window(block) == {start: dict(counts) for start, counts in expected.items()}


def sessions(block: Block) -> dict[str, tuple[int, int, int, int]]:
    """``{sessionId: (start, end, durationMs, numEvents)}`` of the sessionization example."""
    return {sid: (int(start), int(end), int(duration), int(n)) for sid, start, end, duration, n in block.rows}


def test_sessionization_reports_the_sessions_each_batch_changed() -> None:
    with LineServer() as server:
        example = run("structured_sessionization.py", "127.0.0.1", str(server.port), "--master", "local")
        with killed_on_error(example):
            server.wait_connections(1, timeout=DEADLINE)
            server.send("alice bob alice\n")
            block = wait_block(example, lambda b: bool(b.rows), "a first table")
            assert block.header == ["sessionId", "CAST(session.start AS BIGINT)", "CAST(session.end AS BIGINT)",
                                    "durationMs", "numEvents"]
            opened = sessions(block)
            assert {sid: s[3] for sid, s in opened.items()} == {"alice": 2, "bob": 1}
            # One arrival time: each session ends 10 s (the gap) after its start.
            assert all(end - start == duration == 10 for start, end, duration, _ in opened.values()), opened

            server.send("alice carol\n")  # well within alice's 10-second gap
            block = wait_block(example, lambda b: "carol" in sessions(b), "the second line's sessions")
        stop_with_ctrl_c(example)
    changed = sessions(block)
    assert set(changed) == {"alice", "carol"}, changed  # update mode: bob did not change
    start, end, duration, events = changed["alice"]
    assert events == 3 and start == opened["alice"][0] and end >= opened["alice"][1]
    assert duration == end - start
    assert changed["carol"][2:] == (10, 1)


# -- command lines -----------------------------------------------------------------------------------------------

def load(script: str) -> Any:
    """An example imported from its file, for its command line."""
    path = EXAMPLES / FOLDER / script
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    finally:
        while str(EXAMPLES) in sys.path:  # the example puts examples/ first, for _live
            sys.path.remove(str(EXAMPLES))
    return module


@pytest.mark.parametrize(("argv", "expected"), [
    (["10"], (None, None, 10, 10)),
    (["10", "5"], (None, None, 10, 5)),
    (["localhost", "9999", "10"], ("localhost", 9999, 10, 10)),
    (["localhost", "9999", "10", "5", "--batches", "3"], ("localhost", 9999, 10, 5)),
])
def test_windowed_takes_sparks_arguments_with_an_optional_server(argv: list[str], expected: tuple[Any, ...]) -> None:
    _, args = load("structured_network_wordcount_windowed.py").parse_args(argv)
    assert (args.hostname, args.port, args.window_size, args.slide_size) == expected


@pytest.mark.parametrize(("argv", "message"), [
    ([], "expected [<hostname> <port>] <window duration in seconds> [<slide duration in seconds>]; got 0"),
    (["localhost", "9999"], "<window duration in seconds> must be a whole number, got 'localhost'"),
    (["5", "10"], "<slide duration> must be less than or equal to <window duration>"),
    (["a", "b", "c", "d", "e"], "got 5 arguments"),
])
def test_windowed_refuses_bad_arguments(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        load("structured_network_wordcount_windowed.py").parse_args(argv)
    assert message in capsys.readouterr().err


# -- Kafka --------------------------------------------------------------------------------------------------------

def kafka_test(test: Callable[..., None]) -> Callable[..., None]:
    """Mark a test that reads the session's Kafka broker (as tests/kafka's are)."""
    for mark in [pytest.mark.kafka, *KAFKA_PYTHON_WARNINGS]:
        test = mark(test)
    return test


@kafka_test
def test_kafka_wordcount_counts_its_sample_lines_in_the_partitions_assigned(kafka: Any) -> None:
    topic = kafka.new_topic(partitions=3)
    assign = f'{{"{topic}": [0, 2]}}'
    example = run("structured_kafka_wordcount.py", kafka.bootstrap, "assign", assign, "--sample-lines", "2",
                  "--batches", "1", "--master", "local")
    printed = finished(example)
    assert f"wrote 2 sample lines to {assign}" in example.stderr
    assert [b.batch_id for b in printed] == [0]
    assert printed[0].counts() == words(sample_text()[:2])
    assert kafka.end_offsets(topic) == {0: 1, 1: 0, 2: 1}  # one line in each partition assigned


@kafka_test
def test_kafka_wordcount_keeps_running_totals_of_a_pattern_from_the_beginning(kafka: Any) -> None:
    topic = kafka.new_topic(partitions=2, prefix="pattern")
    kafka.send(topic, ["x y x", "y z"])
    example = run("structured_kafka_wordcount.py", kafka.bootstrap, "subscribePattern", re.escape(topic),
                  "--from-beginning", "--batches", "2", "--master", "local")
    with killed_on_error(example):
        wait_block(example, lambda b: b.counts() == {"x": 2, "y": 2, "z": 1}, "the records written first")
        kafka.send(topic, ["z w"])
    printed = finished(example)
    assert [b.batch_id for b in printed] == [0, 1]
    assert printed[1].counts() == {"x": 2, "y": 2, "z": 2, "w": 1}


@kafka_test
def test_the_documented_kafka_command_counts_its_sample_lines(kafka: Any) -> None:
    """examples/README.md's command: ``'$KAFKA_BOOTSTRAP' subscribe words --sample-lines 40 --batches 1``.

    (On ``local`` here, to spare the worker processes' start.) The topic does not exist:
    writing the sample creates it.
    """
    topic = kafka.unused_topic()
    example = run("structured_kafka_wordcount.py", "$KAFKA_BOOTSTRAP", "subscribe", topic, "--sample-lines", "40",
                  "--batches", "1", "--master", "local", env={"KAFKA_BOOTSTRAP": kafka.bootstrap})
    printed = finished(example)
    assert f"wrote 40 sample lines to {topic}" in example.stderr
    assert [b.batch_id for b in printed] == [0]
    expected = words([sample_text()[i % len(sample_text())] for i in range(40)])
    assert len(expected) > 20 and "only showing top 20 rows" in example.stdout  # the console's numRows
    shown = printed[0].counts()
    assert len(shown) == 20 and all(expected[w] == n for w, n in shown.items()), shown


@pytest.mark.parametrize(("argv", "message"), [
    (["host:1", "subscribePattern", "words.*", "--sample-lines", "3"],
     "--sample-lines writes to the topics named by subscribe or assign"),
    (["host:1", "subscribed", "words"], "argument subscribe-type: invalid choice: 'subscribed'"),
    (["$KAFKA_BOOTSTRAP", "subscribe", "words"], "$KAFKA_BOOTSTRAP was given but the variable is not set"),
])
def test_kafka_wordcount_refuses_bad_arguments(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAFKA_BOOTSTRAP", raising=False)
    with pytest.raises(SystemExit):
        load("structured_kafka_wordcount.py").parse_args(argv)
    assert message in capsys.readouterr().err
