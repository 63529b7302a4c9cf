"""Exactly-once through driver crashes: SIGKILL a streaming program, restart it, compare the output.

The program (:mod:`tests.sql.streaming.crash_app`) runs as a subprocess on ``local[2]``,
one of four combinations of a source, a query and a sink: file source -> windowed count
-> parquet sink, Kafka -> running word count -> ``foreachBatch`` writing to Kafka
idempotently, Kafka -> its lines -> json sink, ``rate-micro-batch`` -> windowed count
and sum -> json sink. Three of the queries keep state.

For each combination the test kills the program with SIGKILL at seeded random points,
restarts it unchanged on the same checkpoint location, kills it again, and finally lets
it run to its end. The kill points:

* a crash point of the program (``CRASH_APP_PAUSE``): before or after ``offsets/N`` is
  written, half-way through the sink's write, after the sink but before ``commits/N``,
  after ``commits/N``; sometimes in the batch that a restart is replaying;
* a random delay (0 to 80 ms) after ``offsets/N`` was written: anywhere in the batch;
* for the file source, last, before the commit of the batch that reads the last file,
  whose event closes every window (the file sink used to skip that re-run batch without
  running it, and the windows were never emitted).

Ten kills in all (:data:`KILLS`), dealt so that every crash point and two delays occur
(:func:`deal_phases`). The two combinations without Kafka run side by side, then the
two with Kafka: a program spends most of its life starting up (about 5 s of CPU a run).

Each kill is checked: the program was alive, had started batches, died of the SIGKILL
(not of its own accord) and none of its processes (its two workers) outlives it; the
checkpoint is in the state the crash point implies. When a killed run left an
``offsets/N`` without ``commits/N``, the next run must re-run batch ``N`` without writing
``offsets/N`` again; each combination does so at least once. The committed output —
what ``spark.read`` gives for the file sinks (through ``_spark_metadata``), the last
record per key for the Kafka topic — must equal a plain-Python model of an uncrashed run.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.integration.watched import WatchedProcess
from tests.kafka.utils import KAFKA_PYTHON_WARNINGS
from tests.rdd.processes import ProcessId, descendants, identify, is_running, kill_survivors, wait_until
from tests.sql.streaming import crash_app
from tests.sql.streaming.crash_app import PHASES

pytestmark = [pytest.mark.integration, pytest.mark.slow, *KAFKA_PYTHON_WARNINGS]

#: Seconds any step of a run (start, reaching a kill point, exiting) may take.
DEADLINE = 60.0
SEED = 20240613
#: The kills of each combination, and its last batch id a kill may aim at (the runs are longer).
KILLS = {"file-parquet": 3, "rate-json": 3, "kafka-foreachbatch": 2, "kafka-json": 2}
#: The file combination's last kill: before the commit of the batch that reads the last file,
#: whose event closes every window (a re-run the file sink skipped used to lose them).
LAST_FILE = "before-commit-of-the-last-file"
LAST_KILL_BATCH = {"file-parquet": 8, "kafka-foreachbatch": 9, "kafka-json": 9, "rate-json": 11}
#: Phases after which the batch is re-run by the next start (offsets/N written, commits/N not).
RERUN_PHASES = ("after-offsets", "in-sink", "before-commit")


@dataclass
class Kill:
    """Where one run is killed: at a crash point of batch ``batch``, or ``delay_s`` after its offsets."""

    phase: str  # one of PHASES, or "delay"
    batch: int
    delay_s: float = 0.0

    def __str__(self) -> str:
        return f"{self.phase}:{self.batch}" + (f"+{self.delay_s * 1000:.0f}ms" if self.phase == "delay" else "")


@dataclass
class Tally:
    """What the runs of one combination did."""

    kills: list[str] = field(default_factory=list)
    reruns: list[int] = field(default_factory=list)


def latest(directory: Path) -> int | None:
    ids = [int(p.name) for p in directory.iterdir() if p.name.isdigit()] if directory.is_dir() else []
    return max(ids) if ids else None


def batch_of(line: str) -> int | None:
    """The batch id an event line of the program names (``offsets N``, ``paused <phase> N``...)."""
    words = line.split()
    if words and words[0] in ("offsets", "manifest", "commit") and len(words) == 2:
        return int(words[1])
    if words and words[0] == "sink":
        return int(words[1])
    if words and words[0] == "paused":
        return int(words[2])
    return None


class Combination:
    """One source/query/sink combination: its directories, its program runs, its checks."""

    def __init__(self, combo: str, root: Path, kafka: Any = None, in_topic: str | None = None) -> None:
        self.combo = combo
        self.checkpoint, self.output, self.input = root / "checkpoint", root / "output", root / "input"
        self.kafka = kafka
        self.args = [combo, "--checkpoint", str(self.checkpoint), "--output", str(self.output)]
        if combo == "file-parquet":
            crash_app.write_file_input(str(self.input))
            self.args += ["--input", str(self.input)]
        if combo.startswith("kafka"):
            self.out_topic = kafka.new_topic(partitions=1, prefix="crash-out")
            self.args += ["--bootstrap", kafka.bootstrap, "--in-topic", str(in_topic), "--out-topic", self.out_topic]
        self.runs: list[WatchedProcess] = []
        self.families: list[list[ProcessId]] = []
        self.tally = Tally()

    def start(self, pause: str | None) -> WatchedProcess:
        run = WatchedProcess("tests.sql.streaming.crash_app", self.args,
                             {"CRASH_APP_PAUSE": pause} if pause else {}, f"the {self.combo} program")
        self.runs.append(run)
        started = run.wait_line(lambda x: x.startswith("started "), "that it started", DEADLINE)
        assert "master=local[2]" in started, started
        return run

    def family(self, run: WatchedProcess) -> list[ProcessId]:
        me = identify(run.proc.pid)
        found = ([me] if me is not None else []) + descendants(run.proc.pid)
        self.families.append(found)
        return found

    def pending(self) -> int | None:
        """The batch a restart must re-run: the latest ``offsets/N`` without ``commits/N``."""
        last, done = latest(self.checkpoint / "offsets"), latest(self.checkpoint / "commits")
        return last if last is not None and (done is None or done < last) else None

    def last_file_batch(self) -> int:
        """The batch that will read the last input file.

        Each batch logs one new file in ``sources/0`` (a kill before ``offsets/N`` leaves one
        logged ahead, which the next batch reads with its own), so with ``u`` files not yet
        logged the last one is read by batch ``latest offsets id + u``.
        """
        log = self.checkpoint / "sources" / "0"
        logged = [int(p.name.split(".")[0]) for p in log.iterdir() if p.name[0].isdigit()] if log.is_dir() else []
        unlogged = len(crash_app.file_events()) - (max(logged) + 1 if logged else 0)
        last = latest(self.checkpoint / "offsets")
        assert unlogged > 0, f"every file was read before the last kill: {self.runs[-1].stdout}"
        return (-1 if last is None else last) + unlogged

    def kill_run(self, kill: Kill) -> None:
        """Start a run, kill it at ``kill``, check the kill and the checkpoint it left."""
        rerun = self.pending()
        run = self.start(None if kill.phase == "delay" else f"{kill.phase}:{kill.batch}")
        if kill.phase == "delay":
            run.wait_line(lambda x: x == f"offsets {kill.batch}", f"offsets {kill.batch}", DEADLINE)
            time.sleep(kill.delay_s)  # the kill's moment, not a wait for something
        else:
            run.wait_line(lambda x: x == f"paused {kill.phase} {kill.batch}", f"the crash point {kill}", DEADLINE)
        family = self.family(run)
        assert run.proc.poll() is None, f"{kill}: the program ended before the kill; {run.stdout}"
        assert "finished" not in run.lines, run.stdout
        os.kill(run.proc.pid, signal.SIGKILL)
        assert run.wait(DEADLINE) == -signal.SIGKILL, f"{kill}: the program did not die of the SIGKILL"
        assert len(family) >= 3, f"{kill}: expected the program and its two workers, found {family}"
        try:
            wait_until(lambda: not any(is_running(p) for p in family), DEADLINE,
                       f"every process of the killed program is gone: {family}")
        finally:
            kill_survivors(family)
        events = [b for b in map(batch_of, run.lines) if b is not None]
        assert events, f"{kill}: the program was killed before it started a batch; {run.stdout}"
        self.check_rerun(run, rerun)
        self.check_checkpoint(kill)
        self.tally.kills.append(str(kill))

    def check_rerun(self, run: WatchedProcess, rerun: int | None) -> None:
        """A run started on an uncommitted batch N handles N first, without writing offsets/N again."""
        if rerun is None:
            return
        started = f"started offsets={rerun} commits={rerun - 1 if rerun else '-'} "
        assert run.lines[0].startswith(started), run.stdout
        events = [b for b in map(batch_of, run.lines) if b is not None]
        assert events and events[0] == rerun, f"batch {rerun} was not re-run first: {run.stdout}"
        assert f"offsets {rerun}" not in run.lines, f"offsets/{rerun} was written again: {run.stdout}"
        self.tally.reruns.append(rerun)

    def check_checkpoint(self, kill: Kill) -> None:
        """The files a kill at ``kill`` leaves: offsets/N, commits/N and the sink's manifest."""
        if kill.phase == "delay":
            return
        n = kill.batch
        offsets, commits = (self.checkpoint / "offsets" / str(n)).exists(), (self.checkpoint / "commits" / str(n))
        manifest = self.output / "_spark_metadata" / str(n)
        assert offsets == (kill.phase != "before-offsets"), f"{kill}: offsets/{n} exists: {offsets}"
        assert commits.exists() == (kill.phase == "after-commit"), f"{kill}: commits/{n} exists: {commits.exists()}"
        if self.combo != "kafka-foreachbatch" and kill.phase in ("in-sink", "before-commit"):
            assert manifest.exists() == (kill.phase == "before-commit"), f"{kill}: {manifest} {manifest.exists()}"

    def finish(self) -> None:
        """The last run, to the end of the input (or the rate target): exit 0, no process left."""
        rerun = self.pending()
        run = self.start(None)
        # Its workers exist once a batch ran; the program may have nothing left to run.
        first = run.wait_line(lambda x: x.startswith("commit ") or x == "finished", "a batch or its end", DEADLINE)
        family = self.family(run)
        code = run.wait(DEADLINE)
        assert code == 0 and "finished" in run.lines, f"the last run failed ({code}); {run.stdout}\n{run.stderr}"
        self.check_rerun(run, rerun)
        wait_until(lambda: not any(is_running(p) for p in family), DEADLINE,
                   f"every process of the finished program is gone: {family} (first event {first!r})")

    def stop_all(self) -> None:
        """A failed check must not leave a program or a worker behind."""
        for run in self.runs:
            if run.proc.poll() is None:
                family = [p for p in [identify(run.proc.pid), *descendants(run.proc.pid)] if p is not None]
                run.kill()
                kill_survivors(family)
        for family in self.families:
            kill_survivors(family)


