"""Every window operator, table-driven, on ``local`` and ``local[2]``, with trailing windows.

Batches are 1 s unless a case says otherwise, so ``window(2, 1)`` spans two batches.
``num_batches`` runs past the end of the input so the windows drain: they keep emitting
until the last batch has left them.
"""

from __future__ import annotations

import operator
from typing import Any

import pytest

from tests.dstream.cases import Case, check

add, sub = operator.add, operator.sub


def _sorted_values(kv: tuple[Any, Any]) -> tuple[Any, Any]:
    return (kv[0], sorted(kv[1]))


ONE_TO_FIVE = [[1], [2], [3], [4], [5]]
WORDS = [["a"], ["a", "b"], [], ["c"]]
KV = [[("a", 1)], [("a", 2), ("b", 3)], [], [("b", 4)]]

CASES = [
    Case("window(2,1)", [[1], [2], [3]], lambda s: s.window(2, 1), [[1], [1, 2], [2, 3], [3], []], num_batches=5),
    Case("window default slide", [[1], [2], [3]], lambda s: s.window(2), [[1], [1, 2], [2, 3], [3]], num_batches=4),
    Case("window(3,2)", ONE_TO_FIVE, lambda s: s.window(3, 2), [[1, 2], [2, 3, 4], [4, 5], []], num_batches=8),
    Case("window(1,2) leaves gaps", ONE_TO_FIVE, lambda s: s.window(1, 2), [[2], [4]]),
    Case("window(1,1) is the batch", [[1, 2], [3]], lambda s: s.window(1, 1), [[1, 2], [3]]),
    Case(
        "window of half-second batches (PySpark's count case)",
        [list(range(n)) for n in range(1, 6)],
        lambda s: s.window(1.5, 0.5).count(),
        [[1], [3], [6], [9], [12], [9], [5], [0]],
        num_batches=8,
        batch_duration=0.5,
    ),
    Case(
        "window of a window",
        ONE_TO_FIVE,
        lambda s: s.window(2, 1).window(4, 2),
        # inner(t) = batches {t-1, t}; outer(t) = inner(t-3..t): outer(2) = [1] + [1, 2].
        [[1, 1, 2], [1, 1, 2, 2, 3, 3, 4], [2, 3, 3, 4, 4, 5, 5]],
        num_batches=6,
    ),
    # A window under 5 slides is recomputed (PySpark): an empty one reduces to nothing.
    Case("countByWindow", [[1, 2], [3], [], [4, 5, 6]], lambda s: s.countByWindow(2, 1),
         [[2], [3], [1], [3], [3], []], num_batches=6),
    # From the second window of 5 slides on, counts are incremental and 0 stays.
    Case(
        "countByWindow incremental",
        [[1, 2], [3], [], [4]],
        lambda s: s.countByWindow(5, 1),
        [[2], [3], [3], [4], [4], [2], [1], [1], [0], [0]],
        num_batches=10,
    ),
    Case(
        "reduceByKeyAndWindow incremental keeps zero keys",
        [[("a", 1)], [("b", 2)], [("a", 3)]],
        lambda s: s.reduceByKeyAndWindow(add, sub, 5, 1),
        [[("a", 1)], [("a", 1), ("b", 2)], [("a", 4), ("b", 2)], [("a", 4), ("b", 2)], [("a", 4), ("b", 2)],
         [("a", 3), ("b", 2)], [("a", 3), ("b", 0)], [("a", 0), ("b", 0)]],
        num_batches=8,
    ),
    Case(
        "reduceByKeyAndWindow incremental with filter",
        [[("a", 1)], [("b", 2)], [("a", 3)]],
        lambda s: s.reduceByKeyAndWindow(add, sub, 5, 1, None, lambda kv: kv[1] != 0),
        [[("a", 1)], [("a", 1), ("b", 2)], [("a", 4), ("b", 2)], [("a", 4), ("b", 2)], [("a", 4), ("b", 2)],
         [("a", 3), ("b", 2)], [("a", 3)], []],
        num_batches=8,
    ),
    Case("reduceByWindow", [[1], [2], [3]], lambda s: s.reduceByWindow(add, None, 2, 1),
         [[1], [3], [5], [3], []], num_batches=5),
    Case(
        "reduceByWindow with inverse",
        [[1], [2], [3]],
        lambda s: s.reduceByWindow(add, sub, 2, 1),
        [[1], [3], [5], [3], []],
        num_batches=5,
    ),
    Case("reduceByWindow slide 2", ONE_TO_FIVE, lambda s: s.reduceByWindow(max, None, 4, 2), [[2], [4], [5]],
         num_batches=6),
    Case(
        "countByValueAndWindow",
        WORDS,
        lambda s: s.countByValueAndWindow(2, 1),
        [[("a", 1)], [("a", 2), ("b", 1)], [("a", 1), ("b", 1)], [("c", 1)], [("c", 1)], []],
        num_batches=6,
    ),
    Case(
        "groupByKeyAndWindow",
        KV,
        lambda s: s.groupByKeyAndWindow(2, 1).map(_sorted_values),
        [[("a", [1])], [("a", [1, 2]), ("b", [3])], [("a", [2]), ("b", [3])], [("b", [4])], [("b", [4])], []],
        num_batches=6,
    ),
    Case(
        "reduceByKeyAndWindow",
        KV,
        lambda s: s.reduceByKeyAndWindow(add, None, 2, 1),
        [[("a", 1)], [("a", 3), ("b", 3)], [("a", 2), ("b", 3)], [("b", 4)], [("b", 4)], []],
        num_batches=6,
    ),
    Case(
        "reduceByKeyAndWindow slide 2",
        KV,
        lambda s: s.reduceByKeyAndWindow(add, None, 4, 2),
        [[("a", 3), ("b", 3)], [("a", 3), ("b", 7)], [("b", 4)], []],
        num_batches=8,
    ),
    Case(
        "reduceByKeyAndWindow with inverse and filter",
        KV,
        lambda s: s.reduceByKeyAndWindow(add, sub, 3, 1, 2, lambda kv: kv[1] > 2),
        [[], [("a", 3), ("b", 3)], [("a", 3), ("b", 3)], [("b", 7)], [("b", 4)], [("b", 4)], []],
        num_batches=7,
    ),
    Case(
        "reduceByKeyAndWindow ignores filterFunc without inverse (PySpark)",
        KV,
        lambda s: s.reduceByKeyAndWindow(add, None, 1, 1, None, lambda kv: False),
        [[("a", 1)], [("a", 2), ("b", 3)], [], [("b", 4)]],
    ),
    Case(
        "reduceByKeyAndWindow numPartitions",
        KV,
        lambda s: s.reduceByKeyAndWindow(add, None, 2, 1, 3).glom().count(),
        [[3], [3], [3], [3]],
    ),
    Case(
        "window then join",
        [[("a", 1)], [("a", 2)]],
        lambda s, o: s.window(2, 1).join(o),
        [[("a", (1, "x"))], [("a", (1, "y")), ("a", (2, "y"))]],
        others=[[[("a", "x")], [("a", "y")]]],
    ),
    Case(
        "union of windows with equal slides",
        [[1], [2], [3]],
        lambda s: s.window(2, 1).union(s.window(3, 1)),
        [[1, 1], [1, 2, 1, 2], [2, 3, 1, 2, 3]],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_window_operation(ctx: Any, case: Case) -> None:
    check(ctx, case)
