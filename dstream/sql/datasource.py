"""The Python data source API (``pyspark.sql.datasource``): sources and sinks written in Python.

What this module owns
---------------------
The classes a user subclasses, with PySpark 4's names and signatures: :class:`DataSource`
(its ``name()``, ``schema()``, and the ``reader``/``writer``/``streamReader``/
``simpleStreamReader``/``streamWriter`` it provides), :class:`DataSourceReader`,
:class:`DataSourceWriter`, :class:`DataSourceArrowWriter`, :class:`DataSourceStreamReader`,
:class:`SimpleDataSourceStreamReader`, :class:`DataSourceStreamWriter`,
:class:`InputPartition`, :class:`WriterCommitMessage`; and :class:`DataSourceRegistration`
(``spark.dataSource.register(cls)``), after which ``spark.read.format(cls.name())`` and
``df.write.format(...)`` (and their streaming forms) use the class.

Invariants
----------
* A data source is made on the driver with the reader's or writer's options, keys
  case-insensitive (:class:`CaseInsensitiveDict`, values strings; ``load(path)`` and
  ``save(path)`` add ``path``). Readers, writers and partitions travel to the tasks
  pickled (cloudpickle), so they must be picklable.
* Methods a subclass does not provide raise :class:`PySparkNotImplementedError`, as in
  PySpark; the engine then falls back where PySpark does (one partition, value ``None``,
  when ``partitions()`` is missing).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import UserDict
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .errors import PySparkNotImplementedError
from .types import StructType

if TYPE_CHECKING:
    import pyarrow as pa

    from .session import SparkSession
    from .types import Row

__all__ = ["CaseInsensitiveDict", "DataSource", "DataSourceArrowWriter", "DataSourceReader",
           "DataSourceRegistration", "DataSourceStreamReader", "DataSourceStreamWriter", "DataSourceWriter",
           "InputPartition", "SimpleDataSourceStreamReader", "WriterCommitMessage"]


def _missing(what: str) -> PySparkNotImplementedError:
    return PySparkNotImplementedError(f"{what} is not implemented.", "NOT_IMPLEMENTED",
                                      {"feature": what})


class CaseInsensitiveDict(UserDict):
    """A data source's options: keys compared without case (``options["Path"]`` is ``options["path"]``)."""

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key.lower(), value)

    def __getitem__(self, key: str) -> Any:
        return super().__getitem__(key.lower())

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key.lower())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and super().__contains__(key.lower())

    def copy(self) -> CaseInsensitiveDict:
        return CaseInsensitiveDict(dict(self.data))


class DataSource(ABC):  # noqa: B024 - every method has a default, as PySpark's
    """A custom data source: a name, a schema, and the readers and writers it makes.

    Parameters
    ----------
    options : dict
        The reader's or writer's options (case-insensitive keys, string values).
    """

    def __init__(self, options: dict[str, str]) -> None:
        self.options = options

    @classmethod
    def name(cls) -> str:
        """The format name ``spark.read.format(...)`` takes (default: the class name)."""
        return cls.__name__

    def schema(self) -> StructType | str:
        """The schema of the rows read when the reader gives none (a StructType or DDL text)."""
        raise _missing("schema")

    def reader(self, schema: StructType) -> DataSourceReader:
        """The batch reader of rows of ``schema``."""
        raise _missing("reader")

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        """The batch writer of rows of ``schema`` (``overwrite``: the save mode is overwrite)."""
        raise _missing("writer")

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:  # noqa: N802
        """The writer of a streaming query's micro-batches."""
        raise _missing("streamWriter")

    def simpleStreamReader(self, schema: StructType) -> SimpleDataSourceStreamReader:  # noqa: N802
        """A stream reader that reads on the driver (used when ``streamReader`` is missing)."""
        raise _missing("simpleStreamReader")

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:  # noqa: N802
        """A stream reader whose partitions are read in tasks."""
        raise _missing("streamReader")


class InputPartition:
    """One partition of a read: ``value`` (or a subclass's fields) says what the task reads.

    Parameters
    ----------
    value : Any
        What the partition holds; it is pickled to the task.
    """

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{type(self).__name__}({fields})"


class DataSourceReader(ABC):
    """Reads a batch: the partitions on the driver, each partition's rows in a task."""

    def partitions(self) -> Sequence[InputPartition]:
        """The partitions of the read (one task each); without it, one partition ``None``."""
        raise _missing("partitions")

    @abstractmethod
    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]] | Iterator[pa.RecordBatch]:
        """The rows of ``partition``: tuples, lists or Rows in the schema's order, or Arrow record batches."""


