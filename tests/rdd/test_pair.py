"""PairRDDFunctions on ``local`` and ``local[2]``: partitioning rules and PySpark's shapes.

The broad "equals plain Python" properties live in ``tests/property/test_rdd_pair.py``;
this module pins partition counts, partitioner reuse, ResultIterable, lookup and the
less common methods (reduceByKeyLocally, groupWith, subtractByKey).
"""

from __future__ import annotations

import operator
from typing import Any

import pytest

from rdd.partitioner import Partitioner, portable_hash
from rdd.resultiterable import ResultIterable

PAIRS = [("a", 1), ("b", 4), ("b", 5), ("a", 2), ("c", 7)]
GROUPED = [("a", [1, 2]), ("b", [4, 5]), ("c", [7])]


def _by_key(records: list[Any]) -> list[Any]:
    return sorted(records, key=repr)


def test_default_partitions_follow_the_parent(ctx: Any) -> None:
    rdd = ctx.parallelize(PAIRS, 3)
    assert rdd.reduceByKey(operator.add).getNumPartitions() == 3
    assert rdd.groupByKey().getNumPartitions() == 3
    assert rdd.reduceByKey(operator.add, 5).getNumPartitions() == 5
    other = ctx.parallelize(PAIRS, 2)
    # PySpark joins group the union of both sides: 3 + 2 partitions.
    assert rdd.join(other).getNumPartitions() == 5
    assert rdd.cogroup(other, 4).getNumPartitions() == 4


def test_partition_by_places_and_reuses(ctx: Any) -> None:
    rdd = ctx.parallelize(PAIRS, 2)
    parted = rdd.partitionBy(3)
    assert parted.partitioner == Partitioner(3, portable_hash)
    for index, part in enumerate(parted.glom().collect()):
        assert all(portable_hash(k) % 3 == index for k, _ in part)
    assert parted.partitionBy(3) is parted
    assert parted.partitionBy(2) is not parted
    with pytest.raises(ValueError, match="numPartitions"):
        rdd.partitionBy(0)


def test_combine_on_a_partitioned_rdd_keeps_placement(ctx: Any) -> None:
    parted = ctx.parallelize(PAIRS, 2).partitionBy(3)
    reduced = parted.reduceByKey(operator.add, 3)
    assert reduced.partitioner == parted.partitioner
    for index, part in enumerate(reduced.glom().collect()):
        assert all(portable_hash(k) % 3 == index for k, _ in part)
    assert sorted(reduced.collect()) == [("a", 3), ("b", 9), ("c", 7)]
    grouped = parted.groupByKey(3)
    assert sorted((k, sorted(v)) for k, v in grouped.collect()) == GROUPED


def test_group_by_key_values_are_result_iterables(ctx: Any) -> None:
    grouped = dict(ctx.parallelize(PAIRS, 2).groupByKey().collect())
    assert all(isinstance(v, ResultIterable) for v in grouped.values())
    assert sorted(grouped["b"]) == [4, 5] and len(grouped["a"]) == 2


def test_combine_aggregate_fold(ctx: Any) -> None:
    rdd = ctx.parallelize(PAIRS, 3)
    combined = rdd.combineByKey(lambda v: [v], lambda c, v: c + [v], lambda a, b: a + b)
    assert sorted((k, sorted(v)) for k, v in combined.collect()) == GROUPED
    zero: list[int] = []
    agg = rdd.aggregateByKey(zero, lambda acc, v: acc + [v], lambda a, b: a + b, 2)
    assert agg.getNumPartitions() == 2 and zero == []
    assert sorted((k, sorted(v)) for k, v in agg.collect()) == GROUPED
    assert sorted(rdd.foldByKey(0, operator.add).collect()) == [("a", 3), ("b", 9), ("c", 7)]


def test_reduce_by_key_locally(ctx: Any) -> None:
    assert ctx.parallelize(PAIRS, 3).reduceByKeyLocally(operator.add) == {"a": 3, "b": 9, "c": 7}
    assert ctx.parallelize([], 2).reduceByKeyLocally(operator.add) == {}


