"""Table-driven streaming cases: input batches, an operation, the expected output batches.

Each :class:`Case` runs through :func:`dstream.testing.run_batches` on the manual clock.
Outputs are compared per batch; ``ordered=False`` (the default) compares each batch as
a sorted list, because the order of records across partitions differs between ``local``
and ``local[2]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dstream.testing import run_batches


@dataclass(frozen=True)
class Case:
    name: str
    batches: Sequence[Sequence[Any]]
    operation: Callable[..., Any]
    expected: Sequence[Sequence[Any]]
    num_batches: int | None = None
    others: Sequence[Sequence[Sequence[Any]]] = field(default_factory=tuple)
    batch_duration: float = 1.0
    ordered: bool = False

    def __str__(self) -> str:
        return self.name


def normalize(batches: Sequence[Sequence[Any]], ordered: bool) -> list[list[Any]]:
    if ordered:
        return [list(batch) for batch in batches]
    return [sorted(batch, key=repr) for batch in batches]


def check(sc: Any, case: Case) -> None:
    out = run_batches(
        sc,
        case.batches,
        case.operation,
        case.num_batches,
        others=case.others,
        batch_duration=case.batch_duration,
    )
    assert normalize(out, case.ordered) == normalize(case.expected, case.ordered), case.name
