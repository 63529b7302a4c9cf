"""``spark.readStream`` and ``df.writeStream``: PySpark's DataStreamReader and DataStreamWriter.

What this module owns
---------------------
* :class:`DataStreamReader`: ``format``/``option``/``schema``/``load``, the shortcuts
  ``text``/``csv``/``json``/``parquet``/``orc`` and ``table``; ``load`` asks the format's provider
  for the schema and returns a streaming DataFrame over a
  :class:`~.relation.StreamingRelation`. Nothing is read until a query starts.
* :class:`DataStreamWriter`: ``outputMode``, ``format``, ``option``, ``partitionBy``,
  ``queryName``, ``trigger``, ``foreach``, ``foreachBatch`` and ``start``, which checks
  the query (output mode, unsupported operations), resolves the checkpoint location
  and starts a :class:`~.microbatch.MicroBatchExecution`.

Invariants
----------
* Option names are case-insensitive; values are kept as strings.
* Where no ``checkpointLocation`` is given, ``spark.sql.streaming.checkpointLocation``
  (plus the query name or a new id) is used; failing that a temporary directory,
  allowed only for the memory, console, foreach and foreachBatch sinks, and removed
  when the query stops without error.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import AnalysisException, PySparkTypeError, PySparkValueError
from ..io import FORMAT_NAMES
from ..io.file_metadata import metadata_attribute
from ..local_data import attributes_of, schema_argument
from ..readwriter import OptionsBuilder
from ..timezones import python_time_zone
from ..types import StructType
from . import temporary_checkpoints
from .checks import check_streaming_query
from .formats import sink_provider, source_provider
from .relation import SourceSpec, StreamingRelation
from .sinks.base import Sink
from .triggers import Trigger, trigger_from_args

if TYPE_CHECKING:
    from ..dataframe import DataFrame
    from ..session import SparkSession
    from .query import StreamingQuery

__all__ = ["DataStreamReader", "DataStreamWriter"]


class DataStreamReader(OptionsBuilder):
    """Reads a stream into a streaming DataFrame (``spark.readStream``)."""

    def __init__(self, session: SparkSession) -> None:
        self._session = session
        self._format: str | None = None
        self._options: dict[str, str] = {}
        self._schema: StructType | None = None

    def format(self, source: str) -> DataStreamReader:
        """The source: ``rate``, ``socket``, ``kafka``, ``text``, ``csv``, ``json``, ``parquet``..."""
        self._format = source
        return self

    def schema(self, schema: StructType | str) -> DataStreamReader:
        """The rows' schema: a StructType or a DDL string."""
        parsed = schema_argument(schema)
        if not isinstance(parsed, StructType):
            raise PySparkTypeError("schema should be StructType or string", "NOT_STR_OR_STRUCT",
                                   {"arg_name": "schema", "arg_type": type(schema).__name__})
        self._schema = parsed
        return self

    def load(self, path: str | None = None, format: str | None = None,  # noqa: A002 - PySpark's name
             schema: StructType | str | None = None, **options: Any) -> DataFrame:
        """A streaming DataFrame over the source (``path`` for file sources)."""
        if format is not None:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        self.options(**options)
        if path is not None:
            if not isinstance(path, str) or not path.strip():
                raise PySparkValueError(f"If the path is provided for stream, it needs to be a non-empty string. "
                                        f"Got {path!r}", "VALUE_NOT_NON_EMPTY_STR",
                                        {"arg_name": "path", "arg_value": str(path)})
            self._options["path"] = path
        name = self._format or _default_source(self._session)
        python_source = self._session._data_sources.get(name.lower())
        if python_source is not None:
            from .python_data_source import PythonSourceProvider  # noqa: PLC0415 - loads with its first use

            provider: Any = PythonSourceProvider(python_source)
        else:
            provider = source_provider(name)
        schema_now = provider.schema(self._session, dict(self._options), self._schema)
        spec = SourceSpec(name.lower(), dict(self._options), schema_now, provider)
        metadata = metadata_attribute(name) if name.lower() in FORMAT_NAMES else None
        return self._session._new_dataframe(StreamingRelation(attributes_of(schema_now), spec, metadata))

    def text(self, path: str, wholetext: bool = False, lineSep: str | None = None,  # noqa: N803
             **options: Any) -> DataFrame:
        """A stream of the lines of new text files in ``path``."""
        return self.format("text").load(path, wholetext=wholetext, lineSep=lineSep, **options)

    def csv(self, path: str, schema: StructType | str | None = None, **options: Any) -> DataFrame:
        """A stream of the rows of new CSV files in ``path``."""
        return self.format("csv").load(path, schema=schema, **options)

    def json(self, path: str, schema: StructType | str | None = None, **options: Any) -> DataFrame:
        """A stream of the rows of new JSON Lines files in ``path``."""
        return self.format("json").load(path, schema=schema, **options)

    def parquet(self, path: str, **options: Any) -> DataFrame:
        """A stream of the rows of new Parquet files in ``path``."""
        return self.format("parquet").load(path, **options)

    def orc(self, path: str, **options: Any) -> DataFrame:
        """A stream of the rows of new ORC files in ``path``."""
        return self.format("orc").load(path, **options)

    def xml(self, path: str, rowTag: str | None = None, schema: StructType | str | None = None,  # noqa: N803
            **options: Any) -> DataFrame:
        """A stream of the ``rowTag`` elements of new XML files in ``path`` (a schema is required)."""
        return self.format("xml").load(path, schema=schema, rowTag=rowTag, **options)

    def table(self, tableName: str) -> DataFrame:  # noqa: N803 - PySpark's name
        """A stream of the rows of the table ``tableName``: new files in its directory, or a streaming view.

        A file-based table (``saveAsTable``, ``toTable``) streams as a file source over its
        directory, with its format and schema; a temporary view of a streaming DataFrame is
        that DataFrame; a view of a batch DataFrame is refused, as in Spark.
        """
        from ..tables import managed_table  # noqa: PLC0415 - the catalog's tables load with their first use

        table = managed_table(self._session, tableName)
        if table is not None:
            return self.format(table.format).schema(table.schema).options(**table.options).load(table.path)
        view = self._session.table(tableName)  # TABLE_OR_VIEW_NOT_FOUND when there is none
        if not view.isStreaming:
            raise AnalysisException(f"{tableName} is not a temp view of streaming logical plan, please use batch API "
                                    "such as `DataFrameReader.table` to read it.")
        return view


