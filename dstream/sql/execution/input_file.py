"""The file split a task is reading, for ``input_file_name()`` and its siblings.

What this module owns
---------------------
A per-thread holder (Spark's ``InputFileBlockHolder``): a file scan records, before it
hands each batch of a split downstream, the split and the task reading it; the
expressions ``input_file_name()``, ``input_file_block_start()`` and
``input_file_block_length()`` read it.

Invariants
----------
* The holder answers only the task that set it: an operator of the same task that
  gathers the batches before evaluating (a partial aggregation) still sees the split;
  another task (after a shuffle, over data that came from no file) and the driver see
  nothing: ``""``, ``-1`` and ``-1``, as in Spark. A task reads one split, so the split
  is the one its rows came from.
* The path is the file's ``file://`` URI, as Spark reports it; the block is the split's
  byte range (a whole file: from 0, its size).
"""

from __future__ import annotations

import threading

from rdd import TaskContext

__all__ = ["EMPTY", "current", "set_current"]

#: What the expressions read when no file is being read.
EMPTY = ("", -1, -1)

_LOCAL = threading.local()


def _task() -> int | None:
    context = TaskContext.get()
    return None if context is None else context.taskAttemptId()


def set_current(uri: str, start: int, length: int) -> None:
    """Record that the running task's batches come from ``uri``'s bytes ``[start, start + length)``."""
    _LOCAL.block = (_task(), (uri, start, length))


def current() -> tuple[str, int, int]:
    """``(uri, start, length)`` of the split the running task reads, or :data:`EMPTY`."""
    held = getattr(_LOCAL, "block", None)
    if held is None or held[0] is None or held[0] != _task():
        return EMPTY
    return held[1]
