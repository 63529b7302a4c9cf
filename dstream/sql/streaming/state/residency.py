"""What a process running state tasks keeps of each query run, and its release when the run ends.

What this module owns
---------------------
The link between a query run and the state the executors cache for it. The stores
(:mod:`.store`, :mod:`.arrow_state`) and the aggregation operator keep, per process, the
last version of each partition they committed, so the next batch's task on the same
worker does not read it back from the checkpoint. Spark unloads such providers once
their query stopped; here a run gets an id from the context's RDD counter
(:func:`new_scope`), its tasks note it when they open a store (:func:`note`), and when
the run terminates the driver removes that id in every executor (:func:`release`): the
engine's RDD-removal hook then calls, in each process, the forget functions the cache
modules registered (:func:`on_release`), for that run's checkpoint and run id only.

Invariants
----------
* A release drops only what the run it names cached (same state root and run id): a
  later run on the same checkpoint, even in the same worker, keeps its tables.
* Dropping a cached version is always safe: the next task that needs it rebuilds it
  from the checkpoint's files (slower, never different).
* A process that never ran a state task has nothing noted, and a release is a no-op there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rdd.engine_api import add_rdd_removal_hook, new_rdd_id, remove_rdd_everywhere

__all__ = ["new_scope", "note", "on_release", "release"]

_lock = threading.Lock()
#: scope -> (state root, run id) of the runs whose tasks opened a store in this process.
_runs: dict[int, tuple[str, str]] = {}
#: What each cache module drops for one run: ``forget(state_root, run_id)``.
_forgetters: list[Callable[[str, str], None]] = []


def new_scope(sc: Any) -> int:
    """A fresh scope for one query run (driver side)."""
    return new_rdd_id(sc)


def release(sc: Any, scope: int) -> None:
    """Drop, in every executor of ``sc``, what the run of ``scope`` cached (driver side, at termination)."""
    remove_rdd_everywhere(sc, scope)


def note(scope: int, state_root: str, run_id: str) -> None:
    """Record in this process that the run of ``scope`` keeps state here (a task opened a store)."""
    if scope < 0:
        return  # a location built without a run (tools reading a checkpoint)
    with _lock:
        _runs[scope] = (state_root, run_id)


def on_release(forget: Callable[[str, str], None]) -> None:
    """Register ``forget(state_root, run_id)``: a cache module's drop of one run's entries."""
    with _lock:
        if forget not in _forgetters:
            _forgetters.append(forget)


def _released(scope: int) -> None:
    with _lock:
        run = _runs.pop(scope, None)
        forgetters = list(_forgetters)
    if run is not None:
        for forget in forgetters:
            forget(*run)


add_rdd_removal_hook(_released)