def test_values_functions_keep_the_partitioner(ctx: Any) -> None:
    parted = ctx.parallelize(PAIRS, 2).partitionBy(2)
    assert parted.mapValues(str).partitioner == parted.partitioner
    assert parted.flatMapValues(lambda v: [v, v]).partitioner == parted.partitioner
    assert sorted(parted.flatMapValues(range).values().collect()) == sorted(
        x for _, v in PAIRS for x in range(v)
    )
    assert sorted(parted.keys().collect()) == sorted(k for k, _ in PAIRS)


def test_joins(ctx: Any) -> None:
    x = ctx.parallelize([("a", 1), ("b", 4)], 2)
    y = ctx.parallelize([("a", 2), ("a", 3), ("c", 8)], 3)
    assert sorted(x.join(y).collect()) == [("a", (1, 2)), ("a", (1, 3))]
    assert sorted(x.leftOuterJoin(y).collect()) == [("a", (1, 2)), ("a", (1, 3)), ("b", (4, None))]
    assert sorted(x.rightOuterJoin(y).collect()) == [("a", (1, 2)), ("a", (1, 3)), ("c", (None, 8))]
    assert _by_key(x.fullOuterJoin(y, 2).collect()) == _by_key(
        [("a", (1, 2)), ("a", (1, 3)), ("b", (4, None)), ("c", (None, 8))]
    )


def test_join_of_co_partitioned_inputs_keeps_the_partitioner(ctx: Any) -> None:
    x = ctx.parallelize([("a", 1), ("b", 4)], 2).partitionBy(3)
    y = ctx.parallelize([("a", 2), ("c", 8)], 2).partitionBy(3)
    joined = x.join(y)
    assert joined.getNumPartitions() == 3
    assert joined.partitioner == x.partitioner
    assert joined.collect() == [("a", (1, 2))]


def test_cogroup_and_group_with(ctx: Any) -> None:
    w = ctx.parallelize([("a", 5), ("b", 6)], 1)
    x = ctx.parallelize([("a", 1), ("b", 4)], 2)
    y = ctx.parallelize([("a", 2)], 1)
    z = ctx.parallelize([("d", 0)], 1)
    co = sorted((k, tuple(map(list, v))) for k, v in x.cogroup(y).collect())
    assert co == [("a", ([1], [2])), ("b", ([4], []))]
    many = sorted((k, tuple(map(list, v))) for k, v in w.groupWith(x, y, z).collect())
    assert many == [
        ("a", ([5], [1], [2], [])),
        ("b", ([6], [4], [], [])),
        ("d", ([], [], [], [0])),
    ]


def test_subtract_by_key(ctx: Any) -> None:
    x = ctx.parallelize([("a", 1), ("b", 4), ("b", 5), ("a", 2)], 2)
    y = ctx.parallelize([("a", 3), ("c", None)], 2)
    assert sorted(x.subtractByKey(y).collect()) == [("b", 4), ("b", 5)]
    assert x.subtractByKey(y, 3).getNumPartitions() == 3


def test_count_by_key_collect_as_map_lookup(ctx: Any) -> None:
    rdd = ctx.parallelize(PAIRS, 3)
    assert rdd.countByKey() == {"a": 2, "b": 2, "c": 1}
    assert rdd.countByKey()["zzz"] == 0
    assert rdd.collectAsMap() == {"a": 2, "b": 5, "c": 7}
    assert sorted(rdd.lookup("b")) == [4, 5] and rdd.lookup("nope") == []
    parted = rdd.partitionBy(4)
    assert sorted(parted.lookup("b")) == [4, 5] and parted.lookup("nope") == []
    numbers = ctx.parallelize([(i, str(i)) for i in range(100)], 4)
    assert numbers.lookup(42) == ["42"]
    assert numbers.reduceByKey(operator.add).lookup(42) == ["42"]


def test_an_rdd_without_partitions_shuffles_into_none(ctx: Any) -> None:
    empty = ctx.emptyRDD()
    assert empty.distinct().collect() == [] and empty.distinct().getNumPartitions() == 0
    assert empty.reduceByKey(operator.add).collect() == []
    assert empty.groupByKey().collect() == [] and empty.join(empty).collect() == []
    assert empty.partitionBy(0).collect() == []
    assert sorted(empty.cogroup(ctx.parallelize([(1, 2)], 1)).mapValues(lambda v: [list(v[0]), list(v[1])])
                  .collect()) == [(1, [[], [2]])]
    with pytest.raises(ValueError, match="cannot place key 'a' into 0 partitions"):
        Partitioner(0)("a")
