"""hdfs_wordcount.py (a directory stream) runs end to end with a bounded number of batches."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration.examples_runner import Example

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_hdfs_wordcount_counts_its_sample_files() -> None:
    example = Example("hdfs_wordcount.py", "--batches", "3", "--master", "local")
    assert example.wait() == 0, example.stderr
    assert example.stdout.count("Time: ") == 3
    assert "('the', " in example.stdout


def test_hdfs_wordcount_counts_files_moved_into_a_directory(tmp_path: Path) -> None:
    watched = tmp_path / "words"
    watched.mkdir()
    example = Example(
        "hdfs_wordcount.py", str(watched), "--batch-interval", "0.5", "--master", "local"
    )
    try:
        example.wait_line(lambda line: line.startswith("Time: "), "a first batch")
        staging = tmp_path / "w.txt"
        staging.write_text("hello world hello\n")
        os.replace(staging, watched / "w.txt")
        example.wait_line(lambda line: line == "('hello', 2)", "('hello', 2)")
    finally:
        example.proc.send_signal(__import__("signal").SIGINT)
        assert example.wait() == 0, example.stderr
    assert "('world', 1)" in example.stdout


def test_hdfs_wordcount_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    example = Example(
        "hdfs_wordcount.py", str(tmp_path / "missing"), "--batches", "1", "--master", "local"
    )
    assert example.wait() != 0
    assert "does not exist" in example.stderr and str(tmp_path / "missing") in example.stderr
