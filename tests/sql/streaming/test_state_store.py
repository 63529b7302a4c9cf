"""The state store on real files: versions, re-runs, crashes, snapshots, retention, abort, the cache.

Every test writes under ``tmp_path`` and reads back through the public functions
(:func:`get_store`, :func:`read_state`); the property test compares random sequences of
puts, removals, commits, aborts and restarts with a plain dict per version. The tests
that start processes (a writer killed mid-commit, stores in worker processes) are in
``test_state_store_processes.py``, so this module stays in ``make test-fast``.
"""

from __future__ import annotations

import datetime
import os
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql.errors import IllegalArgumentException, SparkRuntimeException
from dstream.sql.streaming.state.store import (
    StateStoreConf,
    StateStoreId,
    clear_cache,
    get_store,
    read_state,
)

#: A pid no process can have (Linux's pid_max is at most 2**22): a crashed writer's.
DEAD_PID = 2**31 - 1
CONF = StateStoreConf()


def store_files(store_id: StateStoreId) -> set[str]:
    return {p.name for p in Path(store_id.path()).iterdir() if p.is_file()}


def commit_versions(store_id: StateStoreId, changes: list[dict[tuple[Any, ...], Any]], run_id: str = "run-1",
                    conf: StateStoreConf = CONF) -> list[dict[tuple[Any, ...], Any]]:
    """Commit one version per dict of changes (a value None removes); the model of each version."""
    model: list[dict[tuple[Any, ...], Any]] = [{}]
    for version, change in enumerate(changes):
        store = get_store(store_id, version, run_id, conf)
        state = dict(model[-1])
        for key, value in change.items():
            if value is None:
                store.remove(key)
                state.pop(key, None)
            else:
                store.put(key, value)
                state[key] = value
        assert store.commit() == version + 1
        model.append(state)
    return model


# ------------------------------------------------------------------------ layout, round trips


def test_store_directories_follow_operator_partition_and_name(tmp_path: Path) -> None:
    root = str(tmp_path / "state")
    assert StateStoreId(root, 3, 7).path() == os.path.join(root, "3", "7")
    assert StateStoreId(root, 3, 7, "left-keyToNumValues").path() == os.path.join(root, "3", "7",
                                                                                  "left-keyToNumValues")
    assert StateStoreId(root, 0, 0).checkpoint() == str(tmp_path)
    for bad in ("", "1.delta", "../x", "a/b", ".hidden"):
        with pytest.raises(IllegalArgumentException, match="store name"):
            StateStoreId(root, 0, 0, bad)


def test_versions_round_trip_through_files(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 1, "main")
    changes: list[dict[tuple[Any, ...], Any]] = [
        {("a", 1): 1, ("b", 2): [1, 2.5, "x"], (b"raw", None): {"count": 3, "sum": 1.5}},
        {("a", 1): 2, (("nested", 1), True): "é", ("b", 2): None},
        {("a", 1): None, (0,): [[1, 2], {"k": [3]}]},
    ]
    model = commit_versions(store_id, changes)
    assert store_files(store_id) == {"1.delta", "2.delta", "3.delta"}
    for version, expected in enumerate(model):
        got = read_state(store_id, version)
        assert got == expected
        assert all(type(key) is tuple for key in got)
    nested = next(key for key in read_state(store_id, 3) if key[0] == ("nested", 1))
    assert type(nested[0]) is tuple, "nested key tuples come back as tuples"
    assert read_state(store_id, 0) == {}