_MODES = ("append", "complete", "update")


def _default_source(session: SparkSession) -> str:
    """Spark's source when none is named: ``spark.sql.sources.default`` (parquet)."""
    return session.conf.get("spark.sql.sources.default", "parquet") or "parquet"


class DataStreamWriter(OptionsBuilder):
    """Starts a streaming query writing a streaming DataFrame (``df.writeStream``)."""

    def __init__(self, df: DataFrame) -> None:
        self._df = df
        self._format: str | None = None  # Spark's default: spark.sql.sources.default (parquet)
        self._mode = "append"
        self._options: dict[str, str] = {}
        self._partition_by: list[str] = []
        self._name: str | None = None
        self._trigger = Trigger()
        self._sink: Sink | None = None

    def outputMode(self, outputMode: str) -> DataStreamWriter:  # noqa: N802,N803 - PySpark's names
        """``append`` (default), ``complete`` or ``update``."""
        if not isinstance(outputMode, str) or not outputMode.strip():
            raise PySparkValueError(f"Value for outputMode must be a non empty string. Got: {outputMode!r}",
                                    "VALUE_NOT_NON_EMPTY_STR", {"arg_name": "outputMode"})
        mode = outputMode.strip().lower()
        if mode not in _MODES:
            raise PySparkValueError(
                f"Unknown output mode {outputMode}. Accepted output modes are 'append', 'complete', 'update'.",
                "UNKNOWN_OUTPUT_MODE", {"mode": outputMode})
        self._mode = mode
        return self

    def format(self, source: str) -> DataStreamWriter:
        """The sink: ``console``, ``memory``, ``parquet``, ``csv``, ``json``, ``text``, ``kafka``..."""
        self._format = source
        self._sink = None
        return self

    def partitionBy(self, *cols: str | list[str]) -> DataStreamWriter:  # noqa: N802 - PySpark's name
        """Partition the output files by these columns (file sinks)."""
        flat: list[str] = []
        for c in cols:
            flat.extend(c if isinstance(c, list | tuple) else [c])
        self._partition_by = [str(c) for c in flat]
        return self

    def clusterBy(self, *cols: str | list[str]) -> DataStreamWriter:  # noqa: N802 - PySpark's name
        """Accepted, as the batch writer's: clustering is a layout hint of Spark's table formats; the rows
        a query writes are the same."""
        return self

    def queryName(self, queryName: str) -> DataStreamWriter:  # noqa: N802,N803 - PySpark's names
        """The query's name (the memory sink's table name)."""
        if not isinstance(queryName, str) or not queryName.strip():
            raise PySparkValueError(f"Value for queryName must be a non empty string. Got: {queryName!r}",
                                    "VALUE_NOT_NON_EMPTY_STR", {"arg_name": "queryName"})
        self._name = queryName.strip()
        return self

    def trigger(self, processingTime: str | None = None, once: bool | None = None,  # noqa: N803
                continuous: str | None = None, availableNow: bool | None = None) -> DataStreamWriter:  # noqa: N803
        """When batches run: ``processingTime="10 seconds"``, ``once=True`` or ``availableNow=True``."""
        self._trigger = trigger_from_args(processingTime, once, continuous, availableNow)
        return self

    def foreach(self, f: Any) -> DataStreamWriter:
        """Run ``f`` on every row in the tasks (a function, or an object with open/process/close)."""
        from .sinks.foreach import ForeachSink, check_foreach_writer

        check_foreach_writer(f)
        self._format = "foreach"
        self._sink = ForeachSink(f, python_time_zone())
        return self

    def foreachBatch(self, func: Callable[[Any, int], Any]) -> DataStreamWriter:  # noqa: N802 - PySpark's name
        """Call ``func(batch_df, batch_id)`` on the driver for every micro-batch."""
        from .sinks.foreach import ForeachBatchSink

        if not callable(func):
            raise PySparkTypeError(f"Argument `func` should be a function, got {type(func).__name__}.",
                                   "NOT_CALLABLE", {"arg_name": "func", "arg_type": type(func).__name__})
        self._format = "foreachBatch"
        self._sink = ForeachBatchSink(func)
        return self

    def _settings(self, format: str | None, output_mode: str | None,  # noqa: A002 - PySpark's name
                  partition_by: str | list[str] | None, query_name: str | None, options: dict[str, Any]) -> None:
        """What ``start`` and ``toTable`` take as arguments, as the setters would set them."""
        if format is not None:
            self.format(format)
        self.options(**options)
        if output_mode is not None:
            self.outputMode(output_mode)
        if partition_by is not None:
            self.partitionBy(partition_by)
        if query_name is not None:
            self.queryName(query_name)

    def toTable(self, tableName: str, format: str | None = None, outputMode: str | None = None,  # noqa: N802, N803, A002
                partitionBy: str | list[str] | None = None, queryName: str | None = None,  # noqa: N803
                **options: Any) -> StreamingQuery:
        """Start the query writing into the table ``tableName`` (created, empty, if it does not exist).

        As Spark does for a file-based table: a file sink in the table's directory, in the
        table's format (an explicit other format is refused); batch reads of the table then
        see the committed files of the sink's manifest.
        """
        from ..tables import streaming_table  # noqa: PLC0415 - the catalog's tables load with their first use

        self._settings(format, outputMode, partitionBy, queryName, options)
        session = self._df.sparkSession
        if session.catalog._is_temp_view(tableName):
            raise AnalysisException(f"Temporary view {tableName} doesn't support streaming write.")
        source = self._format or _default_source(session)
        table = streaming_table(session, tableName, source, self._df.schema, list(self._partition_by))
        if source.lower() != table.format.lower():
            raise AnalysisException(f"The input source({source}) is different from the table {tableName}'s data "
                                    f"source provider({table.format}).")
        if not self._partition_by and table.partition_by:
            self._partition_by = list(table.partition_by)
        return self.start(path=table.path, format=table.format)

    def start(self, path: str | None = None, format: str | None = None,  # noqa: A002 - PySpark's name
              outputMode: str | None = None, partitionBy: str | list[str] | None = None,  # noqa: N803
              queryName: str | None = None, **options: Any) -> StreamingQuery:  # noqa: N803
        """Start the query; returns its :class:`~.query.StreamingQuery` handle."""
        from .microbatch import MicroBatchExecution
        from .query import streams_of

        self._settings(format, outputMode, partitionBy, queryName, options)
        if path is not None:
            self._options["path"] = path
        df = self._df
        if not df.isStreaming:
            raise AnalysisException("'writeStream' can be called only on streaming Dataset/DataFrame")
        session = df.sparkSession
        plan = df._plan
        sink = self._sink
        needs_checkpoint = False
        if sink is None:
            python_sink = session._data_sources.get((self._format or "").lower())
            if python_sink is not None:
                from .python_data_source import PythonSinkProvider  # noqa: PLC0415 - loads with its first use

                provider: Any = PythonSinkProvider(python_sink)
            else:
                provider = sink_provider(self._format or _default_source(session))
            needs_checkpoint = provider.needs_checkpoint
            provider.check_output_mode(self._mode)  # before the query's checks, as Spark
        check_streaming_query(plan, self._mode, session.conf.get_boolean(
            "spark.sql.streaming.statefulOperator.checkCorrectness.enabled", True))
        checkpoint, temporary = self._checkpoint(session, needs_checkpoint)
        if sink is None:
            sink = provider.create(session, dict(self._options), self._mode, list(self._partition_by), self._name)
        manager = streams_of(session)
        execution = MicroBatchExecution(session=session, plan=plan, sink=sink, trigger=self._trigger,
                                        output_mode=self._mode, checkpoint=checkpoint, temporary_checkpoint=temporary,
                                        name=self._name, on_event=manager._post,
                                        on_terminated=manager._terminated_run)
        return manager._start(execution)

    def _checkpoint(self, session: SparkSession, needs_checkpoint: bool) -> tuple[str, bool]:
        given = self._options.get("checkpointlocation")
        if given:
            return os.path.abspath(given), False
        root = session.conf.get("spark.sql.streaming.checkpointLocation", None)
        if root:
            return os.path.abspath(os.path.join(root, self._name or str(uuid.uuid4()))), False
        if needs_checkpoint:
            raise AnalysisException(
                "checkpointLocation must be specified either through option(\"checkpointLocation\", ...) or "
                "SparkSession.conf.set(\"spark.sql.streaming.checkpointLocation\", ...).")
        return temporary_checkpoints.create(), True
