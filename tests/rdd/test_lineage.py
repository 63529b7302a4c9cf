"""Lineage introspection: toDebugString, id, name/setName, getNumPartitions, partitioner,
context.

``toDebugString`` follows Spark's layout: one line per RDD, ``(n)`` partition counts,
and a ``+-`` marker where a shuffle dependency starts a new stage (deeper indentation
for the parent stage). PySpark returns it as UTF-8 ``bytes``; :func:`debug_text`
accepts ``bytes`` or ``str`` so the checks are about content.
"""

from __future__ import annotations

import operator
from typing import Any

import pytest


def debug_text(rdd: Any) -> str:
    text = rdd.toDebugString()
    return text.decode("utf-8") if isinstance(text, bytes) else text


def stage_boundaries(rdd: Any) -> int:
    return sum(1 for line in debug_text(rdd).splitlines() if "+-" in line)


# ------------------------------------------------------------------ toDebugString


def test_to_debug_string_is_utf8_bytes_like_pyspark(sc: Any) -> None:
    assert isinstance(sc.parallelize([1]).toDebugString(), bytes)


def test_narrow_lineage_has_one_stage(sc: Any) -> None:
    rdd = sc.parallelize(range(10), 3).map(lambda x: x + 1).filter(lambda x: x % 2 == 0).flatMap(lambda x: [x])
    text = debug_text(rdd)
    assert stage_boundaries(rdd) == 0, text
    assert text.startswith("(3)"), text
    assert len(text.splitlines()) >= 2, "one line per RDD of the lineage (fused or not)"


def test_a_shuffle_starts_a_new_stage(sc: Any) -> None:
    rdd = sc.parallelize(range(10), 3).map(lambda x: (x % 2, x)).reduceByKey(operator.add, 2)
    text = debug_text(rdd)
    assert stage_boundaries(rdd) == 1, text
    assert text.startswith("(2)"), "the result's partition count first"
    boundary = next(line for line in text.splitlines() if "+-" in line)
    assert "(3)" in boundary, "the parent stage has the parent's partition count"
    lines = text.splitlines()
    below = lines[lines.index(boundary) + 1:]
    indent = len(boundary) - len(boundary.lstrip())
    assert all(len(line) - len(line.lstrip()) > indent for line in below), "the parent stage is indented"


def test_two_shuffles_two_boundaries(sc: Any) -> None:
    rdd = (sc.parallelize(range(10), 3).map(lambda x: (x % 3, x)).groupByKey(2)
           .mapValues(len).map(lambda kv: (kv[1], kv[0])).sortByKey(numPartitions=2))
    assert stage_boundaries(rdd) >= 2, debug_text(rdd)


def test_union_lists_both_parents(sc: Any) -> None:
    a = sc.parallelize([1], 1).setName("left-parent")
    b = sc.parallelize([2], 1).setName("right-parent")
    text = debug_text(a.union(b))
    assert "left-parent" in text and "right-parent" in text


# ------------------------------------------------------------------ identity and names


def test_ids_are_unique_and_increase(sc: Any) -> None:
    a = sc.parallelize([1])
    b = a.map(lambda x: x)
    c = sc.parallelize([2])
    assert len({a.id(), b.id(), c.id()}) == 3
    assert a.id() < b.id() < c.id()
    assert a.id() == a.id()
    assert isinstance(a.id(), int)


def test_name_and_set_name(sc: Any) -> None:
    rdd = sc.parallelize([1, 2])
    assert rdd.name() is None
    assert rdd.setName("my numbers é") is rdd
    assert rdd.name() == "my numbers é"
    assert "my numbers é" in debug_text(rdd)
    assert rdd.map(lambda x: x).name() is None, "a child does not inherit the name"


def test_context_of_an_rdd(sc: Any) -> None:
    rdd = sc.parallelize([1])
    assert rdd.context is sc
    assert rdd.ctx is sc