def deal_phases(seed: int) -> dict[str, list[str]]:
    """Each combination's kill phases, dealt at random: every phase and two delays in all.

    Each combination gets a phase that leaves ``offsets/N`` without ``commits/N``, so a
    restart of each re-runs a batch.
    """
    rng = random.Random(seed)
    # foreachBatch is killed half-way through its writes at least once: the rewrite of its keys.
    reruns = {"kafka-foreachbatch": "in-sink", "file-parquet": LAST_FILE}
    others = ["after-offsets", "before-commit"]
    rng.shuffle(others)
    reruns.update(zip(("rate-json", "kafka-json"), others))
    rest = ["before-offsets", "after-commit", "delay", "delay"]
    rest += [rng.choice(PHASES) for _ in range(sum(KILLS.values()) - len(reruns) - len(rest))]
    rng.shuffle(rest)
    dealt = {}
    for combo, rerun in reruns.items():
        phases = [rest.pop() for _ in range(KILLS[combo] - 1)]
        if rerun == LAST_FILE:
            dealt[combo] = [*phases, rerun]
            continue
        phases.append(rerun)
        rng.shuffle(phases)
        dealt[combo] = phases
    return dealt


def next_kill(combo: str, phase: str, rng: random.Random, resume: int, previous: Kill | None) -> Kill:
    """Where to kill with ``phase``: at the batch the run reaches next or the one after, or in a replay."""
    if previous is not None and previous.phase in RERUN_PHASES and rng.random() < 0.5:
        # Kill the restarted program again while it replays that batch, if ``phase`` comes later
        # in it (the file sink does not write a batch it holds: after before-commit, only the commit).
        later = PHASES[PHASES.index(previous.phase) + 1:]
        if phase in later and not (previous.phase == "before-commit" and phase == "in-sink"):
            return Kill(phase, previous.batch)
    # A delay starts at a run's second batch or later: its first one is slow (the workers start).
    batch = resume + rng.randint(0, 1) + (phase == "delay")
    if phase == "delay" and batch > LAST_KILL_BATCH[combo] - 3:
        phase = "after-commit"  # too close to the end: the program could finish within the delay
    assert batch <= LAST_KILL_BATCH[combo], f"{combo}: no batch left to kill at after batch {resume - 1}"
    return Kill(phase, batch, round(rng.uniform(0.0, 0.08), 3))


