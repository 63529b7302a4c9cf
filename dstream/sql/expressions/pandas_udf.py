"""pandas UDFs: Python functions over ``pandas.Series`` (PySpark's ``pandas_udf``).

What this module owns
---------------------
* :class:`PandasUDF`, a scalar pandas UDF call: per batch, each argument column becomes a
  ``pandas.Series`` (a struct column a ``pandas.DataFrame``), the function returns a Series
  (a DataFrame for a struct result) as long as the batch; an iterator UDF receives an
  iterator of those batches and yields results.
* :class:`PandasAggUDF`, a grouped aggregate pandas UDF: each group's values (all of them,
  nulls included) as Series, one scalar result per group; usable in ``groupBy().agg`` and
  ``select`` over a whole DataFrame.

Invariants
----------
* pandas sees what PySpark gives it: timestamps as naive wall times in the session time
  zone, nulls of a numeric column as NaN; a naive timestamp returned is read in that zone.
* A scalar UDF's result must have the batch's length, and a struct result must have the
  struct's fields (by name): otherwise a ``PythonException`` names what came back.
* An exception inside the function is a ``PythonException`` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import PythonException
from ..types import DataType, StructType
from ..udf_profiler import profiled_call
from .aggregate_base import AggregateFunction
from .base import EvalContext, Expression, new_expr_id
from .udf import udf_failure

__all__ = ["PandasAggUDF", "PandasUDF"]


def _frames(arrays: Sequence[pa.Array], time_zone: str) -> list[Any]:
    """Each argument as pandas: a Series, or a DataFrame for a struct column."""
    from ..arrow_convert import to_pandas  # noqa: PLC0415 - light import at run time only

    out = []
    for i, array in enumerate(arrays):
        if pa.types.is_struct(array.type):
            fields = [array.type.field(j).name for j in range(array.type.num_fields)]
            out.append(to_pandas(pa.Table.from_arrays(array.flatten(), names=fields), time_zone))
        else:
            out.append(to_pandas(pa.table({f"_{i}": array}), time_zone)[f"_{i}"])
    return out


def _call(name: str, func: Callable[..., Any], *args: Any) -> Any:
    try:
        return func(*args)
    except Exception as exc:
        raise udf_failure(name, exc) from exc


def to_arrow_result(name: str, result: Any, return_type: DataType, length: int | None, time_zone: str) -> pa.Array:
    """A pandas UDF's Series (or DataFrame, for a struct type) as an Arrow array of ``return_type``."""
    import pandas as pd  # noqa: PLC0415 - only pandas UDFs need it

    from ..arrow_convert import from_pandas, to_arrow_type  # noqa: PLC0415 - light import at run time only

    target = to_arrow_type(return_type)
    if isinstance(return_type, StructType):
        if not isinstance(result, pd.DataFrame):
            raise PythonException(f"The pandas UDF {name} returns a struct: it must return a pandas.DataFrame, "
                                  f"not {type(result).__name__}.", "UDF_RETURN_TYPE", {"function": name})
        schema = pa.schema([pa.field(f.name, f.type) for f in target])
        missing = [f.name for f in target if f.name not in result.columns]
        if missing:
            raise PythonException(f"The pandas UDF {name} returned a DataFrame without the field(s) {missing} of "
                                  f"{return_type.simpleString()}.", "RESULT_COLUMNS_MISMATCH_FOR_PANDAS_UDF",
                                  {"missing": ", ".join(missing)})
        table = from_pandas(result[[f.name for f in target]], schema, time_zone)
        columns = [table.column(f.name).combine_chunks().cast(f.type) for f in target]
        array: pa.Array = pa.StructArray.from_arrays(columns, fields=list(target))
    else:
        if not isinstance(result, pd.Series):
            raise PythonException(f"Return type of the pandas UDF {name} should be pandas.Series, but is "
                                  f"{type(result).__name__}.", "UDF_RETURN_TYPE", {"function": name})
        frame = pd.DataFrame({"_r": result.reset_index(drop=True)})
        array = from_pandas(frame, pa.schema([pa.field("_r", target)]), time_zone).column(0).combine_chunks()
        array = array.cast(target)
    if length is not None and len(array) != length:
        raise PythonException(f"Result vector from pandas_udf {name} was not the required length: expected "
                              f"{length}, got {len(array)}.", "RESULT_LENGTH_MISMATCH_FOR_PANDAS_UDF",
                              {"expected": str(length), "actual": str(len(array))})
    return array


