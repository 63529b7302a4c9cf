"""How records cross processes: ``dumps_records`` / ``loads_records`` and ``parallelize``.

The record serializer picks marshal for built-in types and pickle for anything else;
these tests pin what a user can rely on either way: every record comes back equal and
of its exact type, shared objects stay shared, cycles survive, and a parallelized
collection is a snapshot taken when ``parallelize`` is called (PySpark's behaviour).
"""

from __future__ import annotations

import collections
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rdd.serialization.serializer import SerializedRecords, dumps_records, loads_records

Point = collections.namedtuple("Point", "x y")


class Tagged(str):
    """A str subclass: marshal would turn it into a plain str, so it must be pickled."""


class Box:
    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and other.value == self.value


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(),
                    st.binary())
builtin_records = st.recursive(scalars, lambda inner: st.one_of(
    st.tuples(inner, inner), st.lists(inner, max_size=4),
    st.dictionaries(st.one_of(st.text(), st.integers()), inner, max_size=4)), max_leaves=12)


def _types(value: Any) -> Any:
    """The exact type of every part of ``value``, as a nested structure."""
    if isinstance(value, (tuple, list)):
        return (type(value), [_types(v) for v in value])
    if isinstance(value, dict):
        return (dict, sorted((repr(k), _types(v)) for k, v in value.items()))
    return type(value)


@given(st.lists(builtin_records, max_size=20))
def test_built_in_records_round_trip_with_their_exact_types(records: list[Any]) -> None:
    back = loads_records(dumps_records(records))
    assert back == records
    assert _types(back) == _types(records)


@given(st.lists(st.one_of(builtin_records, st.builds(Point, scalars, scalars), st.builds(Tagged, st.text()),
                          st.builds(Box, scalars)), max_size=20))
def test_mixed_records_round_trip_with_their_exact_types(records: list[Any]) -> None:
    back = loads_records(dumps_records(records))
    assert back == records
    assert [type(r) for r in back] == [type(r) for r in records]


def test_built_in_records_use_marshal_and_others_pickle() -> None:
    assert dumps_records([("a", 1), ("b", 2)])[:1] == b"M"
    assert dumps_records([Point(1, 2)])[:1] == b"P"
    assert dumps_records([Tagged("x")])[:1] == b"P"


def test_shared_objects_stay_shared_and_cycles_survive() -> None:
    big = list(range(1000))
    back = loads_records(dumps_records([(i, big) for i in range(50)]))
    assert all(r[1] is back[0][1] for r in back)
    assert len(dumps_records([(i, big) for i in range(50)])) < 2 * len(dumps_records([(0, big)])) + 1000

    loop: list[Any] = [1]
    loop.append(loop)
    (again,) = loads_records(dumps_records([loop]))
    assert again[1] is again


def test_a_task_result_carries_its_records_inside_an_ordinary_pickle() -> None:
    rows = [("word", 3), ("other", 1)]
    assert pickle.loads(pickle.dumps({"value": SerializedRecords(rows)})) == {"value": rows}


@pytest.mark.parametrize("master", ["local", "local[2]"])
def test_parallelize_is_a_snapshot_of_the_collection(make_sc: Any, master: str) -> None:
    sc = make_sc(master)
    data = [[1], [2], [3]]
    rdd = sc.parallelize(data, 2)
    data.append([4])
    data[0] = [99]
    assert rdd.collect() == [[1], [2], [3]]
    assert rdd.map(type).collect() == [list, list, list]


def test_parallelize_keeps_exact_types_across_processes(make_sc: Any) -> None:
    sc = make_sc("local[2]")
    records = [Point(1, 2), Tagged("t"), ("plain", 1), Box([1, 2])]
    assert sc.parallelize(records, 2).collect() == records
    assert sc.parallelize(records, 2).map(lambda r: type(r).__name__).collect() == [
        "Point", "Tagged", "tuple", "Box"]
