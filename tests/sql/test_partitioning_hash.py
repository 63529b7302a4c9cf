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

texts = st.lists(st.text(max_size=140), min_size=partitioning._VECTOR_MIN_VALUES, max_size=200)


def _model(values: list[bytes]) -> list[int]:
    return [partitioning._bytes_hash(v) for v in values]


@settings(max_examples=60, deadline=None)
@given(values=texts, start=st.integers(0, 20))
def test_vectorized_string_hashes_equal_zlibs(values: list[str], start: int) -> None:
    for arrow_type in (pa.string(), pa.large_string()):
        arr = pa.array(values, arrow_type).slice(min(start, len(values)))
        assert partitioning._bytes_hashes(arr).to_pylist() == _model([v.encode() for v in arr.to_pylist()])


@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.binary(max_size=300), min_size=1, max_size=100))
def test_vectorized_binary_hashes_equal_zlibs(values: list[bytes]) -> None:
    assert partitioning._bytes_hashes(pa.array(values, pa.binary())).to_pylist() == _model(values)


def test_both_paths_give_one_partition_per_key() -> None:
    few = pa.array(["apple", "pear", "apple"])  # below the vector threshold: the Python loop
    many = pa.array(["apple", "pear"] + [f"k{i}" for i in range(500)] + ["apple"])
    ids_few = partitioning.partition_ids([few], 7).to_pylist()
    ids_many = partitioning.partition_ids([many], 7).to_pylist()
    assert ids_few[0] == ids_few[2] == ids_many[0] == ids_many[-1]
    assert ids_few[1] == ids_many[1]
