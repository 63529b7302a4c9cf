"""Which queued task an idle executor runs next, and which stage binaries it keeps.

Both multi-executor backends (``local[N]`` and Ray) keep, per executor, a queue of the
tasks that prefer it (it holds their cached input or their state) and one shared queue
for the rest. Each queued item is ``(spec, binary, queued_at)``.

Invariants
----------
- An idle executor takes from its own queue first, then from the shared queue.
- It steals another executor's preferred task only once that task has waited
  ``locality_wait`` seconds (Spark's delay scheduling, ``spark.locality.wait``), and
  never a task with strict locality (state that lives in one executor).
- Queues are in arrival order, so the scan of a victim's queue stops at the first task
  that has not waited long enough.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Iterable
from typing import Any, Protocol

from ..scheduler.task import TaskSpec

Queued = tuple[TaskSpec, Any, float]


class QueueHolder(Protocol):
    """An executor as the policy sees it: its own queue and the task it runs."""

    queue: deque[Queued]
    running: TaskSpec | None


def next_task(executor: QueueHolder, executors: Iterable[QueueHolder], shared: deque[Queued],
              locality_wait: float) -> Queued | None:
    """The task ``executor`` runs next (removed from its queue), or ``None``."""
    if executor.queue:
        return executor.queue.popleft()
    if shared:
        return shared.popleft()
    deadline = time.monotonic() - locality_wait
    for victim in sorted(executors, key=lambda e: -len(e.queue)):
        for position, (spec, _, queued_at) in enumerate(victim.queue):
            if queued_at > deadline:
                break  # queues are in arrival order: the rest waited less
            if not spec.strict_locality:
                item = victim.queue[position]
                del victim.queue[position]
                return item
    return None


def steal_timeout(executors: Iterable[QueueHolder], locality_wait: float) -> float | None:
    """Seconds until the oldest waiting preferred task may be stolen (None: nothing waits)."""
    executors = list(executors)
    firsts = [next((t for s, _, t in e.queue if not s.strict_locality), None) for e in executors]
    oldest = [t for t in firsts if t is not None]
    idle = any(e.running is None for e in executors)
    if not oldest or not idle:
        return None
    return max(0.0, min(oldest) + locality_wait - time.monotonic())


def drop_job(queues: Iterable[deque[Queued]], job_id: int) -> None:
    """Remove every queued task of job ``job_id``."""
    for queue in queues:
        kept = [item for item in queue if item[0].job_id != job_id]
        queue.clear()
        queue.extend(kept)


def remember_binary(sent: OrderedDict[str, int], digest: str, size: int, budget: int) -> list[str]:
    """Note that an executor holds stage binary ``digest`` (``size`` pickled bytes).

    ``sent`` is what the driver sent that executor, least recently used first. Returns
    the digests it must drop to stay within ``budget`` bytes (never the newest).
    """
    sent[digest] = size
    sent.move_to_end(digest)
    evicted = []
    while sum(sent.values()) > budget and len(sent) > 1:
        evicted.append(sent.popitem(last=False)[0])
    return evicted
