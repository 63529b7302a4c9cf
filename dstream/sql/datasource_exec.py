"""Running Python data sources: batch reads and writes through the engine's tasks.

What this module owns
---------------------
:func:`python_source` (the class registered under a format name), :func:`read_python_source`
(``spark.read.format(name).load()``: the partitions listed on the driver, one task per
partition calling the reader's ``read``, its rows made Arrow batches of the schema) and
:func:`write_python_source` (``df.write.format(name).mode(...).save()``: one ``write`` per
partition in the tasks, then ``commit`` with their messages on the driver, or ``abort``).

Invariants
----------
* Rows a reader yields are tuples, lists or Rows with one value per schema field, or Arrow
  record batches with the schema's columns; anything else is PySpark's
  ``DATA_SOURCE_RETURN_SCHEMA_MISMATCH``.
* A batch write needs the ``append`` or ``overwrite`` mode (PySpark refuses the others with
  ``UNSUPPORTED_DATA_SOURCE_SAVE_MODE`` before anything runs); ``commit`` runs only when every
  task wrote, ``abort`` when one failed (with ``None`` for the messages it never got).
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import cloudpickle
import pyarrow as pa

from .arrow_convert import arrow_to_rows, to_arrow_schema
from .datasource import CaseInsensitiveDict, DataSource, DataSourceArrowWriter, InputPartition
from .errors import AnalysisException, PySparkNotImplementedError, PySparkRuntimeError
from .expressions.base import column_key
from .local_data import attributes_of, rows_to_batches, schema_argument
from .plan.arrow_rdd import ArrowRDDRelation
from .timezones import python_time_zone
from .types import StructType

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .session import SparkSession

__all__ = ["instance", "partitions_rdd", "python_source", "read_python_source", "schema_of", "write_messages",
           "write_python_source"]

_MODE_NAMES = {"error": "ErrorIfExists", "errorifexists": "ErrorIfExists", "default": "ErrorIfExists",
               "ignore": "Ignore", "append": "Append", "overwrite": "Overwrite"}


def python_source(session: SparkSession, name: str) -> type[DataSource] | None:
    """The data source class registered as ``name`` in ``session`` (``None`` if none is)."""
    return session._data_sources.get(name.lower())


def instance(cls: type[DataSource], options: Mapping[str, str], path: str | None) -> DataSource:
    opts = CaseInsensitiveDict(options)
    if path is not None:
        opts["path"] = path
    return cls(opts)  # type: ignore[arg-type]


def schema_of(source: DataSource, user: StructType | None) -> StructType:
    if user is not None:
        return user
    parsed = schema_argument(source.schema())
    if not isinstance(parsed, StructType):
        raise AnalysisException(
            f"The data source {type(source).name()!r} gave the schema {source.schema()!r}: schema() must return a "
            "StructType or a DDL string such as 'a int, b string'.", "DATA_SOURCE_INVALID_SCHEMA", {})
    return parsed


def _mismatch(expected: int, found: int) -> PySparkRuntimeError:
    return PySparkRuntimeError(
        f"Return schema mismatch in the result from 'read' method. Expected: {expected} columns, Found: {found} "
        "columns. Make sure the returned values match the required output schema.",
        "DATA_SOURCE_RETURN_SCHEMA_MISMATCH", {"expected": str(expected), "actual": str(found)})


def _read_partitions(reader: Any, schema: StructType, arrow: pa.Schema, keys: list[str], time_zone: str,
                     partitions: Iterator[Any]) -> Iterator[pa.RecordBatch]:
    width = len(schema.fields)
    for pickled in partitions:
        partition = pickle.loads(pickled)
        rows: list[tuple[Any, ...]] = []
        for item in reader.read(partition):
            if isinstance(item, pa.RecordBatch):
                if item.num_columns != width:
                    raise _mismatch(width, item.num_columns)
                yield from rows_to_batches(iter(rows), schema, keys, time_zone)
                rows = []
                columns = [c if c.type == f.type else c.cast(f.type) for c, f in zip(item.columns, arrow)]
                yield pa.RecordBatch.from_arrays(columns, names=keys)
                continue
            row = tuple(item) if isinstance(item, tuple | list) else None
            if row is None:
                raise PySparkRuntimeError(
                    f"The data source's read() yielded {type(item).__name__} {item!r}: yield tuples, lists or "
                    "Rows (one value per schema field) or pyarrow RecordBatches.",
                    "DATA_SOURCE_INVALID_RETURN_TYPE", {"type": type(item).__name__})
            if len(row) != width:
                raise _mismatch(width, len(row))
            rows.append(row)
        yield from rows_to_batches(iter(rows), schema, keys, time_zone)


def partitions_rdd(session: SparkSession, reader: Any, partitions: list[Any], schema: StructType,
                   keys: list[str]) -> Any:
    """The RDD of Arrow batches (columns ``keys``) of ``reader.read`` over ``partitions``, one task each."""
    for p in partitions:
        if p is not None and not isinstance(p, InputPartition):
            raise PySparkRuntimeError(
                f"The data source's partitions() returned {p!r}: each partition must be an instance of "
                "InputPartition (or a subclass).", "DATA_SOURCE_TYPE_MISMATCH", {"type": type(p).__name__})
    read = functools.partial(_read_partitions, reader, schema, to_arrow_schema(schema), keys,
                             session.conf.time_zone())
    # By value (cloudpickle), as the reader itself travels: partition classes of __main__ included.
    pickled = [cloudpickle.dumps(p) for p in partitions]
    return session.sparkContext.parallelize(pickled, max(len(pickled), 1)).mapPartitions(read)


def read_python_source(session: SparkSession, cls: type[DataSource], options: Mapping[str, str],
                       user_schema: StructType | None, path: str | None = None) -> DataFrame:
    """The DataFrame of ``spark.read.format(cls.name()).load(path)`` (see the module doc)."""
    source = instance(cls, options, path)
    schema = schema_of(source, user_schema)
    reader = source.reader(schema)
    try:
        partitions: list[Any] = list(reader.partitions())
    except (PySparkNotImplementedError, NotImplementedError):
        partitions = [None]
    attrs = attributes_of(schema)
    rdd = partitions_rdd(session, reader, partitions, schema, [column_key(a.expr_id) for a in attrs])
    return session._new_dataframe(ArrowRDDRelation(attrs, rdd, f"PythonDataSource {cls.name()}"))


def _write_partition(writer: Any, names: list[str], time_zone: str,
                     batches: Iterator[pa.RecordBatch]) -> Iterator[Any]:
    """One task of a write: ``writer.write`` of the partition's rows (record batches for an Arrow writer)."""
    named = (pa.RecordBatch.from_arrays(b.columns, names=names) for b in batches)
    if isinstance(writer, DataSourceArrowWriter):
        yield writer.write(named)
    else:
        yield writer.write(row for batch in named for row in arrow_to_rows(batch, time_zone))


