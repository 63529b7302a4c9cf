"""Grouped map functions: ``groupBy(...).applyInPandas(func, schema)`` and ``applyInArrow``,
and their cogrouped forms ``groupBy(...).cogroup(other.groupBy(...)).applyInPandas(...)``.

What this module owns
---------------------
:func:`apply_in_groups`: the rows are exchanged by the grouping keys (so one partition
holds all of a group's rows); then each task hands every group it holds, whole, to
``func``, as a ``pandas.DataFrame`` (``applyInPandas``) or a ``pyarrow.Table``
(``applyInArrow``) of the DataFrame's columns, and matches what ``func`` returns to
``schema``.

:class:`PandasCogroupedOps` (:func:`apply_in_cogroups`): both DataFrames are exchanged by
their keys into the same number of partitions with the same partitioner (the right
side's keys cast to the left side's types, so that equal keys land in the same
partition), and partition ``i`` of one is read beside partition ``i`` of the other. Each
key present on either side is one call ``func(left, right)`` (or ``func(key, left,
right)``); a side without the key gives an empty frame of its columns.

Invariants
----------
* ``func`` takes ``(data)`` or ``(key, data)`` (``(left, right)`` or ``(key, left, right)``
  cogrouped; PySpark decides by its number of parameters, as here): ``key`` is the tuple
  of the group's key values, Python values for pandas (as ``pandas`` gives them) and
  ``pyarrow.Scalar`` s for Arrow.
* One call per group with all its rows; groups come in no particular order, and a null key
  is a group of its own.
* The returned columns are matched to ``schema`` by name when their labels are strings,
  else by position (PySpark's rule), and cast to its types; a missing column is an error
  naming it. A group may return no rows.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from .errors import AnalysisException, PySparkTypeError, PythonException
from .local_data import attributes_of, schema_argument
from .plan.arrow_rdd import ArrowRDDRelation
from .types import StructType

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .expressions.base import Expression
    from .group import GroupedData

__all__ = ["PandasCogroupedOps", "apply_in_groups", "pandas_result_table"]

_KEY = "__group_key"


def _takes_key(func: Callable[..., Any], inputs: int = 1) -> bool:
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == inputs + 1


def _checked(what: str, func: Callable[..., Any], schema: StructType | str) -> StructType:
    if not callable(func):
        raise PySparkTypeError(f"{what}: argument `func` should be a function, got {type(func).__name__}.",
                               "NOT_CALLABLE", {"arg_name": "func", "arg_type": type(func).__name__})
    struct = schema_argument(schema)
    if not isinstance(struct, StructType):
        raise PySparkTypeError(f"{what}: argument `schema` should be a StructType or a DDL string, got {schema!r}.",
                               "NOT_STRUCT_OR_STR", {"arg_name": "schema", "arg_type": type(schema).__name__})
    return struct


def _target(struct: StructType) -> pa.Schema:
    from .arrow_convert import to_arrow_type  # noqa: PLC0415 - the conversions load with the first use

    return pa.schema([pa.field(f.name, to_arrow_type(f.dataType)) for f in struct.fields])


def _staged(df: DataFrame, keys: list[Any]) -> DataFrame:
    """``df``'s columns and its keys (as ``__group_key<i>``), exchanged by the keys."""
    from . import functions as F  # noqa: N812, PLC0415 - functions imports the DataFrame

    key_names = [f"{_KEY}{i}" for i in range(len(keys))]
    staged = df.select(*[F.col(f"`{n}`") for n in df.columns], *[k.alias(n) for k, n in zip(keys, key_names)])
    return staged.repartition(df._session.conf.shuffle_partitions(), *[F.col(n) for n in key_names])


def apply_in_groups(df: DataFrame, keys: list[Expression], func: Callable[..., Any], schema: StructType | str,
                    arrow: bool) -> DataFrame:
    """``df`` grouped by ``keys``, each group through ``func`` (see the module doc)."""
    from .column import Column  # noqa: PLC0415 - column imports the expressions this module's callers use

    struct = _checked("applyInArrow" if arrow else "applyInPandas", func, schema)
    names = list(df.columns)
    key_names = [f"{_KEY}{i}" for i in range(len(keys))]
    staged = _staged(df, [Column(k) for k in keys])
    target = _target(struct)
    attrs = attributes_of(struct)
    transform = functools.partial(_apply_groups, func, names + key_names, len(names), target, arrow, _takes_key(func),
                                  df._session.conf.time_zone())
    rdd = staged._batches_as(attrs, transform)
    name = "FlatMapGroupsInArrow" if arrow else "FlatMapGroupsInPandas"
    return df._session._new_dataframe(ArrowRDDRelation(attrs, rdd, name))


