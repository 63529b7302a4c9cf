"""Grouped map functions: ``groupBy(...).applyInPandas(func, schema)`` and ``applyInArrow``.

What this module owns
---------------------
:func:`apply_in_groups`: the rows are exchanged by the grouping keys (so one partition
holds all of a group's rows); then each task hands every group it holds, whole, to
``func``, as a ``pandas.DataFrame`` (``applyInPandas``) or a ``pyarrow.Table``
(``applyInArrow``) of the DataFrame's columns, and matches what ``func`` returns to
``schema``.

Invariants
----------
* ``func`` takes ``(data)`` or ``(key, data)`` (PySpark decides by its number of
  parameters, as here): ``key`` is the tuple of the group's key values, Python values for
  pandas (as ``pandas`` gives them) and ``pyarrow.Scalar`` s for Arrow.
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

from .errors import PySparkTypeError, PythonException
from .local_data import attributes_of, schema_argument
from .plan.arrow_rdd import ArrowRDDRelation
from .types import StructType

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .expressions.base import Expression

__all__ = ["apply_in_groups"]

_KEY = "__group_key"


def _takes_key(func: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 2


def apply_in_groups(df: DataFrame, keys: list[Expression], func: Callable[..., Any], schema: StructType | str,
                    arrow: bool) -> DataFrame:
    """``df`` grouped by ``keys``, each group through ``func`` (see the module doc)."""
    from . import functions as F  # noqa: N812, PLC0415 - functions imports the DataFrame
    from .arrow_convert import to_arrow_type  # noqa: PLC0415 - the conversions load with the first use
    from .column import Column  # noqa: PLC0415 - column imports the expressions this module's callers use

    what = "applyInArrow" if arrow else "applyInPandas"
    if not callable(func):
        raise PySparkTypeError(f"{what}: argument `func` should be a function, got {type(func).__name__}.",
                               "NOT_CALLABLE", {"arg_name": "func", "arg_type": type(func).__name__})
    struct = schema_argument(schema)
    if not isinstance(struct, StructType):
        raise PySparkTypeError(f"{what}: argument `schema` should be a StructType or a DDL string, got {schema!r}.",
                               "NOT_STRUCT_OR_STR", {"arg_name": "schema", "arg_type": type(schema).__name__})
    names = list(df.columns)
    key_names = [f"{_KEY}{i}" for i in range(len(keys))]
    staged = df.select(*[F.col(f"`{n}`") for n in names],
                       *[Column(k).alias(name) for k, name in zip(keys, key_names)])
    staged = staged.repartition(df._session.conf.shuffle_partitions(), *[F.col(n) for n in key_names])
    target = pa.schema([pa.field(f.name, to_arrow_type(f.dataType)) for f in struct.fields])
    attrs = attributes_of(struct)
    transform = functools.partial(_apply_groups, func, names + key_names, len(names), target, arrow, _takes_key(func))
    rdd = staged._batches_as(attrs, transform)
    name = "FlatMapGroupsInArrow" if arrow else "FlatMapGroupsInPandas"
    return df._session._new_dataframe(ArrowRDDRelation(attrs, rdd, name))


def _apply_groups(func: Callable[..., Any], names: list[str], n_data: int, target: pa.Schema, arrow: bool,
                  takes_key: bool, out_keys: list[str], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    from .dataframe_batches import conform_output  # noqa: PLC0415 - the batch methods' output rules

    parts = [pa.RecordBatch.from_arrays(b.columns, names=names) for b in batches if b.num_rows]
    if not parts:
        return
    table = pa.Table.from_batches(parts)
    data_names, key_names = names[:n_data], names[n_data:]
    groups = table.select(key_names).to_pandas().groupby(key_names, dropna=False, sort=False).indices
    for rows in groups.values():
        group = table.take(pa.array(rows, pa.int64()))
        data = group.select(data_names)
        if arrow:
            key: tuple[Any, ...] = tuple(group.column(k)[0] for k in key_names)
            out = func(key, data) if takes_key else func(data)
            if not isinstance(out, pa.Table):
                raise PythonException(
                    f"the function of applyInArrow returned a {type(out).__name__}, not a pyarrow.Table.",
                    "RESULT_TYPE_MISMATCH_FOR_ARROW_UDF", {})
        else:
            frame = data.to_pandas()
            key = tuple(group.select(key_names).slice(0, 1).to_pandas().iloc[0])
            out = func(key, frame) if takes_key else func(frame)
            out = _pandas_table(out, target)
        if out.num_rows:
            for batch in out.combine_chunks().to_batches():
                yield conform_output(batch, target, out_keys)


def _pandas_table(out: Any, target: pa.Schema) -> pa.Table:
    """What a pandas ``func`` returned, as a table with the schema's names (by label or by position)."""
    import pandas as pd  # noqa: PLC0415 - only pandas functions need it

    if not isinstance(out, pd.DataFrame):
        raise PythonException(
            f"the function of applyInPandas returned a {type(out).__name__}, not a pandas.DataFrame.",
            "RESULT_TYPE_MISMATCH_FOR_ARROW_UDF", {})
    if len(out.columns) and not all(isinstance(c, str) for c in out.columns):
        if len(out.columns) != len(target):
            raise PythonException(
                f"the function of applyInPandas returned {len(out.columns)} columns without names, and the schema "
                f"has {len(target)}: return as many, or name them as the schema's fields.",
                "RESULT_LENGTH_MISMATCH_FOR_GROUPED_MAP_PANDAS_UDF", {})
        out = out.set_axis(target.names, axis=1)
    return pa.Table.from_pandas(out, preserve_index=False)