def write_messages(df: DataFrame, writer: Any, abort: Callable[[list[Any]], None]) -> list[Any]:
    """The commit messages of ``writer.write`` run on each partition of ``df`` (in partition order).

    When a task fails, ``abort`` gets ``None`` for every partition (the messages of the tasks
    that finished are not kept) and the error propagates.
    """
    rdd = df._execution().to_rdd()
    task = functools.partial(_write_partition, writer, list(df.columns), python_time_zone())
    try:
        with df._session._operation():
            return rdd.mapPartitions(task).collect()
    except BaseException:
        abort([None] * rdd.getNumPartitions())
        raise


def write_python_source(df: DataFrame, cls: type[DataSource], options: Mapping[str, str], mode: str,
                        path: str | None = None) -> None:
    """Write ``df`` with the data source ``cls`` (``df.write.format(...).mode(mode).save(path)``)."""
    shown = _MODE_NAMES.get(mode.lower(), mode)
    if shown not in ("Append", "Overwrite"):
        raise AnalysisException(
            f'The data source "{cls.name()}" cannot be written in the "{shown}" mode. Please use either the '
            '"Append" or "Overwrite" mode instead.', "UNSUPPORTED_DATA_SOURCE_SAVE_MODE",
            {"source": cls.name(), "createMode": shown})
    source = instance(cls, options, path)
    writer = source.writer(df.schema, shown == "Overwrite")
    writer.commit(write_messages(df, writer, writer.abort))
