"""The aggregation state as an Arrow table: deltas, snapshots, rebuild, renaming, retention."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql.errors import SparkRuntimeException
from dstream.sql.streaming.state import arrow_state
from dstream.sql.streaming.state.arrow_state import AggregationState, apply_delta
from dstream.sql.streaming.state.store import StateStoreConf, StateStoreId

LAYOUT = pa.table({"#1": pa.array([], pa.string()), "b0_0": pa.array([], pa.int64())})


def table(rows: dict[str | None, int], names: tuple[str, str] = ("#1", "b0_0")) -> pa.Table:
    keys = sorted(rows, key=lambda k: (k is None, k or ""))
    return pa.table({names[0]: pa.array(keys, pa.string()), names[1]: pa.array([rows[k] for k in keys], pa.int64())})


def as_dict(t: pa.Table) -> dict[str | None, int]:
    return dict(zip(t.column(0).to_pylist(), t.column(1).to_pylist()))


def commit(state: AggregationState, new: dict[str | None, int], old: dict[str | None, int]) -> None:
    upserted = table({k: v for k, v in new.items() if old.get(k, object()) != v})
    removed = pa.table({"#1": pa.array([k for k in old if k not in new], pa.string())})
    state.commit(table(new), upserted, removed)


def test_apply_delta_upserts_and_removes_with_null_keys() -> None:
    base = table({"a": 1, "b": 2, None: 3})
    delta = pa.table({"#1": pa.array(["b", None, "c", "a"]), "b0_0": pa.array([5, None, 7, None], pa.int64()),
                      "__removed": pa.array([False, True, False, True])})
    assert as_dict(apply_delta(base, delta, ["#1"])) == {"b": 5, "c": 7}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["a", "b", "c", None]), st.integers(0, 9)), min_size=1,
                max_size=12), st.integers(1, 4), st.integers(1, 3))
def test_versions_rebuild_from_snapshots_and_deltas_in_a_new_run(tmp_path_factory: pytest.TempPathFactory,
                                                                 versions: list[dict[str | None, int]],
                                                                 snapshot_every: int, retain: int) -> None:
    root = str(tmp_path_factory.mktemp("state"))
    conf = StateStoreConf(min_deltas_for_snapshot=snapshot_every, min_batches_to_retain=retain)
    sid = StateStoreId(root, 0, 0)
    previous: dict[str | None, int] = {}
    for v, content in enumerate(versions):
        state = AggregationState(sid, v, "run-1", conf, LAYOUT, ["#1"])
        assert as_dict(state.table) == previous
        commit(state, content, previous)
        previous = content
    # Retention: no more files than rebuilding the retained versions needs.
    on_disk = [p.name for p in Path(sid.path()).iterdir()]
    assert sum(name.endswith(".delta") for name in on_disk) <= retain + snapshot_every + 1, on_disk
    assert not [name for name in on_disk if name.endswith(".tmp")]
    arrow_state._cache.clear()
    # A new run (another process) rebuilds every retained version from the files, under its own names.
    renamed = LAYOUT.rename_columns(["#9", "b0_0"])
    last = len(versions)
    for v in range(max(0, last - retain), last + 1):
        state = AggregationState(sid, v, "run-2", conf, renamed, ["#9"])
        expected = versions[v - 1] if v else {}
        assert as_dict(state.table) == expected and state.table.column_names == ["#9", "b0_0"]


def test_a_missing_delta_names_the_file_and_the_checkpoint(tmp_path: Path) -> None:
    sid = StateStoreId(str(tmp_path), 0, 0)
    conf = StateStoreConf(min_deltas_for_snapshot=100)
    for v in range(3):
        state = AggregationState(sid, v, "r", conf, LAYOUT, ["#1"])
        commit(state, {"a": v}, {"a": v - 1} if v else {})
    (tmp_path / "0" / "0" / "2.delta").unlink()
    arrow_state._cache.clear()
    with pytest.raises(SparkRuntimeException, match="2.delta .* does not exist.*damaged or incomplete"):
        AggregationState(sid, 3, "r2", conf, LAYOUT, ["#1"])
