"""Running a streaming query for a fixed number of micro-batches.

What this module owns
---------------------
:func:`stop_after_batches`, the Structured Streaming counterpart of
:func:`dstream.testing.stop_after_batches`: for programs that must stop after N
micro-batches (the examples' ``--batches N``) and for tests. Spark has no such call; a
``StreamingQueryListener`` cannot do it exactly, since its events arrive on another
thread while the next batch may already be running.

Invariants
----------
* The query's own thread ends the run right after the N-th micro-batch of the run
  committed (no-data batches count), before the next trigger: no batch N+1 starts, and
  the stop is a clean one (``exception()`` is ``None``, a temporary checkpoint is removed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .query import StreamingQuery

__all__ = ["stop_after_batches"]


def stop_after_batches(query: StreamingQuery, batches: int) -> None:
    """Stop ``query`` right after the ``batches``-th micro-batch of its current run.

    Call it right after ``start()``: the count is exact when the call comes before that
    batch ended (a query whose run already made ``batches`` batches stops at once).

    Parameters
    ----------
    query
        A query returned by ``DataStreamWriter.start()``.
    batches
        How many micro-batches the run makes, at least 1.

    Raises
    ------
    ValueError
        If ``batches`` is not a positive integer.

    Examples
    --------
    >>> query = counts.writeStream.outputMode("complete").format("console").start()  # doctest: +SKIP
    >>> stop_after_batches(query, 3)  # doctest: +SKIP
    >>> query.awaitTermination(60)  # doctest: +SKIP
    True
    """
    if isinstance(batches, bool) or not isinstance(batches, int) or batches < 1:
        raise ValueError(f"batches must be a positive integer, got {batches!r}: the number of micro-batches to run")
    query._execution.stop_after(batches)
