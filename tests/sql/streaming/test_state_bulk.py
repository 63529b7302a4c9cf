"""The state paths made for large states: the collector pause, bulk reads, chunked file writes.

Real files under ``tmp_path``, read back through the public functions; the collector is
observed with :func:`gc.isenabled` from the threads that pause it.
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

from dstream.sql.streaming.state import files
from dstream.sql.streaming.state.collector import collector_paused
from dstream.sql.streaming.state.store import StateStoreConf, StateStoreId, clear_cache, get_store, read_state

CONF = StateStoreConf()
DEADLINE = 30.0


def test_pauses_nest_and_restore_the_collector() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_comes_back_when_the_last_of_overlapping_pauses_ends() -> None:
    inside = threading.Barrier(2, timeout=DEADLINE)
    first_done = threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with collector_paused():
            inside.wait()
        first_done.set()

    def second() -> None:
        with collector_paused():
            inside.wait()
            assert first_done.wait(DEADLINE), "the first pause never ended"
            seen.append(gc.isenabled())  # the first pause ended, this one is still open

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(DEADLINE)
        assert not t.is_alive(), "a pausing thread did not finish"
    assert seen == [False]
    assert gc.isenabled()


def test_an_error_inside_a_pause_still_restores_the_collector() -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_entries_is_the_content_with_uncommitted_changes(tmp_path: Path) -> None:
    sid = StateStoreId(str(tmp_path / "state"), 0, 0)
    store = get_store(sid, 0, "run", CONF)
    store.put(("a",), [1])
    store.put(("b",), (2, (3, 4)))
    store.commit()
    store = get_store(sid, 1, "run", CONF)
    store.remove(("a",))
    store.put(("c",), 5)
    assert sorted(store.entries()) == sorted(store.items()) == [(("b",), [2, [3, 4]]), (("c",), 5)]
    store.abort()


def test_a_state_larger_than_a_write_chunk_round_trips(tmp_path: Path) -> None:
    count = files._PACK_CHUNK * 2 + 7
    sid = StateStoreId(str(tmp_path / "state"), 0, 0)
    store = get_store(sid, 0, "run", StateStoreConf(min_deltas_for_snapshot=2))
    for i in range(count):
        store.put((i, f"k{i}"), [i, {"nested": (i, None)}] if i % 3 == 0 else (i,))
    store.commit()
    store = get_store(sid, 1, "run", StateStoreConf(min_deltas_for_snapshot=2))
    store.remove((0, "k0"))
    store.put((1, "k1"), [-1])
    store.commit()  # version 2: a delta and, with min_deltas_for_snapshot=2, a snapshot
    assert "2.snapshot" in {p.name for p in Path(sid.path()).iterdir()}
    expected = {(i, f"k{i}"): [i, {"nested": [i, None]}] if i % 3 == 0 else [i] for i in range(1, count)}
    expected[(1, "k1")] = [-1]
    clear_cache()
    assert read_state(sid, 2) == expected
    reopened = get_store(sid, 2, "another run", CONF)
    assert dict(reopened.entries()) == expected
    reopened.abort()


def test_a_bad_record_in_a_later_chunk_is_named_and_nothing_is_left(tmp_path: Path) -> None:
    records: list[tuple[tuple[object, ...], list[int]]] = [((i,), [i]) for i in range(files._PACK_CHUNK + 10)]
    records[files._PACK_CHUNK + 3] = (("bad",), [2**70])
    with pytest.raises(TypeError, match=r"key \('bad',\) cannot be written to 1.delta"):
        files.write_atomic(str(tmp_path), "1.delta", records)
    assert list(tmp_path.iterdir()) == []