PHASES_DEALT = deal_phases(SEED)


def run_scenario(combination: Combination, seed: int) -> Tally:
    """Kill the program at each dealt phase, then run it to the end; the tally of what happened."""
    rng = random.Random(seed)
    previous: Kill | None = None
    try:
        for phase in PHASES_DEALT[combination.combo]:
            last = latest(combination.checkpoint / "offsets")
            if phase == LAST_FILE:
                kill = Kill("before-commit", combination.last_file_batch())
            else:
                kill = next_kill(combination.combo, phase, rng, 0 if last is None else last + 1, previous)
            combination.kill_run(kill)
            previous = kill
        combination.finish()
    finally:
        combination.stop_all()
    assert combination.tally.reruns, f"no restart re-ran an uncommitted batch: {combination.tally}"
    return combination.tally


def run_concurrently(combinations: list[Combination]) -> dict[str, Tally | BaseException]:
    """The scenarios of ``combinations``, side by side (a program mostly waits for its start-up)."""
    outcomes: dict[str, Tally | BaseException] = {}
    with ThreadPoolExecutor(len(combinations)) as pool:
        futures = {c.combo: pool.submit(run_scenario, c, SEED + i) for i, c in enumerate(combinations)}
        for combo, future in futures.items():
            error = future.exception(timeout=4 * DEADLINE * (KILLS[combo] + 1))
            outcomes[combo] = error if error is not None else future.result()
    return outcomes


