"""The registry of scalar functions: one :class:`FunctionSpec` per Spark function name.

What this module owns
---------------------
:class:`FunctionSpec` (how a function types, coerces, names and evaluates its
arguments) and the registry the generic node :class:`scalar_functions.ScalarFunction`
reads. The string, math and datetime modules register their functions here when
``scalar_functions`` imports them.

Invariants
----------
* A spec's ``run`` receives, per argument, an Arrow array, or the Python value for the
  positions in ``scalar_positions`` (those arguments must be foldable: a literal such as
  a regex pattern or a format string, unless ``per_row_positions`` lists them too).
* Names are unique; registering a name twice is a programming error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..types import DataType
from .base import EvalContext

__all__ = ["FunctionSpec", "lookup", "null_safe", "per_row", "register", "registered_names"]

#: ``run(args, arg_types, result_type, ctx) -> pa.Array``.
Runner = Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]


@dataclass(frozen=True)
class FunctionSpec:
    """How one scalar function behaves.

    Attributes
    ----------
    name : str
        The function's name in generated column names (``lower``, ``SQRT``...).
    min_args, max_args : int
        The accepted number of arguments (``max_args`` -1: any number).
    arg_types : callable
        ``arg_types(types) -> list of DataType or None``: the type each argument is cast
        to (``None`` keeps it); raises ``TypeError`` with a reason when a type is wrong.
    result_type : callable
        ``result_type(types_after_coercion) -> DataType``.
    run : callable
        The evaluation, see :data:`Runner`.
    scalar_positions : tuple of int
        Argument positions passed as Python values (``-1`` means every position from
        the first onward except the first argument).
    per_row_positions : tuple of int
        Of the ``scalar_positions``, those that may also be non-constant (``substring``'s
        position): a Python value when the argument is constant, an Arrow array otherwise.
    null_intolerant : bool
        Whether a null argument gives a null result (nullable iff an argument is).
    foldable : bool
        Whether constant arguments make a constant (``current_timestamp()``: no).
    deterministic : bool
        Whether the same arguments always give the same result (``shuffle``, ``input_file_name``: no):
        a call that is not is never folded, moved or deduplicated, nor taken as an aggregate's argument.
    display : callable or None
        ``display(arg_sqls) -> str``: a generated name other than ``name(a, b)``.
    result_from_values : callable or None
        ``(types, values) -> DataType`` when the result type depends on a constant
        argument's value (``round``'s scale); ``values`` holds the folded scalar positions.
    """

    name: str
    min_args: int
    max_args: int
    arg_types: Callable[[list[DataType]], list[DataType | None]]
    result_type: Callable[[list[DataType]], DataType]
    run: Runner
    scalar_positions: tuple[int, ...] = ()
    per_row_positions: tuple[int, ...] = ()
    null_intolerant: bool = True
    foldable: bool = True
    deterministic: bool = True
    display: Callable[[list[str]], str] | None = None
    result_from_values: Callable[[list[DataType], list[Any]], DataType] | None = None

    def is_scalar_position(self, index: int) -> bool:
        """Whether argument ``index`` is handed to ``run`` as a Python value."""
        return index in self.scalar_positions or (-1 in self.scalar_positions and index > 0)

    def folds(self, index: int, foldable: bool) -> bool:
        """Whether argument ``index`` (constant or not, as ``foldable`` says) goes to ``run`` as a Python value."""
        return self.is_scalar_position(index) and (foldable or index not in self.per_row_positions)


_REGISTRY: dict[str, FunctionSpec] = {}


def register(spec: FunctionSpec, *aliases: str) -> FunctionSpec:
    """Add a function (under its name, lower-cased, and any ``aliases``)."""
    for key in (spec.name.lower(), *aliases):
        if key in _REGISTRY:
            raise ValueError(f"scalar function {key!r} registered twice")
        _REGISTRY[key] = spec
    return spec


def lookup(name: str) -> FunctionSpec:
    """The spec of a function (case-insensitive); ``KeyError`` if unknown."""
    return _REGISTRY[name.lower()]


def registered_names() -> list[str]:
    """Every registered function name, sorted."""
    return sorted(_REGISTRY)


def per_row(fn: Callable[..., Any]) -> Runner:
    """A runner calling ``fn(row values...)`` for each row, as Python values, into the result type.

    Array arguments become lists of values; constant arguments (``scalar_positions``)
    are passed as they are, to every row. For functions defined value by value.
    """
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        length = next(len(a) for a in args if isinstance(a, pa.Array))
        columns = [a.to_pylist() if isinstance(a, pa.Array) else [a] * length for a in args]
        return pa.array([fn(*row) for row in zip(*columns)], to_arrow_type(rt))
    return run


def null_safe(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, giving ``None`` when any of its arguments is ``None``."""
    return lambda *xs: None if any(x is None for x in xs) else fn(*xs)
