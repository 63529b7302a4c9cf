"""The ``console`` sink: each batch printed as PySpark prints it.

What this module owns
---------------------
:class:`ConsoleSink`: a dashed banner with ``Batch: N``, then the batch's rows as
``show(numRows, truncate)`` prints them (options ``numRows``, 20, and ``truncate``,
true).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ...errors import IllegalArgumentException
from ..sources.options import SourceOptions
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
        # Computed once, then shown from the driver (as Spark's console sink does).
        table = df._execution().to_arrow(check=False)  # not toArrow: it refuses year-month intervals, as PySpark
        shown = df.sparkSession.createDataFrame(table, df.schema)
        text = shown._show_string(self.num_rows, self.truncate)
        rows = table.num_rows
        sys.stdout.write(f"{_BANNER}\nBatch: {batch_id}\n{_BANNER}\n{text}\n")
        sys.stdout.flush()
        return rows


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
        truncate = SourceOptions(options).get_boolean("truncate", True)
        return ConsoleSink(num_rows, truncate)


register_sink("console", _Provider)