def outcome(runs: dict[str, Tally | BaseException], combo: str) -> Tally:
    found = runs[combo]
    if isinstance(found, BaseException):
        raise found
    print(f"{combo}: kills {found.kills}, re-run batches {found.reruns}")
    return found


@pytest.fixture(scope="module")
def in_topic(kafka: Any) -> str:
    """The Kafka input of both Kafka combinations: crash_app.kafka_lines(), partition by partition."""
    topic = kafka.new_topic(partitions=crash_app.KAFKA_PARTITIONS, prefix="crash-in")
    for partition, lines in crash_app.kafka_lines().items():
        kafka.send(topic, lines, partition=partition)
    return topic


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The file and rate scenarios, run side by side: their tallies (or failures) and combinations."""
    combinations = [Combination(c, tmp_path_factory.mktemp(c)) for c in ("file-parquet", "rate-json")]
    return {"outcomes": run_concurrently(combinations), **{c.combo: c for c in combinations}}


@pytest.fixture(scope="module")
def kafka_runs(tmp_path_factory: pytest.TempPathFactory, kafka: Any, in_topic: str) -> dict[str, Any]:
    """The two Kafka scenarios, run side by side."""
    combinations = [Combination(c, tmp_path_factory.mktemp(c), kafka, in_topic)
                    for c in ("kafka-foreachbatch", "kafka-json")]
    return {"outcomes": run_concurrently(combinations), **{c.combo: c for c in combinations}}


def manifest_files(output: Path) -> set[str]:
    """The part files the sink's manifest lists (compact files included)."""
    listed: set[str] = set()
    for log in (output / "_spark_metadata").iterdir():
        if not log.name.startswith("."):
            body = log.read_text().split("\n", 1)[1]
            listed.update(Path(json.loads(line)["path"].removeprefix("file://")).name
                          for line in body.splitlines() if line.strip())
    return listed


def check_orphans(output: Path, tally: Tally) -> None:
    """Part files of a write the kill interrupted stay on disk, outside the manifest.

    A batch killed in the sink wrote its part files, which its re-run wrote again under
    other names: when its manifest lists files, the first attempt's are on disk unlisted.
    """
    on_disk = {p.name for p in output.rglob("part-*")}
    listed = manifest_files(output)
    assert listed <= on_disk
    killed_in_sink = [int(k.split(":")[1]) for k in tally.kills if k.startswith("in-sink:")]
    if any((output / "_spark_metadata" / str(n)).is_file()
           and (output / "_spark_metadata" / str(n)).read_text().split("\n", 1)[1].strip() for n in killed_in_sink):
        assert on_disk - listed, f"kills in the sink at batches {killed_in_sink}, but no unlisted part file"


