"""RDDActions on ``local`` and ``local[2]``: PySpark's semantics, errors and file formats.

The broad "equals plain Python" properties live in ``tests/property``; this module pins
the details: error messages, take's incremental scan, tree reductions, sampling
determinism, the saved-file layout and the ids of zipWithIndex/zipWithUniqueId.
"""

from __future__ import annotations

import bz2
import gzip
import operator
import os
import pickle
import zlib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest


def _append(acc: list[int], x: int) -> list[int]:
    acc.append(x)
    return acc


def _extend(a: list[int], b: list[int]) -> list[int]:
    a.extend(b)
    return a


# --- reductions ------------------------------------------------------------------------


def test_reduce_empty_message(ctx: Any) -> None:
    with pytest.raises(ValueError, match=r"Can not reduce\(\) empty RDD"):
        ctx.parallelize([], 3).reduce(operator.add)
    with pytest.raises(ValueError, match=r"Can not reduce\(\) empty RDD"):
        ctx.parallelize([], 3).treeReduce(operator.add)


def test_reduce_keeps_none_results(ctx: Any) -> None:
    assert ctx.parallelize([1, 2, 3], 3).reduce(lambda a, b: None) is None


@pytest.mark.parametrize("num", [1, 3, 10, 23])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_tree_reduce_and_aggregate(ctx: Any, num: int, depth: int) -> None:
    data = list(range(-7, 40))
    rdd = ctx.parallelize(data, num)
    assert rdd.treeReduce(operator.add, depth) == sum(data)
    assert rdd.treeAggregate(0, operator.add, operator.add, depth) == sum(data)
    merged = rdd.treeAggregate([], _append, _extend, depth)
    assert sorted(merged) == data


def test_tree_depth_must_be_positive(ctx: Any) -> None:
    rdd = ctx.parallelize([1, 2])
    with pytest.raises(ValueError, match="Depth cannot be smaller than 1 but got 0"):
        rdd.treeReduce(operator.add, 0)
    with pytest.raises(ValueError, match="Depth cannot be smaller than 1"):
        rdd.treeAggregate(0, operator.add, operator.add, 0)


def test_fold_and_aggregate_with_mutable_zero(ctx: Any) -> None:
    zero: list[int] = []
    rdd = ctx.parallelize(range(10), 4)
    assert sorted(rdd.aggregate(zero, _append, _extend)) == list(range(10))
    assert sorted(rdd.map(lambda x: [x]).fold(zero, _extend)) == list(range(10))
    assert zero == []
    assert ctx.parallelize([], 2).fold(0, operator.add) == 0


def test_max_min_with_key(ctx: Any) -> None:
    rdd = ctx.parallelize([1.0, 5.0, 43.0, 10.0], 2)
    assert rdd.max() == 43.0 and rdd.max(key=str) == 5.0
    assert rdd.min() == 1.0 and rdd.min(key=lambda x: -x) == 43.0
    with pytest.raises(ValueError, match="empty"):
        ctx.parallelize([]).max()


# --- take and friends ------------------------------------------------------------------


def test_take_scans_incrementally(ctx: Any) -> None:
    rdd = ctx.parallelize(range(100), 20)
    assert rdd.take(0) == []
    assert rdd.take(3) == [0, 1, 2]
    assert rdd.take(1000) == list(range(100))
    sparse = rdd.filter(lambda x: x >= 95)
    assert sparse.take(2) == [95, 96]


def test_first_and_is_empty(ctx: Any) -> None:
    assert ctx.parallelize([], 4).isEmpty()
    assert ctx.parallelize([1], 4).isEmpty() is False
    assert ctx.parallelize([7, 8], 4).first() == 7
    with pytest.raises(ValueError, match="RDD is empty"):
        ctx.parallelize([], 2).first()


def test_top_and_take_ordered(ctx: Any) -> None:
    rdd = ctx.parallelize([10, 4, 2, 12, 3], 3)
    assert rdd.top(3) == [12, 10, 4]
    assert rdd.top(2, key=str) == [4, 3]
    assert rdd.takeOrdered(2) == [2, 3]
    assert rdd.takeOrdered(2, key=lambda x: -x) == [12, 10]
    assert ctx.parallelize([], 2).top(2) == []
    with pytest.raises(ValueError, match="cannot be negative"):
        rdd.takeOrdered(-1)


def test_count_by_value_is_a_defaultdict(ctx: Any) -> None:
    counts = ctx.parallelize(["a", "b", "a"], 2).countByValue()
    assert isinstance(counts, defaultdict)
    assert counts == {"a": 2, "b": 1} and counts["missing"] == 0


