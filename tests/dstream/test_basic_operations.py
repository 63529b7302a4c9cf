"""Every per-batch operator, table-driven, on ``local`` and ``local[2]`` (the ``ctx`` fixture).

Each case feeds a few batches through ``queueStream`` on the manual clock and compares
every output batch. Cases are re-derived from PySpark's ``test_dstream.py`` themes and
Spark's ``BasicOperationsSuite``.
"""

from __future__ import annotations

import operator
from datetime import datetime
from typing import Any

import pytest

from dstream.testing import run_batches
from tests.dstream.cases import Case, check

add = operator.add


def _sorted_values(kv: tuple[Any, Any]) -> tuple[Any, Any]:
    return (kv[0], sorted(kv[1]))


def _cogroup_lists(kv: tuple[Any, Any]) -> tuple[Any, Any]:
    return (kv[0], (sorted(kv[1][0]), sorted(kv[1][1])))


def _batch_seconds(t: datetime, rdd: Any) -> Any:
    seconds = round(t.timestamp())
    return rdd.map(lambda x: (seconds, x))


def _with_time3(t: datetime, a: Any, b: Any) -> Any:
    seconds = round(t.timestamp())
    return a.union(b).map(lambda x: (seconds, x))


PAIRS = [[("a", 1), ("b", 1), ("a", 1)], [("b", 5)], []]
LEFT = [[("a", 1), ("b", 2)], [("c", 3)], []]
RIGHT = [[("a", "x"), ("d", "y")], [("c", "z"), ("c", "w")], [("e", "v")]]

