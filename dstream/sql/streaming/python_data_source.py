"""Python data sources in streaming queries: ``readStream.format(name)`` and ``writeStream.format(name)``.

What this module owns
---------------------
:class:`PythonSourceProvider` and :class:`PythonSinkProvider`, the providers of a data source
class registered with ``spark.dataSource.register``. The source asks the class for its
``streamReader`` (partitions read in tasks) or, when it has none, its ``simpleStreamReader``
(rows read on the driver, each ``read(start)`` giving the rows and the offset after them);
the sink writes each micro-batch with the class's ``streamWriter``: one ``write`` per
partition in the tasks, then ``commit(messages, batchId)`` on the driver (``abort`` when a
task failed).

Invariants
----------
* Offsets are the reader's own dicts, logged as JSON in ``offsets/N``; the first batch reads
  from ``initialOffset()``; ``commit(end)`` is called once a batch is committed.
* A simple reader's rows for ``(start, end]`` are kept from the ``read`` that found ``end``
  until the batch ran; a batch run again after a restart reads them with
  ``readBetweenOffsets(start, end)``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ..arrow_convert import to_arrow_schema
from ..datasource import DataSource
from ..datasource_exec import instance, partitions_rdd, schema_of, write_messages
from ..errors import PySparkNotImplementedError
from ..expressions.base import column_key
from ..local_data import rows_to_batches
from ..plan.arrow_rdd import ArrowRDDRelation
from ..plan.logical import LocalRelation
from .sinks.base import Sink, SinkProvider
from .sources.base import Offset, Source, SourceProvider

if TYPE_CHECKING:
    from ..dataframe import DataFrame
    from ..expressions.base import AttributeReference
    from ..plan.logical import LogicalPlan
    from ..session import SparkSession
    from ..types import StructType

__all__ = ["PythonSinkProvider", "PythonSourceProvider"]


class _PythonSource(Source):
    """A started Python data source (see the module doc)."""

    def __init__(self, session: SparkSession, cls: type[DataSource], options: dict[str, str],
                 schema: StructType) -> None:
        self.description = f"PythonMicroBatchStream({cls.name()})"
        self._session = session
        self._schema = schema
        source = instance(cls, options, None)
        try:
            self._reader: Any = source.streamReader(schema=schema)
            self._simple: Any = None
        except (PySparkNotImplementedError, NotImplementedError):
            self._reader = None
            self._simple = source.simpleStreamReader(schema=schema)
        self._pending: dict[str, list[Any]] = {}  # a simple reader's rows, by the offsets they span

    def _initial(self) -> Offset:
        return (self._reader or self._simple).initialOffset()

    def latest_offset(self, start: Offset | None, limited: bool) -> Offset | None:
        if self._reader is not None:
            return self._reader.latestOffset()
        begin = self._initial() if start is None else start
        rows, end = self._simple.read(begin)
        rows = list(rows)
        if end != begin:
            self._pending[repr((begin, end))] = rows
        return end

    def get_batch(self, start: Offset | None, end: Offset, output: list[AttributeReference]) -> LogicalPlan:
        begin = self._initial() if start is None else start
        keys = [column_key(a.expr_id) for a in output]
        if self._reader is not None:
            rdd = partitions_rdd(self._session, self._reader, list(self._reader.partitions(begin, end)),
                                 self._schema, keys)
            return ArrowRDDRelation(output, rdd, self.description)
        rows = self._pending.pop(repr((begin, end)), None)
        if rows is None:
            rows = list(self._simple.readBetweenOffsets(begin, end))
        batches = list(rows_to_batches(iter([tuple(r) for r in rows]), self._schema, keys,
                                       self._session.conf.time_zone()))
        arrow = to_arrow_schema(self._schema)
        table = pa.Table.from_batches(batches) if batches else arrow.empty_table().rename_columns(keys)
        return LocalRelation(output, table)

    def commit(self, end: Offset) -> None:
        (self._reader or self._simple).commit(end)

    def stop(self) -> None:
        if self._reader is not None:
            self._reader.stop()

    # No reports_latest_offset: a reader's latestOffset() may move on each call, so what it gave
    # last is no bound for processAllAvailable, which then waits for a trigger that finds nothing.

    def offset_text(self, offset: Offset | None) -> str:
        # PySpark keeps a Python source's offsets as the text Python's json.dumps wrote.
        return "None" if offset is None else json.dumps(offset)


class PythonSourceProvider(SourceProvider):
    """``readStream.format(name)`` of a registered Python data source class."""

    def __init__(self, cls: type[DataSource]) -> None:
        self.cls = cls

    def schema(self, session: SparkSession, options: dict[str, str], user_schema: StructType | None) -> StructType:
        return schema_of(instance(self.cls, options, None), user_schema)

    def create(self, session: SparkSession, options: dict[str, str], schema: StructType,
               metadata_path: str) -> Source:
        return _PythonSource(session, self.cls, options, schema)


class _PythonSink(Sink):
    def __init__(self, cls: type[DataSource], options: dict[str, str], output_mode: str) -> None:
        self.description = f"PythonDataSourceStreamingWrite({cls.name()})"
        self._source = instance(cls, options, None)
        self._overwrite = output_mode == "complete"
        self._writer: Any = None

    def started(self, schema: StructType) -> None:
        self._writer = self._source.streamWriter(schema=schema, overwrite=self._overwrite)

    def add_batch(self, batch_id: int, df: DataFrame) -> int:
        writer = self._writer
        writer.commit(write_messages(df, writer, lambda messages: writer.abort(messages, batch_id)), batch_id)
        return -1


class PythonSinkProvider(SinkProvider):
    """``writeStream.format(name)`` of a registered Python data source class."""

    def __init__(self, cls: type[DataSource]) -> None:
        self.cls = cls
        self.format_name = cls.name()

    def create(self, session: SparkSession, options: dict[str, str], output_mode: str, partition_by: list[str],
               query_name: str | None) -> Sink:
        return _PythonSink(self.cls, options, output_mode)
