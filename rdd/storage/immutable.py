"""Whether a block's records are immutable all the way down, checked at C speed.

What this module owns
---------------------
One predicate, :func:`records_are_immutable`, used by the block manager to decide that
a block may be kept as the objects themselves (``MEMORY_ONLY_SHARING_IMMUTABLE``) rather
than serialized: every reader then gets the same objects, which is only invisible when
none of them can be changed in place.

Invariants
----------
- True only when every object reachable from the records has an *exact* type in
  ``IMMUTABLE_LEAVES`` or ``IMMUTABLE_CONTAINERS``. Subclasses (an ``IntEnum``, a
  namedtuple, a ``str`` subclass with a ``__dict__``) answer False: their instances may
  carry mutable attributes. A False only costs the serialized path, never correctness.
- Immutable containers cannot form a cycle (a tuple or frozenset can only hold objects
  that existed before it), so the walk ends without a budget.
"""

from __future__ import annotations

import gc
from typing import Any

#: Types whose instances cannot change and hold no other objects.
IMMUTABLE_LEAVES: frozenset[type] = frozenset(
    {str, int, float, complex, bool, type(None), bytes, type(...)})
#: Types whose instances cannot change but hold other objects (walked into).
IMMUTABLE_CONTAINERS: frozenset[type] = frozenset({tuple, frozenset})
_IMMUTABLE = IMMUTABLE_LEAVES | IMMUTABLE_CONTAINERS

__all__ = ["IMMUTABLE_CONTAINERS", "IMMUTABLE_LEAVES", "records_are_immutable"]


def records_are_immutable(records: list[Any]) -> bool:
    """True when nothing reachable from ``records`` (the list excluded) can be changed.

    Walks the nesting one level at a time: ``set(map(type, level))``, then
    ``gc.get_referents`` for the items of the tuples and frozensets of that level. For
    ``(str, int)`` pairs that is two passes over C loops; a per-object Python loop would
    cost more than serializing the block.

    Examples
    --------
    >>> records_are_immutable([("a", 1), ("b", (2.0, None))])
    True
    >>> records_are_immutable([("a", [1])])
    False
    """
    level: Any = records
    while level:
        kinds = set(map(type, level))
        if kinds <= IMMUTABLE_LEAVES:
            return True
        if not kinds <= _IMMUTABLE:
            return False
        level = gc.get_referents(*level)
    return True

