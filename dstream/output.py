"""The per-batch functions behind ``pprint`` and ``saveAsTextFiles``.

What this module owns
---------------------
* :func:`print_batch`: PySpark's ``pprint`` layout, byte for byte::

      -------------------------------------------
      Time: 2026-11-29 10:00:01
      -------------------------------------------
      record
      ...

  (43 dashes; the time is the naive local ``datetime`` of the batch, printed with
  ``str``; ``...`` only when the batch has more than ``num`` records; a blank line
  ends the block). It takes ``num + 1`` records to know whether to print ``...``.
* :func:`save_batch`: one directory per batch, ``prefix-<epoch ms>[.suffix]``, written
  atomically: the RDD is saved into a hidden sibling temporary directory that is then
  renamed into place. A reader therefore sees either no directory or a complete one with
  ``_SUCCESS``. If the target already exists with ``_SUCCESS`` (a batch replayed after
  recovery), nothing is computed or written.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import uuid
from typing import Any

from dstream.time import ms_to_datetime

__all__ = ["batch_path", "print_batch", "save_batch"]

logger = logging.getLogger(__name__)

_RULE = "-" * 43


def print_batch(time_ms: int, rdd: Any, num: int) -> None:
    """Print up to ``num`` records of ``rdd`` under a header with the batch time."""
    taken = rdd.take(num + 1)
    lines = [_RULE, f"Time: {ms_to_datetime(time_ms)}", _RULE]
    lines.extend(str(record) for record in taken[:num])
    if len(taken) > num:
        lines.append("...")
    lines.append("")
    # One write, so concurrent prints of other threads cannot interleave inside a block.
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def batch_path(prefix: str, suffix: str | None, time_ms: int) -> str:
    """Return ``prefix-<time_ms>`` or ``prefix-<time_ms>.suffix`` (PySpark's naming)."""
    if suffix is None:
        return f"{prefix}-{time_ms}"
    return f"{prefix}-{time_ms}.{suffix}"


def save_batch(time_ms: int, rdd: Any, prefix: str, suffix: str | None) -> None:
    """Save ``rdd`` as text into the batch's directory, atomically and idempotently."""
    target = os.path.abspath(batch_path(os.fspath(prefix), suffix, time_ms))
    if os.path.exists(os.path.join(target, "_SUCCESS")):
        return
    parent, name = os.path.split(target)
    os.makedirs(parent, exist_ok=True)
    # Hidden name: file-stream readers skip names starting with '.'.
    temp = os.path.join(parent, f".{name}.{uuid.uuid4().hex}.tmp")
    try:
        rdd.saveAsTextFile(temp)
        if os.path.isdir(target):
            if os.path.exists(os.path.join(target, "_SUCCESS")):
                return  # another writer of the same batch finished first
            # No _SUCCESS: not ours (we only ever rename complete directories).
            logger.warning("replacing incomplete output directory %s", target)
            shutil.rmtree(target)
        try:
            os.rename(temp, target)
        except OSError:
            if not os.path.exists(os.path.join(target, "_SUCCESS")):
                raise
    finally:
        if os.path.exists(temp):
            shutil.rmtree(temp, ignore_errors=True)
