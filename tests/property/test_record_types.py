"""Records keep their exact types through every path that serializes them.

The record serializer writes built-in types with marshal, which reads any bytes-like
object (``bytearray``, ``array``, a ``bytes`` subclass) back as ``bytes``. Here random
nested records of built-in types, ``bytearray`` included at any depth, go through
``parallelize`` + ``collect``, serialized caching, and the shuffles of ``partitionBy``,
``groupByKey`` and ``reduceByKey`` on ``local`` and ``local[2]``; what comes back is
compared with the input type by type, recursively.
"""

from __future__ import annotations

import array
from typing import Any

from hypothesis import strategies as st

from rdd import StorageLevel

from tests.strategies import rdd_property

hashable_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                             st.text(max_size=3), st.binary(max_size=3), st.complex_numbers(
                                 allow_nan=False, max_magnitude=1e6))
scalars = st.one_of(hashable_scalars, st.binary(max_size=3).map(bytearray))
hashable = st.recursive(hashable_scalars, lambda inner: st.one_of(
    st.tuples(inner, inner), st.frozensets(inner, max_size=3)), max_leaves=4)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.tuples(inner, inner), st.lists(inner, max_size=3), st.sets(hashable, max_size=3),
    st.dictionaries(hashable, inner, max_size=3)), max_leaves=10)
#: Keys without equal values of different types (1 == True == 1.0 would merge into one
#: key spelled one way): the values are what is checked.
keys = st.one_of(st.none(), st.integers(), st.text(max_size=3), st.binary(max_size=3),
                 st.tuples(st.text(max_size=2), st.binary(max_size=2)),
                 st.frozensets(st.text(max_size=2)))
pairs = st.lists(st.tuples(keys, values), max_size=12)


def typed(value: Any) -> str:
    """``value`` spelled out with the exact type of every part, as a sortable string."""
    kind = type(value).__name__
    if isinstance(value, (list, tuple)):
        return f"{kind}[{', '.join(typed(v) for v in value)}]"
    if isinstance(value, (set, frozenset)):
        return f"{kind}{{{', '.join(sorted(typed(v) for v in value))}}}"
    if isinstance(value, dict):
        return f"dict{{{', '.join(sorted(f'{typed(k)}: {typed(v)}' for k, v in value.items()))}}}"
    return f"{kind}({value!r})"


def same(records: list[Any], expected: list[Any]) -> None:
    assert sorted(map(typed, records)) == sorted(map(typed, expected))


@rdd_property(records=st.lists(values, max_size=12))
def test_parallelize_collect_and_cache_keep_types(ctx: Any, records: list[Any]) -> None:
    rdd = ctx.parallelize(records, 3)
    same(rdd.collect(), records)
    for level in (StorageLevel.MEMORY_ONLY, StorageLevel.DISK_ONLY):
        cached = ctx.parallelize(records, 2).map(lambda x: x).persist(level)
        cached.count()
        same(cached.collect(), records)  # read from the cache
        cached.unpersist()


@rdd_property(data=pairs)
def test_shuffles_keep_types(ctx: Any, data: list[tuple[Any, Any]]) -> None:
    rdd = ctx.parallelize(data, 3)
    same(rdd.partitionBy(4).collect(), data)
    grouped = rdd.groupByKey(3).flatMap(lambda kv: [(kv[0], v) for v in kv[1]]).collect()
    same(grouped, data)
    wrapped = rdd.mapValues(lambda v: [v]).reduceByKey(lambda a, b: a + b, 2)
    same(wrapped.flatMap(lambda kv: [(kv[0], v) for v in kv[1]]).collect(), data)


@rdd_property(copies=st.integers(1, 3))
def test_other_bytes_like_records_keep_their_types(ctx: Any, copies: int) -> None:
    class_of_bytes = [bytearray(b"ab"), array.array("i", [1, 2]), (1, [bytearray(b"")]),
                      {b"k": array.array("d", [0.5])}] * copies
    back = ctx.parallelize(class_of_bytes, 2).map(lambda x: (0, x)).groupByKey(2).values()
    same(back.flatMap(list).collect(), class_of_bytes)