class PandasUDF(Expression):
    """A scalar (or scalar iterator) pandas UDF called on argument columns.

    Parameters
    ----------
    func : callable
        ``func(*series) -> Series``, or with ``iterator``:
        ``func(Iterator[Series | tuple of Series]) -> Iterator[Series]``.
    return_type : DataType
        The declared result type.
    children : sequence of Expression
        The arguments.
    name : str
        The name in the generated column name.
    iterator : bool
        A ``SCALAR_ITER`` UDF.
    """

    def __init__(self, func: Callable[..., Any], return_type: DataType, children: Sequence[Expression], name: str,
                 iterator: bool = False, udf_id: int | None = None) -> None:
        self.func = func
        self.return_type = return_type
        self.children = tuple(children)
        self.name = name
        self.iterator = iterator
        #: The id ``spark.profile`` shows its profile under (kept by copies of the call).
        self.udf_id = new_expr_id() if udf_id is None else udf_id

    @property
    def foldable(self) -> bool:
        return False

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return PandasUDF(self.func, self.return_type, children, self.name, self.iterator, self.udf_id)

    def data_type(self) -> DataType:
        return self.return_type

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"{self.name}({', '.join(c.sql() for c in self.children)})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..execution.arrays import constant  # noqa: PLC0415 - light import at run time only

        n = batch.num_rows
        arrays = []
        for child in self.children:
            value = child.eval(batch, ctx)
            if isinstance(value, pa.ChunkedArray):
                value = value.combine_chunks()
            elif isinstance(value, pa.Scalar):
                value = constant(n, value.as_py(), value.type)
            arrays.append(value)
        series = _frames(arrays, ctx.time_zone)
        func, profiled = profiled_call(ctx.extras, self.udf_id, self.func)
        if self.iterator:
            single = series[0] if len(series) == 1 else tuple(series)
            parts = list(_call(self.name, lambda: list(func(iter([single])))))
            result: Any = parts[0] if len(parts) == 1 else _concat(parts)
        else:
            result = _call(self.name, func, *series)
        profiled()
        return to_arrow_result(self.name, result, self.return_type, n, ctx.time_zone)

    def semantic_key(self) -> Any:
        return ("pandas_udf", id(self.func), self.return_type.simpleString(),
                tuple(c.semantic_key() for c in self.children))


def _concat(parts: list[Any]) -> Any:
    import pandas as pd  # noqa: PLC0415 - only pandas UDFs need it

    return pd.concat(parts, ignore_index=True) if parts else pd.Series([], dtype=object)


class PandasAggUDF(AggregateFunction):
    """A grouped aggregate pandas UDF: ``func(*series) -> scalar`` over each group's values.

    Its one child is the struct of the arguments (built by the caller): each argument's values
    are collected per group (one list buffer per struct field), nulls included, and handed to
    ``func`` as one Series per argument.
    """

    def __init__(self, func: Callable[..., Any], return_type: DataType, child: Expression, name: str,
                 shown: Sequence[str] = ()) -> None:
        super().__init__([child])
        self.func = func
        self.return_type = return_type
        self.name = name
        self.shown = list(shown)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return PandasAggUDF(self.func, self.return_type, children[0], self.name, self.shown)

    def sql(self) -> str:
        args = self.shown or [c.sql() for c in getattr(self.children[0], "children", self.children)]
        return f"{self.name}({', '.join(args)})"

    def _options(self) -> Any:
        return (self.name, id(self.func), self.return_type.simpleString())

    def _arity(self) -> int:
        return len(getattr(self.children[0], "children", ())) or 1

    def partial_aggs(self) -> list[Any]:
        # One list per argument (Arrow cannot collect structs): the struct's fields, in order.
        return [("list", None)] * self._arity()

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        return values.field(j) if pa.types.is_struct(values.type) else values

    def merge_aggs(self) -> list[Any]:
        from .aggregates import LIST_CONCAT  # noqa: PLC0415 - the aggregates import this module's base

        return [(LIST_CONCAT, None)] * self._arity()

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        lists = [b.combine_chunks() if isinstance(b, pa.ChunkedArray) else b for b in buffers]
        results = []
        for i in range(len(lists[0])):
            series = _frames([pc.list_flatten(column.slice(i, 1)) for column in lists], ctx.time_zone)
            results.append(_call(self.name, self.func, *series))
        return _scalars(self.name, results, to_arrow_type(self.return_type))

    def data_type(self) -> DataType:
        return self.return_type

    @property
    def nullable(self) -> bool:
        return True


def _scalars(name: str, values: list[Any], target: pa.DataType) -> pa.Array:
    """Each group's result (numpy scalars included) as one Arrow array of ``target``."""
    plain = [v.item() if hasattr(v, "item") and not isinstance(v, list | dict | str | bytes) else v for v in values]
    plain = [None if isinstance(v, float) and v != v and not pa.types.is_floating(target) else v for v in plain]
    try:
        return pa.array(plain, type=target)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as exc:
        raise PythonException(f"The grouped aggregate pandas UDF {name} returned values that do not fit "
                              f"{target}: {exc}", "UDF_RETURN_TYPE", {"function": name}) from exc
