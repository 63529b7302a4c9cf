"""The generic scalar-function node: ``lower(a)``, ``regexp_extract(a, (\\d+), 1)``, ``SQRT(a)``...

What this module owns
---------------------
:class:`ScalarFunction`, one node for every function of the registry
(:mod:`function_registry`), and the import of the modules that register them
(strings, math, datetime), so ``ScalarFunction("lower", [...])`` works once this
module is imported.

Invariants
----------
* ``coerce()`` casts each argument to the type its spec asks for (implicitly, so the
  name does not change) and fails with ``DATATYPE_MISMATCH`` when no cast exists or a
  pattern-like argument is not a constant.
* ``eval`` folds the constant arguments once per batch and hands the rest to the spec
  as Arrow arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..types import DataType
from . import (
    aes_functions,
    array_edit_functions,
    array_functions,
    array_set_functions,
    bit_functions,
    bitmap_functions,
    calendar_functions,
    calendar_interval,
    checked_functions,
    datetime_functions,
    elementary_functions,
    epoch_functions,
    extra_functions,
    hash_functions,
    java_format,
    json_functions,
    make_timestamp,
    map_functions,
    math_functions,
    misc_functions,
    number_format,
    regex_functions,
    sentences,
    string_functions,
    text_extra_functions,
    text_functions,
    timestamp_units,
    value_functions,
)
from .base import EvalContext, Expression
from .cast import Cast, can_cast, cast_to
from .castability import implicit_cast_ok
from .checks import mismatch, quoted_type
from .function_registry import FunctionSpec, lookup
from .predicates import fold

__all__ = ["ScalarFunction"]

# The registering modules run on import; keep the names referenced.
_REGISTERED_MODULES = (aes_functions, array_edit_functions, array_functions, array_set_functions, bit_functions,
                       bitmap_functions,
                       calendar_functions, calendar_interval, checked_functions, datetime_functions,
                       elementary_functions,
                       epoch_functions, extra_functions,
                       hash_functions,
                       java_format, json_functions, make_timestamp, map_functions, math_functions, misc_functions,
                       number_format, regex_functions, sentences, string_functions, text_extra_functions,
                       text_functions,
                       timestamp_units, value_functions)


class ScalarFunction(Expression):
    """A call of a registered function on argument expressions.

    Parameters
    ----------
    name : str
        The registered name (``"lower"``, ``"regexp_extract"``...).
    children : sequence of Expression
        The arguments (literals for patterns, formats, positions).
    shown : str, optional
        The generated name when it is not the function's own: the name an SQL call used
        (``ceiling``, Spark's alias names) or a template of the arguments' names
        (``"({0} << {1})"``).
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> ScalarFunction:
        # A call of a non-deterministic function is of the subclass that says so: the
        # optimizer and the analyzer read determinism from an expression's class. (No
        # arguments: an unpickling, which restores the class it was given.)
        if cls is ScalarFunction and args and not lookup(args[0]).deterministic:
            cls = NondeterministicScalarFunction
        return super().__new__(cls)

    def __init__(self, name: str, children: Sequence[Expression], shown: str | None = None) -> None:
        self.name = name
        self.shown = shown
        self.children = tuple(children)
        spec = self.spec
        n = len(self.children)
        if n < spec.min_args or (spec.max_args >= 0 and n > spec.max_args):
            from ..errors import AnalysisException  # noqa: PLC0415 - errors is a leaf module

            raise AnalysisException(
                f"The `{spec.name}` requires {spec.min_args} parameters but the actual number is {n}.",
                "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                {"functionName": f"`{spec.name}`", "actualNum": str(n)})

    @property
    def spec(self) -> FunctionSpec:
        """The function's registry entry."""
        return lookup(self.name)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ScalarFunction(self.name, children, self.shown)

    def shown_as(self, shown: str) -> ScalarFunction:
        """This call named ``shown`` (a name, or a template of the arguments' names)."""
        return ScalarFunction(self.name, self.children, shown)

    @property
    def foldable(self) -> bool:
        return self.spec.foldable and all(c.foldable for c in self.children)

    @property
    def nullable(self) -> bool:
        return not self.spec.null_intolerant or any(c.nullable for c in self.children) or not self.children

    def data_type(self) -> DataType:
        types = [c.data_type() for c in self.children]
        spec = self.spec
        if spec.result_from_values is not None:
            values = [fold(c) if spec.is_scalar_position(i) and c.foldable else None
                      for i, c in enumerate(self.children)]
            return spec.result_from_values(types, values)
        return spec.result_type(types)

    def sql(self) -> str:
        args = [c.sql() for c in self.children]
        if self.shown is not None:
            return self.shown.format(*args) if "{" in self.shown else f"{self.shown}({', '.join(args)})"
        if self.spec.display is not None:
            return self.spec.display(args)
        return f"{self.spec.name}({', '.join(args)})"

    def coerce(self) -> Expression:
        types = [c.data_type() for c in self.children]
        try:
            wanted = self.spec.arg_types(types)
        except TypeError as exc:  # a spec's type rule may name Spark's subclass (DATA_DIFF_TYPES...)
            raise mismatch(self, getattr(exc, "subclass", "UNEXPECTED_INPUT_TYPE"), str(exc)) from None
        children = []
        for i, (child, dt) in enumerate(zip(self.children, wanted)):
            if dt is not None and child.data_type() != dt:
                if not can_cast(child.data_type(), dt) or not implicit_cast_ok(child.data_type(), dt):
                    raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                                   f"the parameter {i + 1} requires the {quoted_type(dt)} type, however "
                                   f'"{child.sql()}" has the type {quoted_type(child.data_type())}')
                child = cast_to(child, dt)
            # A per-row position may be a column: the kernel then takes its array.
            if self.spec.is_scalar_position(i) and not child.foldable and i not in self.spec.per_row_positions:
                raise mismatch(self, "NON_FOLDABLE_INPUT",
                               f'the input of parameter {i + 1} should be a foldable expression; however, got '
                               f'"{child.sql()}"')
            children.append(child)
        if all(n is o for n, o in zip(children, self.children)):
            return self
        return ScalarFunction(self.name, children, self.shown)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        spec = self.spec
        args: list[Any] = []
        for i, child in enumerate(self.children):
            args.append(fold(child, ctx) if spec.folds(i, child.foldable) else child.eval(batch, ctx))
        types = [c.data_type() for c in self.children]
        result = spec.run(args, types, self.data_type(), ctx)
        if isinstance(result, pa.ChunkedArray):
            result = result.combine_chunks()
        if len(result) != batch.num_rows and len(result) == 1:
            result = pa.repeat(result[0], batch.num_rows) if hasattr(pa, "repeat") else result.take(
                pa.array([0] * batch.num_rows))
        return result

    def _options(self) -> Any:
        return (self.name.lower(),)


class NondeterministicScalarFunction(ScalarFunction):
    """A call of a function registered as not deterministic (``shuffle``, ``input_file_name``...)."""

    deterministic = False


def implicit_cast_child(expr: Expression) -> Expression:
    """The expression below any implicit casts (what a user wrote)."""
    while isinstance(expr, Cast) and expr.implicit:
        expr = expr.child
    return expr
