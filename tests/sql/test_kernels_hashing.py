"""Properties of dstream.sql.kernels.hashing: stable ids, equal keys in equal partitions."""

from __future__ import annotations

import math

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql.kernels.hashing import partition_ids

keys_i = st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))
keys_f = st.one_of(st.none(), st.floats(), st.sampled_from([0.0, -0.0, math.nan]))
keys_s = st.one_of(st.none(), st.text(max_size=5))


def norm(v: object) -> object:
    if isinstance(v, float):
        return "nan" if math.isnan(v) else v + 0.0
    return v


@given(rows=st.lists(st.tuples(keys_i, keys_f, keys_s), max_size=40), n=st.integers(1, 9))
def test_equal_keys_get_equal_ids(rows: list, n: int) -> None:
    cols = [pa.array([r[i] for r in rows], t) for i, t in enumerate([pa.int64(), pa.float64(), pa.string()])]
    ids = partition_ids(cols, n).to_pylist()
    assert all(0 <= i < n for i in ids)
    seen: dict[tuple, int] = {}
    for r, i in zip(rows, ids):
        assert seen.setdefault(tuple(norm(v) for v in r), i) == i


def test_ids_spread_and_are_pinned() -> None:
    col = pa.array([f"k{i}" for i in range(1000)])
    ids = partition_ids([col, pa.array(range(1000))], 8).to_pylist()
    assert len(set(ids)) == 8 and max(ids.count(i) for i in range(8)) < 250
    # Pinned values: the ids must not change between runs, processes or releases (no salted hash()).
    assert partition_ids([pa.array(["a", "b", "é", None, "a"]), pa.array([1, 2, 3, None, 1])], 7).to_pylist() == \
        [2, 4, 0, 0, 2]
    assert partition_ids([pa.array([1.5, -0.0, math.nan, None])], 5).to_pylist() == [2, 2, 0, 3]
