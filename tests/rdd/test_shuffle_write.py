"""The map side of a shuffle against a model: which bucket each record lands in, and
what a reduce task reads back, on a real shuffle directory.

A combined map output (a dict of key to combiner) is split into buckets column-wise:
the keys' buckets computed at once (``Partitioner.bucket_indices``), keys and values
picked per bucket, written as two lists (``dumps_pairs``) when both hold only
marshal's leaf types. The model is the plain loop it replaces: each ``(key, value)``
of the dict, in the dict's order, in bucket ``partitioner(key)``. Bucket counts cross
the point where one selection pass per bucket gives way to a single placing loop.
"""

from __future__ import annotations

import collections
import tempfile
from operator import add
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rdd.aggregator import Aggregator, identity_combiner
from rdd.partitioner import Partitioner, portable_hash
from rdd.serialization.serializer import dumps_pairs, loads_pairs, loads_records
from rdd.shuffle.reader import read_all
from rdd.shuffle.store import FileShuffleStore
from rdd.shuffle.writer import InlineMapOutput, ShuffleWriteSpec, write_map_output

from tests.rdd.key_types import Tagged, any_key

Point = collections.namedtuple("Point", "x y")

#: Text with lone surrogates, which strict UTF-8 refuses: ``portable_hash`` encodes them
#: with ``surrogatepass``, so the C-speed path must give way to it, not fail.
surrogate_text = st.text(alphabet=st.characters(min_codepoint=0xD7F0, max_codepoint=0xE010), max_size=4)
str_keys = st.lists(st.one_of(st.text(max_size=6), surrogate_text), max_size=60)
int_keys = st.lists(st.one_of(st.integers(-10, 10), st.integers(), st.integers(min_value=2**64)), max_size=60)
mixed_keys = st.lists(any_key, max_size=30)
bucket_counts = st.integers(min_value=1, max_value=12)


def _model_indices(partitioner: Partitioner, keys: list[Any]) -> list[int]:
    return [partitioner(k) for k in keys]


@given(keys=st.one_of(str_keys, int_keys, mixed_keys), count=bucket_counts)
def test_bucket_indices_equal_placing_each_key(keys: list[Any], count: int) -> None:
    partitioner = Partitioner(count)
    assert partitioner.bucket_indices(keys) == _model_indices(partitioner, keys)


@given(keys=str_keys, count=bucket_counts)
def test_bucket_indices_use_a_custom_function(keys: list[str], count: int) -> None:
    partitioner = Partitioner(count, len)
    assert partitioner.bucket_indices(keys) == [len(k) % count for k in keys]


def test_a_key_type_set_given_by_the_caller_is_used_as_is() -> None:
    partitioner = Partitioner(3)
    keys = ["a", "bc", "\ud800"]
    assert partitioner.bucket_indices(keys, {str}) == [portable_hash(k) % 3 for k in keys]


leaf_values = st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=4), st.binary(max_size=4),
                        st.none(), st.booleans())
other_values = st.one_of(st.tuples(st.integers(), st.text(max_size=3)), st.builds(Point, st.integers(), st.none()),
                         st.builds(Tagged, st.text(max_size=3)), st.lists(st.integers(), max_size=3))


def _write_and_read(combined: dict, count: int) -> list[list[tuple[Any, Any]]]:
    """Write ``combined`` as map output 0 of a shuffle into ``count`` buckets; read each back."""
    spec = ShuffleWriteSpec(7, Partitioner(count), Aggregator(identity_combiner(), add, add), True)
    with tempfile.TemporaryDirectory() as local_dir:
        store = FileShuffleStore(local_dir)
        try:
            written = write_map_output(spec, 0, 0, combined, store, precombined=True)
            if isinstance(written, InlineMapOutput):  # an empty output: nothing to write
                assert not combined and written.blob == b""
                store.inline = {(7, 0, b): written.bucket(b) for b in range(count)}
                sizes = written.sizes
            else:
                sizes = written
            assert len(sizes) == count
            read = [list(next(read_all(store, 7, 1, bucket))) for bucket in range(count)]
            assert [loads_records(store.get(7, 0, b)) if sizes[b] else [] for b in range(count)] == read
            return read
        finally:
            store.close()


@given(keys=st.one_of(str_keys, int_keys, mixed_keys), values=st.lists(st.one_of(leaf_values, other_values)),
       count=bucket_counts)
def test_a_combined_output_reads_back_bucket_by_bucket_in_the_dicts_order(
        keys: list[Any], values: list[Any], count: int) -> None:
    combined = dict(zip(keys, values))
    partitioner = Partitioner(count)
    expected: list[list[tuple[Any, Any]]] = [[] for _ in range(count)]
    for key, value in combined.items():
        expected[partitioner(key)].append((key, value))
    read = _write_and_read(combined, count)
    assert read == expected
    assert [[(type(k), type(v)) for k, v in bucket] for bucket in read] == \
        [[(type(k), type(v)) for k, v in bucket] for bucket in expected]


def test_leaf_pairs_are_written_as_two_lists_and_others_as_records() -> None:
    assert dumps_pairs(["a", "b"], [1, 2])[:1] == b"K"
    assert dumps_pairs([("a", 1)], [1])[:1] == b"M"  # a tuple key: records, sharing kept
    assert dumps_pairs(["a"], [Point(1, 2)])[:1] == b"P"
    assert dumps_pairs([Tagged("a")], [1])[:1] == b"P"  # a str subclass keeps its type


@given(keys=st.lists(st.one_of(st.text(max_size=4), st.integers()), max_size=20),
       values=st.lists(st.one_of(leaf_values, other_values), max_size=20))
def test_pairs_round_trip_with_their_exact_types(keys: list[Any], values: list[Any]) -> None:
    keys, values = keys[:len(values)], values[:len(keys)]
    payload = dumps_pairs(keys, values)
    records = loads_records(payload)
    assert records == list(zip(keys, values))
    assert [(type(k), type(v)) for k, v in records] == [(type(k), type(v)) for k, v in zip(keys, values)]
    pairs, count = loads_pairs(payload)
    assert list(pairs) == records and count == len(records)