CASES = [
    Case("map", [[1, 2, 3], [4], []], lambda s: s.map(lambda x: x * 2), [[2, 4, 6], [8], []]),
    Case("flatMap", [["a b", "c"], ["d"]], lambda s: s.flatMap(str.split), [["a", "b", "c"], ["d"]]),
    Case("filter", [[1, 2, 3, 4], [5, 6], [7]], lambda s: s.filter(lambda x: x % 2 == 0), [[2, 4], [6], []]),
    Case(
        "mapPartitions",
        [[1, 2], [3]],
        lambda s: s.mapPartitions(lambda it: (x + 1 for x in it)),
        [[2, 3], [4]],
    ),
    Case(
        "mapPartitionsWithIndex",
        [[1, 2], [3]],
        lambda s: s.mapPartitionsWithIndex(lambda i, it: (x * 10 for x in it if i >= 0)),
        [[10, 20], [30]],
    ),
    Case("count", [[1, 2, 3], [], [4]], lambda s: s.count(), [[3], [0], [1]]),
    Case("count after filter empties", [[1, 3]], lambda s: s.filter(lambda x: x > 5).count(), [[0]]),
    Case("reduce", [[1, 2, 3], [], [4]], lambda s: s.reduce(add), [[6], [], [4]]),
    Case("countByValue", [[1, 1, 2], ["a", "a", "a"]], lambda s: s.countByValue(), [[(1, 2), (2, 1)], [("a", 3)]]),
    Case("repartition keeps records", [list(range(10))], lambda s: s.repartition(3), [list(range(10))]),
    Case("repartition count", [list(range(10))], lambda s: s.repartition(3).glom().count(), [[3]]),
    Case("glom flattens back", [[1, 2, 3]], lambda s: s.glom().flatMap(lambda part: part), [[1, 2, 3]]),
    Case("union with self-derived", [[1], [2]], lambda s: s.union(s.map(lambda x: x * 10)), [[1, 10], [2, 20]]),
    Case("transform (rdd)", [[1, 2], [3]], lambda s: s.transform(lambda rdd: rdd.map(lambda x: -x)), [[-1, -2], [-3]]),
    Case("transform (time, rdd)", [[7], [8]], lambda s: s.transform(_batch_seconds), [[(1, 7)], [(2, 8)]]),
    Case("reduceByKey", PAIRS, lambda s: s.reduceByKey(add), [[("a", 2), ("b", 1)], [("b", 5)], []]),
    Case("reduceByKey 3 partitions", PAIRS, lambda s: s.reduceByKey(add, 3).glom().count(), [[3], [3], [3]]),
    Case(
        "combineByKey",
        PAIRS,
        lambda s: s.combineByKey(lambda v: [v], lambda c, v: c + [v], lambda a, b: a + b).map(_sorted_values),
        [[("a", [1, 1]), ("b", [1])], [("b", [5])], []],
    ),
    Case(
        "groupByKey",
        PAIRS,
        lambda s: s.groupByKey().map(_sorted_values),
        [[("a", [1, 1]), ("b", [1])], [("b", [5])], []],
    ),
    Case("mapValues", PAIRS[:2], lambda s: s.mapValues(lambda v: v + 1), [[("a", 2), ("b", 2), ("a", 2)], [("b", 6)]]),
    Case(
        "flatMapValues",
        [[("a", 2), ("b", 0)]],
        lambda s: s.flatMapValues(range),
        [[("a", 0), ("a", 1)]],
    ),
    Case("partitionBy", [PAIRS[0]], lambda s: s.partitionBy(2).glom().count(), [[2]]),
    Case(
        "partitionBy keeps records",
        [PAIRS[0]],
        lambda s: s.partitionBy(3, lambda k: 0),
        [PAIRS[0]],
    ),
    Case(
        "cogroup",
        LEFT,
        lambda s, o: s.cogroup(o).map(_cogroup_lists),
        [
            [("a", ([1], ["x"])), ("b", ([2], [])), ("d", ([], ["y"]))],
            [("c", ([3], ["w", "z"]))],
            [("e", ([], ["v"]))],
        ],
        others=[RIGHT],
    ),
    Case("join", LEFT, lambda s, o: s.join(o), [[("a", (1, "x"))], [("c", (3, "z")), ("c", (3, "w"))], []],
         others=[RIGHT]),
    Case(
        "leftOuterJoin",
        LEFT,
        lambda s, o: s.leftOuterJoin(o),
        [[("a", (1, "x")), ("b", (2, None))], [("c", (3, "z")), ("c", (3, "w"))], []],
        others=[RIGHT],
    ),
    Case(
        "rightOuterJoin",
        LEFT,
        lambda s, o: s.rightOuterJoin(o),
        [[("a", (1, "x")), ("d", (None, "y"))], [("c", (3, "z")), ("c", (3, "w"))], [("e", (None, "v"))]],
        others=[RIGHT],
    ),
    Case(
        "fullOuterJoin",
        LEFT,
        lambda s, o: s.fullOuterJoin(o),
        [
            [("a", (1, "x")), ("b", (2, None)), ("d", (None, "y"))],
            [("c", (3, "z")), ("c", (3, "w"))],
            [("e", (None, "v"))],
        ],
        others=[RIGHT],
    ),
    Case(
        "join with numPartitions",
        LEFT,
        lambda s, o: s.join(o, 3).glom().count(),
        [[3], [3], [3]],
        others=[RIGHT],
    ),
    Case(
        "transformWith (a, b)",
        [[1], [2]],
        lambda s, o: s.transformWith(lambda a, b: a.union(b), o),
        [[1, 10], [2, 20]],
        others=[[[10], [20]]],
    ),
    Case(
        "transformWith (time, a, b)",
        [[1], [2]],
        lambda s, o: s.transformWith(_with_time3, o),
        [[(1, 1), (1, 10)], [(2, 2), (2, 20)]],
        others=[[[10], [20]]],
    ),
    Case(
        "ssc.union of three",
        [[1], [2]],
        lambda a, b, c: a.context().union(a, b, c),
        [[1, 10, 100], [2, 20, 200]],
        others=[[[10], [20]], [[100], [200]]],
    ),
    Case(
        "ssc.transform of two",
        [[1], [2]],
        lambda a, b: a.context().transform([a, b], lambda rdds: rdds[0].cartesian(rdds[1])),
        [[(1, 10)], [(2, 20)]],
        others=[[[10], [20]]],
    ),
    Case("fused chain", [[1, 2, 3, 4]], lambda s: s.map(lambda x: x + 1).filter(lambda x: x % 2).map(str),
         [["3", "5"]]),
    Case("empty input batches", [[], []], lambda s: s.map(lambda x: x), [[], []]),
    Case("input shorter than run", [[1]], lambda s: s, [[1], [], []], num_batches=3),
    Case("half-second batches", [[1], [2]], lambda s: s.map(lambda x: x), [[1], [2]], batch_duration=0.5),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_operation(ctx: Any, case: Case) -> None:
    check(ctx, case)


def test_glom_sees_partitions(ctx: Any) -> None:
    rdd = ctx.parallelize([1, 2, 3, 4], 2)
    assert run_batches(ctx, [rdd], lambda s: s.glom()) == [[[1, 2], [3, 4]]]


def test_mapPartitionsWithIndex_gets_the_index(ctx: Any) -> None:  # noqa: N802
    rdd = ctx.parallelize(["a", "b", "c"], 3)
    out = run_batches(ctx, [rdd], lambda s: s.mapPartitionsWithIndex(lambda i, it: ((i, x) for x in it)))
    assert out == [[(0, "a"), (1, "b"), (2, "c")]]


def test_queue_stream_one_at_a_time_false_takes_everything_first(ctx: Any) -> None:
    def op(s: Any) -> Any:
        ssc = s.context()
        return ssc.queueStream([[1], [2, 3]], oneAtATime=False)

    out = run_batches(ctx, [[], [], []], op)
    assert [sorted(b) for b in out] == [[1, 2, 3], [], []]


def test_queue_stream_default_fills_empty_queue(ctx: Any) -> None:
    def op(s: Any) -> Any:
        return s.context().queueStream([[1]], default=[0])

    assert run_batches(ctx, [[], [], []], op) == [[1], [0], [0]]


def test_queue_stream_copies_its_input(ctx: Any) -> None:
    batches = [[1], [2]]

    def op(s: Any) -> Any:
        stream = s.context().queueStream(batches)
        batches.append([3])  # later changes are not seen
        batches[0].append(99)
        return stream

    assert run_batches(ctx, [[], [], []], op) == [[1], [2], []]


def test_shuffles_of_a_drained_queue_streams_empty_batches_are_empty(ctx: Any) -> None:
    # A drained queue gives RDDs without partitions; distinct/reduceByKey/groupByKey of
    # them must be empty batches, as in Spark, not fail the stream.
    def op(s: Any) -> Any:
        drained = s.context().queueStream([ctx.parallelize([1, 1, 2], 2)])
        return drained.transform(lambda rdd: rdd.distinct().map(lambda x: (x, 1)).reduceByKey(add).groupByKey()
                                 .mapValues(list))

    out = run_batches(ctx, [[], [], []], op)
    assert [sorted(b) for b in out] == [[(1, [1]), (2, [1])], [], []]


def test_a_drained_queue_gives_one_empty_partition_per_batch(ctx: Any) -> None:
    def op(s: Any) -> Any:
        drained = s.context().queueStream([[1, 2]])
        return drained.mapPartitions(lambda it: [sum(it)])

    assert run_batches(ctx, [[], [], []], op)[1:] == [[0], [0]]  # Spark: sc.makeRDD(Seq.empty, 1)
