"""Per-batch operators equal the same computation on each raw input batch.

A DStream operator applied batch by batch must give, for every batch, what a plain
Python model gives on that batch's records, whatever the batches and the master
(``local``, ``local[2]``). Binary operators pair the two inputs' batches of the same
time. Also: fused chains equal the unfused computation, and ``union``/``count`` hold
for empty batches.
"""

from __future__ import annotations

import operator
from collections import Counter, defaultdict
from typing import Any

from hypothesis import strategies as st

from dstream.testing import run_batches
from tests.dstream.properties import batch_at, int_batches, pair_batches, sorted_batches, stream_property

add = operator.add


def double(x: int) -> int:
    return 2 * x


def is_even(x: int) -> bool:
    return x % 2 == 0


def count_down(x: int) -> range:
    return range(abs(x) % 3)


def shift(x: int) -> int:
    return x + 100


#: (name, stream operation, model of one batch)
UNARY = [
    ("map", lambda s: s.map(double), lambda b: [double(x) for x in b]),
    ("filter", lambda s: s.filter(is_even), lambda b: [x for x in b if is_even(x)]),
    ("flatMap", lambda s: s.flatMap(count_down), lambda b: [y for x in b for y in count_down(x)]),
    ("count", lambda s: s.count(), lambda b: [len(b)]),
    ("reduce", lambda s: s.reduce(add), lambda b: [sum(b)] if b else []),
    ("countByValue", lambda s: s.countByValue(), lambda b: list(Counter(b).items())),
    ("repartition", lambda s: s.repartition(3), lambda b: list(b)),
    ("glom", lambda s: s.glom().flatMap(lambda part: part), lambda b: list(b)),
    (
        "fused chain",
        lambda s: s.map(double).filter(is_even).flatMap(count_down).map(shift),
        lambda b: [shift(y) for x in b if is_even(double(x)) for y in count_down(double(x))],
    ),
    ("transform", lambda s: s.transform(lambda rdd: rdd.distinct()), lambda b: list(set(b))),
]


@stream_property(batches=int_batches, case=st.sampled_from(UNARY))
def test_unary_operator_matches_model(ctx: Any, batches: list[list[int]], case: Any) -> None:
    _, operation, model = case
    out = run_batches(ctx, batches, operation)
    assert sorted_batches(out) == sorted_batches([model(b) for b in batches])


def _sums(records: list[tuple[str, int]]) -> list[tuple[str, int]]:
    totals: dict[str, int] = defaultdict(int)
    for key, value in records:
        totals[key] += value
    return list(totals.items())


def _groups(records: list[tuple[str, int]]) -> list[tuple[str, list[int]]]:
    groups: dict[str, list[int]] = defaultdict(list)
    for key, value in records:
        groups[key].append(value)
    return [(k, sorted(v)) for k, v in groups.items()]


PAIR_UNARY = [
    ("reduceByKey", lambda s: s.reduceByKey(add), _sums),
    ("reduceByKey(3)", lambda s: s.reduceByKey(add, 3), _sums),
    ("groupByKey", lambda s: s.groupByKey().mapValues(sorted), _groups),
    (
        "combineByKey",
        lambda s: s.combineByKey(lambda v: [v], lambda c, v: c + [v], lambda a, b: a + b).mapValues(sorted),
        _groups,
    ),
    ("mapValues", lambda s: s.mapValues(double), lambda b: [(k, double(v)) for k, v in b]),
    ("flatMapValues", lambda s: s.flatMapValues(count_down), lambda b: [(k, y) for k, v in b for y in count_down(v)]),
    ("partitionBy", lambda s: s.partitionBy(2), lambda b: list(b)),
]


@stream_property(batches=pair_batches, case=st.sampled_from(PAIR_UNARY))
def test_pair_operator_matches_model(ctx: Any, batches: list[list[tuple[str, int]]], case: Any) -> None:
    _, operation, model = case
    out = run_batches(ctx, batches, operation)
    assert sorted_batches(out) == sorted_batches([model(b) for b in batches])


def _join(a: list[tuple[str, int]], b: list[tuple[str, int]], how: str) -> list[Any]:
    out = [(k, (v, w)) for k, v in a for k2, w in b if k == k2]
    a_keys, b_keys = {k for k, _ in a}, {k for k, _ in b}
    if how in ("left", "full"):
        out += [(k, (v, None)) for k, v in a if k not in b_keys]
    if how in ("right", "full"):
        out += [(k, (None, w)) for k, w in b if k not in a_keys]
    return out


BINARY = [
    ("join", lambda s, o: s.join(o), lambda a, b: _join(a, b, "inner")),
    ("leftOuterJoin", lambda s, o: s.leftOuterJoin(o), lambda a, b: _join(a, b, "left")),
    ("rightOuterJoin", lambda s, o: s.rightOuterJoin(o), lambda a, b: _join(a, b, "right")),
    ("fullOuterJoin", lambda s, o: s.fullOuterJoin(o, 3), lambda a, b: _join(a, b, "full")),
    ("union", lambda s, o: s.union(o), lambda a, b: a + b),
    (
        "cogroup",
        lambda s, o: s.cogroup(o).mapValues(lambda vs: (sorted(vs[0]), sorted(vs[1]))),
        lambda a, b: [
            (k, (sorted(v for k1, v in a if k1 == k), sorted(w for k2, w in b if k2 == k)))
            for k in {k for k, _ in a} | {k for k, _ in b}
        ],
    ),
    ("transformWith", lambda s, o: s.transformWith(lambda x, y: x.subtractByKey(y), o),
     lambda a, b: [(k, v) for k, v in a if k not in {k2 for k2, _ in b}]),
]


@stream_property(left=pair_batches, right=pair_batches, case=st.sampled_from(BINARY))
def test_binary_operator_pairs_batches_of_the_same_time(
    ctx: Any, left: list[list[tuple[str, int]]], right: list[list[tuple[str, int]]], case: Any
) -> None:
    _, operation, model = case
    n = max(len(left), len(right))
    out = run_batches(ctx, left, operation, n, others=[right])
    expected = [model(batch_at(left, i), batch_at(right, i)) for i in range(1, n + 1)]
    assert sorted_batches(out) == sorted_batches(expected)
