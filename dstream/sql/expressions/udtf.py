"""Python user-defined table functions (UDTFs): a class whose ``eval`` yields rows, run as a generator.

What this module owns
---------------------
:class:`PythonUDTF`, the generator node of a UDTF call, and :func:`run_udtf_partition`,
which runs it over one partition's batches the way PySpark's Python worker does: one
instance of the class for the partition (or for each group of rows with the same
``PARTITION BY`` values), ``eval`` once per input row, ``terminate`` at the end.

Invariants
----------
* Arguments reach ``eval`` as ``collect()`` would give them; a ``TABLE(...)`` argument is
  one ``Row`` of the table's columns (without the ``PARTITION BY`` values).
* Each yielded row is a tuple, list or ``Row`` (by position), dict or object with
  attributes (by field name), or ``None`` (nulls); a row of another type or length is
  PySpark's ``UDTF_INVALID_OUTPUT_ROW_TYPE`` / ``UDTF_RETURN_SCHEMA_MISMATCH``, and an
  exception in a method is ``UDTF_EXEC_ERROR``, all raised as a ``PythonException`` as
  PySpark's worker does. Values convert to the declared types by the rules of Python UDFs (a mismatch gives null).
* The rows of ``terminate`` come with the input columns of the last row the instance saw,
  as Spark's lateral join shows them; a partition without input rows is not terminated
  and yields nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa

from ..errors import PythonException
from ..types import DataType, StructType
from .base import EvalContext, Expression
from .generators import Generator
from .udf import convert_result
from .udtf_errors import udtf_failure as _failure

__all__ = ["PythonUDTF", "SkipRestOfInputTableException", "run_udtf_partition"]

class SkipRestOfInputTableException(Exception):  # noqa: N818 - PySpark's name
    """Raised by ``eval`` to skip the rest of its input rows (up to the next ``PARTITION BY``
    group); ``terminate`` still runs (``pyspark.sql.udtf.SkipRestOfInputTableException``)."""


#: One ``eval`` argument: ``None`` for a scalar (one child), or a ``TABLE`` argument's column names (one child each).
ArgLayout = tuple[tuple[str, ...] | None, ...]


class PythonUDTF(Generator):
    """A call of a Python UDTF: ``handler``'s ``eval`` run on each input row.

    Parameters
    ----------
    handler : type
        The UDTF class (``eval``, optional ``__init__``, ``terminate``, ``cleanup``).
    return_type : StructType
        The columns it yields.
    children : sequence of Expression
        The argument values, a table argument's columns each, then the ``PARTITION BY`` keys.
    name : str
        The function's name (in plans and errors).
    layout : tuple, optional
        How the children make ``eval``'s arguments (see ``ArgLayout``); default one per child.
    partition_keys : int
        How many trailing children are ``PARTITION BY`` keys: a new instance starts where they change.
    init_args : tuple
        What ``__init__`` takes besides ``self`` (``analyze``'s result, when it asks for it).
    keywords : tuple of str
        The names of the last arguments, passed to ``eval`` by name (``f(x => 1)``, ``f(x=lit(1))``).
    arrow : bool
        ``useArrow=True``: rows convert by PySpark's Arrow rules (see ``udtf_arrow``).
    """

    def __init__(self, handler: type, return_type: StructType, children: Sequence[Expression], name: str,
                 layout: ArgLayout | None = None, partition_keys: int = 0, init_args: tuple[Any, ...] = (),
                 keywords: tuple[str, ...] = (), arrow: bool = False) -> None:
        self.handler = handler
        self.arrow = arrow
        self.init_args = init_args
        self.keywords = keywords
        self.return_type = return_type
        self.children = tuple(children)
        self.name = name
        self.partition_keys = partition_keys
        self.layout: ArgLayout = layout if layout is not None else (None,) * (len(self.children) - partition_keys)

    @property
    def foldable(self) -> bool:
        return False

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return PythonUDTF(self.handler, self.return_type, children, self.name, self.layout, self.partition_keys,
                          self.init_args, self.keywords, self.arrow)

    def output_fields(self) -> list[tuple[str, DataType, bool]]:
        return [(f.name, f.dataType, f.nullable) for f in self.return_type.fields]

    def data_type(self) -> DataType:
        return self.return_type

    def sql(self) -> str:
        return f"{self.name}({', '.join(c.sql() for c in self.children)})"

    def semantic_key(self) -> Any:
        return ("udtf", id(self.handler), self.return_type.simpleString(), self.layout, self.partition_keys,
                self.keywords, self.arrow, tuple(c.semantic_key() for c in self.children))

    def generate(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[pa.Array, list[pa.Array]]:
        """One batch as a whole partition (the physical ``Generate`` runs partitions through
        :func:`run_udtf_partition` instead, so that ``terminate`` sees the whole partition)."""
        parents: list[int] = []
        rows: list[Any] = []
        for (_, index), produced in _run(self, [batch], ctx):
            parents.extend(index for _ in produced)
            rows.extend(produced)
        return pa.array(parents, pa.int64()), _columns(self, rows)

    def run_partition(self, ctx: EvalContext, keep: list[str], names: list[str],
                      batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        """The physical ``Generate``'s entry: :func:`run_udtf_partition` over one partition."""
        return run_udtf_partition(self, ctx, keep, names, batches)

    def arguments(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[list[Any], list[Any]]:
        """``eval``'s ``(args, kwargs)`` for each row of ``batch``, and each row's ``PARTITION BY`` values."""
        from ..arrow_convert import arrow_to_rows  # noqa: PLC0415 - light import at run time only
        from ..row import _create_row  # noqa: PLC0415 - rows are built at run time only
        from ..timezones import python_time_zone  # noqa: PLC0415 - read at run time

        arrays = [c.eval(batch, ctx) for c in self.children]
        if not arrays:
            return [((), {})] * batch.num_rows, [()] * batch.num_rows
        values = arrow_to_rows(pa.table({f"_{i}": a for i, a in enumerate(arrays)}), python_time_zone())
        args_out: list[Any] = []
        keys: list[Any] = []
        width = len(self.children) - self.partition_keys
        for row in values:
            args: list[Any] = []
            at = 0
            for names in self.layout:
                if names is None:
                    args.append(row[at])
                    at += 1
                else:
                    args.append(_create_row(list(names), list(row[at:at + len(names)])))
                    at += len(names)
            named = len(self.keywords)
            args_out.append((tuple(args[:len(args) - named]), dict(zip(self.keywords, args[len(args) - named:]))))
            keys.append(tuple(row[width:]))
        return args_out, keys


def _call(udtf: PythonUDTF, instance: Any, method: str, args: tuple[Any, ...] = (),
          kwargs: dict[str, Any] | None = None) -> list[Any]:
    """The converted rows one call of ``method`` yields (``SkipRestOfInputTableException`` passes through)."""
    try:
        result = getattr(instance, method)(*args, **(kwargs or {}))
        produced = None if result is None else (list(result) if isinstance(result, Iterable) else result)
    except (PythonException, SkipRestOfInputTableException):
        raise
    except Exception as exc:
        message = f"User defined table function encountered an error in the '{method}' method: {exc}"
        raise _failure(method, message, parameters={"method_name": method, "error": str(exc)}, cause=exc) from exc
    if produced is None:
        return []
    if not isinstance(produced, list):
        kind = type(produced).__name__
        raise _failure(method, f"The return value of the '{method}' method of the UDTF is invalid. It should be an "
                       f"iterable (e.g., generator or list), but got '{kind}'. Please make sure that the UDTF "
                       "returns one of these types.", "UDTF_RETURN_NOT_ITERABLE", {"type": kind, "func": method})
    if udtf.arrow:
        from .udtf_arrow import arrow_rows  # noqa: PLC0415 - pandas loads for Arrow UDTFs only

        return arrow_rows(udtf.return_type, method, produced)
    return [_convert_row(udtf.return_type, method, row) for row in produced]


def _convert_row(schema: StructType, method: str, row: Any) -> tuple[Any, ...]:
    fields = schema.fields
    if row is None:
        return (None,) * len(fields)
    if hasattr(row, "__len__") and len(row) != len(fields):
        raise _failure(method, f"The number of columns in the result does not match the specified schema. Expected "
                       f"column count: {len(fields)}, Actual column count: {len(row)}. Please make sure the values "
                       f"returned by the '{method}' method have the same number of columns as specified in the "
                       "output schema.", "UDTF_RETURN_SCHEMA_MISMATCH",
                       {"expected": str(len(fields)), "actual": str(len(row)), "func": method})
    if isinstance(row, dict):
        values = [row.get(f.name) for f in fields]
    elif isinstance(row, (tuple, list)):  # a Row too: by position, as PySpark's worker reads it
        values = list(row)
    elif hasattr(row, "__dict__"):
        values = [getattr(row, f.name, None) for f in fields]
    else:
        kind = type(row).__name__
        raise _failure(method, f"The type of an individual output row in the '{method}' method of the UDTF is "
                       f"invalid. Each row should be a tuple, list, or dict, but got '{kind}'. Please make sure "
                       "that the output rows are of the correct type.", "UDTF_INVALID_OUTPUT_ROW_TYPE",
                       {"type": kind, "func": method})
    return tuple(convert_result(v, f.dataType) for v, f in zip(values, fields))


def _new_instance(udtf: PythonUDTF) -> Any:
    try:
        return udtf.handler(*udtf.init_args)
    except Exception as exc:
        message = f"User defined table function encountered an error in the '__init__' method: {exc}"
        raise _failure("__init__", message, parameters={"method_name": "__init__", "error": str(exc)},
                       cause=exc) from exc


def _check_signature(udtf: PythonUDTF, instance: Any) -> None:
    try:
        positional = len(udtf.layout) - len(udtf.keywords)
        inspect.signature(instance.eval).bind(*range(positional), **dict.fromkeys(udtf.keywords))
    except TypeError as exc:
        raise _failure("eval", f"Failed to evaluate the user-defined table function '{udtf.name}' because the "
                       f"function arguments did not match the expected signature of the 'eval' method ({exc}). "
                       "Please update the query so that this table function call provides arguments matching the "
                       "expected signature, or else update the table function so that its 'eval' method accepts "
                       "the provided arguments, and then try the query again.",
                       "UDTF_EVAL_METHOD_ARGUMENTS_DO_NOT_MATCH_SIGNATURE",
                       {"name": udtf.name, "reason": str(exc)}) from None


def _finish(udtf: PythonUDTF, instance: Any) -> list[Any]:
    try:
        return _call(udtf, instance, "terminate") if hasattr(instance, "terminate") else []
    finally:
        if hasattr(instance, "cleanup"):
            instance.cleanup()


def _run(udtf: PythonUDTF, batches: Iterable[pa.RecordBatch],
         ctx: EvalContext) -> Iterator[tuple[Any, list[Any]]]:
    """``(parent, rows)`` pairs: ``parent`` is ``(batch, row index)`` of the row the rows belong to."""
    instance = _new_instance(udtf)
    _check_signature(udtf, instance)
    last: Any = None
    key: Any = None
    skipping = False
    for batch in batches:
        args, keys = udtf.arguments(batch, ctx)
        for i, ((row_args, row_kwargs), row_key) in enumerate(zip(args, keys)):
            if udtf.partition_keys and last is not None and row_key != key:
                yield last, _finish(udtf, instance)  # a new PARTITION BY group: a new instance
                instance = _new_instance(udtf)
                skipping = False
            key = row_key
            last = (batch, i)
            if skipping:
                continue
            try:
                yield (batch, i), _call(udtf, instance, "eval", row_args, row_kwargs)
            except SkipRestOfInputTableException:
                skipping = True  # the rows up to the next group are not evaluated; terminate still runs
    if last is not None:
        yield last, _finish(udtf, instance)
    elif hasattr(instance, "cleanup"):  # an empty partition: Spark never terminates it (nor has a row to join)
        instance.cleanup()


def _columns(udtf: PythonUDTF, rows: list[Any]) -> list[pa.Array]:
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    return [pa.array([r[j] for r in rows], to_arrow_type(f.dataType)) for j, f in enumerate(udtf.return_type.fields)]


def run_udtf_partition(udtf: PythonUDTF, ctx: EvalContext, keep: list[str], names: list[str],
                       batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The output batches of one partition: each generated row after the ``keep`` columns of its parent row.

    The rows of ``terminate`` follow their instance's last input row; a partition without
    rows gives none (Spark fails on them, or skips the empty partition).
    """
    pending: list[tuple[Any, list[Any]]] = []
    for parent, rows in _run(udtf, batches, ctx):
        if pending and parent[0] is not pending[-1][0][0]:
            yield from _emit(udtf, keep, names, pending)
            pending = []
        if rows:
            pending.append((parent, rows))
    if pending:
        yield from _emit(udtf, keep, names, pending)


def _emit(udtf: PythonUDTF, keep: list[str], names: list[str],
          pending: list[tuple[Any, list[Any]]]) -> Iterator[pa.RecordBatch]:
    """One batch of the generated rows of ``pending`` (all from one input batch)."""
    rows = [r for _, produced in pending for r in produced]
    columns = _columns(udtf, rows)
    source = pending[0][0][0]
    indices = pa.array([p[1] for p, produced in pending for _ in produced], pa.int64())
    kept = [source.column(k).take(indices) for k in keep]
    yield pa.RecordBatch.from_arrays(kept + columns, names=names)
