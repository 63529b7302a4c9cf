"""The Parquet source of dstream.sql.io: row-group splits, projection and pruning by statistics."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql.io import get_format

PARQUET = get_format("parquet")


@pytest.fixture()
def sorted_file(tmp_path: os.PathLike) -> str:
    path = os.path.join(str(tmp_path), "ids.parquet")
    table = pa.table({"id": pa.array(range(10_000), pa.int64()), "s": [f"v{i}" for i in range(10_000)],
                      "maybe": [None if i < 5000 else i for i in range(10_000)]})
    pq.write_table(table, path, row_group_size=1000)
    return path


def test_selective_filter_reads_only_matching_row_groups(sorted_file: str) -> None:
    assert PARQUET.row_groups_to_read(sorted_file, [("=", "id", 4321)]) == [4]
    assert PARQUET.row_groups_to_read(sorted_file, [(">=", "id", 8500)]) == [8, 9]
    assert PARQUET.row_groups_to_read(sorted_file, [("in", "id", [5, 9999])]) == [0, 9]
    assert PARQUET.row_groups_to_read(sorted_file, [("is_null", "maybe")]) == [0, 1, 2, 3, 4]
    assert PARQUET.row_groups_to_read(sorted_file, [("not", ("<", "id", 9000))]) == [9]
    assert PARQUET.row_groups_to_read(sorted_file, [("and", (">", "id", 999), ("<", "id", 2000))]) == [1]
    assert PARQUET.row_groups_to_read(sorted_file, [("or", ("=", "id", 1), ("=", "s", "v5000"))]) == [0, 5]
    schema = PARQUET.infer_arrow_schema([sorted_file], {})
    rows = [r for s in PARQUET.splits([sorted_file], {}) for b in PARQUET.read_arrow(s, schema, {}, ["s"],
                                                                                   [("=", "id", 4321)])
            for r in b.to_pylist()]
    assert len(rows) == 1000 and {"s": "v4321"} in rows


def test_row_group_splits_and_projection(sorted_file: str) -> None:
    splits = PARQUET.splits([sorted_file], {"maxPartitionBytes": "20k"})
    assert len(splits) > 1
    assert sorted(g for s in splits for g in s.row_groups or ()) == list(range(10))
    schema = PARQUET.infer_arrow_schema([sorted_file], {})
    ids = [v for s in splits for b in PARQUET.read_arrow(s, schema, {}, ["id"]) for v in b.column(0).to_pylist()]
    assert ids == list(range(10_000))


def test_a_file_within_the_split_size_is_one_split_whatever_its_row_groups(tmp_path: os.PathLike) -> None:
    # Spark splits by the file's bytes: 8 row groups of zeros, ~64 KB each uncompressed, in
    # a file of a few KB, read with 16 KB splits, stay one split (packing the row groups by
    # their uncompressed sizes made several).
    path = os.path.join(str(tmp_path), "zeros.parquet")
    pq.write_table(pa.table({"x": pa.array([0] * 64_000, pa.int64())}), path, row_group_size=8_000,
                   use_dictionary=False, compression="zstd")
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 8 and os.path.getsize(path) < 16_000 < meta.row_group(0).total_byte_size * 2
    splits = PARQUET.splits([path], {"maxPartitionBytes": "16k"})
    assert [(s.path, s.row_groups) for s in splits] == [(path, None)]
    schema = PARQUET.infer_arrow_schema([path], {})
    assert sum(b.num_rows for b in PARQUET.read_arrow(splits[0], schema, {}, ["x"])) == 64_000


def test_missing_column_reads_null_and_timestamps_in_micros(tmp_path: os.PathLike) -> None:
    path = os.path.join(str(tmp_path), "t.parquet")
    pq.write_table(pa.table({"t": pa.array([0, 1_000_000_000], pa.timestamp("ns", tz="UTC"))}), path)
    schema = PARQUET.infer_arrow_schema([path], {})
    assert schema.field("t").type == pa.timestamp("us", tz="UTC")
    wide = schema.append(pa.field("extra", pa.int32()))
    batch = next(PARQUET.read_arrow(PARQUET.splits([path], {})[0], wide, {}))
    assert batch.schema == wide and batch.column(1).null_count == 2


@settings(max_examples=40, deadline=None)
@given(low=st.integers(-50, 1050), high=st.integers(-50, 1050), op=st.sampled_from(["=", "<", "<=", ">", ">=", "!="]))
def test_pruning_never_drops_a_matching_row(tmp_path_factory: pytest.TempPathFactory, low: int, high: int,
                                            op: str) -> None:
    path = str(tmp_path_factory.mktemp("pq") / "f.parquet")
    values = list(range(0, 1000, 3))
    pq.write_table(pa.table({"x": values}), path, row_group_size=37)
    kept = set(PARQUET.row_groups_to_read(path, [("or", (op, "x", low), ("=", "x", high))]))
    compare = {"=": lambda v: v == low, "<": lambda v: v < low, "<=": lambda v: v <= low, ">": lambda v: v > low,
               ">=": lambda v: v >= low, "!=": lambda v: v != low}[op]
    for i, v in enumerate(values):
        if compare(v) or v == high:
            assert i // 37 in kept
