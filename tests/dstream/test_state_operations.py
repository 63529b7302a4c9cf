"""updateStateByKey, mapWithState and the incremental reduceByKeyAndWindow, table-driven.

Every test runs on ``local`` and ``local[2]`` (the module-scoped ``ctx`` fixture) through
:func:`dstream.testing.run_batches` (manual clock, 1 s batches, a temporary checkpoint
directory) or a StreamingContext of its own when it needs one. The functions given to
the operators run in the workers, so what they observe (calls, state, errors) is
returned as data and checked here, never recorded in a driver-side list.

Batch ``i`` (1-based) runs at ``i`` seconds on the manual clock, so with a timeout of
``d`` seconds a key last active in batch ``u`` times out in the first batch ``t`` with
``t - d > u``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from rdd import Partitioner, portable_hash

from dstream import MapWithStateDStream, StateSpec, StreamingContext
from dstream.checkpoint.files import checkpoint_path, list_checkpoints, read_checkpoint
from dstream.errors import DurationError
from dstream.testing import advance_batches, collect_batches, manual_clock, run_batches
from tests.dstream.cases import Case, check, normalize

add, sub = operator.add, operator.sub


# =========================================================================== updateStateByKey


def running_sum(values: list[int], total: int | None) -> int:
    return (total or 0) + sum(values)


def calls_and_sum(values: list[int], state: tuple[int, int] | None) -> tuple[int, int]:
    """(number of calls since the key got its state, running sum)."""
    calls, total = state if state is not None else (0, 0)
    return (calls + 1, total + sum(values))


def sum_or_remove_at_zero(values: list[int], state: tuple[int, int] | None) -> tuple[int, int] | None:
    calls, total = calls_and_sum(values, state)
    return None if total == 0 else (calls, total)


def last_values(values: list[int], state: Any) -> list[int]:
    return sorted(values)


def seen_state(values: list[int], state: Any) -> tuple[Any, list[int]]:
    """The previous state as the function saw it (``None`` for a new key), and the values."""
    return (state, sorted(values))


KV = [[("a", 1), ("b", 2)], [("a", 3)], [], [("b", 4), ("c", 5)]]

UPDATE_CASES = [
    Case(
        "running sum; an empty batch and the empty queue keep the state",
        KV,
        lambda s: s.updateStateByKey(running_sum),
        [[("a", 1), ("b", 2)], [("a", 4), ("b", 2)], [("a", 4), ("b", 2)], [("a", 4), ("b", 6), ("c", 5)],
         [("a", 4), ("b", 6), ("c", 5)], [("a", 4), ("b", 6), ("c", 5)]],
        num_batches=6,
    ),
    Case(
        "called every batch for every key with state, with or without new values",
        KV,
        lambda s: s.updateStateByKey(calls_and_sum),
        [[("a", (1, 1)), ("b", (1, 2))], [("a", (2, 4)), ("b", (2, 2))], [("a", (3, 4)), ("b", (3, 2))],
         [("a", (4, 4)), ("b", (4, 6)), ("c", (1, 5))], [("a", (5, 4)), ("b", (5, 6)), ("c", (2, 5))]],
        num_batches=5,
    ),
    Case(
        "the values are all of the key's values in the batch; [] without any",
        [[("a", 2), ("a", 1), ("b", 3)], [], [("a", 7)]],
        lambda s: s.updateStateByKey(last_values),
        [[("a", [1, 2]), ("b", [3])], [("a", []), ("b", [])], [("a", [7]), ("b", [])]],
    ),
    Case(
        "a new key sees None; a removed key comes back as new",
        [[("a", 1)], [("a", -1), ("b", 1)], [("a", 5)]],
        lambda s: s.updateStateByKey(lambda vs, st: seen_state(vs, st) if vs != [-1] else None),
        [[("a", (None, [1]))], [("b", (None, [1]))], [("a", (None, [5])), ("b", ((None, [1]), []))]],
    ),
    Case(
        "returning None removes the key; it restarts from nothing",
        [[("a", 1), ("b", 1)], [("a", -1)], [("a", 5)], [("b", -1)], []],
        lambda s: s.updateStateByKey(sum_or_remove_at_zero),
        [[("a", (1, 1)), ("b", (1, 1))], [("b", (2, 1))], [("a", (1, 5)), ("b", (3, 1))], [("a", (2, 5))],
         [("a", (3, 5))]],
    ),
    Case(
        "initialRDD as a list of pairs: initial keys are called too",
        [[("a", 1)], []],
        lambda s: s.updateStateByKey(calls_and_sum, initialRDD=[("a", (10, 10)), ("z", (0, 7))]),
        [[("a", (11, 11)), ("z", (1, 7))], [("a", (12, 11)), ("z", (2, 7))]],
    ),
    Case(
        "initialRDD as an iterator of pairs",
        [[("a", 1)]],
        lambda s: s.updateStateByKey(running_sum, initialRDD=iter([("a", 10), ("y", 2)])),
        [[("a", 11), ("y", 2)]],
    ),
    Case(
        "numPartitions sets the state's partitions",
        KV,
        lambda s: s.updateStateByKey(running_sum, 3).glom().count(),
        [[3], [3], [3], [3]],
    ),
]


@pytest.mark.parametrize("case", UPDATE_CASES, ids=str)
def test_update_state_by_key(ctx: Any, case: Case) -> None:
    check(ctx, case)


def test_update_state_by_key_initial_rdd(ctx: Any) -> None:
    initial = ctx.parallelize([("a", 10), ("z", 1)], 3)
    out = run_batches(ctx, [[("a", 1)], [("z", 2)]], lambda s: s.updateStateByKey(running_sum, initialRDD=initial))
    assert normalize(out, False) == [[("a", 11), ("z", 1)], [("a", 11), ("z", 3)]]


def test_update_state_by_key_initial_state_only(ctx: Any) -> None:
    """No data at all: the initial state is carried batch after batch."""
    out = run_batches(ctx, [[], []], lambda s: s.updateStateByKey(calls_and_sum, initialRDD=[("k", (0, 3))]))
    assert out == [[("k", (1, 3))], [("k", (2, 3))]]


def _placement(i: int, pairs: Any) -> list[tuple[int, Any]]:
    return [(i, kv[0]) for kv in pairs]


@pytest.mark.parametrize("partitions", [None, 1, 3])
def test_update_state_by_key_partitions_state_by_portable_hash(ctx: Any, partitions: int | None) -> None:
    batches = [[(k, 1) for k in "abcdefg"], [("h", 1), (7, 1), (("t", 1), 1)]]
    out = run_batches(ctx, batches, lambda s: s.updateStateByKey(running_sum, partitions)
                      .mapPartitionsWithIndex(_placement))
    n = partitions or ctx.defaultParallelism
    keys = [k for k, _ in batches[0]] + [k for k, _ in batches[1]]
    assert sorted(out[-1], key=repr) == sorted([(portable_hash(k) % n, k) for k in keys], key=repr)


def test_update_state_by_key_rejects_non_callable(ctx: Any) -> None:
    ssc = StreamingContext(ctx, 1)
    try:
        with pytest.raises(TypeError, match="updateFunc"):
            ssc.queueStream([[("a", 1)]]).updateStateByKey(42)  # type: ignore[arg-type]
    finally:
        ssc.stop(stopSparkContext=False)


# =========================================================================== mapWithState


def count_calls(key: str, value: int | None, state: Any) -> tuple[str, int | None, int, bool]:
    """Running total; no update while timing out; a negative value removes the key."""
    total = (state.getOption() or 0) + (value or 0)
    if state.isTimingOut():
        return (key, value, total, True)
    if value is not None and value < 0:
        state.remove()
        return (key, value, total, False)
    if value != 0:  # 0: data without an update (the timer is refreshed anyway)
        state.update(total)
    return (key, value, total, False)


def three_arg_none(key: str, value: int, state: Any) -> Any:
    state.update(value)
    return None if value % 2 == 0 else (key, value)


def four_arg(time: datetime, key: str, value: int, state: Any) -> Any:
    if value < 0:
        return None
    state.update(value)
    return (time, time.tzinfo is None, key, value)


def _run_state(ctx: Any, batches: list[list[Any]], spec: StateSpec, num_batches: int | None = None,
               snapshots: bool = False) -> list[list[Any]]:
    def op(s: Any) -> Any:
        mapped = s.mapWithState(spec)
        return mapped.stateSnapshots() if snapshots else mapped

    return normalize(run_batches(ctx, batches, op, num_batches), False)


def test_three_arg_function_emits_every_return_value_even_none(ctx: Any) -> None:
    out = _run_state(ctx, [[("a", 1), ("b", 2)], [("a", 4)]], StateSpec.function(three_arg_none))
    assert out == normalize([[("a", 1), None], [None]], False)


def test_four_arg_function_gets_naive_local_batch_time_and_none_is_dropped(ctx: Any) -> None:
    out = _run_state(ctx, [[("a", 1), ("b", -1)], [], [("b", 3)]], StateSpec.function(four_arg))
    assert out == [[(datetime.fromtimestamp(1), True, "a", 1)], [], [(datetime.fromtimestamp(3), True, "b", 3)]]


def test_state_spec_rejects_functions_of_other_arities() -> None:
    with pytest.raises(TypeError, match=r"\(key, value, state\).*2 arguments"):
        StateSpec.function(lambda key, value: None)
    with pytest.raises(TypeError, match="callable"):
        StateSpec.function(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -1, "5", None])
def test_state_spec_rejects_bad_timeouts(bad: Any) -> None:
    with pytest.raises(ValueError, match="timeout"):
        StateSpec.function(count_calls).timeout(bad)


@pytest.mark.parametrize("bad", [0, -2, 1.5])
def test_state_spec_rejects_bad_partition_counts(bad: Any) -> None:
    with pytest.raises(ValueError, match="numPartitions"):
        StateSpec.function(count_calls).numPartitions(bad)


# --------------------------------------------------------------------- State semantics


def _outcome(action: Callable[[], Any]) -> Any:
    try:
        return ("ok", action())
    except Exception as exc:  # noqa: BLE001 - the error's type and message are the observation
        return (type(exc).__name__, str(exc))


def exercise_state(key: str, command: str | None, state: Any) -> tuple[Any, ...]:
    """Run ``command`` against ``state``; report what State said before and after."""
    before = (state.exists(), state.getOption(), state.isTimingOut(), _outcome(state.get))
    if command is None:  # the last call of a key timing out: update and remove refuse
        result = (_outcome(lambda: state.update(0)), _outcome(state.remove))
    elif command.startswith("set "):
        result = (_outcome(lambda: state.update(int(command[4:]))),)
    elif command == "remove":
        result = (_outcome(state.remove),)
    elif command == "remove, set":
        result = (_outcome(state.remove), _outcome(lambda: state.update(1)))
    elif command == "remove, remove":
        result = (_outcome(state.remove), _outcome(state.remove))
    elif command == "set, remove, set":
        result = (_outcome(lambda: state.update(3)), _outcome(state.remove), _outcome(lambda: state.update(4)))
    else:  # "read": look only
        result = ()
    after = (state.exists(), state.getOption())
    return (key, command, before, _summary(result), after)


def _summary(results: tuple[Any, ...]) -> tuple[str, ...]:
    """Outcomes as "ok" or the error's type (the messages are checked below)."""
    return tuple(r[0] for r in results)


