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
* The view is registered once and reads the rows held when a query on it runs, so
  adding a batch costs the batch, not everything held so far.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ...errors import AnalysisException
from ...expressions.base import AttributeReference, column_key
from ...local_data import attributes_of
from ...plan.logical import LeafPlan, LocalRelation
from .base import Sink, SinkProvider, register_sink

if TYPE_CHECKING:
    from ...dataframe import DataFrame
    from ...session import SparkSession
    from ...types import StructType

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
        self._combined: pa.Table | None = None
        self.latest_batch_id: int | None = None

    def started(self, schema: StructType) -> None:
        # As Spark: the table exists (empty) as soon as the query started, so a program
        # may poll spark.table(name) before the first batch.
        self._register(schema)

    def add_batch(self, batch_id: int, df: DataFrame) -> int:
        with self._lock:
            if self.latest_batch_id is not None and batch_id <= self.latest_batch_id:
                return 0
        table = df._execution().to_arrow(check=False)  # not toArrow: it refuses year-month intervals, as PySpark
        with self._lock:
            if self.output_mode == "complete":
                self._tables = [table]
            else:
                self._tables.append(table)
            self._combined = None
            self.latest_batch_id = batch_id
        self._register(df.schema)
        return table.num_rows

    def _register(self, schema: StructType) -> None:
        with self._lock:
            if self._schema is not None:
                return
            self._schema = schema
        relation = _SinkRelation(attributes_of(schema), self)
        self.session._register_view(self.name, self.session._new_dataframe(relation), True)

    def current(self, names: list[str]) -> pa.Table:
        """Every row held now, columns named ``names``."""
        with self._lock:
            if self._combined is None:
                tables = [t.rename_columns(names) for t in self._tables]
                self._combined = pa.concat_tables(tables).combine_chunks() if tables else None
            combined = self._combined
        if combined is None:  # started, no batch yet: no rows, the query's columns
            from ...arrow_convert import to_arrow_type

            fields = self._schema.fields if self._schema is not None else []
            return pa.schema([pa.field(n, to_arrow_type(f.dataType)) for n, f in zip(names, fields)]).empty_table()
        return combined

    def all_rows(self) -> list[Any]:
        """Every row the sink holds (``collect()`` of the view)."""
        return self.session.table(self.name).collect()


class _SinkRelation(LocalRelation):
    """The view of a memory sink: a local relation over the rows the sink holds when it runs."""

    def __init__(self, output: list[AttributeReference], sink: MemorySink) -> None:
        LeafPlan.__init__(self, output)
        self._sink = sink

    @property
    def table(self) -> pa.Table:
        return self._sink.current([column_key(a.expr_id) for a in self._output])

    def describe(self) -> str:
        return f"MemorySink {self._sink.name} [{', '.join(repr(a) for a in self._output)}]"


class _Provider(SinkProvider):
    def create(self, session: SparkSession, options: dict[str, str], output_mode: str, partition_by: list[str],
               query_name: str | None) -> Sink:
        if not query_name:
            raise AnalysisException("queryName must be specified for memory sink: call "
                                    "writeStream.queryName(\"name\") before start().")
        sink = MemorySink(session, query_name, output_mode)
        return sink


register_sink("memory", _Provider)
