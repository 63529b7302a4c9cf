"""The state store across processes: a writer killed mid-commit, and stores in real worker processes.

Kept apart from ``test_state_store.py`` because these tests start processes (a child
interpreter, the ``local[2]`` workers), which ``make test-fast`` leaves out.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkContext

from dstream.sql.errors import SparkRuntimeException
from dstream.sql.streaming.state.store import StateStoreConf, StateStoreId, get_store, read_state

DEADLINE_S = 60

# A writer that blocks just before renaming the complete temporary file whose name holds
# argv[2] into place: the parent kills it there with SIGKILL, the worst moment for a commit.
WRITER = textwrap.dedent("""
    import os, sys, time
    from dstream.sql.streaming.state.store import StateStoreConf, StateStoreId, get_store

    root, block_at = sys.argv[1], sys.argv[2]
    real_replace = os.replace

    def replace(src, dst):
        if block_at in os.path.basename(src):
            print("blocked", flush=True)
            time.sleep(600)
        real_replace(src, dst)

    os.replace = replace
    store = get_store(StateStoreId(root, 0, 0), 3, "run-2", StateStoreConf(min_deltas_for_snapshot=2))
    for i in range(1000):
        store.put((i,), ["run-2", i])
    store.commit()
    print("committed", flush=True)
""")


def read_line(proc: subprocess.Popen[str], deadline_s: float) -> str:
    """The child's next stdout line, failing loudly if none comes within ``deadline_s``."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], deadline_s)
    if not ready:
        raise AssertionError(f"the writer printed nothing within {deadline_s} s")
    return proc.stdout.readline().strip()


def run_batch(store_id: StateStoreId, version: int, run_id: str, conf: StateStoreConf,
              model: dict[tuple[Any, ...], Any], tag: str) -> dict[tuple[Any, ...], Any]:
    store = get_store(store_id, version, run_id, conf)
    state = dict(model)
    for i in range(1000):
        store.put((i,), [tag, i])
        state[(i,)] = [tag, i]
    store.commit()
    return state


def store_files(store_id: StateStoreId) -> set[str]:
    return {p.name for p in Path(store_id.path()).iterdir()}


@pytest.mark.parametrize("block_at", [".4.delta.", ".4.snapshot."], ids=["in-delta", "in-snapshot"])
def test_a_writer_killed_mid_commit_leaves_a_consistent_store(tmp_path: Path, block_at: str) -> None:
    root = str(tmp_path / "state")
    store_id = StateStoreId(root, 0, 0)
    conf = StateStoreConf(min_deltas_for_snapshot=2)
    first_run: list[dict[tuple[Any, ...], Any]] = [{}]
    for version in range(4):
        first_run.append(run_batch(store_id, version, "run-1", conf, first_run[-1], f"v{version}"))
    assert store_files(store_id) == {"1.delta", "2.delta", "2.snapshot", "3.delta", "4.delta", "4.snapshot"}
    # A restart re-runs batch 3 in a new process, which is killed inside its commit.
    writer = subprocess.Popen([sys.executable, "-c", WRITER, root, block_at], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        line = read_line(writer, DEADLINE_S)
        if line != "blocked":
            writer.wait(timeout=DEADLINE_S)
            assert writer.stderr is not None
            raise AssertionError(f"the writer did not block at {block_at}: {line!r} {writer.stderr.read()}")
        writer.send_signal(signal.SIGKILL)
        assert writer.wait(timeout=DEADLINE_S) == -signal.SIGKILL
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait(timeout=DEADLINE_S)
        for stream in (writer.stdout, writer.stderr):
            assert stream is not None
            stream.close()
    names = store_files(store_id)
    temps = [name for name in names if name.startswith(".")]
    assert len(temps) == 1 and temps[0].startswith(block_at) and f".{writer.pid}." in temps[0]
    assert "4.snapshot" not in names, "the old attempt's snapshot is removed before the new delta is written"
    killed_run = dict(first_run[3])
    killed_run.update({(i,): ["run-2", i] for i in range(1000)})
    if block_at == ".4.delta.":
        # Killed before its delta was in place: version 4 is still the first run's, complete.
        assert read_state(store_id, 4) == first_run[4]
    else:
        # Killed after the new 4.delta was in place, before 4.snapshot: the old attempt's
        # snapshot cannot shadow it, version 4 is the killed run's.
        assert read_state(store_id, 4) == killed_run
    assert read_state(store_id, 3) == first_run[3]
    # The next restart re-runs batch 3 again; its commit removes the dead writer's temp file.
    third_run = run_batch(store_id, 3, "run-3", conf, first_run[3], "run-3")
    assert store_files(store_id) == {"1.delta", "2.delta", "2.snapshot", "3.delta", "4.delta", "4.snapshot"}
    assert read_state(store_id, 4) == third_run


# ------------------------------------------------------------------------ stores in worker processes

CONF = StateStoreConf(min_deltas_for_snapshot=2, min_batches_to_retain=3)
PARTITIONS = 4


def changes(partition: int, version: int, tag: str) -> Iterator[tuple[str, tuple[Any, ...], Any]]:
    """The puts and removals of a partition's task in batch ``version`` (the same in driver and workers)."""
    for i in range(20):
        yield "put", (partition, (version * 7 + i) % 30), [tag, version, i]
    for j in range(5):
        yield "remove", (partition, (version * 3 + j) % 30), None


def stateful_task(root: str, version: int, run_id: str, tag: str) -> Callable[[int, Iterable[int]], Iterator[Any]]:
    def run(partition: int, rows: Iterable[int]) -> Iterator[Any]:
        store = get_store(StateStoreId(root, 0, partition), version, run_id, CONF)
        for kind, key, value in changes(partition, version, tag):
            if kind == "put":
                store.put(key, value)
            else:
                store.remove(key)
        yield partition, os.getpid(), store.commit(), len(store)

    return run


def apply(model: dict[tuple[Any, ...], Any], partition: int, version: int, tag: str) -> None:
    for kind, key, value in changes(partition, version, tag):
        if kind == "put":
            model[key] = value
        else:
            model.pop(key, None)


def test_stores_in_worker_processes_match_the_model(sc2: SparkContext, tmp_path: Path) -> None:
    root = str(tmp_path / "state")
    models: list[list[dict[tuple[Any, ...], Any]]] = [[{}] for _ in range(PARTITIONS)]

    def batch(version: int, run_id: str, tag: str) -> set[int]:
        results = sc2.parallelize(range(PARTITIONS), PARTITIONS).mapPartitionsWithIndex(
            stateful_task(root, version, run_id, tag)).collect()
        assert sorted(r[0] for r in results) == list(range(PARTITIONS))
        for partition, _pid, committed, size in results:
            model = models[partition]
            del model[version + 1:]
            model.append(dict(model[version]))
            apply(model[version + 1], partition, version, tag)
            assert committed == version + 1 and size == len(model[version + 1])
        return {r[1] for r in results}

    pids: set[int] = set()
    for version in range(6):
        pids |= batch(version, "run-1", "first")
    assert os.getpid() not in pids, "the tasks ran in worker processes"
    # A restart (new run id: the workers' cached maps are not used) re-runs the last batch.
    pids |= batch(5, "run-2", "rerun")
    pids |= batch(6, "run-2", "rerun")
    for partition in range(PARTITIONS):
        store_id = StateStoreId(root, 0, partition)
        for version in range(7 - CONF.min_batches_to_retain, 8):
            assert read_state(store_id, version) == models[partition][version], (partition, version)
        with pytest.raises(SparkRuntimeException, match="does not exist"):
            read_state(store_id, 1)