def test_foreach_and_foreach_partition_run_in_tasks(ctx: Any, tmp_path: Path) -> None:
    out = str(tmp_path)

    def touch(x: int) -> None:
        Path(out, f"e{x}").touch()

    def touch_partition(it: Any) -> Any:
        # a generator function: its body only runs if the iterable is consumed
        for x in it:
            Path(out, f"p{x}").touch()
            yield x

    rdd = ctx.parallelize(range(6), 3)
    assert rdd.foreach(touch) is None
    assert rdd.foreachPartition(touch_partition) is None
    names = set(os.listdir(out))
    assert names == {f"e{i}" for i in range(6)} | {f"p{i}" for i in range(6)}


# --- sampling ----------------------------------------------------------------------------


def test_sample_is_deterministic_and_validated(ctx: Any) -> None:
    rdd = ctx.parallelize(range(1000), 4)
    a = rdd.sample(False, 0.1, 42).collect()
    assert a == rdd.sample(False, 0.1, 42).collect()
    assert 50 < len(a) < 150 and a == sorted(a)
    assert rdd.sample(False, 0.0, 1).count() == 0
    assert rdd.sample(False, 1.0, 1).count() == 1000
    with_replacement = rdd.sample(True, 2.0, 3).collect()
    assert 1700 < len(with_replacement) < 2300
    unseeded = rdd.sample(False, 0.5)
    assert unseeded.collect() == unseeded.collect()  # seed fixed when sample() is called
    with pytest.raises(ValueError, match="Fraction must be nonnegative"):
        rdd.sample(False, -0.1)


def test_take_sample(ctx: Any) -> None:
    rdd = ctx.parallelize(range(10), 2)
    assert len(rdd.takeSample(True, 20, 1)) == 20
    five = rdd.takeSample(False, 5, 2)
    assert len(five) == 5 and len(set(five)) == 5 and set(five) <= set(range(10))
    assert sorted(rdd.takeSample(False, 15, 3)) == list(range(10))
    assert rdd.takeSample(False, 5, 7) == rdd.takeSample(False, 5, 7)
    assert rdd.takeSample(False, 0) == [] and ctx.parallelize([], 2).takeSample(True, 3) == []
    with pytest.raises(ValueError, match="negative"):
        rdd.takeSample(False, -1)


# --- derived transformations --------------------------------------------------------------


def test_set_operations(ctx: Any) -> None:
    a = ctx.parallelize([1, 10, 2, 3, 4, 5, 1], 3)
    b = ctx.parallelize([1, 6, 2, 3, 7, 8], 2)
    assert sorted(a.distinct().collect()) == [1, 2, 3, 4, 5, 10]
    assert a.distinct(5).getNumPartitions() == 5
    assert sorted(a.intersection(b).collect()) == [1, 2, 3]
    assert sorted(a.subtract(b).collect()) == [4, 5, 10]
    assert a.subtract(b, 4).getNumPartitions() == 4
    dup = ctx.parallelize([4, 4, 1], 2)
    assert sorted(dup.subtract(b).collect()) == [4, 4]  # duplicates are kept


def test_key_by_and_group_by(ctx: Any) -> None:
    rdd = ctx.parallelize([1, 1, 2, 3, 5, 8], 3)
    assert rdd.keyBy(lambda x: x % 3).collect() == [(x % 3, x) for x in [1, 1, 2, 3, 5, 8]]
    grouped = rdd.groupBy(lambda x: x % 2, 4)
    assert grouped.getNumPartitions() == 4
    assert sorted((k, sorted(v)) for k, v in grouped.collect()) == [(0, [2, 8]), (1, [1, 1, 3, 5])]


@pytest.mark.parametrize("num", [1, 3, 7])
def test_zip_with_index_and_unique_id(ctx: Any, num: int) -> None:
    data = list("abcdefghij")
    rdd = ctx.parallelize(data, num)
    assert rdd.zipWithIndex().collect() == [(x, i) for i, x in enumerate(data)]
    ids = rdd.zipWithUniqueId().collect()
    assert [x for x, _ in ids] == data and len({i for _, i in ids}) == len(data)
    expected = [
        (x, k * num + p) for p, part in enumerate(rdd.glom().collect()) for k, x in enumerate(part)
    ]
    assert ids == expected


def test_zip_with_unique_id_like_pyspark(ctx: Any) -> None:
    rdd = ctx.parallelize(["a", "b", "c", "d", "e"], 3)
    assert rdd.zipWithUniqueId().collect() == [("a", 0), ("b", 1), ("c", 4), ("d", 2), ("e", 5)]


# --- saving ------------------------------------------------------------------------------


