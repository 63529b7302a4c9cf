"""Properties of reading and writing files: textFile, wholeTextFiles, saveAsTextFile,
saveAsPickleFile and pickleFile.

Files are real files under the test's ``tmp_path`` (one fresh name per Hypothesis
example). Text is UTF-8 with multi-byte characters, empty lines, and with or without a
final newline; ``minPartitions`` varies so that byte ranges split lines and multi-byte
characters, and the engine must still give every line exactly once, in file order.
The saved formats are checked against ``docs/internals.md`` ("Saved-file formats").
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.conftest import FileMaker
from tests.strategies import element_lists, int_lists, partitions, rdd_property, slices, texts

lines = st.lists(st.one_of(texts, st.just(""), st.text("é鍵🙂a ", min_size=20, max_size=60)), max_size=25)
min_partitions = st.none() | st.integers(1, 6)


def content_of(text_lines: list[str], trailing_newline: bool) -> str:
    content = "\n".join(text_lines)
    return content + "\n" if trailing_newline and text_lines else content


def lines_model(content: str) -> list[str]:
    """Lines of a ``\\n``-separated file: a final newline does not start an empty line."""
    if not content:
        return []
    parts = content.split("\n")
    return parts[:-1] if content.endswith("\n") else parts


def local_path(uri: str) -> str:
    """The path of Hadoop's ``file:`` URI form (``file:/p`` or ``file:///p``)."""
    if uri.startswith("file://"):
        return uri[len("file://"):]
    if uri.startswith("file:"):
        return uri[len("file:"):]
    return uri


def part_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.name.startswith("part-"))


# ------------------------------------------------------------------ textFile


@rdd_property(text_lines=lines, trailing_newline=st.booleans(), min_parts=min_partitions)
def test_text_file_reads_every_line_once_in_order(ctx: Any, files: FileMaker, text_lines: list[str],
                                                   trailing_newline: bool, min_parts: int | None) -> None:
    content = content_of(text_lines, trailing_newline)
    expected = lines_model(content)
    assert expected == content.splitlines(), "the model is str.splitlines for \\n line ends"
    rdd = ctx.textFile(str(files.text(content)), min_parts)
    assert rdd.collect() == expected
    if min_parts is not None and len(content.encode()) >= min_parts:
        assert rdd.getNumPartitions() >= min_parts


@rdd_property(contents=st.lists(st.tuples(lines, st.booleans()), min_size=1, max_size=4),
              min_parts=min_partitions)
def test_text_file_of_a_directory_reads_files_in_name_order(ctx: Any, files: FileMaker,
                                                             contents: list[tuple[list[str], bool]],
                                                             min_parts: int | None) -> None:
    directory = files.new_dir()
    expected: list[str] = []
    for i, (text_lines, trailing) in enumerate(contents):
        content = content_of(text_lines, trailing)
        files.text(content, name=f"part-{i:05d}", directory=directory)
        expected += lines_model(content)
    assert ctx.textFile(str(directory), min_parts).collect() == expected


@rdd_property(contents=st.lists(st.tuples(lines, st.booleans()), min_size=1, max_size=4),
              min_parts=min_partitions)
def test_whole_text_files(ctx: Any, files: FileMaker, contents: list[tuple[list[str], bool]],
                          min_parts: int | None) -> None:
    directory = files.new_dir()
    expected = {}
    for i, (text_lines, trailing) in enumerate(contents):
        content = content_of(text_lines, trailing)
        path = files.text(content, name=f"file-{i}.txt", directory=directory)
        expected[str(path)] = content
    result = ctx.wholeTextFiles(str(directory), min_parts).collect()
    assert len(result) == len(expected)
    assert all(name.startswith("file:") for name, _ in result), "PySpark's keys are file: URIs"
    assert {local_path(name): content for name, content in result} == expected


# ------------------------------------------------------------------ saving


@rdd_property(data=st.one_of(int_lists, st.lists(texts, max_size=30)), num=partitions)
def test_save_as_text_file_round_trip(ctx: Any, files: FileMaker, data: list[Any], num: int) -> None:
    out = files.path("saved")
    ctx.parallelize(data, num).saveAsTextFile(str(out))
    assert (out / "_SUCCESS").is_file()
    parts = part_files(out)
    assert [p.name for p in parts] == [f"part-{i:05d}" for i in range(num)]
    written = b"".join(p.read_bytes() for p in parts).decode("utf-8")
    assert written == "".join(f"{x}\n" for x in data), "one line per record, \\n-terminated"
    assert ctx.textFile(str(out)).collect() == [str(x) for x in data]


@rdd_property(data=st.one_of(element_lists, st.lists(st.tuples(st.integers(), texts), max_size=30)),
              num=partitions, batch=st.integers(1, 12))
def test_save_as_pickle_file_round_trip(ctx: Any, files: FileMaker, data: list[Any], num: int,
                                        batch: int) -> None:
    out = files.path("pickled")
    ctx.parallelize(data, num).saveAsPickleFile(str(out), batch)
    assert (out / "_SUCCESS").is_file()
    assert len(part_files(out)) == num
    back = ctx.pickleFile(str(out))
    assert back.getNumPartitions() == num, "one partition per part file"
    assert back.collect() == data


@rdd_property(data=int_lists, num=partitions, batch=st.integers(1, 12))
def test_pickle_file_format(ctx: Any, files: FileMaker, data: list[Any], num: int, batch: int) -> None:
    """Each part file is a sequence of pickled lists of at most batchSize records."""
    out = files.path("pickled")
    rdd = ctx.parallelize(data, num)
    rdd.saveAsPickleFile(str(out), batch)
    for part_path, expected in zip(part_files(out), slices(data, num), strict=True):
        frames = []
        with open(part_path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            while f.tell() < size:
                frames.append(pickle.load(f))
        assert all(isinstance(frame, list) and len(frame) <= batch for frame in frames)
        assert [x for frame in frames for x in frame] == expected
