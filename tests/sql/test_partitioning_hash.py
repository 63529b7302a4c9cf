"""The shuffle's string hash: the vectorized CRC equals zlib's, value for value.

``dstream.sql.execution.partitioning`` hashes many distinct strings at once with a numpy
CRC-32. Partitions (and the streaming state placed by them in checkpoints) must not depend
on which path hashed a value, so the model here is the per-value ``zlib`` hash.
"""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql.execution import partitioning

_MASK = (1 << 64) - 1

texts = st.lists(st.text(max_size=140), min_size=partitioning._VECTOR_MIN_VALUES, max_size=200)


def _model(values: list[bytes]) -> list[int]:
    return [partitioning._bytes_hash(v) for v in values]


@settings(max_examples=60, deadline=None)
@given(values=texts, start=st.integers(0, 20))
def test_vectorized_string_hashes_equal_zlibs(values: list[str], start: int) -> None:
    for arrow_type in (pa.string(), pa.large_string()):
        arr = pa.array(values, arrow_type).slice(min(start, len(values)))
        assert partitioning._bytes_hashes(arr).tolist() == _model([v.encode() for v in arr.to_pylist()])


@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.binary(max_size=300), min_size=1, max_size=100))
def test_vectorized_binary_hashes_equal_zlibs(values: list[bytes]) -> None:
    assert partitioning._bytes_hashes(pa.array(values, pa.binary())).tolist() == _model(values)


def test_both_paths_give_one_partition_per_key() -> None:
    few = pa.array(["apple", "pear", "apple"])  # below the vector threshold: the Python loop
    many = pa.array(["apple", "pear"] + [f"k{i}" for i in range(500)] + ["apple"])
    ids_few = partitioning.partition_ids([few], 7).to_pylist()
    ids_many = partitioning.partition_ids([many], 7).to_pylist()
    assert ids_few[0] == ids_few[2] == ids_many[0] == ids_many[-1]
    assert ids_few[1] == ids_many[1]


def _mix_model(h: int) -> int:
    """splitmix64's finalizer on a Python int, wrapped to 64 bits."""
    h ^= h >> 30
    h = (h * 0xBF58476D1CE4E5B9) & _MASK
    h ^= h >> 27
    h = (h * 0x94D049BB133111EB) & _MASK
    return h ^ (h >> 31)


def _partition_model(keys: list[tuple[int | None, ...]], n: int) -> list[int]:
    """Partition of rows of integer keys, in plain Python: each column's value (null: a fixed
    hash) mixed, the columns combined left to right, the top 31 bits modulo ``n``."""
    out = []
    for row in keys:
        hashes = [0x5BD1E9955BD1E995 if v is None else _mix_model(v & _MASK) for v in row]
        h = hashes[0]
        for nxt in hashes[1:]:
            h = _mix_model((h * 0x9E3779B97F4A7C15 + nxt) & _MASK)
        out.append((h >> 33) % n)
    return out


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.none() | st.integers(-(2**63), 2**63 - 1), st.integers(-(2**31), 2**31 - 1)),
                     max_size=80),
       n=st.integers(1, 300))
def test_integer_partitions_equal_the_model(rows: list[tuple[int | None, int]], n: int) -> None:
    # State is placed by these ids in checkpoints: they must never change between versions.
    first = pa.array([r[0] for r in rows], pa.int64())
    second = pa.array([r[1] for r in rows], pa.int32())
    expected = _partition_model(rows, n) if n > 1 else [0] * len(rows)
    assert partitioning.partition_ids([first, second], n).to_pylist() == expected
