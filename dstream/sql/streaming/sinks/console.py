"""The ``console`` sink: each batch printed as PySpark prints it.

What this module owns
---------------------
:class:`ConsoleSink`: a dashed banner with ``Batch: N``, then the batch's rows as
``show(numRows, truncate)`` prints them (options ``numRows``, 20, and ``truncate``,
true).

Invariants
----------
* One job per batch: the rows are collected once and the table is drawn from them
  (running the batch DataFrame twice would read the sources twice and update the
  state twice, doubling ``numInputRows`` and the state operators' metrics).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ...arrow_convert import arrow_to_rows
from ...errors import IllegalArgumentException
from ...show import show_string
from .base import Sink, SinkProvider, register_sink

if TYPE_CHECKING:
    from ...dataframe import DataFrame
    from ...session import SparkSession

__all__ = ["ConsoleSink"]

_BANNER = "-------------------------------------------"


class ConsoleSink(Sink):
    """Prints each batch to standard output."""

    def __init__(self, num_rows: int, truncate: bool) -> None:
        self.num_rows = num_rows
        self.truncate = truncate
        self.description = f"org.apache.spark.sql.execution.streaming.ConsoleTable$@{id(self):x}"

    def add_batch(self, batch_id: int, df: DataFrame) -> int:
        table = df.toArrow()
        time_zone = df.sparkSession.conf.time_zone()
        shown = arrow_to_rows(table.slice(0, self.num_rows + 1), time_zone)
        text = show_string([tuple(r) for r in shown], df.schema, self.num_rows, 20 if self.truncate else 0,
                           False, time_zone)
        sys.stdout.write(f"{_BANNER}\nBatch: {batch_id}\n{_BANNER}\n{text}\n")
        sys.stdout.flush()
        return table.num_rows


class _Provider(SinkProvider):
    def create(self, session: SparkSession, options: dict[str, str], output_mode: str, partition_by: list[str],
               query_name: str | None) -> ConsoleSink:
        text = options.get("numrows", "20")
        try:
            num_rows = int(text)
        except ValueError:
            raise IllegalArgumentException(
                f"Invalid value '{text}' for option 'numRows': it must be a positive integer, e.g. "
                f".option(\"numRows\", 20).") from None
        if num_rows <= 0:
            raise IllegalArgumentException(f"Invalid value '{text}' for option 'numRows': it must be positive.")
        truncate = options.get("truncate", "true").strip().lower() != "false"
        return ConsoleSink(num_rows, truncate)


register_sink("console", _Provider)