def test_tuple_values_are_lists_in_memory_and_on_disk(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    store = get_store(store_id, 0, "run", CONF)
    store.put((1,), (1, (2, 3), {"a": (4,)}))
    assert store.get((1,)) == [1, [2, 3], {"a": [4]}]
    store.commit()
    assert read_state(store_id, 1) == {(1,): [1, [2, 3], {"a": [4]}]}
    assert get_store(store_id, 1, "run", CONF).get((1,)) == [1, [2, 3], {"a": [4]}]


def test_bad_keys_and_values_are_refused_with_the_rule(tmp_path: Path) -> None:
    store = get_store(StateStoreId(str(tmp_path / "state"), 0, 0), 0, "run", CONF)
    with pytest.raises(TypeError, match="state key is a tuple"):
        store.put([1], 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="holds a datetime"):
        store.put((datetime.datetime(2024, 1, 1),), 1)
    with pytest.raises(TypeError, match=r"value for key \(1,\) holds a datetime.*epoch microseconds"):
        store.put((1,), [datetime.datetime(2024, 1, 1)])
    with pytest.raises(TypeError, match="Cannot put None"):
        store.put((1,), None)
    assert len(store) == 0


def test_a_key_msgpack_cannot_store_fails_the_commit_and_leaves_no_file(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    store = get_store(store_id, 0, "run", CONF)
    store.put((1,), 1)
    store.put((2**70,), 1)
    with pytest.raises(TypeError, match=r"key \(1180591620717411303424,\) cannot be written to 1.delta"):
        store.commit()
    assert store_files(store_id) == set()
    store.abort()
    assert dict(store.items()) == {}


# ------------------------------------------------------------------------ the cache


def test_the_cache_is_used_only_for_the_same_run_and_version(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    commit_versions(store_id, [{(1,): 1}, {(2,): 2}], run_id="run-1")
    for name in store_files(store_id):  # from here on only the cache knows version 2
        os.unlink(os.path.join(store_id.path(), name))
    store = get_store(store_id, 2, "run-1", CONF)
    assert dict(store.items()) == {(1,): 1, (2,): 2}
    store.abort()
    with pytest.raises(SparkRuntimeException, match="1.delta does not exist"):
        get_store(store_id, 2, "run-2", CONF)
    with pytest.raises(SparkRuntimeException, match="1.delta does not exist"):
        get_store(store_id, 1, "run-1", CONF)


def test_clear_cache_makes_the_next_open_read_the_files(tmp_path: Path) -> None:
    root = str(tmp_path / "state")
    store_id = StateStoreId(root, 0, 0)
    commit_versions(store_id, [{(1,): 1}])
    os.unlink(os.path.join(store_id.path(), "1.delta"))
    clear_cache(str(tmp_path / "elsewhere"))
    get_store(store_id, 1, "run-1", CONF).abort()  # still cached
    clear_cache(root)
    with pytest.raises(SparkRuntimeException, match="does not exist"):
        get_store(store_id, 1, "run-1", CONF)


def test_two_stores_of_one_id_open_at_once_do_not_share_a_map(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    commit_versions(store_id, [{(1,): 1}])
    first = get_store(store_id, 1, "run-1", CONF)
    second = get_store(store_id, 1, "run-1", CONF)  # the map is taken: this one reads the files
    first.put((2,), 2)
    assert dict(second.items()) == {(1,): 1}
    first.abort()
    second.abort()


# ------------------------------------------------------------------------ re-runs and crashes


def test_a_rerun_batch_rewrites_its_delta_and_drops_the_superseded_files(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    conf = StateStoreConf(min_deltas_for_snapshot=2)
    commit_versions(store_id, [{(i,): i} for i in range(4)], conf=conf)
    assert store_files(store_id) == {"1.delta", "2.delta", "2.snapshot", "3.delta", "4.delta", "4.snapshot"}
    # A restart re-runs batch 1 (its commit log entry was never written) in a new run.
    store = get_store(store_id, 1, "run-2", conf)
    store.put((1,), "again")
    assert store.commit() == 2
    # The old attempt's 2.snapshot and everything above version 2 are gone, so they cannot
    # shadow the new delta chain; 2.snapshot is written again, from the new chain.
    assert store_files(store_id) == {"1.delta", "2.delta", "2.snapshot"}
    assert read_state(store_id, 2) == {(0,): 0, (1,): "again"}
    clear_cache()
    assert dict(get_store(store_id, 2, "run-3", conf).items()) == {(0,): 0, (1,): "again"}
    with pytest.raises(SparkRuntimeException, match="3.delta does not exist"):
        read_state(store_id, 3)


def test_a_crashed_writers_temp_file_is_invisible_and_removed_by_the_next_commit(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    model = commit_versions(store_id, [{(1,): 1}, {(2,): 2}])
    crashed = f".3.delta.{DEAD_PID}.{uuid.uuid4().hex}.tmp"
    in_flight = f".3.delta.{os.getpid()}.{uuid.uuid4().hex}.tmp"  # a live writer's: left alone
    for name in (crashed, in_flight):
        Path(store_id.path(), name).write_bytes(b"\x92\x91\x01")  # half a record
    assert read_state(store_id, 2) == model[2]
    with pytest.raises(SparkRuntimeException, match="3.delta does not exist"):
        read_state(store_id, 3)
    store = get_store(store_id, 2, "run-2", CONF)
    store.put((3,), 3)
    store.commit()
    assert store_files(store_id) == {"1.delta", "2.delta", "3.delta", in_flight}
    assert read_state(store_id, 3) == {(1,): 1, (2,): 2, (3,): 3}


def test_a_missing_delta_names_the_file_the_version_and_the_checkpoint(tmp_path: Path) -> None:
    checkpoint = tmp_path / "ckpt"
    store_id = StateStoreId(str(checkpoint / "state"), 2, 5)
    commit_versions(store_id, [{(i,): i} for i in range(4)])
    os.unlink(os.path.join(store_id.path(), "2.delta"))
    with pytest.raises(SparkRuntimeException) as failure:
        get_store(store_id, 4, "another-run", CONF)
    message = str(failure.value)
    assert os.path.join(store_id.path(), "2.delta") in message
    assert "version 4" in message
    assert f"checkpoint {checkpoint} is damaged or incomplete" in message
    assert "new checkpointLocation" in message
    assert failure.value.getCondition() == "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS"
    assert read_state(store_id, 1) == {(0,): 0}


@pytest.mark.parametrize("damage", ["truncate", "append", "not-a-record"])
def test_a_damaged_file_is_reported_not_read_partially(tmp_path: Path, damage: str) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    commit_versions(store_id, [{(i,): [i] * 20 for i in range(50)}], conf=StateStoreConf(min_deltas_for_snapshot=1))
    for name in ("1.delta", "1.snapshot"):
        path = Path(store_id.path(), name)
        data = path.read_bytes()
        damaged = {"truncate": data[:-3], "append": data + b"\x92", "not-a-record": data + b"\x05"}[damage]
        path.write_bytes(damaged)
    with pytest.raises(SparkRuntimeException, match=r"1\.snapshot is corrupted"):
        read_state(store_id, 1)
    os.unlink(os.path.join(store_id.path(), "1.snapshot"))
    with pytest.raises(SparkRuntimeException, match=r"1\.delta is corrupted"):
        read_state(store_id, 1)


# ------------------------------------------------------------------------ snapshots and retention


def test_snapshots_and_cleanup_keep_exactly_the_files_needed(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    conf = StateStoreConf(min_deltas_for_snapshot=3, min_batches_to_retain=4)
    model: list[dict[tuple[Any, ...], Any]] = [{}]
    on_disk = {}  # version -> the files after committing it
    for version in range(12):
        store = get_store(store_id, version, "run", conf)
        store.put((version,), version)
        store.remove((version - 2,))
        assert store.commit() == version + 1
        model.append(dict(store.items()))
        on_disk[version + 1] = store_files(store_id)
    assert on_disk[3] == {"1.delta", "2.delta", "3.delta", "3.snapshot"}
    # Version 7 = 11 - 4 must stay rebuildable: from snapshot 6 and the deltas after it.
    assert on_disk[11] == {"6.snapshot", "7.delta", "8.delta", "9.delta", "9.snapshot", "10.delta", "11.delta"}
    assert on_disk[12] == {"6.snapshot", "7.delta", "8.delta", "9.delta", "9.snapshot", "10.delta", "11.delta",
                           "12.delta", "12.snapshot"}
    for version in range(8, 13):
        assert read_state(store_id, version) == model[version]
    assert read_state(store_id, 12) == {(10,): 10, (11,): 11}
    with pytest.raises(SparkRuntimeException, match="1.delta does not exist"):
        read_state(store_id, 5)


def test_no_cleanup_before_a_snapshot_covers_the_oldest_retained_version(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    conf = StateStoreConf(min_deltas_for_snapshot=100, min_batches_to_retain=2)
    commit_versions(store_id, [{(v,): v} for v in range(6)], conf=conf)
    assert store_files(store_id) == {f"{v}.delta" for v in range(1, 7)}


# ------------------------------------------------------------------------ abort, items, metrics


def test_abort_restores_the_map_and_writes_nothing(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    model = commit_versions(store_id, [{(1,): [1], (2,): 2}])
    before = store_files(store_id)
    store = get_store(store_id, 1, "run-1", CONF)
    store.put((1,), [10])
    store.put((1,), [11])
    store.put((3,), 3)
    store.remove((2,))
    store.remove((3,))
    store.remove((9,))
    assert store.metrics()["numUpdated"] == 1 and store.metrics()["numRemoved"] == 1
    store.abort()
    assert dict(store.items()) == model[1]
    assert store_files(store_id) == before
    store.abort()  # twice is fine
    with pytest.raises(SparkRuntimeException, match="already aborted"):
        store.put((4,), 4)
    again = get_store(store_id, 1, "run-1", CONF)  # the restored map, from the cache
    assert dict(again.items()) == model[1]
    assert again.commit() == 2
    again.abort()  # after a commit: nothing to forget
    assert read_state(store_id, 2) == model[1]
    with pytest.raises(SparkRuntimeException, match="already committed"):
        again.commit()


def test_items_may_remove_while_iterating(tmp_path: Path) -> None:
    store = get_store(StateStoreId(str(tmp_path / "state"), 0, 0), 0, "run", CONF)
    for i in range(100):
        store.put((i,), i)
    for key, value in store.items():
        if value % 3 == 0:
            store.remove(key)
            store.remove((key[0] + 1,))  # not reached yet: skipped when it is
        if value == 50:
            store.put((1000,), 0)  # added during the loop: not seen
    assert sorted(k[0] for k, _ in store.items()) == [*range(2, 100, 3), 1000]
    store.abort()


def test_metrics_count_this_versions_keys(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    store = get_store(store_id, 0, "run", CONF)
    empty = store.metrics()
    assert empty == {"numKeys": 0, "numUpdated": 0, "numRemoved": 0, "memoryUsedBytes": empty["memoryUsedBytes"],
                     "commitTimeMs": 0}
    for i in range(1000):
        store.put((i, "k"), [i, i])
    store.commit()
    first = store.metrics()
    assert (first["numKeys"], first["numUpdated"], first["numRemoved"]) == (1000, 1000, 0)
    # 1000 entries of a 2-tuple and a 2-list: a few hundred bytes each, whatever the estimate.
    assert 1000 * 100 < first["memoryUsedBytes"] < 1000 * 2000
    assert first["commitTimeMs"] >= 0
    store = get_store(store_id, 1, "run", CONF)
    store.put((1, "k"), [0])
    store.put((1, "k"), [1])
    store.put((5000, "k"), [1])
    store.remove((5000, "k"))
    store.remove((2, "k"))
    store.commit()
    second = store.metrics()
    assert (second["numKeys"], second["numUpdated"], second["numRemoved"]) == (999, 1, 1)


def test_stores_committed_from_many_threads(tmp_path: Path) -> None:
    root = str(tmp_path / "state")
    errors: list[BaseException] = []

    def task(partition: int) -> None:
        try:
            for version in range(8):
                store = get_store(StateStoreId(root, 0, partition), version, "run", StateStoreConf(3, 2))
                store.put((version,), partition)
                store.remove((version - 1,))
                store.commit()
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=task, args=(p,)) for p in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive(), "a store task did not finish within 60 s"
    assert errors == []
    for partition in range(6):
        assert read_state(StateStoreId(root, 0, partition), 8) == {(7,): partition}


# ------------------------------------------------------------------------ settings


def test_conf_defaults_and_values() -> None:
    assert StateStoreConf.from_conf({}) == StateStoreConf(10, 100)
    conf = StateStoreConf.from_conf({"spark.sql.streaming.stateStore.minDeltasForSnapshot": " 3 ",
                                     "spark.sql.streaming.minBatchesToRetain": "7", "other": "x"})
    assert conf == StateStoreConf(min_deltas_for_snapshot=3, min_batches_to_retain=7)


@pytest.mark.parametrize("key", ["spark.sql.streaming.stateStore.minDeltasForSnapshot",
                                 "spark.sql.streaming.minBatchesToRetain"])
@pytest.mark.parametrize("value", ["0", "-2", "ten", "1.5", ""])
def test_bad_conf_values_name_key_value_and_rule(key: str, value: str) -> None:
    with pytest.raises(IllegalArgumentException) as failure:
        StateStoreConf.from_conf({key: value})
    message = str(failure.value)
    assert key in message and repr(value) in message and "must be a positive integer" in message


def test_versions_are_ints_from_zero(tmp_path: Path) -> None:
    store_id = StateStoreId(str(tmp_path / "state"), 0, 0)
    for bad in (-1, 1.0, True):
        with pytest.raises(IllegalArgumentException, match="version is an int >= 0"):
            get_store(store_id, bad, "run", CONF)  # type: ignore[arg-type]


# ------------------------------------------------------------------------ property: against a dict model

# Few keys, so that puts, removals and aborts meet the same keys often.
keys = st.one_of(st.tuples(st.integers(0, 4)),
                 st.tuples(st.sampled_from(["a", "é"]), st.none() | st.booleans() | st.sampled_from([b"", b"\x00"])),
                 st.tuples(st.tuples(st.integers(0, 1), st.sampled_from(["", "z"]))))
values = st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False), st.text(max_size=4),
                   st.lists(st.integers(0, 9), max_size=3),
                   st.dictionaries(st.sampled_from(["sum", "count"]), st.lists(st.booleans(), max_size=2)))
puts = st.tuples(st.just("put"), keys, values)
removals = st.tuples(st.just("remove"), keys)
commits = st.just(("commit",))
others = st.tuples(st.sampled_from(["abort", "restart", "rerun"]))
operations = st.lists(st.one_of(puts, puts, removals, commits, commits, others), max_size=60)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations, min_deltas=st.integers(1, 3), retain=st.integers(1, 4))
def test_the_store_behaves_like_a_dict_per_version(tmp_path: Path, ops: list[tuple[Any, ...]], min_deltas: int,
                                                    retain: int) -> None:
    """Puts, removals, commits, aborts, restarts (cache dropped, new run) and re-runs of the last batch."""
    conf = StateStoreConf(min_deltas_for_snapshot=min_deltas, min_batches_to_retain=retain)
    root = str(tmp_path / f"state-{uuid.uuid4().hex}")  # one tmp_path for every example
    store_id = StateStoreId(root, 1, 0)
    versions: list[dict[tuple[Any, ...], Any]] = [{}]  # versions[v]: the content of version v on disk
    version, run = 0, "run-0"
    current: dict[tuple[Any, ...], Any] = {}
    store = get_store(store_id, version, run, conf)
    for op in ops:
        if op[0] == "put":
            store.put(op[1], op[2])
            current[op[1]] = op[2]
        elif op[0] == "remove":
            store.remove(op[1])
            current.pop(op[1], None)
        elif op[0] == "commit":
            assert store.commit() == version + 1
            version += 1
            versions[version:] = [dict(current)]
            assert not [name for name in store_files(store_id) if name.startswith(".")]
            assert all(int(name.split(".")[0]) <= version for name in store_files(store_id))
            for kept in range(max(0, version - retain), version + 1):
                assert read_state(store_id, kept) == versions[kept]
            store = get_store(store_id, version, run, conf)
        elif op[0] == "abort":
            store.abort()
            store = get_store(store_id, version, run, conf)
        else:  # a new run: the process's cache is gone; "rerun" re-runs the last batch
            store.abort()
            clear_cache(root)
            run = f"run-{uuid.uuid4().hex}"
            if op[0] == "rerun":
                version = max(0, version - 1)
            store = get_store(store_id, version, run, conf)
        if op[0] in ("abort", "restart", "rerun"):
            current = dict(versions[version])
        assert dict(store.items()) == current
        assert len(store) == len(current)
    store.abort()
