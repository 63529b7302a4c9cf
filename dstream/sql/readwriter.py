"""``spark.read`` and ``df.write``: PySpark's DataFrameReader and DataFrameWriter.

What this module owns
---------------------
The builder-style file API: ``spark.read.format(...).option(...).schema(...).load(path)``
and its shortcuts ``text``/``csv``/``json``/``parquet`` (with PySpark's keyword
options), and ``df.write.mode(...).option(...).partitionBy(...).save(path)`` with
the same shortcuts. Reading builds a :class:`~dstream.sql.plan.logical.FileRelation`
(the files are listed and the schema inferred on the driver, the data read in the
tasks); writing runs one job whose tasks each write one part file, then commits.

Invariants
----------
* Option names are case-insensitive, as in Spark; values are kept as strings
  (``True`` becomes ``"true"``).
* A write is atomic: part files go to a temporary directory and are moved into
  place, with ``_SUCCESS``, only when every task succeeded; a failed job leaves the
  target as it was (``mode("overwrite")`` removes the old data first, as Spark).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import pyarrow as pa

from rdd import RDD

from .errors import AnalysisException, IllegalArgumentException, PySparkValueError
from .io import FORMAT_NAMES, abort_output, commit_output, get_format, list_input_files, prepare_output, write_task
from .io.file_metadata import metadata_attribute
from .io.writer import check_writable, file_extension
from .local_data import attributes_of, schema_argument
from .plan.logical import FileRelation
from .types import StructType
from .writer_buckets import BucketSpec, bucket_columns
from .writer_v2 import DataFrameWriterV2  # PySpark's home of the class (df.writeTo returns one)

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .session import SparkSession

__all__ = ["DataFrameReader", "DataFrameWriter", "DataFrameWriterV2", "OptionsBuilder"]

_FORMATS = FORMAT_NAMES


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _check_format(name: str) -> str:
    key = name.lower()
    if key not in _FORMATS and key != "kafka":
        raise AnalysisException(
            f"Failed to find the data source: {name}. Supported here: {', '.join(_FORMATS)}, kafka.",
            "DATA_SOURCE_NOT_FOUND", {"provider": name})
    return key


_B = TypeVar("_B", bound="OptionsBuilder")


class OptionsBuilder:
    """``option``/``options`` of the readers and writers (batch and streaming): keys lower-cased."""

    _options: dict[str, str]

    def option(self: _B, key: str, value: Any) -> _B:
        """One option (``header``, ``sep``, ``mode``, ``checkpointLocation``...); booleans as ``true``/``false``."""
        self._options[key.lower()] = _option_text(value)
        return self

    def options(self: _B, **options: Any) -> _B:
        """Several options (``None`` values are skipped)."""
        for key, value in options.items():
            if value is not None:
                self.option(key, value)
        return self


class DataFrameReader(OptionsBuilder):
    """Reads files into DataFrames (``spark.read``)."""

    def __init__(self, session: SparkSession) -> None:
        self._session = session
        self._format = "parquet"
        self._options: dict[str, str] = {}
        self._schema: StructType | None = None

    def format(self, source: str) -> DataFrameReader:
        """The format: ``text``, ``csv``, ``json``, ``parquet``, ``orc``, ``xml``, ``kafka`` (records of an
        offset range), or the name of a Python data source (``spark.dataSource.register``)."""
        self._format = source.lower() if source.lower() in self._session._data_sources else _check_format(source)
        return self

    def schema(self, schema: StructType | str) -> DataFrameReader:
        """The schema to read with (skips inference): a StructType or a DDL string."""
        parsed = schema_argument(schema)
        if not isinstance(parsed, StructType):
            raise PySparkValueError("schema should be a StructType or a DDL string.", "NOT_STR_OR_STRUCT",
                                    {"arg_name": "schema"})
        self._schema = parsed
        return self

    def load(self, path: str | list[str] | None = None, format: str | None = None,  # noqa: A002 - PySpark's name
             schema: StructType | str | None = None, **options: Any) -> DataFrame:
        """Read ``path`` (a file, a directory, a glob, or a list of them)."""
        if format is not None:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        self.options(**options)
        if self._format == "kafka":  # offsets, not paths: the Kafka source builds the plan
            from .streaming.sources.kafka import kafka_relation

            return self._session._new_dataframe(kafka_relation(self._session, dict(self._options), self._schema))
        python_source = self._session._data_sources.get(self._format)
        if python_source is not None:
            from .datasource_exec import read_python_source  # noqa: PLC0415 - loads with its first use

            return read_python_source(self._session, python_source, dict(self._options), self._schema,
                                      path if isinstance(path, str) else None)
        if path is None:
            raise PySparkValueError("load() needs a path.", "CANNOT_BE_NONE", {"arg_name": "path"})
        paths = [path] if isinstance(path, str) else list(path)
        fmt = get_format(self._format)
        files = list_input_files(paths, self._options)
        options_now = dict(self._options)
        options_now.setdefault("maxpartitionbytes", str(self._session.conf.max_partition_bytes()))
        options_now.setdefault("timezone", self._session.conf.time_zone())
        # Splits small enough that every core gets one (Spark's bytes-per-core rule).
        options_now.setdefault("minpartitionnum", str(self._session.sparkContext.defaultParallelism))
        if len(paths) == 1 and os.path.isdir(paths[0]):
            # Partition columns are discovered below the directory read, never above it.
            options_now.setdefault("basepath", paths[0])
        file_schema = (fmt.infer_schema(files, options_now) if self._schema is None
                       else fmt.with_partition_columns(self._schema, files, options_now))
        if self._schema is None and not files and self._format != "text":
            title = fmt.title
            raise AnalysisException(
                f"Unable to infer schema for {title}. It must be specified manually (no data file under "
                f"{', '.join(paths)}; give a schema with .schema(...)).", "UNABLE_TO_INFER_SCHEMA", {"format": title})
        relation = FileRelation(attributes_of(file_schema), self._format, files, options_now, file_schema,
                                metadata=metadata_attribute(self._format))
        return self._session._new_dataframe(relation)

    def text(self, paths: str | list[str], wholetext: bool = False, lineSep: str | None = None,  # noqa: N803
             **options: Any) -> DataFrame:
        """Read text files: one ``value`` string row per line."""
        return self.format("text").load(paths, wholetext=wholetext, lineSep=lineSep, **options)

    def csv(self, path: str | list[str] | RDD[Any], schema: StructType | str | None = None,
            **options: Any) -> DataFrame:
        """Read CSV files (``header``, ``inferSchema``, ``sep``, ``mode``, ``nullValue``... as options),
        or an RDD of strings, each one line."""
        if isinstance(path, RDD):
            return self._read_rdd("csv", path, schema, options)
        return self.format("csv").load(path, schema=schema, **options)

    def json(self, path: str | list[str] | RDD[Any], schema: StructType | str | None = None,
             **options: Any) -> DataFrame:
        """Read JSON Lines files (``multiLine=True`` for one JSON document per file), or an RDD of
        strings, each one JSON record."""
        if isinstance(path, RDD):
            return self._read_rdd("json", path, schema, options)
        return self.format("json").load(path, schema=schema, **options)

    def _read_rdd(self, fmt: str, rdd: RDD[Any], schema: StructType | str | None, options: Any) -> DataFrame:
        from .readwriter_rdd import read_string_rdd  # noqa: PLC0415 - loaded with its first use

        self.format(fmt)
        if schema is not None:
            self.schema(schema)
        self.options(**options)
        return read_string_rdd(self._session, fmt, rdd, self._schema, dict(self._options))

    def parquet(self, *paths: str, **options: Any) -> DataFrame:
        """Read Parquet files."""
        return self.format("parquet").load(list(paths), **options)

    def orc(self, path: str | list[str], mergeSchema: bool | None = None,  # noqa: N803 - PySpark's names
            pathGlobFilter: str | None = None, recursiveFileLookup: bool | None = None) -> DataFrame:
        """Read ORC files (the first file's schema, every file's with ``mergeSchema``)."""
        return self.format("orc").load(path, mergeSchema=mergeSchema, pathGlobFilter=pathGlobFilter,
                                       recursiveFileLookup=recursiveFileLookup)

    def xml(self, path: str | list[str] | RDD[Any], rowTag: str | None = None,  # noqa: N803 - PySpark's names
            schema: StructType | str | None = None, **options: Any) -> DataFrame:
        """Read XML files: one row per ``rowTag`` element (``attributePrefix``, ``valueTag``,
        ``excludeAttribute``, ``ignoreSurroundingSpaces``, ``nullValue``, ``inferSchema``, ``mode``... as
        options), or an RDD of strings, each one XML record."""
        if isinstance(path, RDD):
            return self._read_rdd("xml", path, schema, {"rowTag": rowTag, **options})
        return self.format("xml").load(path, schema=schema, rowTag=rowTag, **options)

    def table(self, tableName: str) -> DataFrame:  # noqa: N803 - PySpark's name
        """The DataFrame of a temporary view."""
        return self._session.table(tableName)


class DataFrameWriter(OptionsBuilder):
    """Writes a DataFrame to files (``df.write``)."""

    def __init__(self, df: DataFrame) -> None:
        self._df = df
        self._format = "parquet"
        self._mode = "errorifexists"
        self._options: dict[str, str] = {}
        self._partition_by: list[str] = []
        self._buckets = BucketSpec()

    def mode(self, saveMode: str | None) -> DataFrameWriter:  # noqa: N803 - PySpark's name
        """``error``/``errorifexists`` (default), ``overwrite``, ``append`` or ``ignore``."""
        mode = (saveMode or "errorifexists").lower()
        if mode == "default":
            mode = "errorifexists"
        if mode not in ("error", "errorifexists", "overwrite", "append", "ignore"):
            raise PySparkValueError(
                f"Unknown save mode: {saveMode}. Accepted save modes are 'overwrite', 'append', 'ignore', "
                "'error', 'errorifexists', 'default'.", "INVALID_SAVE_MODE", {"mode": str(saveMode)})
        self._mode = mode
        return self

    def format(self, source: str) -> DataFrameWriter:
        """The format: ``text``, ``csv``, ``json``, ``parquet``, ``orc``, ``xml``, ``kafka`` (records sent to
        topics), or the name of a Python data source (``spark.dataSource.register``)."""
        known = source.lower() in self._df._session._data_sources
        self._format = source.lower() if known else _check_format(source)
        return self

    def partitionBy(self, *cols: str) -> DataFrameWriter:  # noqa: N802 - PySpark's name
        """Write into ``col=value/`` directories by these columns."""
        if len(cols) == 1 and isinstance(cols[0], list | tuple):
            cols = tuple(cols[0])
        self._partition_by = list(cols)
        return self

    def bucketBy(self, numBuckets: int, col: str | list[str], *cols: str) -> DataFrameWriter:  # noqa: N802,N803
        """Write ``numBuckets`` buckets hashed by these columns (``saveAsTable`` only, as in Spark)."""
        self._buckets.num_buckets = self._buckets.check_count(numBuckets)
        self._buckets.columns = tuple(bucket_columns(col, cols))
        return self

    def sortBy(self, col: str | list[str], *cols: str) -> DataFrameWriter:  # noqa: N802 - PySpark's name
        """Sort each bucket by these columns (with :meth:`bucketBy`)."""
        self._buckets.sort_columns = tuple(bucket_columns(col, cols))
        return self

    def clusterBy(self, *cols: str) -> DataFrameWriter:  # noqa: N802 - PySpark's name
        """Accepted for compatibility: clustering is a layout hint of Spark's table formats; the rows are the same."""
        return self

    def _settings(self, format: str | None, mode: str | None, partitionBy: Any,  # noqa: A002, N803
                  options: dict[str, Any]) -> None:
        """The settings an action's arguments give (PySpark's save/saveAsTable keywords)."""
        if format is not None:
            self.format(format)
        if mode is not None:
            self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.options(**options)

    def save(self, path: str | None = None, format: str | None = None,  # noqa: A002 - PySpark's name
             mode: str | None = None, partitionBy: Any = None, **options: Any) -> None:  # noqa: N803
        """Write the rows under ``path``."""
        self._settings(format, mode, partitionBy, options)
        if self._format == "kafka":  # records go to topics, not files
            from .streaming.sinks.kafka import save_kafka

            save_kafka(self._df, dict(self._options), self._mode)
            return
        python_source = self._df._session._data_sources.get(self._format)
        if python_source is not None:
            from .datasource_exec import write_python_source  # noqa: PLC0415 - loads with its first use

            write_python_source(self._df, python_source, dict(self._options), self._mode, path)
            return
        if path is None:
            raise PySparkValueError("save() needs a path.", "CANNOT_BE_NONE", {"arg_name": "path"})
        self._write(path)

    def _write(self, path: str) -> None:
        self._buckets.refuse("save")
        df = self._df
        schema = df.schema
        for name in self._partition_by:
            if name not in schema.names:
                raise AnalysisException(
                    f"Partition column `{name}` not found in schema {schema.simpleString()}.",
                    "COLUMN_NOT_FOUND_IN_SCHEMA", {"colName": name})
        file_extension(self._format, self._options)  # an unknown codec fails before the output is touched
        check_writable(self._format, schema, self._partition_by)
        dynamic = self._mode == "overwrite" and bool(self._partition_by) and self._dynamic_overwrite()
        if not prepare_output(path, self._mode, dynamic):
            return
        fmt = get_format(self._format)
        options = dict(self._options)
        options.setdefault("timezone", df._session.conf.time_zone())
        job_id = uuid.uuid4().hex[:12]
        partition_by = list(self._partition_by)

        def task(index: int, batches: Iterator[pa.RecordBatch]) -> Iterator[list[str]]:
            # write_task takes the columns by position under the schema's names.
            yield write_task(batches, schema, fmt, options, path, index, job_id, partition_by)

        try:
            with df._session._operation():
                rdd = df._execution().to_rdd()
                written = [p for part in rdd.mapPartitionsWithIndex(task).collect() for p in part]
        except BaseException:
            abort_output(path, job_id)
            raise
        commit_output(path, job_id, written, replace_partitions=dynamic)

    def _dynamic_overwrite(self) -> bool:
        # The writer's option wins over the session's setting, as in Spark.
        mode = self._options.get("partitionoverwritemode") or self._df._session.conf.get(
            "spark.sql.sources.partitionOverwriteMode", "static")
        if str(mode).lower() not in ("static", "dynamic"):
            raise IllegalArgumentException(
                f"partitionOverwriteMode must be STATIC or DYNAMIC, got {mode!r}: DYNAMIC replaces only the "
                "partitions a write has rows for, STATIC (the default) the whole output.")
        return str(mode).lower() == "dynamic"

    def saveAsTable(self, name: str, format: str | None = None, mode: str | None = None,  # noqa: N802, A002
                    partitionBy: Any = None, **options: Any) -> None:  # noqa: N803 - PySpark's names
        """Write the rows as the managed table ``name`` (a directory under ``spark.sql.warehouse.dir``,
        Parquet unless ``format`` says otherwise), readable by ``spark.table(name)`` and in SQL.

        The mode applies to the table: ``error`` (default) refuses an existing one, ``ignore``
        keeps it, ``overwrite`` replaces it, ``append`` adds rows matched by column name.
        """
        from .tables import save_as_table  # noqa: PLC0415 - the tables load with the first one

        self._settings(format, mode, partitionBy, options)
        rows = self._buckets.layout(self._df, name, list(self._partition_by))
        save_as_table(rows, name, self._format, self._mode, list(self._partition_by), dict(self._options))

    def insertInto(self, tableName: str, overwrite: bool | None = None) -> None:  # noqa: N802, N803
        """Add the rows to the managed table ``tableName`` (columns by position, cast to the
        table's types); with ``overwrite``, replace its rows."""
        from .tables import insert_into  # noqa: PLC0415 - the tables load with the first one

        self._buckets.refuse("insertInto")
        insert_into(self._df, tableName, bool(overwrite) or self._mode == "overwrite")

    def text(self, path: str, compression: str | None = None, lineSep: str | None = None) -> None:  # noqa: N803
        """Write one line per row of a single string column."""
        self.format("text").options(compression=compression, lineSep=lineSep)._write(path)

    def csv(self, path: str, mode: str | None = None, compression: str | None = None, sep: str | None = None,
            header: Any = None, **options: Any) -> None:
        """Write CSV files (no header unless ``header=True``; nulls as empty fields)."""
        if mode is not None:
            self.mode(mode)
        self.format("csv").options(compression=compression, sep=sep, header=header, **options)._write(path)

    def json(self, path: str, mode: str | None = None, compression: str | None = None, **options: Any) -> None:
        """Write JSON Lines files (null fields omitted)."""
        if mode is not None:
            self.mode(mode)
        self.format("json").options(compression=compression, **options)._write(path)

    def parquet(self, path: str, mode: str | None = None, partitionBy: Any = None,  # noqa: N803
                compression: str | None = None) -> None:
        """Write Parquet files."""
        if mode is not None:
            self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.format("parquet").options(compression=compression)._write(path)

    def xml(self, path: str, rowTag: str | None = None, mode: str | None = None,  # noqa: N803 - PySpark's names
            **options: Any) -> None:
        """Write XML files: one ``rowTag`` (``ROW``) element per row inside ``rootTag`` (``ROWS``)."""
        if mode is not None:
            self.mode(mode)
        self.format("xml").options(rowTag=rowTag, **options)._write(path)

    def orc(self, path: str, mode: str | None = None, partitionBy: Any = None,  # noqa: N803 - PySpark's name
            compression: str | None = None) -> None:
        """Write ORC files (``zstd`` unless ``compression`` says ``none``, ``snappy``, ``zlib`` or ``lz4``)."""
        if mode is not None:
            self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.format("orc").options(compression=compression)._write(path)
