"""RDD checkpointing: setCheckpointDir, checkpoint, isCheckpointed, getCheckpointFile.

A checkpoint is written after the first action on a marked RDD; from then on the RDD
reads its partitions back from files and its lineage is truncated: the debug string
shrinks, upstream functions are not called again, results and the partitioner stay
the same. Runs on fresh ``local`` and ``local[2]`` contexts (the checkpoint directory is
context state).
"""

from __future__ import annotations

import operator
import os
from pathlib import Path
from typing import Any

import pytest

from tests.rdd.test_lineage import debug_text


def local_path(uri: str) -> str:
    return uri[len("file:"):] if uri.startswith("file:") else uri


@pytest.fixture(params=["local", "local[2]"])
def context(request: pytest.FixtureRequest, make_sc: Any) -> Any:
    """A fresh context per test: the checkpoint directory is per-context state."""
    return make_sc(request.param)


def counted_pipeline(sc: Any) -> tuple[Any, Any]:
    calls = sc.accumulator(0)

    def tag(x: int) -> tuple[int, int]:
        calls.add(1)
        return (x % 4, x)

    rdd = sc.parallelize(range(40), 4).map(tag).reduceByKey(operator.add, 3).mapValues(lambda v: v * 10)
    return rdd, calls


EXPECTED = {k: 10 * sum(x for x in range(40) if x % 4 == k) for k in range(4)}


def test_checkpoint_truncates_lineage(context: Any, tmp_path: Path) -> None:
    context.setCheckpointDir(str(tmp_path / "checkpoints"))
    rdd, calls = counted_pipeline(context)
    before = debug_text(rdd)
    partitioner = rdd.partitioner
    rdd.checkpoint()
    assert not rdd.isCheckpointed(), "nothing is written before an action"
    assert rdd.getCheckpointFile() is None
    assert dict(rdd.collect()) == EXPECTED
    assert rdd.isCheckpointed()
    after = debug_text(rdd)
    assert len(after.splitlines()) < len(before.splitlines()), (before, after)
    assert rdd.partitioner == partitioner
    assert rdd.getNumPartitions() == 3

    checkpoint_file = rdd.getCheckpointFile()
    assert isinstance(checkpoint_file, str)
    path = Path(local_path(checkpoint_file))
    assert path.exists()
    assert str(path).startswith(str(tmp_path / "checkpoints"))

    calls_after_first_action = calls.value
    assert dict(rdd.collect()) == EXPECTED
    assert rdd.mapValues(lambda v: v + 1).collectAsMap() == {k: v + 1 for k, v in EXPECTED.items()}
    assert calls.value == calls_after_first_action, "upstream functions are not called after the checkpoint"


def test_checkpointed_partitions_keep_their_contents(context: Any, tmp_path: Path) -> None:
    context.setCheckpointDir(str(tmp_path))
    rdd = context.parallelize(["é", "a", "鍵", "b", "🙂"], 3).map(lambda s: s * 2)
    before = rdd.glom().collect()
    rdd.checkpoint()
    rdd.count()
    assert rdd.isCheckpointed()
    assert rdd.glom().collect() == before


def test_checkpoint_without_a_directory_is_an_error(sc: Any) -> None:
    rdd = sc.parallelize([1, 2])
    with pytest.raises(Exception, match="(?i)setCheckpointDir|checkpoint dir"):
        rdd.checkpoint()
        rdd.count()


def test_get_checkpoint_dir(sc: Any, tmp_path: Path) -> None:
    assert sc.getCheckpointDir() is None
    sc.setCheckpointDir(str(tmp_path / "cp"))
    directory = sc.getCheckpointDir()
    assert directory is not None
    assert local_path(directory).startswith(str(tmp_path / "cp"))
    assert os.path.isdir(local_path(directory))


def test_cached_and_checkpointed(sc: Any, tmp_path: Path) -> None:
    """Caching before checkpointing (Spark's advice) computes the data once."""
    sc.setCheckpointDir(str(tmp_path))
    rdd, calls = counted_pipeline(sc)
    rdd.cache()
    rdd.checkpoint()
    assert dict(rdd.collect()) == EXPECTED
    assert rdd.isCheckpointed()
    assert calls.value == 40
    assert dict(rdd.collect()) == EXPECTED
    assert calls.value == 40
