"""What stateful streams and queueStream need of checkpoint directories, on ``local[2]``.

* A stateful stream (``updateStateByKey``, ``reduceByKeyAndWindow`` with an inverse
  function, ``mapWithState``) needs only the SparkContext's checkpoint directory
  (``sc.setCheckpointDir``), as in Spark: its RDDs are checkpointed there, no metadata
  checkpoint is written, and it computes what it computes with ``ssc.checkpoint``.
  With neither set, ``start()`` refuses with PySpark's message (the tests of that are in
  ``test_checkpoint.py``). These tests build their contexts themselves instead of
  using ``dstream.testing.run_batches``, which gives stateful graphs a scratch
  checkpoint directory and so would never meet the start-time check.
* ``ssc.checkpoint(dir)`` with a ``queueStream`` of RDDs runs (a warning is logged once),
  and only recovering from such a checkpoint fails, naming the queueStream.
"""

from __future__ import annotations

import logging
import operator
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf, SparkContext
from rdd.errors import CheckpointError

from dstream import StateSpec, StreamingContext
from dstream.checkpoint.files import list_checkpoints
from dstream.testing import advance_batches, collect_batches, manual_clock

BATCHES = 12
DATA = [[(f"k{(i + j) % 4}", i + j) for j in range(1 + i % 3)] for i in range(BATCHES)]


def running_sum(values: list[int], total: int | None) -> int:
    return (total or 0) + sum(values)


def count(key: str, value: int, state: Any) -> tuple[str, int]:
    total = (state.getOption() or 0) + value
    state.update(total)
    return (key, total)


STATEFUL = [
    pytest.param(lambda s: s.updateStateByKey(running_sum), id="updateStateByKey"),
    pytest.param(lambda s: s.mapWithState(StateSpec.function(count)), id="mapWithState"),
    pytest.param(lambda s: s.reduceByKeyAndWindow(operator.add, operator.sub, 5, 1),
                 id="window-with-inverse"),
]


def _run(sc: SparkContext, operation: Callable[[Any], Any],
         checkpoint: str | None) -> list[list[Any]]:
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    if checkpoint is not None:
        ssc.checkpoint(checkpoint)
    out = collect_batches(operation(ssc.queueStream(DATA)).checkpoint(3))
    ssc.start()
    try:
        advance_batches(ssc, BATCHES)
        assert ssc._engine.waiter.error is None, ssc._engine.waiter.error
    finally:
        ssc.stop(stopSparkContext=False)
    return [sorted(batch) for batch in out]


def not_called() -> StreamingContext:
    raise AssertionError("setupFunc must not be called when a checkpoint exists")


def _rdd_checkpoints(directory: Path) -> list[str]:
    return [root for root, _, names in os.walk(directory)
            if any(n.startswith("part-") for n in names)]


@pytest.mark.parametrize("operation", STATEFUL)
def test_a_stateful_stream_needs_only_the_spark_context_checkpoint_directory(
    make_sc: Callable[..., SparkContext], tmp_path: Path, operation: Callable[[Any], Any]
) -> None:
    sc = make_sc("local[2]")
    expected = _run(sc, operation, str(tmp_path / "with-metadata"))

    rdd_only = tmp_path / "rdd-only"
    sc.setCheckpointDir(str(rdd_only))
    assert _run(sc, operation, None) == expected
    assert list_checkpoints(str(rdd_only)) == []  # no metadata checkpoints
    assert _rdd_checkpoints(rdd_only), "no RDD was checkpointed to the SparkContext's directory"


def test_queue_stream_of_rdds_with_a_checkpoint_directory_runs_and_warns_once(
    make_sc: Callable[..., SparkContext], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sc = make_sc("local[2]", SparkConf().set("spark.streaming.clock", "manual"))
    ssc = StreamingContext(sc, 1)
    ssc.checkpoint(str(tmp_path))
    rdds = [sc.parallelize(batch, 2) for batch in DATA[:4]]
    out = collect_batches(ssc.queueStream(rdds).updateStateByKey(running_sum))
    with caplog.at_level(logging.WARNING, logger="dstream.inputs.queue"):
        ssc.start()
        try:
            advance_batches(ssc, 4)
            assert ssc._engine.waiter.error is None, ssc._engine.waiter.error
        finally:
            ssc.stop(stopSparkContext=False)
    warnings = [r for r in caplog.records if "queueStream" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert "cannot be recovered" in warnings[0].getMessage()
    totals: dict[str, int] = {}
    for batch in DATA[:4]:
        for key, value in batch:
            totals[key] = totals.get(key, 0) + value
    assert sorted(out[-1]) == sorted(totals.items())
    assert list_checkpoints(str(tmp_path))  # metadata checkpoints were written

    with pytest.raises(CheckpointError) as raised:
        StreamingContext.getOrCreate(str(tmp_path), not_called)
    message = str(raised.value)
    assert "queueStream (input 0)" in message and "RDDs" in message
    assert "cannot be recovered" in message
    assert str(tmp_path) in message
    assert StreamingContext.getActive() is None
