"""RDD.pipe with real commands: lines in and out, PySpark's environment and exit-code rules,
and no command process outliving the task that started it.

Each test runs on ``local`` (the command is the driver's child) and ``local[2]`` (a
worker's child).
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import pytest

from rdd.piped import PipeFunctionExitedError

from tests.rdd.processes import wait_until


def _running(marker: str) -> list[int]:
    """Pids of this machine's processes whose command line contains ``marker``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            continue  # gone meanwhile
    return found


def test_elements_go_in_as_lines_and_output_lines_come_back(ctx: Any) -> None:
    data = ["a", "b c", "", "é ß 🙂", 7, "trailing\n"]
    assert ctx.parallelize(data, 2).pipe("cat").collect() == ["a", "b c", "", "é ß 🙂", "7", "trailing"]
    assert ctx.parallelize(["x y", "z"], 2).pipe("tr a-z A-Z").collect() == ["X Y", "Z"]


def test_the_command_runs_once_per_partition_even_an_empty_one(ctx: Any) -> None:
    assert ctx.parallelize([1, 2, 3], 3).pipe("wc -l").collect() == ["1", "1", "1"]
    assert ctx.parallelize([], 2).pipe("echo ran").collect() == ["ran", "ran"]


def test_the_environment_is_exactly_env(ctx: Any) -> None:
    rdd = ctx.parallelize(["x"], 1)
    assert rdd.pipe("env").collect() == [], "an empty environment by default, as PySpark's"
    assert rdd.pipe("env", env={"GREETING": "hi"}).collect() == ["GREETING=hi"]


def test_check_code_fails_the_task_on_a_nonzero_exit(ctx: Any) -> None:
    rdd = ctx.parallelize(["x"], 1)
    assert rdd.pipe("false").collect() == [], "the exit status is ignored without checkCode"
    with pytest.raises(Exception, match="Pipe function `false` exited with error code 1"):
        rdd.pipe("false", checkCode=True).collect()
    assert isinstance(PipeFunctionExitedError("x"), RuntimeError)


def test_a_command_that_stops_reading_early_keeps_its_output(ctx: Any) -> None:
    lines = ctx.parallelize(range(100_000), 1).pipe("head -n 3", checkCode=True).collect()
    assert lines == ["0", "1", "2"]


def test_a_command_that_cannot_start_is_named(ctx: Any) -> None:
    with pytest.raises(Exception, match="could not start 'no-such-command-dstreams'"):
        ctx.parallelize(["x"], 1).pipe("no-such-command-dstreams").collect()


def test_bad_arguments_are_refused_on_the_driver(ctx: Any) -> None:
    with pytest.raises(ValueError, match="non-empty str"):
        ctx.parallelize(["x"]).pipe("  ")
    with pytest.raises(TypeError, match="dict of str to str"):
        ctx.parallelize(["x"]).pipe("cat", env={"A": 1})


def test_the_process_does_not_outlive_a_task_that_stops_early(ctx: Any) -> None:
    marker = f"dstreams-pipe-{uuid.uuid4().hex}"
    # `yes` never ends on its own: only the task's clean-up can stop it.
    assert ctx.parallelize(["x"], 1).pipe(f"yes {marker}").take(2) == [marker, marker]
    wait_until(lambda: not _running(marker), 10.0, f"`yes {marker}` is gone after its task ended")