def test_save_as_text_file_layout(ctx: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    ctx.parallelize(["a", 1, "é", b"raw", (1, 2)], 3).saveAsTextFile(str(out))
    assert sorted(os.listdir(out)) == ["_SUCCESS", "part-00000", "part-00001", "part-00002"]
    text = b"".join((out / f"part-0000{i}").read_bytes() for i in range(3))
    assert text == "a\n1\né\nraw\n(1, 2)\n".encode()
    assert (out / "_SUCCESS").read_bytes() == b""


@pytest.mark.parametrize(
    "codec, suffix, decompress",
    [
        ("org.apache.hadoop.io.compress.GzipCodec", ".gz", gzip.decompress),
        ("org.apache.hadoop.io.compress.BZip2Codec", ".bz2", bz2.decompress),
        ("org.apache.hadoop.io.compress.DefaultCodec", ".deflate", zlib.decompress),
    ],
)
def test_save_as_text_file_compressed(
    ctx: Any, tmp_path: Path, codec: str, suffix: str, decompress: Any
) -> None:
    out = tmp_path / "out"
    ctx.parallelize(range(5), 2).saveAsTextFile(str(out), codec)
    parts = sorted(p for p in os.listdir(out) if p.startswith("part-"))
    assert parts == [f"part-00000{suffix}", f"part-00001{suffix}"]
    lines = b"".join(decompress((out / p).read_bytes()) for p in parts)
    assert lines == b"0\n1\n2\n3\n4\n"
    assert all(b".tmp" not in (out / p).read_bytes() for p in parts)  # no temp name in headers


def test_save_refuses_existing_dir_and_unknown_codec(ctx: Any, tmp_path: Path) -> None:
    rdd = ctx.parallelize([1])
    with pytest.raises(FileExistsError, match="Output directory .* already exists"):
        rdd.saveAsTextFile(str(tmp_path))
    with pytest.raises(FileExistsError, match="already exists"):
        rdd.saveAsPickleFile(str(tmp_path))
    with pytest.raises(ValueError, match="compressionCodecClass"):
        rdd.saveAsTextFile(str(tmp_path / "x"), "LzoCodec")
    assert not (tmp_path / "x").exists()


def test_failed_save_leaves_no_output(ctx: Any, tmp_path: Path) -> None:
    def boom(x: int) -> int:
        if x == 3:
            raise KeyError("boom")
        return x

    out = tmp_path / "out"
    with pytest.raises(KeyError):
        ctx.parallelize(range(6), 2).map(boom).saveAsTextFile(str(out))
    assert not out.exists()


@pytest.mark.parametrize("batch", [1, 3, 10, 0])
def test_save_as_pickle_file_frames(ctx: Any, tmp_path: Path, batch: int) -> None:
    out = tmp_path / "out"
    data = [("k", i, {"v": [i]}) for i in range(11)]
    ctx.parallelize(data, 2).saveAsPickleFile(str(out), batch)
    records = []
    for part in sorted(p for p in os.listdir(out) if p.startswith("part-")):
        with open(out / part, "rb") as f:
            while True:
                try:
                    frame = pickle.load(f)
                except EOFError:
                    break
                assert isinstance(frame, list) and (batch == 0 or len(frame) <= batch)
                records.extend(frame)
    assert records == data
    assert (out / "_SUCCESS").exists()
    assert not [p for p in os.listdir(out) if p.startswith(".")]  # no temporary files left


def test_pickle_file_round_trip(ctx: Any, tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    data = [(i, str(i)) for i in range(20)]
    ctx.parallelize(data, 3).saveAsPickleFile(out, 4)
    assert Counter(ctx.pickleFile(out).collect()) == Counter(data)
    with pytest.raises(ValueError, match="batchSize"):
        ctx.parallelize(data).saveAsPickleFile(str(tmp_path / "y"), -1)


@pytest.mark.parametrize("container", [
    [1, 2, 3, 4, 5], (1, None, 3), range(3, 40, 7), "abcdef", "h\u00e9llo", b"bytes",
    {1, 2, 3}, {"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2}.values(), {"a": 1, "b": 2}.items(), [],
], ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("consumed", [0, 1])
def test_count_partition_of_a_container_is_its_remaining_length(container: Any, consumed: int) -> None:
    from rdd.task_functions import count_partition

    iterator = iter(container)
    for _ in range(min(consumed, len(container))):  # type: ignore[arg-type]
        next(iterator)
    expected = len(list(iter(container))) - min(consumed, len(container))  # type: ignore[arg-type]
    assert count_partition(iterator) == expected


def test_count_partition_steps_through_other_iterators() -> None:
    from rdd.task_functions import count_partition

    seen: list[int] = []
    assert count_partition(seen.append(x) or x for x in range(7)) == 7
    assert seen == list(range(7)), "a generator's elements are all produced"
    assert count_partition(map(str, [1, 2])) == 2


def test_count_of_reduced_and_parallelized_partitions(ctx: Any) -> None:
    words = ["a", "b", "a", "c", "b", "a"] * 50
    assert ctx.parallelize(words, 3).count() == 300
    assert ctx.parallelize(words, 3).map(lambda w: (w, 1)).reduceByKey(operator.add, 2).count() == 3
    assert ctx.parallelize(range(10), 4).filter(lambda x: x % 2).count() == 5
