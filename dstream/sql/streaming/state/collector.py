"""Pausing Python's cyclic garbage collector while state is loaded or updated in bulk.

What this module owns
---------------------
:func:`collector_paused`, a context manager that disables :mod:`gc` for the duration of a
block and re-enables it afterwards. State work allocates one or more container objects
per key (a key tuple, a value list) that all survive, so with the collector on, every
700 allocations start a collection and the older generations, which hold the whole state
map, are scanned again and again: loading or updating a large state spent as long in the
collector as in its own code. Reference counting still frees everything that is not in a
reference cycle at once; cycles made meanwhile are found by the first collection after
the block.

Invariants
----------
* Pauses nest and may overlap across threads (tasks run in the driver's threads under
  master ``local``): the collector is re-enabled when the last open pause ends, and only
  if it was enabled when the first one began, so a caller that turned it off keeps it off.
* A process forked during a pause starts with no pause open and the collector as it was
  before the pause.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]

_lock = threading.Lock()
_open = 0
_was_enabled = False


def _reset_after_fork() -> None:
    # The child has only the forking thread: a pause another thread held would never end
    # there, so the child starts with none open (the forking thread's own ends harmlessly).
    global _lock, _open
    _lock = threading.Lock()
    if _open:
        _open = 0
        if _was_enabled:
            gc.enable()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic garbage collector disabled (see the module docstring)."""
    global _open, _was_enabled
    with _lock:
        if _open == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _open += 1
    try:
        yield
    finally:
        with _lock:
            if _open > 0:
                _open -= 1
                if _open == 0 and _was_enabled:
                    gc.enable()
