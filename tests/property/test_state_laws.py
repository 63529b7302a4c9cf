"""The state operators equal a few lines of plain Python over the raw input batches.

* ``updateStateByKey`` is a left fold over the batches: each batch, every key with a
  state or with values gets ``update(values, old)``; ``None`` removes it.
* ``mapWithState`` equals a dict-and-loop model of its rules, timeouts included: a key
  last active in batch ``u`` (an update, or data even without one) gets one last call
  (value ``None``, timing out) in the first batch ``t`` with ``t - timeout > u``.

Batches are 1 s on the manual clock: batch ``i`` (1-based) runs at ``i * 1000`` ms.
Random batches include empty ones and long idle gaps; every run goes on past the input
until every key could have timed out. Runs on ``local`` and ``local[2]``; functions are
named module-level functions (readable in a failing example, pickled by reference).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

from dstream import StateSpec
from dstream.testing import collect_batches, run_batches
from tests.dstream.properties import (
    batch_at,
    keys,
    pair_batches,
    small_ints,
    stream_property,
)

BATCH_MS = 1000

pair = st.tuples(keys, small_ints)
#: Half of the batches empty, so keys sit idle for several batches in a row.
gappy_batches = st.lists(st.one_of(st.just([]), st.lists(pair, min_size=1, max_size=5)), min_size=1, max_size=8)
timeouts = st.sampled_from([None, 1, 1.5, 2, 3])
initial_states = st.one_of(st.none(), st.dictionaries(keys, small_ints, max_size=2))
partitions = st.sampled_from([None, 1, 3])


def _grouped(records: Sequence[tuple[Any, Any]]) -> dict[Any, list[Any]]:
    grouped: dict[Any, list[Any]] = {}
    for key, value in records:
        grouped.setdefault(key, []).append(value)
    return grouped


def _sorted(batches: Sequence[Sequence[Any]]) -> list[list[Any]]:
    return [sorted(batch, key=repr) for batch in batches]


# =========================================================================== updateStateByKey


def total_remove_negative(values: list[int], total: int | None) -> int | None:
    new = (total or 0) + sum(values)
    return None if new < 0 else new


def total_remove_multiple_of_3(values: list[int], total: int | None) -> int | None:
    new = (total or 0) + sum(values)
    return None if new % 3 == 0 else new


def calls_remove_after_3(values: list[int], state: tuple[int, int] | None) -> tuple[int, int] | None:
    calls, total = state if state is not None else (0, 0)
    return None if calls + 1 >= 3 else (calls + 1, total + len(values))


def idle_removed(values: list[int], total: int | None) -> int | None:
    return None if not values else (total or 0) + max(values)


UPDATES = [total_remove_negative, total_remove_multiple_of_3, calls_remove_after_3, idle_removed]


def fold_states(batches: Sequence[Sequence[tuple[Any, int]]], num_batches: int,
                update: Callable[[list[int], Any], Any], initial: dict[Any, Any]) -> list[list[tuple[Any, Any]]]:
    state = dict(initial)
    out = []
    for i in range(1, num_batches + 1):
        grouped = _grouped(batch_at(batches, i))
        new = {}
        for key in set(state) | set(grouped):
            value = update(sorted(grouped.get(key, [])), state.get(key))
            if value is not None:
                new[key] = value
        state = new
        out.append(list(state.items()))
    return out


@stream_property(batches=pair_batches, update=st.sampled_from(UPDATES), initial=initial_states,
                 partitions=partitions, extra=st.integers(min_value=0, max_value=3))
def test_update_state_by_key_is_a_left_fold(ctx: Any, batches: list[list[tuple[str, int]]], update: Any,
                                           initial: dict[str, int] | None, partitions: int | None,
                                           extra: int) -> None:
    """The state after every batch equals the fold of ``update`` over the batches so far."""
    initial_pairs = None if initial is None else list(initial.items())
    if update is calls_remove_after_3 and initial_pairs is not None:
        initial_pairs = [(k, (0, v)) for k, v in initial_pairs]
    num_batches = len(batches) + extra
    out = run_batches(ctx, batches, lambda s: s.updateStateByKey(update, partitions, initial_pairs),
                      num_batches)
    expected = fold_states(batches, num_batches, update, dict(initial_pairs or []))
    assert _sorted(out) == _sorted(expected)


# =========================================================================== mapWithState


def tally(key: str, value: int | None, state: Any) -> tuple[str, str, int]:
    """Running total; 0 is data without an update; a multiple of 4 removes the key."""
    if state.isTimingOut():
        return (key, "timeout", state.get())
    total = (state.getOption() or 0) + value
    if value == 0:
        return (key, "touch", total)
    if total % 4 == 0:
        state.remove()
        return (key, "removed", total)
    state.update(total)
    return (key, "total", total)


def tally_model(batches: Sequence[Sequence[tuple[Any, int]]], num_batches: int, timeout_s: float | None,
                initial: dict[Any, int]) -> tuple[list[list[Any]], list[list[Any]]]:
    """``tally`` over per-key batch sums, in plain Python: (mapped, snapshots) per batch."""
    state = dict(initial)
    last = {key: BATCH_MS for key in state}  # initial keys start their timer at the first batch
    mapped, snapshots = [], []
    for i in range(1, num_batches + 1):
        t = i * BATCH_MS
        out = []
        for key, values in _grouped(batch_at(batches, i)).items():
            value = sum(values)
            total = state.get(key, 0) + value
            if value == 0:
                out.append((key, "touch", total))
                if key in state:
                    last[key] = t
            elif total % 4 == 0:
                out.append((key, "removed", total))
                state.pop(key, None)
                last.pop(key, None)
            else:
                out.append((key, "total", total))
                state[key] = total
                last[key] = t
        if timeout_s is not None:
            for key in [k for k in state if last[k] < t - timeout_s * 1000]:
                out.append((key, "timeout", state.pop(key)))
                del last[key]
        mapped.append(out)
        snapshots.append(list(state.items()))
    return mapped, snapshots


def _drain(batches: Sequence[Any], timeout_s: float | None) -> int:
    """Batches to run: the input, then long enough for the last key to time out."""
    return len(batches) + (int(timeout_s) + 2 if timeout_s is not None else 1)


@stream_property(batches=gappy_batches, timeout=timeouts, initial=initial_states, partitions=partitions)
def test_map_with_state_equals_a_plain_model(ctx: Any, batches: list[list[tuple[str, int]]],
                                            timeout: float | None, initial: dict[str, int] | None,
                                            partitions: int | None) -> None:
    """Mapped values and state snapshots of every batch, timeouts on the manual clock."""
    spec = StateSpec.function(tally)
    if timeout is not None:
        spec = spec.timeout(timeout)
    if initial is not None:
        spec = spec.initialState(list(initial.items()))
    if partitions is not None:
        spec = spec.numPartitions(partitions)
    snapshots: list[list[list[Any]]] = []

    def op(s: Any) -> Any:
        # One value per key per batch, so the calls' order within a batch does not matter.
        mapped = s.reduceByKey(lambda a, b: a + b).mapWithState(spec)
        snapshots.append(collect_batches(mapped.stateSnapshots()))
        return mapped

    num_batches = _drain(batches, timeout)
    mapped = run_batches(ctx, batches, op, num_batches)
    expected_mapped, expected_snapshots = tally_model(batches, num_batches, timeout, initial or {})
    assert _sorted(mapped) == _sorted(expected_mapped)
    assert _sorted(snapshots[0]) == _sorted(expected_snapshots)


def count_values(key: str, value: Any, state: Any) -> tuple[str, str, int]:
    """Counts a key's values; the third removes the key (order-independent outputs)."""
    if state.isTimingOut():
        return (key, "timeout", state.get())
    n = (state.getOption() or 0) + 1
    if n == 3:
        state.remove()
        return (key, "third", n)
    state.update(n)
    return (key, "count", n)