def _apply_groups(func: Callable[..., Any], names: list[str], n_data: int, target: pa.Schema, arrow: bool,
                  takes_key: bool, time_zone: str, out_keys: list[str],
                  batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    parts = [pa.RecordBatch.from_arrays(b.columns, names=names) for b in batches if b.num_rows]
    if not parts:
        return
    table = pa.Table.from_batches(parts)
    data_names, key_names = names[:n_data], names[n_data:]
    groups = table.select(key_names).to_pandas().groupby(key_names, dropna=False, sort=False).indices
    for rows in groups.values():
        group = table.take(pa.array(rows, pa.int64()))
        yield from _call(func, arrow, takes_key, group.select(key_names), [group.select(data_names)], target,
                         time_zone, out_keys)


def _call(func: Callable[..., Any], arrow: bool, takes_key: bool, keys: pa.Table, data: list[pa.Table],
          target: pa.Schema, time_zone: str, out_keys: list[str]) -> Iterator[pa.RecordBatch]:
    """One group through ``func``: ``keys`` holds its key values (first row), ``data`` its input tables.

    pandas sees timestamps as PySpark shows them: naive wall times in the session ``time_zone``.
    """
    from .arrow_convert import to_pandas  # noqa: PLC0415 - the conversions load with the first use
    from .dataframe_batches import conform_output  # noqa: PLC0415 - the batch methods' output rules

    if arrow:
        key: tuple[Any, ...] = tuple(column[0] for column in keys.columns)
        out = func(key, *data) if takes_key else func(*data)
        if not isinstance(out, pa.Table):
            raise PythonException(
                f"the function of applyInArrow returned a {type(out).__name__}, not a pyarrow.Table.",
                "RESULT_TYPE_MISMATCH_FOR_ARROW_UDF", {})
    else:
        frames = [to_pandas(table, time_zone) for table in data]
        key = tuple(to_pandas(keys.slice(0, 1), time_zone).iloc[0])
        out = pandas_result_table(func(key, *frames) if takes_key else func(*frames), target, time_zone=time_zone)
    if out.num_rows:
        for batch in out.combine_chunks().to_batches():
            yield conform_output(batch, target, out_keys)


def pandas_result_table(out: Any, target: pa.Schema, what: str = "applyInPandas", time_zone: str = "UTC") -> pa.Table:
    """What a pandas ``func`` returned, as a table with the schema's names (by label or by position);
    naive timestamps are wall times in ``time_zone`` (see ``arrow_convert.from_pandas``)."""
    import pandas as pd  # noqa: PLC0415 - only pandas functions need it

    from .arrow_convert import from_pandas  # noqa: PLC0415 - the conversions load with the first use

    if not isinstance(out, pd.DataFrame):
        raise PythonException(
            f"the function of {what} returned a {type(out).__name__}, not a pandas.DataFrame.",
            "RESULT_TYPE_MISMATCH_FOR_ARROW_UDF", {})
    if len(out.columns) and not all(isinstance(c, str) for c in out.columns):
        if len(out.columns) != len(target):
            raise PythonException(
                f"the function of {what} returned {len(out.columns)} columns without names, and the schema "
                f"has {len(target)}: return as many, or name them as the schema's fields.",
                "RESULT_LENGTH_MISMATCH_FOR_GROUPED_MAP_PANDAS_UDF", {})
        out = out.set_axis(target.names, axis=1)
    return from_pandas(out, target, time_zone)


class PandasCogroupedOps:
    """Two grouped DataFrames, cogrouped by their keys (``pyspark.sql.PandasCogroupedOps``).

    Made by ``df.groupBy(...).cogroup(other.groupBy(...))``; both sides must be grouped by
    as many keys, compared in order.
    """

    def __init__(self, left: GroupedData, right: GroupedData) -> None:
        if type(right) is not type(left):  # (group imports this module: the class is the left side's)
            raise PySparkTypeError(f"cogroup: argument `other` should be a GroupedData, got {type(right).__name__}.",
                                   "NOT_GROUPED_DATA", {"arg_name": "other", "arg_type": type(right).__name__})
        if len(left._keys) != len(right._keys):
            raise AnalysisException(
                f"cogroup: both sides must be grouped by as many keys; the left by {len(left._keys)}, the right "
                f"by {len(right._keys)}.", "COGROUP_KEYS_MISMATCH",
                {"left": str(len(left._keys)), "right": str(len(right._keys))})
        self._left = left
        self._right = right

    def applyInPandas(self, func: Callable[..., Any], schema: StructType | str) -> DataFrame:  # noqa: N802
        """Each key's rows of both sides through ``func`` as two ``pandas.DataFrame`` s; what it returns, as rows.

        Parameters
        ----------
        func : callable
            ``func(left, right) -> pandas.DataFrame`` or ``func(key, left, right)``, ``key``
            the key values as a tuple. A side without rows for the key is an empty frame
            of its columns.
        schema : StructType or str
            The returned rows' schema; the returned columns are matched to it by name (by
            position when they are not named).

        Examples
        --------
        >>> import pandas as pd
        >>> left = spark.createDataFrame([(1, 1.0), (2, 2.0)], "id long, v double")
        >>> right = spark.createDataFrame([(1, "x")], "id long, s string")
        >>> def sizes(key, l, r):
        ...     return pd.DataFrame({"id": [key[0]], "n": [len(l)], "m": [len(r)]})
        >>> cogrouped = left.groupBy("id").cogroup(right.groupBy("id"))
        >>> cogrouped.applyInPandas(sizes, "id long, n long, m long").orderBy("id").collect()
        [Row(id=1, n=1, m=1), Row(id=2, n=1, m=0)]
        """
        return apply_in_cogroups(self._left, self._right, func, schema, arrow=False)

    def applyInArrow(self, func: Callable[..., Any], schema: StructType | str) -> DataFrame:  # noqa: N802
        """As :meth:`applyInPandas`, with ``pyarrow.Table`` s (``key`` a tuple of ``pyarrow.Scalar`` s)."""
        return apply_in_cogroups(self._left, self._right, func, schema, arrow=True)


def apply_in_cogroups(left: GroupedData, right: GroupedData, func: Callable[..., Any], schema: StructType | str,
                      arrow: bool) -> DataFrame:
    """The cogroup of ``left`` and ``right``, each key through ``func`` (see the module doc)."""
    from .column import Column  # noqa: PLC0415 - column imports the expressions this module's callers use
    from .expressions.base import column_key  # noqa: PLC0415 - the expressions load with their first use

    struct = _checked("applyInArrow" if arrow else "applyInPandas", func, schema)
    left_keys = [Column(k) for k in left._keys]
    left_types = [f.dataType for f in left._df.select(*left_keys).schema.fields]
    right_types = [f.dataType for f in right._df.select(*[Column(k) for k in right._keys]).schema.fields]
    # Equal keys must hash alike on both sides: the right keys take the left keys' types.
    right_keys = [Column(k) if t == lt else Column(k).cast(lt)
                  for k, t, lt in zip(right._keys, right_types, left_types)]
    sides = [_staged(left._df, left_keys), _staged(right._df, right_keys)]
    schemas = [_target(side.schema) for side in sides]
    target = _target(struct)
    attrs = attributes_of(struct)
    transform = functools.partial(_apply_cogroups, func, schemas, len(left_keys), target, arrow,
                                  _takes_key(func, 2), left._df._session.conf.time_zone(),
                                  [column_key(a.expr_id) for a in attrs])
    rdds = [side._execution().to_rdd() for side in sides]
    rdd = rdds[0].zipPartitions(rdds[1], f=transform)
    name = "FlatMapCoGroupsInArrow" if arrow else "FlatMapCoGroupsInPandas"
    return left._df._session._new_dataframe(ArrowRDDRelation(attrs, rdd, name))


def _side(batches: Iterator[pa.RecordBatch], schema: pa.Schema) -> pa.Table:
    parts = [pa.RecordBatch.from_arrays(b.columns, schema=schema) for b in batches if b.num_rows]
    return pa.Table.from_batches(parts, schema).combine_chunks()


def _apply_cogroups(func: Callable[..., Any], schemas: list[pa.Schema], n_keys: int, target: pa.Schema, arrow: bool,
                    takes_key: bool, time_zone: str, out_keys: list[str], left_batches: Iterator[pa.RecordBatch],
                    right_batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    left, right = _side(left_batches, schemas[0]), _side(right_batches, schemas[1])
    if not left.num_rows and not right.num_rows:
        return
    split = left.num_rows
    key_names = schemas[0].names[-n_keys:]
    keys = pa.concat_tables([left.select(key_names), right.select(key_names)])
    data = [side.select(side.schema.names[:-n_keys]) for side in (left, right)]
    groups = keys.to_pandas().groupby(key_names, dropna=False, sort=False).indices
    for rows in groups.values():
        taken = [data[0].take(pa.array(rows[rows < split], pa.int64())),
                 data[1].take(pa.array(rows[rows >= split] - split, pa.int64()))]
        yield from _call(func, arrow, takes_key, keys.take(pa.array(rows[:1], pa.int64())), taken, target,
                         time_zone, out_keys)
