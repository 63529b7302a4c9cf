"""``DataFrame`` methods over its Arrow batches: ``mapInArrow``, ``mapInPandas``,
``checkpoint``, ``localCheckpoint``, ``repartitionByRange`` and ``hint``.

What this module owns
---------------------
:class:`BatchMethods`, mixed into ``DataFrame``.

* ``mapInArrow(func, schema)`` hands each partition's record batches to ``func`` (an
  iterator in, an iterator out) with the DataFrame's column names; ``mapInPandas`` does
  the same with pandas DataFrames. The batches ``func`` yields are matched to ``schema``
  by column name and cast to its types; a missing column is an error naming it.
* ``checkpoint``/``localCheckpoint`` compute the rows once (now, unless ``eager=False``)
  and return a DataFrame over them whose plan starts there: its lineage is cut.
  ``checkpoint`` writes files under ``SparkContext.setCheckpointDir`` (required, as in
  Spark); ``localCheckpoint`` keeps the batches in the executors' block stores.
* ``repartitionByRange(n, *cols)``: rows with keys in order across partitions (a range
  exchange, as ``orderBy`` uses), each key in one partition.
* ``hint(name, ...)``: ``broadcast`` (and its aliases) is what ``functions.broadcast``
  does; other hints are accepted and ignored, as Spark ignores hints it cannot use.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from .errors import PySparkTypeError, PythonException
from .expressions.aggregate_base import SortOrder
from .expressions.base import column_key
from .local_data import attributes_of, schema_argument
from .plan.arrow_rdd import ArrowRDDRelation
from .types import StructType

if TYPE_CHECKING:
    from .dataframe import DataFrame

__all__ = ["BatchMethods", "conform_output"]

_BROADCAST_HINTS = frozenset({"broadcast", "broadcastjoin", "mapjoin"})


def conform_output(batch: Any, target: pa.Schema, keys: list[str]) -> pa.RecordBatch:
    """A batch ``func`` yielded, as the output's columns: by name, cast, renamed to the keys."""
    if isinstance(batch, pa.Table):
        # An empty table has no batches at all: its columns by name are still checked below.
        batch = batch.combine_chunks().to_batches()[0] if batch.num_rows else pa.RecordBatch.from_arrays(
            [pa.array([], t) for t in batch.schema.types], schema=batch.schema)
    if not isinstance(batch, pa.RecordBatch):
        raise PythonException(
            f"the function of mapInArrow/mapInPandas yielded a {type(batch).__name__}, not a pyarrow.RecordBatch "
            "(mapInArrow) or a pandas.DataFrame (mapInPandas).", "RESULT_TYPE_MISMATCH_FOR_ARROW_UDF", {})
    names = batch.schema.names
    columns = []
    for field in target:
        if field.name not in names:
            raise PythonException(
                f"Column names of the returned data do not match the specified schema: missing {field.name!r} "
                f"(returned {names}). Yield a column for every field of the schema.",
                "RESULT_COLUMNS_MISMATCH_FOR_ARROW_UDF", {"missing": field.name})
        column = batch.column(names.index(field.name))
        columns.append(column if column.type == field.type else column.cast(field.type))
    return pa.RecordBatch.from_arrays(columns, names=keys)


