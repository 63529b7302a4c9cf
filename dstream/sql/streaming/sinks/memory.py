"""The ``memory`` sink: the query's output as a table of the session (for tests and notebooks).

What this module owns
---------------------
:class:`MemorySink`: each batch's rows kept on the driver as Arrow, registered as the
temporary view named by ``queryName``, so ``spark.sql("select * from name")`` and
``spark.table(name)`` read the output so far. Append and update modes add each
batch's rows; complete mode replaces them.

Invariants
----------
* A batch id already added is skipped (a restarted query re-runs its last batch).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ...errors import AnalysisException
from .base import Sink, SinkProvider, register_sink

if TYPE_CHECKING:
    from ...dataframe import DataFrame
    from ...session import SparkSession

__all__ = ["MemorySink"]


class MemorySink(Sink):
    """Rows of every batch, as the view ``name``."""

    description = "MemorySink"

    def __init__(self, session: SparkSession, name: str, output_mode: str) -> None:
        self.session = session
        self.name = name
        self.output_mode = output_mode
        self._lock = threading.Lock()
        self._tables: list[pa.Table] = []
        self._schema: Any = None
        self.latest_batch_id: int | None = None

    def add_batch(self, batch_id: int, df: DataFrame) -> int:
        with self._lock:
            if self.latest_batch_id is not None and batch_id <= self.latest_batch_id:
                return 0
        table = df.toArrow()
        with self._lock:
            if self.output_mode == "complete":
                self._tables = [table]
            else:
                self._tables.append(table)
            self._schema = df.schema
            self.latest_batch_id = batch_id
            self._register()
        return table.num_rows

    def _register(self) -> None:
        table = pa.concat_tables(self._tables) if self._tables else None
        if table is None:
            return
        view = self.session.createDataFrame(table, self._schema)
        self.session._register_view(self.name, view, True)

    def all_rows(self) -> list[Any]:
        """Every row the sink holds (``collect()`` of the view)."""
        return self.session.table(self.name).collect()


class _Provider(SinkProvider):
    def create(self, session: SparkSession, options: dict[str, str], output_mode: str, partition_by: list[str],
               query_name: str | None) -> Sink:
        if not query_name:
            raise AnalysisException("queryName must be specified for memory sink: call "
                                    "writeStream.queryName(\"name\") before start().")
        sink = MemorySink(session, query_name, output_mode)
        return sink


register_sink("memory", _Provider)
