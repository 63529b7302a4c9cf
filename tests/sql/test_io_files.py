"""Input listing, partition discovery and line-aligned byte ranges of dstream.sql.io."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql.errors import AnalysisException, IllegalArgumentException
from dstream.sql.io import get_format, list_input_files
from dstream.sql.io.files import FileSplit, byte_ranges, partition_schema, partition_values, read_line_range
from dstream.sql.io.text import split_lines


def _touch(path: str, text: str = "x\n") -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)
    return path


def test_directory_lists_visible_files_and_partition_dirs_only(tmp_path: os.PathLike) -> None:
    root = str(tmp_path)
    a = _touch(f"{root}/a.csv")
    _touch(f"{root}/_SUCCESS")
    _touch(f"{root}/.hidden")
    _touch(f"{root}/_temporary/0/part.csv")
    _touch(f"{root}/sub/ignored.csv")
    b = _touch(f"{root}/k=1/b.csv")
    assert list_input_files([root]) == [a, b]
    assert list_input_files([f"{root}/*.csv"]) == [a]
    assert list_input_files([f"file:{a}"]) == [a]


@pytest.mark.parametrize(("pattern", "kept"), [
    ("*.csv", ["a.csv", "b.csv", "k=1/c.csv"]), ("*.{txt,json}", ["d.txt", "e.json"]), ("[ab].*", ["a.csv", "b.csv"]),
    ("[^ab]*", ["d.txt", "e.json", "k=1/c.csv"]), ("?.txt", ["d.txt"]), (r"\*.csv", []),
])
def test_path_glob_filter_keeps_files_whose_name_matches(tmp_path: os.PathLike, pattern: str, kept: list[str]) -> None:
    # Hadoop's GlobFilter, on the file name only (the k=1 directory is still entered).
    root = str(tmp_path)
    for name in ["a.csv", "b.csv", "d.txt", "e.json", "k=1/c.csv"]:
        _touch(f"{root}/{name}")
    assert list_input_files([root], {"pathGlobFilter": pattern}) == [f"{root}/{name}" for name in kept]


def test_recursive_file_lookup_lists_every_subdirectory(tmp_path: os.PathLike) -> None:
    root = str(tmp_path)
    files = [_touch(f"{root}/{name}") for name in ["a.csv", "k=1/b.csv", "sub/c.csv", "sub/deeper/d.csv"]]
    _touch(f"{root}/sub/_SUCCESS")
    assert list_input_files([root], {"recursiveFileLookup": "true"}) == files
    assert list_input_files([root], {"recursiveFileLookup": "false"}) == files[:2]


def test_a_bad_path_glob_filter_is_refused(tmp_path: os.PathLike) -> None:
    _touch(f"{tmp_path}/a.csv")
    with pytest.raises(IllegalArgumentException, match="Invalid pathGlobFilter '\\[ab': unclosed"):
        list_input_files([str(tmp_path)], {"pathGlobFilter": "[ab"})


def test_missing_path_is_path_not_found(tmp_path: os.PathLike) -> None:
    missing = os.path.join(str(tmp_path), "nope")
    with pytest.raises(AnalysisException) as info:
        list_input_files([missing])
    assert info.value.getCondition() == "PATH_NOT_FOUND"
    assert str(info.value).startswith(f"[PATH_NOT_FOUND] Path does not exist: file:{missing}.")


def test_partition_discovery_types_and_nulls(tmp_path: os.PathLike) -> None:
    root = str(tmp_path)
    files = [_touch(f"{root}/y=2024/m=1/c=a%2Fb/p.txt"),
             _touch(f"{root}/y=2025/m=1.5/c=__HIVE_DEFAULT_PARTITION__/p.txt")]
    assert partition_values(files[0]) == (("y", "2024"), ("m", "1"), ("c", "a/b"))
    assert partition_values(files[1])[2] == ("c", None)
    assert partition_schema(files) == pa.schema([("y", pa.int32()), ("m", pa.float64()), ("c", pa.string())])
    fmt = get_format("text")
    schema = fmt.infer_arrow_schema(files, {})
    assert schema.names == ["value", "y", "m", "c"]
    rows = [r for s in fmt.splits(files, {}) for b in fmt.read_arrow(s, schema, {}) for r in b.to_pylist()]
    assert rows == [{"value": "x", "y": 2024, "m": 1.0, "c": "a/b"}, {"value": "x", "y": 2025, "m": 1.5, "c": None}]


def test_base_path_stops_discovery(tmp_path: os.PathLike) -> None:
    path = _touch(os.path.join(str(tmp_path), "x=1", "f.txt"))
    assert partition_values(path) == (("x", "1"),)
    assert partition_values(path, os.path.dirname(path)) == ()


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.text(alphabet="ab\r", max_size=12), max_size=30), size=st.integers(1, 40),
       final=st.booleans())
def test_byte_ranges_cover_every_line_once(tmp_path_factory: pytest.TempPathFactory, lines: list[str], size: int,
                                           final: bool) -> None:
    text = "\n".join(lines) + ("\n" if final and lines else "")
    path = str(tmp_path_factory.mktemp("ranges") / "f.txt")
    with open(path, "w", newline="") as handle:
        handle.write(text)
    splits = byte_ranges(path, size)
    pieces = [read_line_range(s) for s in splits]
    assert b"".join(pieces) == text.encode()
    # The model: Python's universal newlines over the whole file.
    model = text.encode().splitlines()
    got = [v for p in pieces for v in split_lines(p).to_pylist()]
    assert got == [m.decode() for m in model]


def test_text_splits_by_max_partition_bytes(tmp_path: os.PathLike) -> None:
    path = os.path.join(str(tmp_path), "big.txt")
    lines = [f"line {i}" for i in range(5000)]
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    fmt = get_format("text")
    splits = fmt.splits([path], {"maxPartitionBytes": "4k"})
    assert len(splits) > 5
    schema = fmt.infer_arrow_schema([path], {})
    got = [v for s in splits for b in fmt.read_arrow(s, schema, {}) for v in b.column(0).to_pylist()]
    assert got == lines
    assert fmt.splits([path], {"wholetext": "true", "maxPartitionBytes": "4k"}) == [FileSplit(path)]