# ------------------------------------------------------------------ partitions and partitioners


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda sc: sc.parallelize(range(10), 4).map(str), 4),
        (lambda sc: sc.parallelize(range(10), 4).filter(bool), 4),
        (lambda sc: sc.parallelize(range(10), 4).union(sc.parallelize([1], 3)), 7),
        (lambda sc: sc.parallelize(range(10), 4).cartesian(sc.parallelize([1], 3)), 12),
        (lambda sc: sc.parallelize(range(10), 4).coalesce(2), 2),
        (lambda sc: sc.parallelize(range(10), 2).coalesce(5), 2),
        (lambda sc: sc.parallelize(range(10), 2).coalesce(5, shuffle=True), 5),
        (lambda sc: sc.parallelize(range(10), 4).repartition(6), 6),
        (lambda sc: sc.parallelize(range(10), 4).map(lambda x: (x, x)).partitionBy(3), 3),
        (lambda sc: sc.parallelize(range(10), 4).map(lambda x: (x, x)).reduceByKey(max), 4),
        (lambda sc: sc.parallelize(range(10), 4).map(lambda x: (x, x)).groupByKey(5), 5),
        (lambda sc: sc.parallelize(range(10), 4).glom(), 4),
        (lambda sc: sc.emptyRDD(), 0),
    ],
)
def test_get_num_partitions(sc: Any, build: Any, expected: int) -> None:
    assert build(sc).getNumPartitions() == expected


def test_partitioner_propagation(sc: Any) -> None:
    pairs = sc.parallelize([(i % 3, i) for i in range(9)], 3)
    assert pairs.partitioner is None
    partitioned = pairs.partitionBy(4)
    assert partitioned.partitioner is not None
    assert partitioned.partitioner.numPartitions == 4
    assert partitioned.mapValues(str).partitioner == partitioned.partitioner
    assert partitioned.filter(lambda kv: True).partitioner == partitioned.partitioner
    assert partitioned.map(lambda kv: kv).partitioner is None
    assert partitioned.map(lambda kv: kv, preservesPartitioning=True).partitioner == partitioned.partitioner
    assert pairs.reduceByKey(operator.add, 2).partitioner.numPartitions == 2


def test_partition_by_an_equal_partitioner_adds_no_stage(sc: Any) -> None:
    """Spark skips the shuffle when the RDD is already partitioned the same way."""
    partitioned = sc.parallelize([(i, i) for i in range(9)], 3).partitionBy(4)
    again = partitioned.partitionBy(4)
    assert stage_boundaries(again) == stage_boundaries(partitioned) == 1
    assert sorted(again.collect()) == sorted(partitioned.collect())


def _deep_shuffles(sc: Any, levels: int) -> Any:
    rdd = sc.parallelize([(1, 1), (2, 2)], 2)
    for i in range(levels):
        rdd = rdd.partitionBy(1 + i % 2)  # the count alternates, so every step is a shuffle
    return rdd


def test_to_debug_string_of_a_lineage_thousands_of_shuffles_deep(sc: Any) -> None:
    lines = _deep_shuffles(sc, 3000).toDebugString().decode().splitlines()
    assert len(lines) == 3001
    assert lines[-1].startswith(" " * 4 * 2999 + " +-(2) ") and "ParallelCollectionRDD" in lines[-1]


def test_a_job_on_a_lineage_too_deep_to_plan_says_how_to_cut_it(sc: Any) -> None:
    from rdd.errors import LineageTooDeepError

    with pytest.raises(LineageTooDeepError, match=r"lineage is too deep.*checkpoint\(\)"):
        _deep_shuffles(sc, 3000).count()
    assert sc.parallelize([1, 2, 3]).count() == 3  # the context still runs jobs


def test_a_stage_too_deep_to_pickle_is_lineage_too_deep_not_unpicklable(sc: Any) -> None:
    # A narrow chain (no shuffle): planning it is shallow, pickling the stage recurses
    # once per step. cloudpickle turns the RecursionError into a PicklingError, which
    # used to be read as an unpicklable object ("locks, sockets, open files").
    from rdd.errors import LineageTooDeepError

    other = sc.parallelize(range(4), 2)
    rdd = sc.parallelize(range(4), 2)
    for _ in range(200):
        rdd = rdd.zip(other).keys()
    with pytest.raises(LineageTooDeepError) as info:
        rdd.count()
    message = str(info.value)
    assert "lineage is too deep to send to workers" in message and "checkpoint()" in message
    assert "locks, sockets" not in message
    assert sc.parallelize([1, 2, 3]).count() == 3
