"""``foreach`` and ``foreachBatch``: the program's own code as the sink.

What this module owns
---------------------
* :class:`ForeachBatchSink`: calls ``func(df, batch_id)`` on the driver with the
  batch's DataFrame; what it raises stops the query as Spark's
  ``FOREACH_BATCH_USER_FUNCTION_ERROR``, the original as its cause. At-least-once: a
  restarted query calls it again for the batch that had no commit, so an exactly-once
  program writes idempotently by batch id.
* :class:`ForeachSink`: runs in the tasks, per partition: a function is called with
  each row; an object gets ``open(partition_id, epoch_id)`` (rows are skipped when it
  returns false), ``process(row)`` for each row and ``close(error)`` at the end, as
  PySpark does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ...arrow_convert import arrow_to_rows
from ...errors import CapturedException, PySparkTypeError
from .base import Sink

if TYPE_CHECKING:
    from ...dataframe import DataFrame

__all__ = ["ForeachBatchSink", "ForeachSink", "check_foreach_writer"]


class ForeachBatchSink(Sink):
    """Calls ``func(df, batch_id)`` for every batch."""

    description = "ForeachBatchSink"

    def __init__(self, func: Callable[[Any, int], Any]) -> None:
        self.func = func

    def add_batch(self, batch_id: int, df: DataFrame) -> int:
        try:
            self.func(df, batch_id)
        except Exception as exc:
            # Spark's wrapping of what the user's function raised; the original stays the cause.
            raise CapturedException(
                "An error occurred in the user provided function in foreach batch sink. Reason: "
                f"{type(exc).__name__}: {exc}", "FOREACH_BATCH_USER_FUNCTION_ERROR",
                {"reason": f"{type(exc).__name__}: {exc}"}) from exc
        return -1


def check_foreach_writer(f: Any) -> None:
    """Refuse what ``foreach`` cannot use, as PySpark does."""
    if callable(f) and not hasattr(f, "process"):
        return
    if not hasattr(f, "process"):
        raise PySparkTypeError("Provided object does not have a 'process' method",
                               "ATTRIBUTE_NOT_CALLABLE", {"attr_name": "process", "obj_name": "f"})
    for name in ("process", "open", "close"):
        if hasattr(f, name) and not callable(getattr(f, name)):
            raise PySparkTypeError(f"Attribute '{name}' in provided object '{f!r}' is not callable.",
                                   "ATTRIBUTE_NOT_CALLABLE", {"attr_name": name, "obj_name": repr(f)})


class ForeachSink(Sink):
    """Runs ``f`` over the rows of each batch, in the tasks."""

    description = "ForeachWriterTable"

    def __init__(self, f: Any, time_zone: str) -> None:
        self.f = f
        self.time_zone = time_zone

    def add_batch(self, batch_id: int, df: DataFrame) -> int:
        f, tz = self.f, self.time_zone
        names = df.columns
        rdd = df._execution().to_rdd()

        def run(split: int, batches: Iterator[pa.RecordBatch]) -> Iterator[int]:
            rows = _rows(batches, names, tz)
            if callable(f) and not hasattr(f, "process"):
                count = 0
                for row in rows:
                    f(row)
                    count += 1
                yield count
                return
            should_process = f.open(split, batch_id) if hasattr(f, "open") else True
            count = 0
            error: BaseException | None = None
            try:
                if should_process is None or should_process:
                    for row in rows:
                        f.process(row)
                        count += 1
            except BaseException as exc:
                error = exc
                raise
            finally:
                if hasattr(f, "close"):
                    f.close(error)
            yield count
        return sum(rdd.mapPartitionsWithIndex(run).collect())


def _rows(batches: Iterator[pa.RecordBatch], names: list[str], tz: str) -> Iterator[Any]:
    for batch in batches:
        if batch.num_rows:
            table = pa.Table.from_batches([batch]).rename_columns(names)
            yield from arrow_to_rows(table, tz)