NO_STATE = (False, None, False, "KeyError")


def _before(exists: bool, value: Any, timing_out: bool = False) -> tuple[Any, ...]:
    return (exists, value, timing_out, ("ok", value) if exists else "KeyError")


def test_state_exists_get_update_remove_semantics(ctx: Any) -> None:
    batches = [
        [("a", "read"), ("b", "set 1"), ("c", "remove, set"), ("d", "set, remove, set")],
        [("a", "set 5"), ("b", "remove, remove")],
        [("a", "read"), ("b", "read")],
        [("a", "remove")],
        [("a", "read")],
    ]
    out = _run_state(ctx, batches, StateSpec.function(exercise_state))
    normalized = [[_normalize_get(r) for r in batch] for batch in out]
    expected = [
        [("a", "read", NO_STATE, (), (False, None)),
         ("b", "set 1", NO_STATE, ("ok",), (True, 1)),
         ("c", "remove, set", NO_STATE, ("ok", "ValueError"), (False, None)),
         ("d", "set, remove, set", NO_STATE, ("ok", "ok", "ValueError"), (False, None))],
        [("a", "set 5", NO_STATE, ("ok",), (True, 5)),
         ("b", "remove, remove", _before(True, 1), ("ok", "ValueError"), (False, None))],
        [("a", "read", _before(True, 5), (), (True, 5)),
         ("b", "read", NO_STATE, (), (False, None))],
        [("a", "remove", _before(True, 5), ("ok",), (False, None))],
        [("a", "read", NO_STATE, (), (False, None))],
    ]
    assert normalized == normalize(expected, False)