def _map_batches(func: Callable[[Iterator[Any]], Iterator[Any]], names: list[str], target: pa.Schema, pandas: bool,
                 time_zone: str, keys: list[str], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    # pandas sees timestamps as PySpark shows them: naive wall times in the session time zone.
    from .arrow_convert import from_pandas, to_pandas  # noqa: PLC0415 - the conversions load with the first use

    def inputs() -> Iterator[Any]:
        for batch in batches:
            named = pa.RecordBatch.from_arrays(batch.columns, names=names)
            yield to_pandas(named, time_zone) if pandas else named

    for out in func(inputs()):
        if pandas:
            out = from_pandas(out, target, time_zone)
        yield conform_output(out, target, keys)


def _named_again(keys: list[str], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        yield pa.RecordBatch.from_arrays(batch.columns, names=keys)


class BatchMethods:
    """The methods of the module doc, on ``DataFrame``."""

    _plan: Any
    _session: Any

    def _batches_as(self, attrs: list[Any], transform: Callable[..., Any]) -> Any:
        """The RDD of this DataFrame's batches through ``transform(keys, batches)``, columns named for ``attrs``."""
        df: Any = self
        keys = [column_key(a.expr_id) for a in attrs]
        return df._execution().to_rdd().mapPartitions(functools.partial(transform, keys))

    def mapInArrow(self, func: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]],  # noqa: N802
                   schema: StructType | str, barrier: bool = False, profile: Any = None) -> DataFrame:
        """Map each partition's ``pyarrow.RecordBatch`` es with ``func`` (an iterator in, an iterator out).

        Parameters
        ----------
        func : function
            ``Iterator[pyarrow.RecordBatch] -> Iterator[pyarrow.RecordBatch]``, run in the tasks.
        schema : StructType or str
            The output's schema (DDL text such as ``"id long, v double"``).
        barrier, profile
            Accepted for compatibility (no barrier scheduling, no profiles).
        """
        return self._map_in(func, schema, "MapInArrow", pandas=False)

    def mapInPandas(self, func: Callable[[Iterator[Any]], Iterator[Any]], schema: StructType | str,  # noqa: N802
                    barrier: bool = False, profile: Any = None) -> DataFrame:
        """Map each partition's rows as ``pandas.DataFrame`` s with ``func`` (an iterator in, an iterator out).

        Parameters
        ----------
        func : function
            ``Iterator[pandas.DataFrame] -> Iterator[pandas.DataFrame]``, run in the tasks.
        schema : StructType or str
            The output's schema.
        barrier, profile
            Accepted for compatibility.
        """
        return self._map_in(func, schema, "MapInPandas", pandas=True)

    def _map_in(self, func: Any, schema: StructType | str, name: str, pandas: bool) -> DataFrame:
        if not callable(func):
            raise PySparkTypeError(f"Argument `func` should be a function, got {type(func).__name__}.",
                                   "NOT_CALLABLE", {"arg_name": "func", "arg_type": type(func).__name__})
        struct = schema_argument(schema)
        if not isinstance(struct, StructType):
            raise PySparkTypeError(f"Argument `schema` should be a StructType or a DDL string, got {schema!r}.",
                                   "NOT_STRUCT_OR_STR", {"arg_name": "schema", "arg_type": type(schema).__name__})
        from .arrow_convert import to_arrow_type  # noqa: PLC0415 - the conversions load with the first use

        target = pa.schema([pa.field(f.name, to_arrow_type(f.dataType)) for f in struct.fields])
        df: Any = self
        attrs = attributes_of(struct)
        rdd = self._batches_as(attrs, functools.partial(_map_batches, func, list(df.columns), target, pandas,
                                                        df._session.conf.time_zone()))
        return df._session._new_dataframe(ArrowRDDRelation(attrs, rdd, name))

    def checkpoint(self, eager: bool = True) -> DataFrame:
        """The rows computed once and written under the context's checkpoint directory; the
        returned DataFrame's plan starts there (its lineage is cut).

        Parameters
        ----------
        eager : bool
            Compute now (else at the first action).
        """
        return self._cut(eager, local=False)

    def localCheckpoint(self, eager: bool = True, storageLevel: Any = None) -> DataFrame:  # noqa: N802,N803
        """The rows computed once and kept in the executors; the returned DataFrame's plan starts there.

        Parameters
        ----------
        eager : bool
            Compute now (else at the first action).
        storageLevel : StorageLevel, optional
            Where to keep them (memory and disk by default).
        """
        return self._cut(eager, local=True, level=storageLevel)

    def _cut(self, eager: bool, local: bool, level: Any = None) -> DataFrame:
        from rdd import StorageLevel  # noqa: PLC0415 - the engine's storage levels

        df: Any = self
        attrs = [a.new_instance() for a in df._plan.output()]
        rdd = self._batches_as(attrs, _named_again)
        if local:
            rdd.persist(level or StorageLevel.MEMORY_AND_DISK)
        else:
            rdd.checkpoint()
        if eager:
            rdd.count()
        return df._session._new_dataframe(ArrowRDDRelation(attrs, rdd, "LogicalRDD"))

    def repartitionByRange(self, numPartitions: Any, *cols: Any) -> DataFrame:  # noqa: N802,N803 - PySpark's names
        """``numPartitions`` partitions of rows in key order (ascending unless a column says otherwise)."""
        from .plan.logical import Repartition  # noqa: PLC0415 - kept beside its one use

        df: Any = self
        partitions = numPartitions
        if not isinstance(numPartitions, int):
            cols = (numPartitions, *cols)
            partitions = df._session.conf.shuffle_partitions()
        if not cols:
            raise PySparkTypeError("repartitionByRange needs at least one partition-by column.",
                                   "CANNOT_BE_EMPTY", {"item": "partition-by expression"})
        orders = [o if isinstance(o, SortOrder) else SortOrder(o) for o in (df._resolve(c) for c in cols)]
        return df._new(Repartition(partitions, True, orders, df._plan, by_range=True))

    def hint(self, name: str, *parameters: Any) -> DataFrame:
        """A hint for the planner: ``broadcast`` marks this side of a join as small; others are ignored."""
        if not isinstance(name, str):
            raise PySparkTypeError(f"Argument `name` should be a str, got {type(name).__name__}.", "NOT_STR",
                                   {"arg_name": "name", "arg_type": type(name).__name__})
        df: Any = self
        hinted = df._new(df._plan)
        if name.lower() in _BROADCAST_HINTS:
            hinted._hint_broadcast = True  # what functions.broadcast marks
        return hinted
