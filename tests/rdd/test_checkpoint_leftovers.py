"""What crashed RDD checkpoint writers leave is removed by the next checkpoint, on ``local[2]``.

Leftovers are made as a crash leaves them, with the code's naming and the pids of real
processes: one killed (its writer is gone) and one still running (a live writer, whose
files must never be touched):

* ``rdd-<id>/part-NNNNN.tmp-<pid>``: a task killed while writing its part file;
* ``local-<ms>-<pid>/``: the run directory of a driver that died;

and one dead run's directory that this context read a checkpoint from (as recovery does),
which must stay. Also: a checkpoint directory whose part file is missing or truncated
is refused when read back, naming the file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rdd import SparkContext
from rdd.errors import CheckpointError


@pytest.fixture
def pids() -> Iterator[tuple[int, int]]:
    """(pid of a killed process, pid of a running one)."""
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead.kill()
    dead.wait()
    try:
        yield dead.pid, live.pid
    finally:
        live.kill()
        live.wait()


def _run_dir(root: Path, pid: int, ms: int) -> Path:
    run = root / f"local-{ms}-{pid}" / "rdd-3"
    run.mkdir(parents=True)
    (run / "part-00000").write_bytes(b"x")
    return run.parent


def test_the_next_checkpoint_removes_dead_writers_leftovers_only(
    make_sc: Callable[..., SparkContext], tmp_path: Path, pids: tuple[int, int]
) -> None:
    dead, live = pids
    sc = make_sc("local[2]")
    first = sc.parallelize(range(10), 2)
    sc.setCheckpointDir(str(tmp_path))
    first.checkpoint()
    first.count()
    dead_run = _run_dir(tmp_path, dead, 1)
    live_run = _run_dir(tmp_path, live, 2)
    read_run = tmp_path / f"local-3-{dead}"
    written = first.getCheckpointFile()
    os.rename(os.path.dirname(written), read_run)  # a dead run's complete checkpoint
    restored = sc._checkpoint_file(str(read_run / os.path.basename(written)))

    rdd = sc.parallelize(range(100), 2).map(lambda x: x * 2)
    rdd.checkpoint()
    directory = Path(rdd._node.checkpoint_dir)
    dead_tmp = directory / f"part-00001.tmp-{dead}"
    live_tmp = directory / f"part-00002.tmp-{live}"
    dead_tmp.write_bytes(b"half a part")
    live_tmp.write_bytes(b"being written")

    assert rdd.sum() == 9900
    assert rdd.isCheckpointed()
    assert not dead_tmp.exists() and not dead_run.exists()
    assert live_tmp.exists() and live_run.exists()
    assert read_run.exists() and sorted(restored.collect()) == list(range(10))


@pytest.mark.parametrize("damage", ["missing", "truncated"])
def test_reading_back_a_damaged_checkpoint_names_the_file(
    make_sc: Callable[..., SparkContext], tmp_path: Path, damage: str
) -> None:
    sc = make_sc("local[2]")
    sc.setCheckpointDir(str(tmp_path))
    rdd = sc.parallelize([(i % 7, i) for i in range(2000)], 3).partitionBy(3)
    rdd.checkpoint()
    rdd.count()
    part = Path(rdd.getCheckpointFile()) / "part-00001"
    if damage == "missing":
        part.unlink()
    else:
        part.write_bytes(part.read_bytes()[:-10])
    with pytest.raises(CheckpointError, match=rf"{part}.*(missing|truncated)"):
        sc._checkpoint_file(rdd.getCheckpointFile())