def _normalize_get(record: tuple[Any, ...]) -> tuple[Any, ...]:
    key, command, (exists, option, timing_out, got), result, after = record
    got = got if got[0] == "ok" else got[0]
    return (key, command, (exists, option, timing_out, got), result, after)


def raw_errors(key: str, command: str, state: Any) -> tuple[str, str, str]:
    if command == "get":
        return (key, *_outcome(state.get))
    if command == "remove, set":
        state.remove()
        return (key, *_outcome(lambda: state.update(1)))
    state.remove()
    return (key, *_outcome(state.remove))


def test_state_errors_say_what_to_do(ctx: Any) -> None:
    out = _run_state(ctx, [[("k", "get"), ("m", "remove, set"), ("n", "remove, remove")]],
                     StateSpec.function(raw_errors))
    by_key = {key: (kind, message) for key, kind, message in out[0]}
    assert by_key["k"][0] == "KeyError" and "exists()" in by_key["k"][1] and "'k'" in by_key["k"][1]
    assert by_key["m"][0] == "ValueError" and "removed" in by_key["m"][1]
    assert by_key["n"][0] == "ValueError" and "removed" in by_key["n"][1]


def strict_get(key: str, value: int, state: Any) -> int:
    return state.get() + value


def test_uncaught_get_without_state_fails_the_batch_with_key_error(ctx: Any) -> None:
    with pytest.raises(KeyError, match="State is not set for key 'a'"):
        run_batches(ctx, [[("a", 1)]], lambda s: s.mapWithState(StateSpec.function(strict_get)))


