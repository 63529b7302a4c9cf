"""Properties of the key/value (shuffle) and ordering operators.

Covered: partitionBy, reduceByKey, combineByKey, aggregateByKey, foldByKey,
groupByKey, groupBy, mapValues, flatMapValues, keys, values, join, leftOuterJoin,
rightOuterJoin, fullOuterJoin, cogroup, sortBy, sortByKey.

The model of every aggregation is a dict built with a plain loop; joins are nested
loops. Keys come from small ranges so they collide across partitions, and mix types
(ints, non-ASCII strings, tuples, None) where only hashing and equality matter.
Placement is checked too: after a hash shuffle key ``k`` lives in partition
``portable_hash(k) % n``, the contract that lets co-partitioned RDDs be joined and
streaming state be found again after a restart.
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import strategies as st

from rdd.partitioner import portable_hash

from tests.strategies import (
    add_to_sum_count,
    append_value,
    element_lists,
    int_flat_maps,
    int_key_funcs,
    int_lists,
    int_maps,
    int_reducers,
    list_mergers,
    merge_sum_count,
    pairs,
    partitions,
    rdd_property,
    singleton,
    slices,
    sortable_pairs,
)

optional_partitions = st.none() | partitions


def group_model(data: Iterable[tuple[Any, Any]]) -> dict[Any, list[Any]]:
    groups: dict[Any, list[Any]] = defaultdict(list)
    for k, v in data:
        groups[k].append(v)
    return dict(groups)


def sorted_groups(groups: dict[Any, Iterable[Any]]) -> dict[Any, list[Any]]:
    return {k: sorted(vs) for k, vs in groups.items()}


def assert_hash_placed(rdd: Any, num: int) -> None:
    """Every record's key sits in partition portable_hash(key) % num."""
    for index, part in enumerate(rdd.glom().collect()):
        for key, _ in part:
            assert portable_hash(key) % num == index, (key, index)


def assert_default_reduce_partitions(ctx: Any, rdd: Any, parent_partitions: int, requested: int | None) -> None:
    """PySpark: numPartitions=None means spark.default.parallelism if set, else the parent's count."""
    if requested is not None:
        assert rdd.getNumPartitions() == requested
    elif ctx.getConf().contains("spark.default.parallelism"):
        assert rdd.getNumPartitions() == ctx.defaultParallelism
    else:
        assert rdd.getNumPartitions() == parent_partitions


# ------------------------------------------------------------------ partitioning


@rdd_property(data=pairs, num=partitions, target=partitions)
def test_partition_by_places_keys_by_portable_hash(ctx: Any, data: list[tuple[Any, int]], num: int,
                                                    target: int) -> None:
    rdd = ctx.parallelize(data, num).partitionBy(target)
    assert rdd.getNumPartitions() == target
    assert rdd.partitioner is not None and rdd.partitioner.numPartitions == target
    assert_hash_placed(rdd, target)
    assert Counter(rdd.collect()) == Counter(data)


def _length_of_key_text(key: Any) -> int:
    return len(str(key))


@rdd_property(data=pairs, num=partitions, target=partitions)
def test_partition_by_with_a_custom_function(ctx: Any, data: list[tuple[Any, int]], num: int,
                                             target: int) -> None:
    rdd = ctx.parallelize(data, num).partitionBy(target, _length_of_key_text)
    for index, part in enumerate(rdd.glom().collect()):
        assert all(_length_of_key_text(k) % target == index for k, _ in part)
    assert Counter(rdd.collect()) == Counter(data)


# ------------------------------------------------------------------ aggregations


@rdd_property(data=pairs, num=partitions, func=int_reducers, out=optional_partitions)
def test_reduce_by_key(ctx: Any, data: list[tuple[Any, int]], num: int, func: Callable[[int, int], int],
                       out: int | None) -> None:
    rdd = ctx.parallelize(data, num).reduceByKey(func, out)
    result = rdd.collect()
    assert len(result) == len({k for k, _ in result}), "one record per key"
    assert dict(result) == {k: functools.reduce(func, vs) for k, vs in group_model(data).items()}
    assert_default_reduce_partitions(ctx, rdd, num, out)
    assert_hash_placed(rdd, rdd.getNumPartitions())


@rdd_property(data=pairs, num=partitions, out=optional_partitions, merge=list_mergers)
def test_combine_by_key(ctx: Any, data: list[tuple[Any, int]], num: int, out: int | None,
                        merge: Callable[[list[int], list[int]], list[int]]) -> None:
    rdd = ctx.parallelize(data, num).combineByKey(singleton, append_value, merge, out)
    result = rdd.collect()
    assert len(result) == len({k for k, _ in result})
    assert sorted_groups(dict(result)) == sorted_groups(group_model(data))
    assert_default_reduce_partitions(ctx, rdd, num, out)


@rdd_property(data=pairs, num=partitions, out=optional_partitions)
def test_aggregate_by_key_with_immutable_zero(ctx: Any, data: list[tuple[Any, int]], num: int,
                                              out: int | None) -> None:
    rdd = ctx.parallelize(data, num).aggregateByKey((0, 0), add_to_sum_count, merge_sum_count, out)
    assert dict(rdd.collect()) == {k: (sum(vs), len(vs)) for k, vs in group_model(data).items()}
    assert_default_reduce_partitions(ctx, rdd, num, out)


