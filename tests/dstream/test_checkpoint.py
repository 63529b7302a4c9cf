"""Metadata checkpoints, StreamingContext.getOrCreate, and the errors at start().

Real files in ``tmp_path``, real StreamingContexts on the manual clock
(``spark.streaming.clock=manual`` in the SparkContext's configuration, so a context
rebuilt from a checkpoint runs on the manual clock too). "Crashes" here are in-process
stops followed by ``getOrCreate`` on the same directory; the SIGKILL crash test with
real driver processes is ``tests/integration/test_recovery_end_to_end.py``.

The graph's functions are module-level functions of this module, so the checkpoint
refers to them by name and a rebuilt graph finds them.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest

from rdd import SparkConf, SparkContext
from rdd.errors import CheckpointError

from dstream import StateSpec, StreamingContext, StreamingListener
from dstream.checkpoint.files import (
    KEEP,
    checkpoint_path,
    graph_digest,
    graph_path,
    list_checkpoints,
    read_checkpoint,
    read_latest,
    write_checkpoint,
)
from dstream.errors import StreamingStateError
from dstream.testing import advance_batches, manual_clock
from tests.rdd.processes import wait_until

DEADLINE = 30.0

#: Input of the stateful graph: 24 batches, some empty.
DATA = [[] if i % 4 == 2 else [(f"k{(i * 3 + j) % 5}", i + j) for j in range(1 + i % 3)] for i in range(24)]


def manual_conf() -> SparkConf:
    return SparkConf().set("spark.streaming.clock", "manual")


@pytest.fixture
def msc(make_sc: Callable[..., SparkContext]) -> SparkContext:
    """A fresh ``local`` SparkContext whose streaming contexts use the manual clock."""
    return make_sc("local", manual_conf())


# --------------------------------------------------------------------------- graph functions


def running_sum(values: list[int], total: int | None) -> int:
    return (total or 0) + sum(values)


def add(a: int, b: int) -> int:
    return a + b


def sub(a: int, b: int) -> int:
    return a - b


def count(key: str, value: int, state: Any) -> tuple[str, int]:
    total = (state.getOption() or 0) + value
    state.update(total)
    return (key, total)


def build(sc: SparkContext, checkpoint: Path | None, out: Path, data: list[list[Any]] = DATA) -> StreamingContext:
    """Running totals (checkpointed every 3 batches) and a 5-slide incremental window (every 2).

    With these intervals the queue remembers its batches for about 10 s only: a
    recovery at a later batch must start from the RDD checkpoints.
    """
    ssc = StreamingContext(sc, 1)
    if checkpoint is not None:
        ssc.checkpoint(str(checkpoint))
    pairs = ssc.queueStream(data)
    pairs.updateStateByKey(running_sum).checkpoint(3).saveAsTextFiles(str(out / "totals"))
    pairs.reduceByKeyAndWindow(add, sub, 5, 1).checkpoint(2).saveAsTextFiles(str(out / "window"))
    return ssc


def run_to(ssc: StreamingContext, batch: int) -> None:
    """Start ``ssc`` and run until batch ``batch`` is done (after any recovery replay), then stop."""
    ssc.start()
    try:
        now = manual_clock(ssc).now_ms()
        advance_batches(ssc, max(0, batch - now // 1000))
        assert ssc._engine.waiter.error is None, ssc._engine.waiter.error
    finally:
        ssc.stop(stopSparkContext=False)


def outputs(out: Path) -> dict[str, list[str]]:
    """``{"<output>-<time>": sorted lines}`` of every batch directory."""
    found = {}
    for directory in sorted(p for p in out.iterdir() if not p.name.startswith(".")):
        assert (directory / "_SUCCESS").exists(), directory
        found[directory.name] = sorted(line for part in directory.glob("part-*")
                                       for line in part.read_text().splitlines())
    return found


def not_called() -> StreamingContext:
    raise AssertionError("setupFunc must not be called when a usable checkpoint exists")


@pytest.fixture
def reference(msc: SparkContext, tmp_path: Path) -> Callable[[int], dict[str, list[str]]]:
    """Outputs of an uninterrupted run of ``build`` up to a batch (computed once per length)."""
    cache: dict[int, dict[str, list[str]]] = {}

    def get(batches: int) -> dict[str, list[str]]:
        if batches not in cache:
            out = tmp_path / f"reference-{batches}"
            run_to(build(msc, tmp_path / f"reference-checkpoint-{batches}", out), batches)
            cache[batches] = outputs(out)
        return cache[batches]

    return get


# =========================================================================== checkpoint files


def test_a_run_keeps_the_last_checkpoints_and_no_temporary_files(msc: SparkContext, tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoint"
    run_to(build(msc, checkpoint, tmp_path / "out"), 14)
    names = sorted(os.listdir(checkpoint))
    assert KEEP == 10
    assert [n for n in names if n.startswith("checkpoint-")] == sorted(f"checkpoint-{t * 1000}" for t in range(5, 15))
    assert len([n for n in names if n.startswith("graph-")]) == 1  # written once, shared by all
    others = [n for n in names if not n.startswith(("checkpoint-", "graph-"))]
    assert others and all(os.path.isdir(checkpoint / n) for n in others), others  # RDD checkpoints
    leftovers = [str(p) for p in checkpoint.rglob("*") if "tmp" in p.name]
    assert leftovers == []


def _names(directory: Path, prefix: str) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.startswith(prefix))


def test_write_checkpoint_keeps_the_newest_and_the_graphs_they_refer_to(tmp_path: Path) -> None:
    for t in range(1, 13):
        graph = b"graph-%d" % (t // 2)  # a graph shared by two checkpoints, then another
        path = write_checkpoint(str(tmp_path), t * 1000, {"format": 1, "n": t}, graph, keep=4)
        assert path == checkpoint_path(str(tmp_path), t * 1000)
        assert [n for n in os.listdir(tmp_path) if "tmp" in n] == []
    assert _names(tmp_path, "checkpoint-") == sorted(f"checkpoint-{t * 1000}" for t in range(9, 13))
    assert _names(tmp_path, "graph-") == sorted(f"graph-{graph_digest(b'graph-%d' % g)}" for g in (4, 5, 6))
    latest = read_latest(str(tmp_path))
    assert latest is not None
    assert (latest.time_ms, latest.data, latest.graph) == (12000, {"format": 1, "n": 12}, b"graph-6")


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _flip_a_byte(path: Path) -> None:
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # inside the data: its checksum (or the decoder) notices
    path.write_bytes(bytes(raw))


def _bad_magic(path: Path) -> None:
    path.write_bytes(b"NOTACKPT" + path.read_bytes()[8:])


def _empty(path: Path) -> None:
    path.write_bytes(b"")


CORRUPTIONS = [_truncate, _flip_a_byte, _bad_magic, _empty]


def _graph_of(checkpoint_file: Path) -> Path:
    """The graph file a checkpoint refers to (its header names the digest)."""
    header = msgpack.unpackb(checkpoint_file.read_bytes()[8:], raw=False)
    return Path(graph_path(str(checkpoint_file.parent), header["graph"]))


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("target", ["checkpoint", "its-graph"])
def test_a_broken_newest_checkpoint_falls_back_to_the_previous_with_a_warning(
    corrupt: Callable[[Path], None], target: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for t in (1000, 2000, 3000):
        write_checkpoint(str(tmp_path), t, {"format": 1, "t": t}, b"graph-%d" % t)
    newest = tmp_path / "checkpoint-3000"
    corrupt(newest if target == "checkpoint" else _graph_of(newest))
    with caplog.at_level(logging.WARNING):
        found = read_latest(str(tmp_path))
    assert found is not None and found.time_ms == 2000 and found.data == {"format": 1, "t": 2000}
    assert found.graph == b"graph-2000"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and str(newest) in warnings[0].getMessage(), [r.getMessage() for r in warnings]


def test_recovery_from_the_previous_checkpoint_when_the_newest_is_truncated(
    msc: SparkContext, tmp_path: Path, reference: Callable[[int], dict[str, list[str]]],
    caplog: pytest.LogCaptureFixture
) -> None:
    expected = reference(9)
    checkpoint, out = tmp_path / "checkpoint", tmp_path / "out"
    run_to(build(msc, checkpoint, out), 6)
    newest = checkpoint / f"checkpoint-{list_checkpoints(str(checkpoint))[-1]}"
    _truncate(newest)
    with caplog.at_level(logging.WARNING):
        ssc = StreamingContext.getOrCreate(str(checkpoint), not_called)
    assert any(str(newest) in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    run_to(ssc, 9)
    assert outputs(out) == expected


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("target", ["checkpoints", "the-graph"])
def test_no_usable_checkpoint_is_an_error_naming_the_directory(
    corrupt: Callable[[Path], None], target: str, msc: SparkContext, tmp_path: Path
) -> None:
    checkpoint = tmp_path / "checkpoint"
    run_to(build(msc, checkpoint, tmp_path / "out"), 2)
    if target == "the-graph":
        corrupt(_graph_of(checkpoint / "checkpoint-2000"))  # the one graph both refer to
    else:
        for t in list_checkpoints(str(checkpoint)):
            corrupt(checkpoint / f"checkpoint-{t}")
    with pytest.raises(CheckpointError) as raised:
        StreamingContext.getOrCreate(str(checkpoint), not_called)
    message = str(raised.value)
    assert str(checkpoint) in message and "no usable checkpoint" in message
    assert "checkpoint-1000" in message and "checkpoint-2000" in message  # what is wrong, file by file


def test_checkpoint_of_an_unknown_data_format_is_an_error(msc: SparkContext, tmp_path: Path) -> None:
    write_checkpoint(str(tmp_path), 1000, {"format": 99}, b"graph")
    with pytest.raises(CheckpointError, match=r"format 99.*new checkpoint directory"):
        StreamingContext.getOrCreate(str(tmp_path), not_called)


def test_checkpoint_data_is_plain_msgpack_apart_from_the_pickled_graph(msc: SparkContext, tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoint"
    run_to(build(msc, checkpoint, tmp_path / "out"), 4)
    found = read_checkpoint(checkpoint_path(str(checkpoint), 4000))
    data = found.data
    assert data["format"] == 1 and data["time_ms"] == 4000 and data["batch_ms"] == 1000 and data["zero_ms"] == 0
    assert data["pending"] == [] and data["master"] == "local"
    assert ["spark.streaming.clock", "manual"] in data["conf"]
    assert data["inputs"] and all(isinstance(v, dict) for v in data["inputs"].values())
    # The state checkpointed at batch 3 is referenced by its directory, which exists.
    directories = [d for files in data["nodes"].values() for d in files.values()]
    assert directories and all(os.path.isdir(d) for d in directories)
    # Plain types only: it round-trips through msgpack without any code.
    assert msgpack.unpackb(msgpack.packb(data), strict_map_key=False) == data
    assert isinstance(found.graph, bytes) and found.graph


GATE = threading.Event()


def wait_for_gate(time: Any, rdd: Any) -> None:
    """Blocks batch 2 until the test opens the gate (referenced by name from the checkpoint)."""
    if round(time.timestamp()) == 2 and not GATE.wait(DEADLINE):
        raise AssertionError("the test never opened the gate")


def test_checkpoints_are_written_after_generation_and_after_completion(msc: SparkContext, tmp_path: Path) -> None:
    GATE.clear()
    checkpoint = tmp_path / "checkpoint"
    ssc = build(msc, checkpoint, tmp_path / "out")
    ssc.queueStream([[1]]).foreachRDD(wait_for_gate)
    ssc.start()
    try:
        advance_batches(ssc, 1)
        manual_clock(ssc).set_time(2000)
        path = checkpoint_path(str(checkpoint), 2000)
        wait_until(lambda: os.path.exists(path), DEADLINE, "the checkpoint of generated batch 2 exists")
        assert read_checkpoint(path).data["pending"] == [2000]  # generated, not completed
        GATE.set()
        assert ssc._engine.scheduler.wait_batch_done(2000, DEADLINE)
        # Rewritten once the batch completed, by the writer thread (not before completion).
        wait_until(lambda: read_checkpoint(path).data["pending"] == [], DEADLINE,
                   "the checkpoint of batch 2 is rewritten without it pending")
    finally:
        GATE.set()
        ssc.stop(stopSparkContext=False)


# =========================================================================== getOrCreate


def test_get_or_create_without_checkpoint_calls_setup_and_checkpoints_to_the_path(
    msc: SparkContext, tmp_path: Path
) -> None:
    checkpoint = tmp_path / "new-checkpoint"
    calls: list[int] = []

    def setup() -> StreamingContext:
        calls.append(1)
        return build(msc, None, tmp_path / "out")

    ssc = StreamingContext.getOrCreate(str(checkpoint), setup)
    assert calls == [1]
    run_to(ssc, 2)
    assert list_checkpoints(str(checkpoint)) == [1000, 2000]


def test_get_or_create_keeps_the_directory_setup_chose(msc: SparkContext, tmp_path: Path) -> None:
    ssc = StreamingContext.getOrCreate(str(tmp_path / "unused"),
                                       lambda: build(msc, tmp_path / "chosen", tmp_path / "out"))
    run_to(ssc, 1)
    assert list_checkpoints(str(tmp_path / "chosen")) == [1000]
    assert list_checkpoints(str(tmp_path / "unused")) == []


def test_get_or_create_with_an_empty_directory_calls_setup(msc: SparkContext, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    calls: list[int] = []

    def setup() -> StreamingContext:
        calls.append(1)
        return build(msc, None, tmp_path / "out")

    StreamingContext.getOrCreate(str(tmp_path / "empty"), setup).stop(stopSparkContext=False)
    assert calls == [1]


def test_get_or_create_rejects_a_setup_that_returns_no_context(msc: SparkContext, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="setupFunc must return a StreamingContext"):
        StreamingContext.getOrCreate(str(tmp_path), lambda: "not a context")  # type: ignore[arg-type, return-value]


def test_get_or_create_with_a_checkpoint_does_not_call_setup_and_reuses_the_spark_context(
    msc: SparkContext, tmp_path: Path, reference: Callable[[int], dict[str, list[str]]]
) -> None:
    expected = reference(12)
    checkpoint, out = tmp_path / "checkpoint", tmp_path / "out"
    run_to(build(msc, checkpoint, out), 7)
    ssc = StreamingContext.getOrCreate(str(checkpoint), not_called)
    assert ssc.sparkContext is msc
    run_to(ssc, 12)
    assert outputs(out) == expected


def test_get_or_create_without_an_active_spark_context_rebuilds_it_from_the_checkpoint(
    make_sc: Callable[..., SparkContext], tmp_path: Path
) -> None:
    sc = make_sc("local", manual_conf().set("spark.dstreams.test.marker", "kept"))
    app_name = sc.appName
    checkpoint, out = tmp_path / "checkpoint", tmp_path / "out"
    run_to(build(sc, checkpoint, out), 3)
    sc.stop()
    ssc = StreamingContext.getOrCreate(str(checkpoint), not_called)
    rebuilt = ssc.sparkContext
    try:
        assert rebuilt is not sc and rebuilt is SparkContext._active_spark_context
        assert rebuilt.master == "local" and rebuilt.appName == app_name
        assert rebuilt.getConf().get("spark.dstreams.test.marker") == "kept"
        run_to(ssc, 5)
    finally:
        rebuilt.stop()
    assert [name for name in outputs(out) if name.startswith("totals-")] == [f"totals-{t}000" for t in range(1, 6)]


def test_get_active_or_create(msc: SparkContext, tmp_path: Path) -> None:
    made: list[StreamingContext] = []

    def setup() -> StreamingContext:
        made.append(build(msc, tmp_path / "checkpoint", tmp_path / "out"))
        return made[-1]

    first = StreamingContext.getActiveOrCreate(None, setup)
    assert made == [first]
    first.start()
    try:
        assert StreamingContext.getActiveOrCreate(str(tmp_path / "checkpoint"), not_called) is first
        advance_batches(first, 1)
    finally:
        first.stop(stopSparkContext=False)
    second = StreamingContext.getActiveOrCreate(str(tmp_path / "checkpoint"), not_called)  # from the checkpoint
    assert second is not first and len(made) == 1
    second.stop(stopSparkContext=False)


def test_recovering_twice_equals_an_uninterrupted_run(
    msc: SparkContext, tmp_path: Path, reference: Callable[[int], dict[str, list[str]]]
) -> None:
    """Stop, recover, run one batch, stop again before the state's next RDD checkpoint, recover.

    By batch 13 the queue no longer remembers the first batches, so the second recovery
    must start from the RDD checkpoints the first one restored.
    """
    expected = reference(20)
    checkpoint, out = tmp_path / "checkpoint", tmp_path / "out"
    run_to(build(msc, checkpoint, out), 13)  # the totals were last checkpointed at batch 12
    run_to(StreamingContext.getOrCreate(str(checkpoint), not_called), 14)
    latest = read_latest(str(checkpoint))
    assert latest is not None
    referenced = latest.data["nodes"]
    run_to(StreamingContext.getOrCreate(str(checkpoint), not_called), 20)
    assert outputs(out) == expected, (
        f"after the first recovery, checkpoint-{latest.time_ms} refers to these RDD checkpoints: {referenced}")


# =========================================================================== output during recovery


class BatchTimes(StreamingListener):
    def __init__(self) -> None:
        self.times: list[int] = []
        self.lock = threading.Lock()

    def onBatchCompleted(self, batchCompleted: Any) -> None:
        with self.lock:
            self.times.append(batchCompleted.batchInfo().batchTime().milliseconds())


def _snapshot(out: Path) -> dict[str, tuple[int, bytes | None]]:
    found = {}
    for path in [out, *sorted(out.rglob("*"))]:
        stat = path.stat()
        found[str(path)] = (stat.st_mtime_ns, path.read_bytes() if path.is_file() else None)
    return found


def test_replaying_a_finished_batch_does_not_write_its_output_again(msc: SparkContext, tmp_path: Path) -> None:
    checkpoint, out = tmp_path / "checkpoint", tmp_path / "out"
    run_to(build(msc, checkpoint, out), 4)
    before = _snapshot(out)
    ssc = StreamingContext.getOrCreate(str(checkpoint), not_called)
    listener = BatchTimes()
    ssc.addStreamingListener(listener)
    ssc.start()
    try:
        advance_batches(ssc, 0)  # the replay of batch 4, the last checkpoint's batch
        wait_until(lambda: 4000 in listener.times, DEADLINE, "the replayed batch 4 completed")
        assert ssc._engine.waiter.error is None
        assert _snapshot(out) == before
        advance_batches(ssc, 1)
    finally:
        ssc.stop(stopSparkContext=False)
    assert (out / "totals-5000" / "_SUCCESS").exists()


# =========================================================================== errors at start()


STATEFUL = [
    pytest.param(lambda s: s.updateStateByKey(running_sum), "updateStateByKey", id="updateStateByKey"),
    pytest.param(lambda s: s.mapWithState(StateSpec.function(count)), "mapWithState", id="mapWithState"),
    pytest.param(lambda s: s.reduceByKeyAndWindow(add, sub, 5, 1), "reduceByKeyAndWindow", id="window-with-inverse"),
    pytest.param(lambda s: s.countByValueAndWindow(5, 1), "reduceByKeyAndWindow", id="countByValueAndWindow"),
]


@pytest.mark.parametrize("operation, name", STATEFUL)
def test_stateful_stream_without_checkpoint_directory_fails_at_start(
    msc: SparkContext, operation: Callable[[Any], Any], name: str
) -> None:
    ssc = StreamingContext(msc, 1)
    operation(ssc.queueStream([[("a", 1)]])).pprint()
    expected = (r"The checkpoint directory has not been set\. "
                r"Please set it by StreamingContext\.checkpoint\(\)")
    with pytest.raises(StreamingStateError, match=expected) as raised:
        ssc.start()
    assert name in str(raised.value)
    assert StreamingContext.getActive() is None


def test_stateless_stream_without_checkpoint_directory_starts(msc: SparkContext) -> None:
    ssc = StreamingContext(msc, 1)
    ssc.queueStream([[("a", 1)]]).reduceByKeyAndWindow(add, None, 5, 1).pprint()
    ssc.start()
    ssc.stop(stopSparkContext=False)


def test_transform_capturing_the_spark_context_fails_at_start_naming_the_function(
    msc: SparkContext, tmp_path: Path
) -> None:
    ssc = StreamingContext(msc, 1)
    ssc.checkpoint(str(tmp_path))

    def parallelize_with_captured_context(rdd: Any) -> Any:
        return msc.parallelize(rdd.collect())

    ssc.queueStream([[1]]).transform(parallelize_with_captured_context).pprint()
    with pytest.raises(StreamingStateError) as raised:
        ssc.start()
    message = str(raised.value)
    assert "SparkContext" in message and "checkpoint" in message
    assert "parallelize_with_captured_context" in message, message


def test_output_capturing_the_streaming_context_fails_at_start_naming_the_function(
    msc: SparkContext, tmp_path: Path
) -> None:
    ssc = StreamingContext(msc, 1)
    ssc.checkpoint(str(tmp_path))

    def print_context_state(rdd: Any) -> None:
        print(ssc)

    ssc.queueStream([[1]]).foreachRDD(print_context_state)
    with pytest.raises(StreamingStateError) as raised:
        ssc.start()
    message = str(raised.value)
    assert "StreamingContext" in message and "checkpoint" in message
    assert "print_context_state" in message, message


def test_default_checkpoint_interval_is_the_smallest_multiple_of_the_slide_of_at_least_10_s(
    msc: SparkContext, tmp_path: Path
) -> None:
    ssc = StreamingContext(msc, 3)
    ssc.checkpoint(str(tmp_path))
    ssc.queueStream([[("a", 1)]]).updateStateByKey(running_sum).pprint()
    ssc.start()
    try:
        advance_batches(ssc, 9)
    finally:
        ssc.stop(stopSparkContext=False)
    latest = read_latest(str(tmp_path))
    assert latest is not None and latest.time_ms == 27000
    assert sorted(int(t) for files in latest.data["nodes"].values() for t in files) == [12000, 24000]