def test_timing_out_call_may_read_but_not_update_or_remove(ctx: Any) -> None:
    spec = StateSpec.function(exercise_state).timeout(2)
    out = _run_state(ctx, [[("a", "set 7")], [], [], []], spec)
    normalized = [[_normalize_get(r) for r in batch] for batch in out]
    assert normalized == [
        [("a", "set 7", NO_STATE, ("ok",), (True, 7))],
        [],
        [],
        # 4 - 2 > 1: the last call, value None, state readable, update and remove refused.
        [("a", None, _before(True, 7, timing_out=True), ("ValueError", "ValueError"), (True, 7))],
    ]


def timing_out_errors(key: str, value: Any, state: Any) -> tuple[Any, ...]:
    if value is not None:
        state.update(value)
        return (key, "set")
    return (key, _outcome(lambda: state.update(1)), _outcome(state.remove))


def test_timing_out_errors_say_why(ctx: Any) -> None:
    out = _run_state(ctx, [[("a", 1)], [], []], StateSpec.function(timing_out_errors).timeout(1))
    (_key, update, remove), = out[2]
    assert update[0] == "ValueError" and "timing out" in update[1]
    assert remove[0] == "ValueError" and "timing out" in remove[1]


# --------------------------------------------------------------------- timeouts


def _a(value: int | None, total: int, timing_out: bool = False) -> tuple[str, int | None, int, bool]:
    return ("a", value, total, timing_out)