@rdd_property(data=pairs, num=partitions, merge=list_mergers)
def test_aggregate_by_key_copies_a_mutable_zero_per_key(ctx: Any, data: list[tuple[Any, int]], num: int,
                                                        merge: Callable[[list[int], list[int]], list[int]]) -> None:
    """seqFunc appends to the zero list in place; each key must start from its own []."""
    zero: list[int] = []
    result = ctx.parallelize(data, num).aggregateByKey(zero, append_value, merge).collect()
    assert sorted_groups(dict(result)) == sorted_groups(group_model(data))
    assert zero == [], "the driver's zeroValue is not mutated"


@rdd_property(data=pairs, num=partitions, out=optional_partitions)
def test_fold_by_key(ctx: Any, data: list[tuple[Any, int]], num: int, out: int | None) -> None:
    rdd = ctx.parallelize(data, num).foldByKey(0, lambda a, b: a + b, out)
    assert dict(rdd.collect()) == {k: sum(vs) for k, vs in group_model(data).items()}
    assert_default_reduce_partitions(ctx, rdd, num, out)


@rdd_property(data=pairs, num=partitions, out=optional_partitions)
def test_group_by_key(ctx: Any, data: list[tuple[Any, int]], num: int, out: int | None) -> None:
    rdd = ctx.parallelize(data, num).groupByKey(out)
    result = rdd.collect()
    assert len(result) == len({k for k, _ in result})
    assert all(len(vs) == len(list(vs)) for _, vs in result), "ResultIterable has a length"
    groups = {k: list(vs) for k, vs in result}
    assert sorted_groups(groups) == sorted_groups(group_model(data))
    assert_default_reduce_partitions(ctx, rdd, num, out)
    assert_hash_placed(rdd, rdd.getNumPartitions())


@rdd_property(data=int_lists, num=partitions, key=int_key_funcs, out=optional_partitions)
def test_group_by(ctx: Any, data: list[int], num: int, key: Callable[[int], Any], out: int | None) -> None:
    rdd = ctx.parallelize(data, num).groupBy(key, out)
    result = {k: sorted(vs) for k, vs in rdd.collect()}
    assert result == sorted_groups(group_model((key(x), x) for x in data))
    if out is not None:
        assert rdd.getNumPartitions() == out


# ------------------------------------------------------------------ value-wise (order kept)


@rdd_property(data=pairs, num=partitions, f=int_maps)
def test_map_values(ctx: Any, data: list[tuple[Any, int]], num: int, f: Callable[[int], Any]) -> None:
    assert ctx.parallelize(data, num).mapValues(f).collect() == [(k, f(v)) for k, v in data]


@rdd_property(data=pairs, num=partitions, target=partitions, f=int_maps)
def test_map_values_keeps_the_partitioner(ctx: Any, data: list[tuple[Any, int]], num: int, target: int,
                                          f: Callable[[int], Any]) -> None:
    partitioned = ctx.parallelize(data, num).partitionBy(target)
    mapped = partitioned.mapValues(f)
    assert mapped.partitioner == partitioned.partitioner
    assert mapped.glom().collect() == [[(k, f(v)) for k, v in part] for part in partitioned.glom().collect()]


@rdd_property(data=pairs, num=partitions, f=int_flat_maps)
def test_flat_map_values(ctx: Any, data: list[tuple[Any, int]], num: int, f: Callable[[int], Any]) -> None:
    assert ctx.parallelize(data, num).flatMapValues(f).collect() == [(k, y) for k, v in data for y in f(v)]


@rdd_property(data=pairs, num=partitions)
def test_keys_and_values(ctx: Any, data: list[tuple[Any, int]], num: int) -> None:
    rdd = ctx.parallelize(data, num)
    assert rdd.keys().collect() == [k for k, _ in data]
    assert rdd.values().collect() == [v for _, v in data]
    assert rdd.keys().glom().collect() == [[k for k, _ in part] for part in slices(data, num)]


# ------------------------------------------------------------------ joins


def inner_join_model(a: list[tuple[Any, Any]], b: list[tuple[Any, Any]]) -> Counter:
    return Counter((k, (v, w)) for k, v in a for k2, w in b if k == k2)


def left_join_model(a: list[tuple[Any, Any]], b: list[tuple[Any, Any]]) -> Counter:
    out: Counter = Counter()
    for k, v in a:
        matches = [w for k2, w in b if k2 == k]
        for w in matches or [None]:
            out[(k, (v, w))] += 1
    return out


def right_join_model(a: list[tuple[Any, Any]], b: list[tuple[Any, Any]]) -> Counter:
    return Counter({(k, (w, v)): n for (k, (v, w)), n in left_join_model(b, a).items()})


def full_join_model(a: list[tuple[Any, Any]], b: list[tuple[Any, Any]]) -> Counter:
    out = left_join_model(a, b)
    left_keys = {k for k, _ in a}
    out.update((k, (None, w)) for k, w in b if k not in left_keys)
    return out


