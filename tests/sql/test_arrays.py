"""The array builders of dstream.sql.execution.arrays equal their plain-Python meaning on both
sides of the size where they stop building values one by one and call Arrow's kernels."""

from __future__ import annotations

import datetime
from typing import Any

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql.execution.arrays import _SMALL, arange, constant

LENGTHS = st.one_of(st.integers(0, 8), st.integers(_SMALL - 3, _SMALL + 3), st.integers(0, 3 * _SMALL))


@given(start=st.integers(-10**12, 10**12), length=LENGTHS, step=st.sampled_from([1, 2, 3, 7, -1, -4]))
def test_arange_is_range(start: int, length: int, step: int) -> None:
    stop = start + length * step
    got = arange(start, stop, step)
    assert got.type == pa.int64() and got.null_count == 0
    assert got.to_pylist() == list(range(start, stop, step))


@given(stop=st.integers(-3, 2 * _SMALL))
def test_arange_of_one_argument_counts_from_zero(stop: int) -> None:
    assert arange(stop).to_pylist() == list(range(stop))


VALUES: list[tuple[Any, pa.DataType]] = [
    (7, pa.int8()), (-(2**63), pa.int64()), (1.5, pa.float64()), (True, pa.bool_()), (False, pa.bool_()),
    ("x", pa.string()), (b"\x00", pa.binary()),
    (datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc), pa.timestamp("us", tz="UTC")),
    (None, pa.int32()), ({"a": 1}, pa.struct([pa.field("a", pa.int64())])), ([1, None], pa.list_(pa.int64())),
]


@given(length=LENGTHS, value=st.sampled_from(VALUES))
def test_constant_is_length_copies(length: int, value: tuple[Any, pa.DataType]) -> None:
    item, arrow_type = value
    got = constant(length, item, arrow_type)
    assert got.type == arrow_type and len(got) == length
    assert got.to_pylist() == [item] * length