TIMEOUT_CASES = [
    # (name, timeout s, batches, expected mapped output per batch)
    ("idle key gets one last call at the first t with t - timeout > last update", 2,
     [[("a", 1)], [], [], [], []],
     [[_a(1, 1)], [], [], [_a(None, 1, True)], []]),
    ("a timeout between batches rounds to the next batch", 1.5,
     [[("a", 1)], [], [], []],
     [[_a(1, 1)], [], [_a(None, 1, True)], []]),
    ("data without an update refreshes the timer", 2,
     [[("a", 1)], [("a", 0)], [], [], [], []],
     [[_a(1, 1)], [_a(0, 1)], [], [], [_a(None, 1, True)], []]),
    ("data in the batch a key would time out keeps it", 2,
     [[("a", 1)], [], [], [("a", 2)], [], [], []],
     [[_a(1, 1)], [], [], [_a(2, 3)], [], [], [_a(None, 3, True)]]),
    ("a timed-out key starts over", 1,
     [[("a", 1)], [], [], [("a", 5)]],
     [[_a(1, 1)], [], [_a(None, 1, True)], [_a(5, 5)]]),
    ("a removed key does not time out", 1,
     [[("a", 1)], [("a", -1)], [], [], []],
     [[_a(1, 1)], [_a(-1, 0)], [], [], []]),
    ("a key whose data never set a state does not time out", 1,
     [[("a", 0)], [], [], []],
     [[_a(0, 0)], [], [], []]),
]


@pytest.mark.parametrize("name, timeout, batches, expected", TIMEOUT_CASES, ids=[c[0] for c in TIMEOUT_CASES])
def test_timeouts_on_the_manual_clock(ctx: Any, name: str, timeout: float, batches: list[list[Any]],
                                      expected: list[list[Any]]) -> None:
    assert _run_state(ctx, batches, StateSpec.function(count_calls).timeout(timeout)) == expected


def test_several_keys_time_out_independently(ctx: Any) -> None:
    batches = [[("a", 1), ("b", 1)], [("b", 1), ("c", 1)], [], [("c", 1)], [], [], []]
    out = _run_state(ctx, batches, StateSpec.function(count_calls).timeout(1))
    assert out == normalize([
        [("a", 1, 1, False), ("b", 1, 1, False)],
        [("b", 1, 2, False), ("c", 1, 1, False)],
        [("a", None, 1, True)],
        [("b", None, 2, True), ("c", 1, 2, False)],
        [],
        [("c", None, 2, True)],
        [],
    ], False)


def test_without_timeout_idle_keys_stay(ctx: Any) -> None:
    out = _run_state(ctx, [[("a", 1)], [], [], [], []], StateSpec.function(count_calls), snapshots=True)
    assert out == [[("a", 1)]] * 5


# --------------------------------------------------------------------- snapshots, initial state, partitions


def test_state_snapshots_hold_every_key_after_each_batch(ctx: Any) -> None:
    batches = [[("a", 1), ("b", 2)], [("a", 3)], [], [("b", -1), ("c", 4)], [("c", 0)]]
    out = _run_state(ctx, batches, StateSpec.function(count_calls), snapshots=True)
    assert out == [[("a", 1), ("b", 2)], [("a", 4), ("b", 2)], [("a", 4), ("b", 2)], [("a", 4), ("c", 4)],
                   [("a", 4), ("c", 4)]]


def test_state_snapshots_drop_timed_out_keys(ctx: Any) -> None:
    out = _run_state(ctx, [[("a", 1)], [("b", 1)], [], []], StateSpec.function(count_calls).timeout(1),
                     snapshots=True)
    assert out == [[("a", 1)], [("a", 1), ("b", 1)], [("b", 1)], []]


@pytest.mark.parametrize("as_rdd", [False, True], ids=["list", "rdd"])
def test_initial_state(ctx: Any, as_rdd: bool) -> None:
    pairs = [("a", 10), ("z", 5)]
    initial = ctx.parallelize(pairs, 2) if as_rdd else pairs
    spec = StateSpec.function(count_calls).initialState(initial)
    mapped = _run_state(ctx, [[("a", 1)], [("z", 1)]], spec)
    snapshots = _run_state(ctx, [[("a", 1)], [("z", 1)]], spec, snapshots=True)
    assert mapped == [[("a", 1, 11, False)], [("z", 1, 6, False)]]
    assert snapshots == [[("a", 11), ("z", 5)], [("a", 11), ("z", 6)]]