class DataSourceStreamReader(ABC):
    """Reads a stream: offsets (JSON-able dicts) on the driver, each micro-batch's partitions in tasks."""

    def initialOffset(self) -> dict[str, Any]:  # noqa: N802 - PySpark's names
        """Where a new query starts."""
        raise _missing("initialOffset")

    def latestOffset(self) -> dict[str, Any]:  # noqa: N802
        """How far the data goes now (the end of the next micro-batch)."""
        raise _missing("latestOffset")

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        """The partitions holding the rows between ``start`` (exclusive) and ``end``."""
        raise _missing("partitions")

    @abstractmethod
    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]] | Iterator[pa.RecordBatch]:
        """The rows of ``partition`` (as :meth:`DataSourceReader.read`)."""

    def commit(self, end: dict[str, Any]) -> None:  # noqa: B027 - optional, as PySpark's
        """Everything up to ``end`` is processed: the source may forget it."""

    def stop(self) -> None:  # noqa: B027 - optional, as PySpark's
        """The query stopped: release what the reader holds."""


class SimpleDataSourceStreamReader(ABC):  # noqa: B024 - every method has a default, as PySpark's
    """Reads a stream on the driver: each call returns rows and the offset after them."""

    def initialOffset(self) -> dict[str, Any]:  # noqa: N802 - PySpark's names
        """Where a new query starts."""
        raise _missing("initialOffset")

    def read(self, start: dict[str, Any]) -> tuple[Iterator[tuple[Any, ...]], dict[str, Any]]:
        """The rows after ``start`` and the offset they end at."""
        raise _missing("read")

    def readBetweenOffsets(self, start: dict[str, Any], end: dict[str, Any]) -> Iterator[tuple[Any, ...]]:  # noqa: N802
        """The rows between two offsets already read once (a batch run again after a restart)."""
        raise _missing("readBetweenOffsets")

    def commit(self, end: dict[str, Any]) -> None:  # noqa: B027 - optional, as PySpark's
        """Everything up to ``end`` is processed."""


class WriterCommitMessage:
    """What a task's ``write`` returns for the driver's ``commit`` or ``abort`` (subclass it)."""


class DataSourceWriter(ABC):
    """Writes a batch: each task writes its rows, then the driver commits (or aborts) all of them."""

    @abstractmethod
    def write(self, iterator: Iterator[Row]) -> WriterCommitMessage:
        """Write one partition's rows (in a task); the message goes to ``commit``."""

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:  # noqa: B027 - optional
        """Every task succeeded: ``messages`` in partition order."""

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:  # noqa: B027 - optional
        """A task failed: the messages of those that finished (``None`` for the others)."""


class DataSourceArrowWriter(DataSourceWriter):
    """A writer given each partition's rows as Arrow record batches."""

    @abstractmethod
    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
        """Write one partition's record batches (in a task)."""


class DataSourceStreamWriter(ABC):
    """Writes a stream's micro-batches: each task writes its rows, the driver commits each batch."""

    @abstractmethod
    def write(self, iterator: Iterator[Row]) -> WriterCommitMessage:
        """Write one partition of a micro-batch (in a task)."""

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: B027, N803
        """Every task of micro-batch ``batchId`` succeeded."""

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: B027, N803
        """A task of micro-batch ``batchId`` failed."""


class DataSourceRegistration:
    """``spark.dataSource``: registers Python data sources under their ``name()``."""

    def __init__(self, session: SparkSession) -> None:
        self._session = session

    def register(self, dataSource: type[DataSource]) -> None:  # noqa: N803 - PySpark's name
        """Make ``dataSource`` (a DataSource subclass) readable and writable as ``format(dataSource.name())``."""
        from .errors import PySparkTypeError  # noqa: PLC0415 - the error path only

        if not (isinstance(dataSource, type) and issubclass(dataSource, DataSource)):
            raise PySparkTypeError(
                f"spark.dataSource.register needs a subclass of pyspark.sql.datasource.DataSource, got "
                f"{dataSource!r}.", "INVALID_TYPE", {"arg_name": "dataSource", "arg_type": type(dataSource).__name__})
        self._session._data_sources[dataSource.name().lower()] = dataSource
