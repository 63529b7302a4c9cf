"""Every window operator equals a brute-force computation over the raw input batches.

For random batches, window widths and slides (multiples of the batch interval), the
stream runs until every window has drained (``width`` batches past the input) and each
emitted window is compared with a model computed by plain loops over the raw batches
(:func:`tests.dstream.properties.windows`). Runs on ``local`` and ``local[2]``.
"""

from __future__ import annotations

import operator
from collections import Counter, defaultdict
from typing import Any

from hypothesis import strategies as st

from dstream.testing import run_batches
from tests.dstream.properties import (
    int_batches,
    pair_batches,
    pyspark_windows,
    slides,
    sorted_batches,
    stream_property,
    widths,
    windows,
)

#: Windows up to 7 slides, so both of PySpark's paths run: recomputed (< 5 slides,
#: and the first window) and incremental (>= 5 slides).
long_widths = st.integers(min_value=1, max_value=7)

add, sub = operator.add, operator.sub


def _run(ctx: Any, batches: list[list[Any]], width: int, slide: int, op: Any) -> tuple[list[list[Any]], int]:
    num_batches = len(batches) + width + slide
    return run_batches(ctx, batches, op, num_batches), num_batches


def _sums(records: list[tuple[Any, int]]) -> dict[Any, int]:
    totals: dict[Any, int] = defaultdict(int)
    for key, value in records:
        totals[key] += value
    return dict(totals)


def is_positive(kv: tuple[Any, int]) -> bool:
    return kv[1] > 0


def keep_all(kv: tuple[Any, int]) -> bool:
    return True


@stream_property(batches=int_batches, width=widths, slide=slides)
def test_window_is_the_union_of_its_batches(ctx: Any, batches: list[list[int]], width: int, slide: int) -> None:
    out, n = _run(ctx, batches, width, slide, lambda s: s.window(width, slide))
    assert sorted_batches(out) == sorted_batches(windows(batches, width, slide, n))


@stream_property(batches=int_batches, width=widths)
def test_window_default_slide_is_the_batch(ctx: Any, batches: list[list[int]], width: int) -> None:
    out, n = _run(ctx, batches, width, 1, lambda s: s.window(width))
    assert sorted_batches(out) == sorted_batches(windows(batches, width, 1, n))


def _single_key(batches: list[list[Any]]) -> list[list[tuple[int, Any]]]:
    return [[(1, x) for x in batch] for batch in batches]


@stream_property(batches=int_batches, width=long_widths, slide=slides)
def test_count_by_window(ctx: Any, batches: list[list[int]], width: int, slide: int) -> None:
    out, n = _run(ctx, batches, width, slide, lambda s: s.countByWindow(width, slide))
    ones = [[1] * len(batch) for batch in batches]
    expected = pyspark_windows(_single_key(ones), width, slide, n, add, sub)
    assert out == [list(w.values()) for w in expected]


@stream_property(batches=int_batches, width=long_widths, slide=slides, inverse=st.sampled_from([None, sub]))
def test_reduce_by_window(ctx: Any, batches: list[list[int]], width: int, slide: int, inverse: Any) -> None:
    out, n = _run(ctx, batches, width, slide, lambda s: s.reduceByWindow(add, inverse, width, slide))
    if inverse is None:
        assert out == [[sum(w)] if w else [] for w in windows(batches, width, slide, n)]
    else:
        expected = pyspark_windows(_single_key(batches), width, slide, n, add, sub)
        assert out == [list(w.values()) for w in expected]


@stream_property(batches=int_batches, width=long_widths, slide=slides)
def test_count_by_value_and_window(ctx: Any, batches: list[list[int]], width: int, slide: int) -> None:
    out, n = _run(ctx, batches, width, slide, lambda s: s.countByValueAndWindow(width, slide))
    expected = [list(Counter(w).items()) for w in windows(batches, width, slide, n)]
    assert sorted_batches(out) == sorted_batches(expected)


@stream_property(batches=pair_batches, width=long_widths, slide=slides)
def test_group_by_key_and_window(ctx: Any, batches: list[list[tuple[str, int]]], width: int, slide: int) -> None:
    """Values per key over the window; on the incremental path emptied keys stay with no values."""
    out, n = _run(
        ctx, batches, width, slide,
        lambda s: s.groupByKeyAndWindow(width, slide).mapValues(sorted),
    )
    as_counters = [[(k, Counter([v])) for k, v in batch] for batch in batches]
    expected = pyspark_windows(as_counters, width, slide, n, lambda a, b: a + b, lambda a, b: a - b)
    assert sorted_batches(out) == sorted_batches(
        [[(k, sorted(c.elements())) for k, c in w.items()] for w in expected])


@stream_property(batches=pair_batches, width=widths, slide=slides, partitions=st.sampled_from([None, 1, 3]))
def test_reduce_by_key_and_window(
    ctx: Any, batches: list[list[tuple[str, int]]], width: int, slide: int, partitions: int | None
) -> None:
    out, n = _run(
        ctx, batches, width, slide,
        lambda s: s.reduceByKeyAndWindow(add, None, width, slide, partitions),
    )
    expected = [list(_sums(w).items()) for w in windows(batches, width, slide, n)]
    assert sorted_batches(out) == sorted_batches(expected)


@stream_property(
    batches=pair_batches, width=long_widths, slide=slides, keep=st.sampled_from([None, is_positive, keep_all]),
    partitions=st.sampled_from([None, 1, 3]),
)
def test_reduce_by_key_and_window_with_inverse(
    ctx: Any, batches: list[list[tuple[str, int]]], width: int, slide: int, keep: Any, partitions: Any
) -> None:
    """With ``invFunc``: PySpark's rule exactly (model: ``pyspark_windows``)."""
    out, n = _run(
        ctx, batches, width, slide,
        lambda s: s.reduceByKeyAndWindow(add, sub, width, slide, partitions, keep),
    )
    expected = pyspark_windows(batches, width, slide, n, add, sub, keep)
    assert sorted_batches(out) == sorted_batches([list(w.items()) for w in expected])


@stream_property(batches=pair_batches, width=long_widths, slide=slides)
def test_incremental_window_equals_recompute_after_dropping_zeros(
    ctx: Any, batches: list[list[tuple[str, int]]], width: int, slide: int
) -> None:
    """The incremental window equals the brute-force window once zero-valued keys are dropped."""
    out, n = _run(ctx, batches, width, slide, lambda s: s.reduceByKeyAndWindow(add, sub, width, slide))
    expected = [[kv for kv in _sums(w).items() if kv[1] != 0] for w in windows(batches, width, slide, n)]
    assert sorted_batches([[kv for kv in batch if kv[1] != 0] for batch in out]) == sorted_batches(expected)
