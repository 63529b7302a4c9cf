"""Helpers for the streaming property tests (``tests/property/test_window_*.py``, ``test_dstream_*.py``).

:func:`stream_property` turns ``body(ctx, **drawn)`` into a pytest test over the
module-scoped ``ctx`` fixture (``local`` and ``local[2]``), like
``tests.strategies.rdd_property`` but with fewer examples: every example starts a
StreamingContext and runs several batches, each a few jobs.

The brute-force models work on the raw input batches: batch ``i`` (1-based) is
``batches[i - 1]`` and empty after the input ends; the window at time ``t`` (a multiple
of the slide) holds batches ``t - window + 1 .. t``.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

#: Examples per property, by Hypothesis profile and master.
EXAMPLES: dict[str, dict[str, int]] = {
    "ci": {"local": 100, "local[2]": 15, "ray": 8},
    "dev": {"local": 15, "local[2]": 3, "ray": 2},
    "fast": {"local": 5, "local[2]": 2, "ray": 2},
}


def examples_for(master: str) -> int:
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    return EXAMPLES.get(profile, EXAMPLES["ci"])[master]


def stream_property(**strategies: st.SearchStrategy[Any]) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Make ``body(ctx, **drawn)`` a Hypothesis property run on every master."""

    def decorate(body: Callable[..., None]) -> Callable[..., None]:
        def test(ctx: Any) -> None:
            def run(**drawn: Any) -> None:
                body(ctx, **drawn)

            run.__name__ = run.__qualname__ = body.__name__
            settings(max_examples=examples_for(ctx.master))(given(**strategies)(run))()

        test.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        )
        test.__name__ = test.__qualname__ = body.__name__
        test.__doc__ = body.__doc__
        test.__module__ = body.__module__
        return test

    return decorate


# ----------------------------------------------------------------- data

small_ints = st.integers(min_value=-5, max_value=9)
int_batches = st.lists(st.lists(small_ints, max_size=6), min_size=1, max_size=6)
keys = st.sampled_from(["a", "b", "é", "鍵"])
pair_batches = st.lists(st.lists(st.tuples(keys, small_ints), max_size=6), min_size=1, max_size=6)
#: Window and slide as multiples of the batch interval.
widths = st.integers(min_value=1, max_value=4)
slides = st.integers(min_value=1, max_value=3)


# ----------------------------------------------------------------- models


def batch_at(batches: Sequence[Sequence[Any]], i: int) -> list[Any]:
    """Records of batch ``i`` (1-based); empty before the first and after the last."""
    return list(batches[i - 1]) if 1 <= i <= len(batches) else []


def windows(batches: Sequence[Sequence[Any]], width: int, slide: int, num_batches: int) -> list[list[Any]]:
    """The records of every window, as the stream emits them (one per slide)."""
    out = []
    for t in range(slide, num_batches + 1, slide):
        records: list[Any] = []
        for i in range(t - width + 1, t + 1):
            records.extend(batch_at(batches, i))
        out.append(records)
    return out


def sorted_batches(batches: Sequence[Sequence[Any]]) -> list[list[Any]]:
    return [sorted(batch, key=repr) for batch in batches]


def pyspark_windows(
    batches: Sequence[Sequence[tuple[Any, Any]]],
    width: int,
    slide: int,
    num_batches: int,
    plus: Callable[[Any, Any], Any],
    minus: Callable[[Any, Any], Any],
    keep: Callable[[tuple[Any, Any]], bool] | None = None,
) -> list[dict[Any, Any]]:
    """PySpark's ``reduceByKeyAndWindow`` with an inverse function, in plain loops.

    The first window, and every window shorter than 5 slides, is reduced from its
    batches. Later windows are the previous window with the leaving batches'
    per-key totals subtracted (only for keys present in them), then the entering
    batches added, then ``keep`` applied: keys whose value reached "zero" stay.
    """

    def totals(first: int, last: int) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for i in range(max(first, 1), last + 1):
            for key, value in batch_at(batches, i):
                out[key] = plus(out[key], value) if key in out else value
        return out

    def kept(window: dict[Any, Any]) -> dict[Any, Any]:
        return {k: v for k, v in window.items() if keep is None or keep((k, v))}

    emitted: list[dict[Any, Any]] = []
    previous: dict[Any, Any] | None = None
    for t in range(slide, num_batches + 1, slide):
        if previous is not None and width >= 5 * slide:
            old = totals(t - slide - width + 1, t - width)
            window = {k: (minus(v, old[k]) if k in old else v) for k, v in previous.items()}
            for key, value in totals(t - slide + 1, t).items():
                window[key] = plus(window[key], value) if key in window else value
            current = kept(window)
        else:
            current = kept(totals(t - width + 1, t))
        emitted.append(current)
        previous = current
    return emitted
