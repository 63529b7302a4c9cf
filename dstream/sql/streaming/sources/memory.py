"""``MemoryStream``: a source of rows added by the program itself, for tests and examples.

What this module owns
---------------------
:class:`MemoryStream` (Spark's ``MemoryStream`` of its Scala test kit, which PySpark
lacks): ``addData`` appends a batch of rows and returns its offset, ``toDF`` gives
the streaming DataFrame. Offsets count ``addData`` calls: the first call is offset 0,
so a batch reading ``(start, end]`` reads the calls ``start + 1 .. end``.

Invariants
----------
* Data lives in the driver's memory: it does not survive a restart of the process
  (a query restarted in the same process over the same checkpoint replays it).
* Every added batch is converted to Arrow once, with the stream's schema.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ...arrow_convert import RowEncoder
from ...expressions.base import AttributeReference, column_key
from ...local_data import attributes_of, local_relation, single_column_rows
from ...plan.logical import LocalRelation, LogicalPlan
from ...timezones import python_time_zone
from ...types import StructType
from .base import Offset, Source

if TYPE_CHECKING:
    from ...dataframe import DataFrame
    from ...session import SparkSession

__all__ = ["MemoryStream"]

_ids = iter(range(1 << 62))


class MemoryStream(Source):
    """A stream of rows added with :meth:`addData`.

    Parameters
    ----------
    schema : StructType, str or DataType-like
        The rows' schema: a ``StructType``, a DDL string (``"word string, n int"``), or
        an atomic type name (``"int"``, ``"string"``) for one column named ``value``.
    session : SparkSession, optional
        The session (the active one by default).

    Examples
    --------
    >>> stream = MemoryStream("value int", spark)          # doctest: +SKIP
    >>> df = stream.toDF()                                  # doctest: +SKIP
    >>> stream.addData([1, 2, 3])                           # doctest: +SKIP
    0
    """

    def __init__(self, schema: Any, session: SparkSession | None = None) -> None:
        from ...session import SparkSession as _Session

        self._session = session or _Session.getActiveSession() or _Session.builder.getOrCreate()
        probe = local_relation([], _schema_text(schema), self._session.conf.time_zone())
        self._schema = StructType([f for f in _struct_of(probe)])
        self._arrow_schema = probe.table.schema
        self._batches: list[pa.Table] = []
        self._lock = threading.Lock()
        self._id = next(_ids)
        self.description = f"MemoryStream[{','.join(f.name for f in self._schema.fields)}]"
        self._df: DataFrame | None = None
        self._encoder: RowEncoder | None = None

    @property
    def schema(self) -> StructType:
        return self._schema

    def addData(self, *data: Any) -> int:  # noqa: N802 - Spark's name
        """Append one batch of rows (a list, or the rows as arguments); its offset."""
        rows: Iterable[Any] = data[0] if len(data) == 1 and isinstance(data[0], list | tuple) else data
        zone = python_time_zone()
        encoder = self._encoder
        if encoder is None or encoder.time_zone != zone:
            encoder = self._encoder = RowEncoder(self._schema, zone)
        table = encoder.encode(single_column_rows(self._schema, list(rows)))
        table = pa.Table.from_arrays(table.columns, schema=self._arrow_schema)
        with self._lock:
            self._batches.append(table)
            return len(self._batches) - 1

    def toDF(self) -> DataFrame:  # noqa: N802 - Spark's name
        """The streaming DataFrame of this stream (the same one on every call)."""
        if self._df is None:
            from ..relation import SourceSpec, StreamingRelation

            spec = SourceSpec("memory", {}, self._schema, _Provider(self))
            self._df = self._session._new_dataframe(StreamingRelation(attributes_of(self._schema), spec))
        return self._df

    # -- the Source contract ------------------------------------------------------------

    def latest_offset(self, start: Offset | None, limited: bool) -> Offset | None:
        with self._lock:
            return len(self._batches) - 1 if self._batches else None

    def get_batch(self, start: Offset | None, end: Offset, output: list[AttributeReference]) -> LogicalPlan:
        first = 0 if start is None else int(start) + 1
        with self._lock:
            tables = self._batches[first:int(end) + 1]
        table = pa.concat_tables(tables) if tables else self._arrow_schema.empty_table()
        names = [column_key(a.expr_id) for a in output]
        return LocalRelation(output, table.rename_columns(names))

    def reports_latest_offset(self) -> Offset | None:
        return self.latest_offset(None, False)


class _Provider:
    """The provider of a MemoryStream's relation: the stream itself is the source."""

    def __init__(self, stream: MemoryStream) -> None:
        self.stream = stream

    def create(self, session: Any, options: dict[str, str], schema: StructType, metadata_path: str) -> Source:
        return self.stream


def _schema_text(schema: Any) -> Any:
    if isinstance(schema, str) and " " not in schema.strip() and "," not in schema and ":" not in schema:
        return f"value {schema}"
    if not isinstance(schema, StructType | str) and hasattr(schema, "simpleString"):
        return f"value {schema.simpleString()}"
    return schema


def _struct_of(relation: LocalRelation) -> list[Any]:
    from ...types import StructField

    return [StructField(a.name, a.dtype, a.nullable) for a in relation.output()]
