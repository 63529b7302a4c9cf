"""The settings a physical plan runs with: one :class:`QueryContext` per action.

What this module owns
---------------------
:class:`QueryContext`, built by the session when an action runs and handed to the
planner and to every operator's ``execute``.

Invariants
----------
* Operators read settings only from here, never from a global session: a plan runs
  the same way whichever session is active.
* ``shuffle_partitions`` is already the count to use (the session coalesces
  ``spark.sql.shuffle.partitions`` as adaptive execution would); it is at least 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..expressions.base import EvalContext

__all__ = ["QueryContext"]


@dataclass
class QueryContext:
    """What one query's operators need besides their own fields.

    Attributes
    ----------
    sc : rdd.SparkContext
        The context the query's RDDs are built on.
    eval_ctx : EvalContext
        ANSI mode, session time zone and query start time for expression evaluation.
    shuffle_partitions : int
        The number of partitions of every hash or range exchange the planner adds.
    broadcast_threshold : int
        ``spark.sql.autoBroadcastJoinThreshold`` in bytes: a join side whose estimated
        size is at most this is broadcast; ``-1`` disables broadcasting.
    conf : dict
        The session's SQL settings, by key (read-only here).
    streaming : object or None
        In a Structured Streaming micro-batch, what plans its stateful operators (an
        object with ``plan(logical, qctx)`` returning a physical plan or ``None``).
    """

    sc: Any
    eval_ctx: EvalContext = field(default_factory=EvalContext)
    shuffle_partitions: int = 4
    broadcast_threshold: int = 10 * 1024 * 1024
    conf: dict[str, str] = field(default_factory=dict)
    streaming: Any = None

    def __post_init__(self) -> None:
        if self.shuffle_partitions < 1:
            raise ValueError(f"shuffle_partitions must be at least 1, got {self.shuffle_partitions}")
