"""Functions shipped by value are pickled once and rebuilt once per worker, while unchanged.

``rdd.serialization.function_memo`` lets the closure pickler reuse a function's pickle
while everything it was made of is unchanged. The model every test here holds it to:
a function shipped to a worker behaves as ``cloudpickle.loads(cloudpickle.dumps(f))``
made at that moment would, whatever was rebound in the driver in between. The worker
tests run on real ``local[2]`` worker processes.
"""

from __future__ import annotations

import gc
import math
import pickle
from typing import Any

import cloudpickle
from hypothesis import example, given
from hypothesis import strategies as st

from rdd import SparkContext
from rdd.serialization import function_memo, pickler

_MEMO_MARK = b"load_function"

SCALE: float = 2


def _scaler() -> Any:
    """A function shipped by value (defined in a function) that reads the global SCALE."""
    def scaled(x: int) -> Any:
        return x * SCALE
    return scaled


def _remembered(function: Any) -> bool:
    pickler.dumps(function)
    return _MEMO_MARK in pickler.dumps(function)


def _shipped(value: Any) -> Any:
    """What a worker would compute from a function returning ``value`` right now."""
    return pickle.loads(pickler.dumps(lambda: value))()


# Immutable values a closure may capture, including the pairs that compare equal while
# pickling differently (1, 1.0 and True; 0.0 and -0.0) and one that is not equal to itself.
_lookalikes = st.sampled_from([0, 0.0, -0.0, 1, 1.0, True, False, math.inf, math.nan, (1,), (1.0,), (True,)])
_atoms = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                   st.complex_numbers(allow_nan=True), st.text(max_size=8), st.binary(max_size=8), _lookalikes)
_values = st.recursive(_atoms, lambda inner: st.tuples(inner, inner) | st.lists(inner, max_size=3).map(tuple),
                       max_leaves=8)
# Sequences of values a cell takes in turn; runs of one type make a stale pickle likely to show.
_histories = st.one_of(st.lists(_values, min_size=2, max_size=6), st.lists(_lookalikes, min_size=2, max_size=6),
                       st.lists(st.integers(), min_size=2, max_size=6),
                       st.lists(st.text(max_size=3), min_size=2, max_size=6))


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and repr(a) == repr(b)


@given(_histories)
@example([0.0, -0.0, 0.0])
@example([1, 1.0, True, 1])
@example([(1,), (1.0,), (True,)])
@example([math.nan, math.nan])
def test_a_closure_ships_its_cells_current_value_every_time(values: list[Any]) -> None:
    captured = values[0]
    function = lambda: captured  # noqa: E731 - one function object, its cell rebound below
    for value in values:
        captured = value  # noqa: F841 - read through the closure
        expected = pickle.loads(cloudpickle.dumps(function))()
        for _ in range(3):  # remembered from its second pickle on, used from the third
            rebuilt = pickle.loads(pickler.dumps(function))
            assert _same(rebuilt(), expected) and _same(rebuilt(), value)


def test_rebinding_a_global_ships_the_new_value() -> None:
    global SCALE
    scaled = _scaler()
    try:
        assert pickle.loads(pickler.dumps(scaled))(3) == 6
        SCALE = 5
        assert pickle.loads(pickler.dumps(scaled))(3) == 15
        SCALE = 5.0
        assert _same(pickle.loads(pickler.dumps(scaled))(3), 15.0)
    finally:
        SCALE = 2


def test_a_remembered_function_pickles_to_the_same_bytes() -> None:
    offset = 7
    function = lambda x: x + offset  # noqa: E731
    assert _MEMO_MARK not in pickler.dumps(function)  # seen once: maybe a function of one batch
    first = pickler.dumps(function)
    assert _MEMO_MARK in first
    assert pickler.dumps(function) == first == pickler.dumps(function)
    assert pickle.loads(first)(1) == 8


def test_functions_that_can_change_what_they_read_are_pickled_afresh() -> None:
    table = {"a": 1}
    reads_a_dict = lambda k: table[k]  # noqa: E731
    assert not _remembered(reads_a_dict)

    def mutable_default(x: int, seen: list[int] = []) -> int:  # noqa: B006 - the case under test
        return x

    assert not _remembered(mutable_default)

    def with_attribute(x: int) -> int:
        return x

    with_attribute.calls = 0  # type: ignore[attr-defined]
    assert not _remembered(with_attribute)

    count = 0

    def writes_nonlocal() -> int:
        nonlocal count
        count += 1
        return count

    assert not _remembered(writes_nonlocal)
    assert not _remembered(_bumper())

    def nests_a_writer() -> Any:
        def inner() -> None:
            global _BUMPS
            _BUMPS = 0
        return inner

    assert not _remembered(nests_a_writer)


def test_simple_and_nested_functions_are_remembered() -> None:
    assert _remembered(lambda line: line.split())
    assert _remembered(_scaler())
    helper = lambda x: x + 1  # noqa: E731
    assert _remembered(lambda x: helper(x) * 2)
    assert pickle.loads(pickler.dumps(lambda x: helper(x) * 2))(1) == 4


def _adder(n: int) -> Any:
    return lambda x: x + n


def test_functions_made_for_one_batch_leave_nothing_behind() -> None:
    # A stream makes some functions anew each batch; pickled once, they are not kept,
    # and the driver's table holds them weakly: collected, they leave it.
    before = len(function_memo._driver)
    made = [_adder(i) for i in range(300)]
    for function in made:
        assert _MEMO_MARK not in pickler.dumps(function)
    assert pickle.loads(pickler.dumps(made[7]))(1) == 8
    del made, function
    gc.collect()
    assert len(function_memo._driver) <= before


def test_a_function_capturing_a_long_string_is_pickled_inline_each_time() -> None:
    text = "x" * (function_memo.MAX_BYTES + 1)
    function = lambda: len(text)  # noqa: E731
    first = pickler.dumps(function)
    assert _MEMO_MARK not in first and _MEMO_MARK not in pickler.dumps(function)
    assert pickle.loads(first)() == len(text)


_BUMPS = 0


def _bumper() -> Any:
    """A function shipped by value that counts its calls in the global _BUMPS."""
    def bump(_: Any) -> list[int]:
        global _BUMPS
        _BUMPS += 1
        return [_BUMPS]
    return bump


def test_on_workers_rebound_values_reach_every_job(sc2: SparkContext) -> None:
    rdd = sc2.parallelize(range(4), 2)
    factor = 1
    times = lambda x: x * factor  # noqa: E731 - the same function object in every job
    for factor in (1, 2, 3, 2):  # noqa: B007 - read through the closure
        assert rdd.map(times).collect() == [x * factor for x in range(4)]
    global SCALE
    scaled = _scaler()
    try:
        for SCALE in (2, 10):  # noqa: B007
            assert rdd.map(scaled).collect() == [x * SCALE for x in range(4)]
    finally:
        SCALE = 2


def test_on_workers_a_function_assigning_a_global_starts_from_the_drivers_value_each_job(
        sc2: SparkContext) -> None:
    # Each job's tasks count from the driver's _BUMPS (0), as a fresh copy of the function
    # does, never from the last job's count (two tasks of one job may share a worker's copy).
    rdd = sc2.parallelize(range(2), 2)
    bump = _bumper()
    for _ in range(4):
        counts = rdd.mapPartitions(bump).collect()
        assert 1 in counts and max(counts) <= 2, counts