def test_initial_state_times_out_from_the_first_batch(ctx: Any) -> None:
    spec = StateSpec.function(count_calls).initialState([("z", 5)]).timeout(2)
    out = _run_state(ctx, [[], [], [], [], []], spec)
    assert out == [[], [], [], [("z", None, 5, True)], []]


def first_letter(key: str) -> int:
    return ord(key[0])


@pytest.mark.parametrize(
    "configure, placement",
    [
        (lambda spec: spec, None),
        (lambda spec: spec.numPartitions(3), lambda k: portable_hash(k) % 3),
        (lambda spec: spec.partitioner(Partitioner(2, first_letter)), lambda k: ord(k[0]) % 2),
        (lambda spec: spec.partitioner(Partitioner(2, first_letter)).numPartitions(4),
         lambda k: portable_hash(k) % 4),
        (lambda spec: spec.numPartitions(4).partitioner(Partitioner(2, first_letter)), lambda k: ord(k[0]) % 2),
    ],
    ids=["default", "numPartitions", "partitioner", "numPartitions-wins-last", "partitioner-wins-last"],
)
def test_state_partitioning(ctx: Any, configure: Any, placement: Any) -> None:
    keys = ["apple", "bean", "corn", "date", "egg", "fig"]
    spec = configure(StateSpec.function(count_calls))
    out = run_batches(ctx, [[(k, 1) for k in keys]],
                      lambda s: s.mapWithState(spec).stateSnapshots().mapPartitionsWithIndex(_placement))
    if placement is None:
        n = ctx.defaultParallelism
        def placement(k: Any) -> int:
            return portable_hash(k) % n
    assert sorted(out[0]) == sorted((placement(k), k) for k in keys)


def test_state_spec_partitioner_must_be_a_partitioner() -> None:
    with pytest.raises(TypeError, match="Partitioner"):
        StateSpec.function(count_calls).partitioner(3)  # type: ignore[arg-type]


def test_map_with_state_takes_a_state_spec(ctx: Any) -> None:
    ssc = StreamingContext(ctx, 1)
    try:
        with pytest.raises(TypeError, match="StateSpec"):
            ssc.queueStream([[("a", 1)]]).mapWithState(count_calls)  # type: ignore[arg-type]
    finally:
        ssc.stop(stopSparkContext=False)


# --------------------------------------------------------------------- MapWithStateDStream.checkpoint


def _state_checkpoint_times(directory: Path) -> set[int]:
    """Batch times of the state RDD checkpoints the newest metadata checkpoint refers to."""
    latest = read_checkpoint(checkpoint_path(str(directory), list_checkpoints(str(directory))[-1]))
    return {int(t) for files in latest.data["nodes"].values() for t in files}


@pytest.mark.parametrize("interval, batches, expected", [(2, 7, {4000, 6000}), (None, 12, {10000})],
                         ids=["every-2-batches", "default-10-batches"])
