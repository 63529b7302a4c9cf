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
    slides,
    sorted_batches,
    stream_property,
    widths,
    windows,
)

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


@stream_property(batches=int_batches, width=widths, slide=slides)
def test_count_by_window(ctx: Any, batches: list[list[int]], width: int, slide: int) -> None:
    out, n = _run(ctx, batches, width, slide, lambda s: s.countByWindow(width, slide))
    assert out == [[len(w)] for w in windows(batches, width, slide, n)]


@stream_property(batches=int_batches, width=widths, slide=slides, inverse=st.sampled_from([None, sub]))
def test_reduce_by_window(ctx: Any, batches: list[list[int]], width: int, slide: int, inverse: Any) -> None:
    out, n = _run(ctx, batches, width, slide, lambda s: s.reduceByWindow(add, inverse, width, slide))
    assert out == [[sum(w)] if w else [] for w in windows(batches, width, slide, n)]


@stream_property(batches=int_batches, width=widths, slide=slides)
def test_count_by_value_and_window(ctx: Any, batches: list[list[int]], width: int, slide: int) -> None:
    out, n = _run(ctx, batches, width, slide, lambda s: s.countByValueAndWindow(width, slide))
    expected = [list(Counter(w).items()) for w in windows(batches, width, slide, n)]
    assert sorted_batches(out) == sorted_batches(expected)


@stream_property(batches=pair_batches, width=widths, slide=slides)
def test_group_by_key_and_window(ctx: Any, batches: list[list[tuple[str, int]]], width: int, slide: int) -> None:
    out, n = _run(
        ctx, batches, width, slide,
        lambda s: s.groupByKeyAndWindow(width, slide).mapValues(sorted),
    )
    expected = []
    for w in windows(batches, width, slide, n):
        groups: dict[str, list[int]] = defaultdict(list)
        for key, value in w:
            groups[key].append(value)
        expected.append([(key, sorted(values)) for key, values in groups.items()])
    assert sorted_batches(out) == sorted_batches(expected)


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
    batches=pair_batches, width=widths, slide=slides, keep=st.sampled_from([None, is_positive, keep_all])
)
def test_reduce_by_key_and_window_with_inverse(
    ctx: Any, batches: list[list[tuple[str, int]]], width: int, slide: int, keep: Any
) -> None:
    """With ``invFunc`` the result is the recomputed window, filtered by ``filterFunc``.

    (Keys whose window emptied are absent, the documented behaviour until the window
    becomes incremental; the incremental form must then match after dropping
    zero-valued keys.)
    """
    out, n = _run(
        ctx, batches, width, slide,
        lambda s: s.reduceByKeyAndWindow(add, sub, width, slide, None, keep),
    )
    expected = [
        [kv for kv in _sums(w).items() if keep is None or keep(kv)]
        for w in windows(batches, width, slide, n)
    ]
    assert sorted_batches(out) == sorted_batches(expected)
