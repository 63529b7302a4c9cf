"""Key types whose builtin ``hash()`` depends on the string-hash seed, for placement tests.

Defined in a module (not a test file) so worker processes import them by reference,
and deterministic (:func:`sample_keys`) so a subprocess under another seed builds the
very same keys as the test process.
"""

from __future__ import annotations

import datetime
import enum
from collections import namedtuple
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st


class Color(enum.Enum):
    RED = "red"
    GREEN = (1, 2)
    BLUE = 3


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mode(str, enum.Enum):
    READ = "r"
    WRITE = "w"


@dataclass(frozen=True)
class Sensor:
    site: str
    number: int


Cell = namedtuple("Cell", "row column")


class Tagged:
    """A user class hashing a ``str``: no way to place it without hash()."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tagged) and other.tag == self.tag

    def __hash__(self) -> int:
        return hash(self.tag)

    def __repr__(self) -> str:
        return f"Tagged({self.tag!r})"


ZONES = [datetime.timezone.utc, datetime.timezone(datetime.timedelta(hours=2)),
         datetime.timezone(datetime.timedelta(hours=-5, minutes=-30))]
_DAY0 = datetime.date(2020, 1, 1)


def sample_keys(n: int) -> list[Any]:
    """``n`` distinct keys of every supported seed-dependent kind, the same in every process."""
    keys: list[Any] = []
    for i in range(n):
        day = _DAY0 + datetime.timedelta(days=i * 7)
        keys += [
            f"key-{i}-é", f"k{i}".encode(), (f"t{i}", i), day,
            datetime.datetime.combine(day, datetime.time(i % 24, i % 60)),
            datetime.datetime(2021, 3, 1, i % 24, tzinfo=ZONES[i % 3])
            + datetime.timedelta(hours=3 * i),
            datetime.time(i % 24, (7 * i) % 60, tzinfo=ZONES[i % 3] if i % 2 else None),
            datetime.timedelta(days=i, seconds=i * 13), Sensor(f"site-{i}", i % 4),
            Cell(f"r{i}", i),
            frozenset({f"f{i}", i}), Decimal(i) / 8, Fraction(i, 7),
        ]
    keys += list(Color) + list(Level) + list(Mode) + [None, True, 2.5, 1j]
    return list(dict.fromkeys(keys))  # distinct, first occurrence kept


_texts = st.text(alphabet="abé鍵", max_size=3)
_naive = st.datetimes(min_value=datetime.datetime(1990, 1, 1),
                      max_value=datetime.datetime(2040, 1, 1))
_aware = st.builds(lambda dt, zone: dt.replace(tzinfo=zone), _naive, st.sampled_from(ZONES))

#: Random keys of every kind ``portable_hash`` places without ``hash()``, small enough
#: ranges that equal keys (also equal keys of different types) meet often.
any_key: st.SearchStrategy[Any] = st.one_of(
    _texts, st.binary(max_size=2), st.integers(-3, 3), st.none(),
    st.dates(min_value=_DAY0, max_value=_DAY0 + datetime.timedelta(days=20)),
    _naive.map(lambda d: d.replace(minute=0, second=0, microsecond=0)),
    _aware.map(lambda d: d.replace(minute=0, second=0, microsecond=0)),
    st.times().map(lambda t: t.replace(second=0, microsecond=0, minute=t.minute % 2)),
    st.builds(datetime.timedelta, st.integers(0, 3), st.integers(0, 2)),
    st.sampled_from(list(Color) + list(Level) + list(Mode)),
    st.builds(Sensor, _texts, st.integers(0, 2)), st.builds(Cell, _texts, st.integers(0, 2)),
    st.tuples(_texts, st.integers(0, 2)), st.frozensets(_texts, max_size=2),
    st.sampled_from([1.0, 0.5, True, False, Decimal("0.5"), Fraction(1, 2), complex(1, 0), 2.0]),
)
