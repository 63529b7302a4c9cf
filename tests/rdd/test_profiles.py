"""``spark.python.profile``: tasks profiled in their executors, ``show_profiles``, ``dump_profiles``, at exit."""

from __future__ import annotations

import os
import pstats
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from rdd import BasicProfiler, SparkConf, SparkContext
from rdd.errors import SparkError


def double(x: int) -> int:
    return 2 * x


def test_every_stage_of_a_job_is_profiled_in_its_worker(make_sc: Callable[..., SparkContext],
                                                         capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    sc = make_sc("local[2]", SparkConf().set("spark.python.profile", "true"))
    mapped = sc.parallelize(range(1000), 3).map(double)
    assert mapped.sum() == 999_000
    pairs = sc.parallelize(range(1000), 3).map(lambda x: (x % 3, 1)).reduceByKey(lambda a, b: a + b, 2)
    assert sorted(pairs.collect()) == [(0, 334), (1, 333), (2, 333)]
    sc.show_profiles()
    shown = capsys.readouterr().out
    assert shown.count("Profile of RDD<id=") == 3  # the sum's stage, the map side and the reduce side
    assert "Ordered by: internal time, cumulative time" in shown
    assert "(double)" in shown and "(<lambda>)" in shown
    sc.show_profiles()  # each profile is shown once
    assert capsys.readouterr().out == ""
    sc.dump_profiles(str(tmp_path / "profiles"))
    files = sorted(os.listdir(tmp_path / "profiles"))
    assert len(files) == 3 and all(f.startswith("rdd_") and f.endswith(".pstats") for f in files)
    stats = pstats.Stats(str(tmp_path / "profiles" / files[0]))
    assert stats.total_calls > 0  # type: ignore[attr-defined]  # pstats sets it
    sc.dump_profiles(str(tmp_path / "again"))  # dumped profiles are forgotten
    assert not os.path.exists(tmp_path / "again") or os.listdir(tmp_path / "again") == []


def test_a_profiler_class_presents_the_profiles(make_sc: Callable[..., SparkContext],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    class MyCustomProfiler(BasicProfiler):
        def show(self, id: int) -> None:  # noqa: A002 - PySpark's name
            print(f"My custom profiles for RDD:{id}")

    sc = SparkContext("local", "custom", conf=SparkConf().set("spark.python.profile", "true"),
                      profiler_cls=MyCustomProfiler)
    try:
        assert sc.parallelize(range(1000)).map(double).take(3) == [0, 2, 4]
        sc.show_profiles()
    finally:
        sc.stop()
    assert capsys.readouterr().out.startswith("My custom profiles for RDD:")


def test_without_the_setting_nothing_is_profiled(make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("local")
    assert sc.parallelize(range(10)).count() == 10
    with pytest.raises(SparkError, match="INCORRECT_CONF_FOR_PROFILE"):
        sc.show_profiles()
    with pytest.raises(SparkError, match=r"set spark.python.profile=true"):
        sc.dump_profiles("/nowhere")


def test_profiles_left_are_dumped_when_the_program_exits(tmp_path: Path) -> None:
    program = textwrap.dedent(f"""
        from rdd import SparkConf, SparkContext
        conf = SparkConf().set("spark.python.profile", "true")
        conf.set("spark.python.profile.dump", {str(tmp_path / "dump")!r})
        sc = SparkContext("local[2]", "exit-dump", conf=conf)
        print(sc.parallelize(range(100), 2).map(lambda x: x + 1).sum())
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "5050"
    assert [f for f in os.listdir(tmp_path / "dump") if f.endswith(".pstats")], "no profile dumped at exit"
