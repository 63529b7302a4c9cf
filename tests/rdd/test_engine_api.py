"""rdd.engine_api keeps the contracts it declares to the layers above the RDD facade."""

from __future__ import annotations

import pickle
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import rdd.aggregator
from rdd import CheckpointError, SerializationError, SparkContext, StorageLevel
from rdd import engine_api as api


class Squares(api.SourceNode):
    """A source node as a layer above writes one: ``n`` partitions of two squares each."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def make_partitions(self) -> list[api.Partition]:
        return [api.Partition(i) for i in range(self.n)]

    def compute(self, split: api.Partition, tctx: Any) -> Iterator[int]:
        return iter([(2 * split.index) ** 2, (2 * split.index + 1) ** 2])

    def describe(self) -> str:
        return "Squares"


def local_path(uri: str) -> str:
    return uri[len("file:"):] if uri.startswith("file:") else uri


def test_every_declared_name_exists() -> None:
    missing = [name for name in api.__all__ if not hasattr(api, name)]
    assert not missing


@pytest.mark.parametrize("master", ["local", "local[2]"])
def test_a_source_node_runs_as_an_rdd_on_the_workers(make_sc: Any, master: str) -> None:
    sc = make_sc(master)
    node = Squares(3)
    rdd = api.rdd_of(sc, node)
    assert rdd.getNumPartitions() == 3
    assert rdd.collect() == [0, 1, 4, 9, 16, 25]
    assert api.lineage_of(rdd) is node
    assert "Squares" in rdd.toDebugString().decode()


def test_a_source_node_must_define_its_partitions(sc: SparkContext) -> None:
    with pytest.raises(NotImplementedError):
        api.rdd_of(sc, api.SourceNode()).getNumPartitions()


def test_rdd_of_and_lineage_of_round_trip(sc: SparkContext) -> None:
    rdd = sc.parallelize([3, 1, 2], 2).map(lambda x: x * 10)
    node = api.lineage_of(rdd)
    again = api.rdd_of(sc, node)
    assert again is not rdd and api.lineage_of(again) is node
    assert again.id() == rdd.id()  # the id, cache and checkpoint are the node's
    assert again.collect() == [30, 10, 20]


def test_a_zip_partitions_node_zips_its_parents(sc: SparkContext) -> None:
    a = sc.parallelize([1, 2, 3, 4], 2)
    b = sc.parallelize([10, 20, 30, 40], 2)

    def add(split: int, iterators: list[Iterator[int]]) -> Iterator[int]:
        return (x + y for x, y in zip(*iterators))

    node = api.ZipPartitionsNode([api.lineage_of(a), api.lineage_of(b)], add)
    assert api.rdd_of(sc, node).collect() == [11, 22, 33, 44]


def test_checkpoint_files_read_back_and_verify(sc: SparkContext, tmp_path: Path) -> None:
    sc.setCheckpointDir(str(tmp_path))
    rdd = sc.parallelize(range(10), 3)
    rdd.checkpoint()
    assert rdd.count() == 10
    directory = local_path(rdd.getCheckpointFile() or "")
    assert api.verify_checkpoint_dir(directory) == 3
    back = api.checkpoint_file(sc, directory)
    assert back.collect() == list(range(10)) and back.getNumPartitions() == 3
    assert api.lineage_depth(api.lineage_of(back)) == 1
    with pytest.raises(CheckpointError):
        api.checkpoint_file(sc, str(tmp_path / "missing"))


def test_set_checkpoint_run_dir_restores_the_exact_previous_value(sc: SparkContext,
                                                                  tmp_path: Path) -> None:
    previous = sc.getCheckpointDir()
    sc.setCheckpointDir(str(tmp_path))
    assert sc.getCheckpointDir() != str(tmp_path)  # setCheckpointDir adds a run directory
    api.set_checkpoint_run_dir(sc, previous)
    assert sc.getCheckpointDir() == previous


def test_active_spark_context(make_sc: Any) -> None:
    sc = make_sc("local")
    assert api.active_spark_context() is sc
    sc.stop()
    assert api.active_spark_context() is None


def test_the_block_manager_stores_named_blocks(sc: SparkContext) -> None:
    manager = api.block_manager()
    assert manager is api.block_manager()
    manager.put("engine-api-test-0", [1, 2], StorageLevel.MEMORY_ONLY)
    try:
        assert manager.contains("engine-api-test-0")
        assert manager.get("engine-api-test-0") == [1, 2]
    finally:
        assert manager.remove("engine-api-test-0")
    assert manager.get("engine-api-test-0") is None



def test_removing_an_id_everywhere_runs_the_hooks_and_a_failing_hook_stops_no_other(make_sc: Any) -> None:
    sc = make_sc("local")  # the inline executor: the hooks run in this process, synchronously
    seen: list[tuple[str, int]] = []

    def failing(rdd_id: int) -> None:
        raise RuntimeError("a hook that fails")

    def recording(rdd_id: int) -> None:
        seen.append(("hook", rdd_id))

    api.add_rdd_removal_hook(failing)
    api.add_rdd_removal_hook(recording)
    api.add_rdd_removal_hook(recording)  # once only
    try:
        first, second = api.new_rdd_id(sc), api.new_rdd_id(sc)
        assert second > first
        assert sc.parallelize([1]).id() > second  # the counter RDDs draw from
        api.block_manager().put(f"rdd_{first}_0", [1], StorageLevel.MEMORY_ONLY)
        api.remove_rdd_everywhere(sc, first)
        assert not api.block_manager().contains(f"rdd_{first}_0")
        assert seen == [("hook", first)]
        sc.stop()
        api.remove_rdd_everywhere(sc, second)  # a stopped context: nothing left to drop
        assert seen == [("hook", first)]
    finally:
        from rdd.storage import block_manager

        block_manager._removal_hooks[:] = [h for h in block_manager._removal_hooks if h not in (failing, recording)]

def test_dumps_closure_pickles_functions_and_names_what_cannot_be() -> None:
    offset = 5
    assert pickle.loads(api.dumps_closure(lambda x: x + offset, "a test function"))(1) == 6
    lock = threading.Lock()
    with pytest.raises(SerializationError, match="a test function"):
        api.dumps_closure(lambda: lock, "a test function")


def test_process_is_alive() -> None:
    import os

    assert api.process_is_alive(os.getpid())
    assert not api.process_is_alive(2 ** 22 + 12345)  # above the default pid_max


def test_the_aggregation_helpers_are_the_ones_the_fast_paths_recognise() -> None:
    # The shuffle fast paths compare function objects: a copy would not be recognised.
    assert api.singleton_list is rdd.aggregator.singleton_list
    assert api.append_to_list is rdd.aggregator.append_to_list
    assert api.extend_list is rdd.aggregator.extend_list
    assert api.extend_list(api.append_to_list(api.singleton_list(1), 2), [3]) == [1, 2, 3]
    assert api.constant_pair_value(lambda x: (x, 1)) == 1
    assert api.constant_pair_value(lambda x: (x, x)) is None


def test_result_iterable_is_pysparks() -> None:
    values = api.ResultIterable([1, 2])
    assert list(values) == [1, 2] and len(values) == 2


def test_context_stopped(make_sc: Any) -> None:
    sc = make_sc("local")
    assert not api.context_stopped(sc)
    sc.stop()
    assert api.context_stopped(sc)
