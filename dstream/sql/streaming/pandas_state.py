"""``groupBy(...).applyInPandasWithState``: PySpark's stateful function over pandas frames.

What this module owns
---------------------
:class:`PandasStateFunction`, which presents the user's
``func(key, Iterator[pandas.DataFrame], state) -> Iterator[pandas.DataFrame]`` as the
rows-in, rows-out function that :func:`.groups_with_state.groups_with_state` runs, and
:func:`apply_in_pandas_with_state`, the argument checks and plan of the method. Its
rules are ``flatMapGroupsWithState`` 's (state, timeouts, watermark, output modes and the
unsupported-operation checks): only the frames differ.

Invariants
----------
* A call for a key with rows gets an iterator of one frame holding every row of the key in
  this batch, with the grouped DataFrame's columns and Arrow's pandas types; a call for a
  timed-out key gets an empty iterator (as PySpark).
* ``func`` must return an iterable of ``pandas.DataFrame`` s (each matched to the output
  schema by column name, or by position when the columns are not named); it is consumed
  whole before the state is saved.
* Timestamps in the frames are naive wall times in the session time zone (PySpark's
  pandas conversion), and a naive timestamp returned is read in that zone. The rows this
  function is called with already hold those wall times (naive ``datetime`` s), so it
  converts them through UTC, which has no daylight-saving gaps: the wall times pass
  unchanged whatever the zone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ..arrow_convert import arrow_to_rows, rows_to_arrow, to_arrow_type, to_pandas
from ..errors import PySparkTypeError, PySparkValueError
from ..types import StructType
from .groups_with_state import groups_with_state, parse_struct

if TYPE_CHECKING:
    from ..dataframe import DataFrame
    from ..expressions.base import Expression
    from ..row import Row
    from .group_state import GroupState

__all__ = ["PandasStateFunction", "apply_in_pandas_with_state"]

OPERATION = "applyInPandasWithState"
#: The zone naive wall times pass through unchanged (see the module doc).
_WALL_TIMES = "UTC"


class PandasStateFunction:
    """``func`` over pandas frames, called as a ``flatMapGroupsWithState`` function over rows.

    Parameters
    ----------
    func : callable
        ``func(key, frames, state)``, returning an iterable of ``pandas.DataFrame``.
    data_schema, output_schema : StructType
        The grouped DataFrame's schema, and the schema of the rows ``func`` returns.
    """

    operation = OPERATION

    def __init__(self, func: Callable[..., Any], data_schema: StructType, output_schema: StructType) -> None:
        self.func = func
        self.data_schema = data_schema
        self.output_schema = output_schema
        self.__name__ = getattr(func, "__name__", type(func).__name__)

    def __call__(self, key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> list[Row]:
        from ..group_pandas import pandas_result_table  # noqa: PLC0415 - pandas code loads with its first use

        batch = list(rows)
        table = rows_to_arrow(batch, self.data_schema, _WALL_TIMES) if batch else None
        frames = iter([] if table is None else [to_pandas(table, _WALL_TIMES)])
        result = self.func(key, frames, state)
        if result is None or isinstance(result, str | bytes) or hasattr(result, "columns") \
                or not isinstance(result, Iterable):
            raise PySparkTypeError(
                f"The function of {OPERATION} returned {type(result).__name__} for the key {key!r}: it must return "
                "an iterator of pandas.DataFrame (yield each frame, or return iter([frame])).",
                "INVALID_RETURN_TYPE", {"key": repr(key), "type": type(result).__name__})
        target = pa.schema([pa.field(f.name, to_arrow_type(f.dataType)) for f in self.output_schema.fields])
        out: list[Row] = []
        for frame in result:
            table = pandas_result_table(frame, target, OPERATION, _WALL_TIMES)
            missing = [name for name in target.names if name not in table.column_names]
            if missing:
                raise PySparkValueError(
                    f"The function of {OPERATION} returned a frame without the column(s) {missing} of the output "
                    f"schema (it has {table.column_names}): return every field of "
                    f"{self.output_schema.simpleString()}.", "RESULT_COLUMNS_MISMATCH_FOR_PANDAS_UDF",
                    {"missing": ", ".join(missing)})
            columns = [table.column(f.name).cast(f.type) for f in target]
            out.extend(arrow_to_rows(pa.Table.from_arrays(columns, schema=target), _WALL_TIMES))
        return out


def apply_in_pandas_with_state(df: DataFrame, keys: list[Expression], func: Any, output_struct: Any,
                               state_struct: Any, output_mode: Any, timeout_conf: Any) -> DataFrame:
    """The DataFrame of ``df.groupBy(*keys).applyInPandasWithState(...)`` (see the module doc)."""
    if not callable(func):
        raise PySparkTypeError(f"Argument `func` of {OPERATION} should be a function (key, frames, state) -> frames, "
                               f"got {type(func).__name__}.", "NOT_CALLABLE",
                               {"arg_name": "func", "arg_type": type(func).__name__})
    mode = output_mode.strip().lower() if isinstance(output_mode, str) else None
    if mode not in ("append", "update"):
        raise PySparkValueError(f"outputMode of {OPERATION} must be 'append' or 'update', got {output_mode!r}.",
                                "INVALID_OUTPUT_MODE", {"outputMode": repr(output_mode)})
    output_schema = parse_struct(output_struct, "outputStructType")
    adapted = PandasStateFunction(func, df.schema, output_schema)
    return groups_with_state(df, keys, adapted, output_schema, state_struct, mode, timeout_conf, is_map=False)