def test_the_kills_cover_every_phase() -> None:
    dealt = [phase for phases in PHASES_DEALT.values() for phase in phases]
    assert len(dealt) >= 10 and set(dealt) == {*PHASES, "delay", LAST_FILE}, PHASES_DEALT
    assert all(set(phases) & {*RERUN_PHASES, LAST_FILE} for phases in PHASES_DEALT.values()), PHASES_DEALT


@pytest.mark.timeout(300)
def test_file_source_windowed_count_to_parquet(local_runs: dict[str, Any], spark: Any) -> None:
    tally = outcome(local_runs["outcomes"], "file-parquet")
    output = local_runs["file-parquet"].output
    rows = [(r["start"], r["word"], r["count"]) for r in spark.read.parquet(str(output)).collect()]
    assert Counter((s, w) for s, w, _ in rows).most_common(1)[0][1] == 1, f"a window twice: {sorted(rows)}"
    assert {(s, w): c for s, w, c in rows} == dict(crash_app.expected_file_windows())
    check_orphans(output, tally)


@pytest.mark.timeout(300)
def test_rate_source_windowed_count_to_json(local_runs: dict[str, Any], spark: Any) -> None:
    tally = outcome(local_runs["outcomes"], "rate-json")
    output = local_runs["rate-json"].output
    rows = [(r["start"], r["count"], r["total"]) for r in spark.read.json(str(output)).collect()]
    assert len({s for s, _, _ in rows}) == len(rows), f"a window twice: {sorted(rows)}"
    assert {s: (c, t) for s, c, t in rows} == crash_app.expected_rate_windows()
    check_orphans(output, tally)


@pytest.mark.kafka
@pytest.mark.timeout(300)
def test_kafka_source_lines_to_json(kafka_runs: dict[str, Any], spark: Any) -> None:
    tally = outcome(kafka_runs["outcomes"], "kafka-json")
    output = kafka_runs["kafka-json"].output
    rows = sorted((r["partition"], r["offset"], r["line"]) for r in spark.read.json(str(output)).collect())
    expected = sorted((p, i, line) for p, lines in crash_app.kafka_lines().items() for i, line in enumerate(lines))
    assert rows == expected
    check_orphans(output, tally)


@pytest.mark.kafka
@pytest.mark.timeout(300)
def test_kafka_source_running_count_to_kafka_via_foreach_batch(kafka_runs: dict[str, Any], kafka: Any) -> None:
    tally = outcome(kafka_runs["outcomes"], "kafka-foreachbatch")
    values: dict[str, set[str]] = {}
    written = kafka.read_all(kafka_runs["kafka-foreachbatch"].out_topic)
    for _, _, key, value in written:
        values.setdefault(key.decode(), set()).add(value.decode())
    # At least once in the topic, but a re-run rewrites a key with the value it had.
    assert all(len(v) == 1 for v in values.values()), {k: v for k, v in values.items() if len(v) > 1}
    table = {k: json.loads(next(iter(v))) for k, v in values.items()}
    batches: dict[int, dict[int, dict[str, Any]]] = {}
    for key, record in table.items():
        batch, index = map(int, key.split(":"))
        batches.setdefault(batch, {})[index] = record
    for batch, records in batches.items():
        sizes = {r["n"] for r in records.values()}
        assert sizes == {len(records)} and set(records) == set(range(len(records))), f"batch {batch}: {records}"
    final: dict[str, int] = {}
    for batch in sorted(batches):  # update mode: a word's count in the last batch that changed it
        final.update({r["word"]: r["count"] for r in batches[batch].values()})
    assert final == dict(crash_app.expected_word_counts())
    # A batch killed half-way through its writes (of at least 2 records) was written again in full.
    rewritten = Counter(key.decode().split(":")[0] for _, _, key, _ in written)
    for kill in tally.kills:
        if kill.startswith("in-sink:") and len(batches[int(kill.split(":")[1])]) >= 2:
            batch = int(kill.split(":")[1])
            assert rewritten[str(batch)] > len(batches[batch]), f"{kill}: no record of batch {batch} written twice"
