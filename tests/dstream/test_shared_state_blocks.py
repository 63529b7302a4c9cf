"""The fast paths of windows and state against plain-Python models.

Covers: the short window reduced from its batches in one narrow pass (``WindowReduce``,
fold order and filter), windows and state kept as objects when immutable and serialized
when not (a function that changes its argument in place must not change a cached
block), and ``updateStateByKey`` after ``map(lambda x: (x, c))`` (each key's values are
``[c] * n``). Runs on ``local`` and ``local[2]`` (the ``ctx`` fixture).
"""

from __future__ import annotations

from typing import Any

import pytest

from dstream.testing import run_batches

BATCHES: list[list[str]] = [
    ["a", "b", "a"], ["c"], [], ["a", "c", "c", "d"], ["b"], ["a", "e"], ["e", "e"], [],
]


def _window_model(batches: list[list[tuple[str, Any]]], length: int, num: int,
                  func: Any, keep: Any) -> list[dict[str, Any]]:
    out = []
    for t in range(num):
        table: dict[str, Any] = {}
        for batch in batches[max(0, t - length + 1):t + 1]:
            reduced: dict[str, Any] = {}
            for key, value in batch:
                reduced[key] = func(reduced[key], value) if key in reduced else value
            for key, value in reduced.items():
                table[key] = func(table[key], value) if key in table else value
        out.append({k: v for k, v in table.items() if keep((k, v))})
    return out


def _concat(a: str, b: str) -> str:
    return a + b


def _uncat(a: str, b: str) -> str:
    assert a.startswith(b), (a, b)
    return a[len(b):]


def _extend(a: list[int], b: list[int]) -> list[int]:
    a.extend(b)  # in place: the cached batch must not see it
    return a


def _unextend(a: list[int], b: list[int]) -> list[int]:
    assert a[:len(b)] == b, (a, b)
    del a[:len(b)]
    return a


@pytest.mark.parametrize("length", [1, 2, 3, 4, 5, 6])
def test_window_with_inverse_folds_batches_in_time_order(ctx: Any, length: int) -> None:
    # str concatenation is not commutative: the fold order shows in the values.
    batches = [[(w, f"{w}{t}") for w in batch] for t, batch in enumerate(BATCHES)]
    num = len(batches) + length

    def nonempty(kv: tuple[str, str]) -> bool:
        return kv[1] != ""

    out = run_batches(ctx, batches, lambda s: s.reduceByKeyAndWindow(
        _concat, _uncat, length, 1, 2, nonempty), num)
    padded = batches + [[] for _ in range(length)]
    assert [dict(b) for b in out] == _window_model(padded, length, num, _concat, nonempty)
    for b in out:
        assert len(b) == len(dict(b))


@pytest.mark.parametrize("length", [3, 5])
def test_window_of_mutable_values_keeps_its_cached_batches_intact(ctx: Any, length: int) -> None:
    batches = [[(w, [t]) for w in batch] for t, batch in enumerate(BATCHES)]
    num = len(batches) + length

    def nonempty(kv: tuple[str, list[int]]) -> bool:
        return bool(kv[1])

    out = run_batches(ctx, batches, lambda s: s.reduceByKeyAndWindow(
        _extend, _unextend, length, 1, 2, nonempty), num)
    padded = batches + [[] for _ in range(length)]
    model = _window_model(padded, length, num, lambda a, b: a + b, nonempty)
    assert [dict(b) for b in out] == model


@pytest.mark.parametrize("c", [1, 3, -2])
def test_update_state_after_constant_pairs_gets_c_n_times(ctx: Any, c: int) -> None:
    def update(values: list[int], state: Any) -> Any:
        assert type(values) is list
        return (len(values), sum(values), values.count(c), state is None)

    out = run_batches(ctx, BATCHES, lambda s: s.map(lambda w: (w, c)).updateStateByKey(update))
    model: dict[str, Any] = {}
    for t, batch in enumerate(BATCHES):
        counts = {w: batch.count(w) for w in batch}
        model = {k: (counts.get(k, 0), c * counts.get(k, 0), counts.get(k, 0), False) for k in model} | {
            k: (n, c * n, n, True) for k, n in counts.items() if k not in model}
        assert dict(out[t]) == model, t


def test_update_state_that_changes_its_state_in_place(ctx: Any) -> None:
    # The state of batch t is read again by the window after batch t + 1 changed it.
    def update(values: list[int], state: list[int] | None) -> list[int]:
        state = state if state is not None else []
        state.append(len(values))
        return state

    out = run_batches(ctx, BATCHES, lambda s: s.map(lambda w: (w, 1)).updateStateByKey(update)
                      .window(2, 1))
    states: list[dict[str, list[int]]] = []
    model: dict[str, list[int]] = {}
    for batch in BATCHES:
        counts = {w: batch.count(w) for w in batch}
        model = {k: v + [counts.get(k, 0)] for k, v in model.items()} | {
            k: [n] for k, n in counts.items() if k not in model}
        states.append(model)
    for t, got in enumerate(out):
        expected = sorted(kv for s in states[max(0, t - 1):t + 1] for kv in s.items())
        assert sorted(got) == expected, t