JOINS = {
    "join": inner_join_model,
    "leftOuterJoin": left_join_model,
    "rightOuterJoin": right_join_model,
    "fullOuterJoin": full_join_model,
}

#: Both sides draw keys from one small set so that joins match often.
join_sides = st.one_of(
    *[st.tuples(st.lists(st.tuples(keys, st.integers(0, 9)), max_size=15),
                st.lists(st.tuples(keys, st.text("xyé", max_size=2)), max_size=15))
      for keys in (st.integers(0, 5), st.sampled_from(["a", "é", "鍵", None, (1, "ÿ")]))]
)


@rdd_property(sides=join_sides, pa=partitions, pb=partitions, how=st.sampled_from(sorted(JOINS)),
              out=optional_partitions)
def test_joins_equal_nested_loops(ctx: Any, sides: tuple[list[Any], list[Any]], pa: int, pb: int, how: str,
                                  out: int | None) -> None:
    a, b = sides
    rdd = getattr(ctx.parallelize(a, pa), how)(ctx.parallelize(b, pb), out)
    assert Counter(rdd.collect()) == JOINS[how](a, b)
    if out is not None:
        assert rdd.getNumPartitions() == out


@rdd_property(sides=join_sides, pa=partitions, pb=partitions, out=optional_partitions)
def test_cogroup(ctx: Any, sides: tuple[list[Any], list[Any]], pa: int, pb: int, out: int | None) -> None:
    a, b = sides
    rdd = ctx.parallelize(a, pa).cogroup(ctx.parallelize(b, pb), out)
    result = rdd.collect()
    assert len(result) == len({k for k, _ in result}), "one record per key"
    got = {k: (sorted(left), sorted(right)) for k, (left, right) in result}
    left_groups, right_groups = group_model(a), group_model(b)
    expected = {k: (sorted(left_groups.get(k, [])), sorted(right_groups.get(k, [])))
                for k in set(left_groups) | set(right_groups)}
    assert got == expected
    if out is not None:
        assert rdd.getNumPartitions() == out


@rdd_property(sides=join_sides, num=partitions)
def test_join_of_co_partitioned_rdds(ctx: Any, sides: tuple[list[Any], list[Any]], num: int) -> None:
    """Joining two RDDs hash-partitioned the same way still equals the nested loop."""
    a, b = sides
    left = ctx.parallelize(a, 2).partitionBy(num)
    right = ctx.parallelize(b, 3).partitionBy(num)
    assert Counter(left.join(right).collect()) == inner_join_model(a, b)


# ------------------------------------------------------------------ ordering


@rdd_property(data=sortable_pairs, num=partitions, ascending=st.booleans(), out=optional_partitions)
def test_sort_by_key(ctx: Any, data: list[tuple[Any, int]], num: int, ascending: bool, out: int | None) -> None:
    rdd = ctx.parallelize(data, num).sortByKey(ascending, out)
    result = rdd.collect()
    assert [k for k, _ in result] == sorted((k for k, _ in data), reverse=not ascending)
    assert Counter(result) == Counter(data)
    if data:
        assert_default_reduce_partitions(ctx, rdd, num, out)


@rdd_property(data=st.lists(st.tuples(st.sampled_from(["b", "A", "a", "É", "é"]), st.integers(0, 3)), max_size=20),
              num=partitions)
def test_sort_by_key_with_keyfunc(ctx: Any, data: list[tuple[str, int]], num: int) -> None:
    result = ctx.parallelize(data, num).sortByKey(keyfunc=str.lower).collect()
    assert [k.lower() for k, _ in result] == sorted(k.lower() for k, _ in data)
    assert Counter(result) == Counter(data)


@rdd_property(data=sortable_pairs, num=partitions, out=partitions)
def test_sort_by_key_partitions_are_ranges(ctx: Any, data: list[tuple[Any, int]], num: int, out: int) -> None:
    """Each output partition is sorted and precedes the next one: a range partitioning."""
    parts = ctx.parallelize(data, num).sortByKey(True, out).glom().collect()
    keys = [[k for k, _ in part] for part in parts]
    assert all(part == sorted(part) for part in keys)
    non_empty = [part for part in keys if part]
    assert all(a[-1] <= b[0] for a, b in zip(non_empty, non_empty[1:]))


@rdd_property(data=element_lists, num=partitions, ascending=st.booleans(), out=optional_partitions,
              key=st.sampled_from(["identity", "length"]))
def test_sort_by(ctx: Any, data: list[Any], num: int, ascending: bool, out: int | None, key: str) -> None:
    keyfunc = (lambda x: x) if key == "identity" else (lambda x: len(str(x)))
    rdd = ctx.parallelize(data, num).sortBy(keyfunc, ascending, out)
    result = rdd.collect()
    assert [keyfunc(x) for x in result] == sorted((keyfunc(x) for x in data), reverse=not ascending)
    assert Counter(result) == Counter(data)
    if out is not None and data:
        assert rdd.getNumPartitions() == out