def test_map_with_state_checkpoint_interval(ctx: Any, tmp_path: Path, interval: int | None, batches: int,
                                            expected: set[int]) -> None:
    ssc = StreamingContext(ctx, 1)
    manual_clock(ssc)
    ssc.checkpoint(str(tmp_path))
    mapped = ssc.queueStream([[("a", i)] for i in range(1, batches + 1)]).mapWithState(
        StateSpec.function(count_calls))
    if interval is not None:
        returned = mapped.checkpoint(interval)
        assert returned is mapped and isinstance(returned, MapWithStateDStream)
    out = collect_batches(mapped.stateSnapshots())
    ssc.start()
    try:
        advance_batches(ssc, batches)
    finally:
        ssc.stop(stopSparkContext=False)
    assert out[-1] == [("a", batches * (batches + 1) // 2)]
    assert _state_checkpoint_times(tmp_path) == expected


def test_map_with_state_checkpoint_must_be_a_multiple_of_the_slide(ctx: Any, tmp_path: Path) -> None:
    ssc = StreamingContext(ctx, 1)
    ssc.checkpoint(str(tmp_path))
    ssc.queueStream([[("a", 1)]]).mapWithState(StateSpec.function(count_calls)).checkpoint(1.5).pprint()
    with pytest.raises(DurationError, match="multiple of its slide"):
        ssc.start()


# =========================================================================== incremental windows


class Bag(tuple):
    """A multiset as a sorted tuple: ``+`` merges, ``-`` removes one occurrence per element."""

    def __add__(self, other: Any) -> Bag:  # type: ignore[override]
        return Bag(sorted(tuple(self) + tuple(other)))

    def __sub__(self, other: Any) -> Bag:
        rest = list(self)
        for x in other:
            rest.remove(x)  # raises if the inverse is applied to data that never entered
        return Bag(rest)


WINDOW_CASES = [
    Case(
        "window of 5 slides: incremental from the second window, zeros stay",
        [[("a", 1)], [("a", 2), ("b", 5)], [], [("b", -5)], [], [("a", 4)], [], []],
        lambda s: s.reduceByKeyAndWindow(add, sub, 5, 1),
        [[("a", 1)], [("a", 3), ("b", 5)], [("a", 3), ("b", 5)], [("a", 3), ("b", 0)], [("a", 3), ("b", 0)],
         [("a", 6), ("b", 0)], [("a", 4), ("b", -5)], [("a", 4), ("b", -5)], [("a", 4), ("b", 0)]],
        num_batches=9,
    ),
    Case(
        "window of 10 s sliding 2 s (5 slides): the leaving batches are subtracted",
        [[("a", 1)], [("a", 2)], [("b", 1)], [], [("a", 3)], [], [], [], [], [], [("b", 7)], [], [], []],
        lambda s: s.reduceByKeyAndWindow(add, sub, 10, 2),
        [[("a", 3)], [("a", 3), ("b", 1)], [("a", 6), ("b", 1)], [("a", 6), ("b", 1)], [("a", 6), ("b", 1)],
         [("a", 3), ("b", 8)], [("a", 3), ("b", 7)], [("a", 0), ("b", 7)]],
        num_batches=16,
    ),
    Case(
        "the inverse is applied only to the keys of the leaving batches, per key once",
        [[("a", Bag([1])), ("b", Bag([2]))], [("a", Bag([3]))], [], [], [], [("b", Bag([4]))], [], []],
        lambda s: s.reduceByKeyAndWindow(add, sub, 5, 1).mapValues(tuple),
        [[("a", (1,)), ("b", (2,))], [("a", (1, 3)), ("b", (2,))], [("a", (1, 3)), ("b", (2,))],
         [("a", (1, 3)), ("b", (2,))], [("a", (1, 3)), ("b", (2,))], [("a", (3,)), ("b", (4,))],
         [("a", ()), ("b", (4,))], [("a", ()), ("b", (4,))]],
        num_batches=8,
    ),
    Case(
        "filterFunc drops zeros on the incremental path",
        [[("a", 1), ("b", 1)], [("a", 1)], [], [], [], []],
        lambda s: s.reduceByKeyAndWindow(add, sub, 5, 1, None, lambda kv: kv[1] != 0),
        [[("a", 1), ("b", 1)], [("a", 2), ("b", 1)], [("a", 2), ("b", 1)], [("a", 2), ("b", 1)],
         [("a", 2), ("b", 1)], [("a", 1)], [], []],
        num_batches=8,
    ),
    Case(
        "numPartitions on the incremental path",
        [[("a", 1)], [("b", 1)], [("c", 1)], [], [], [], []],
        lambda s: s.reduceByKeyAndWindow(add, sub, 5, 1, 3).glom().count(),
        [[3]] * 7,
    ),
    Case(
        "countByValueAndWindow of 5 slides drops zero counts",
        [["x"], ["x", "y"], [], [], [], [], []],
        lambda s: s.countByValueAndWindow(5, 1),
        [[("x", 1)], [("x", 2), ("y", 1)], [("x", 2), ("y", 1)], [("x", 2), ("y", 1)], [("x", 2), ("y", 1)],
         [("x", 1), ("y", 1)], []],
    ),
]


@pytest.mark.parametrize("case", WINDOW_CASES, ids=str)
def test_incremental_window(ctx: Any, case: Case) -> None:
    check(ctx, case)