def count_model(batches: Sequence[Sequence[tuple[Any, Any]]], num_batches: int,
                timeout_s: float | None) -> list[list[Any]]:
    state: dict[Any, int] = {}
    last: dict[Any, int] = {}
    mapped = []
    for i in range(1, num_batches + 1):
        t = i * BATCH_MS
        out = []
        for key, _ in batch_at(batches, i):
            n = state.get(key, 0) + 1
            if n == 3:
                out.append((key, "third", n))
                del state[key], last[key]
            else:
                out.append((key, "count", n))
                state[key] = n
                last[key] = t
        if timeout_s is not None:
            for key in [k for k in state if last[k] < t - timeout_s * 1000]:
                out.append((key, "timeout", state.pop(key)))
                del last[key]
        mapped.append(out)
    return mapped


@stream_property(batches=gappy_batches, timeout=timeouts)
def test_map_with_state_calls_once_per_value(ctx: Any, batches: list[list[tuple[str, int]]],
                                            timeout: float | None) -> None:
    """Several values of a key in one batch: one call each, in some order, on one state."""
    spec = StateSpec.function(count_values)
    if timeout is not None:
        spec = spec.timeout(timeout)
    num_batches = _drain(batches, timeout)
    out = run_batches(ctx, batches, lambda s: s.mapWithState(spec), num_batches)
    assert _sorted(out) == _sorted(count_model(batches, num_batches, timeout))
