"""Higher-order functions: array functions that take a lambda (``transform``, ``filter``,
``exists``, ``forall``, ``aggregate``, ``zip_with``).

What this module owns
---------------------
:class:`LambdaVariable` (a lambda's parameter), :class:`LambdaFunction` (the body and
its parameters) and the functions that apply one to the elements of arrays. A lambda is
evaluated once over all the elements of a batch's arrays at once: the arrays are
flattened, the columns the body reads from the row are repeated for each element, the
body is evaluated as any expression over that batch, and the results are cut back into
arrays (``aggregate`` folds position by position, over the rows still that long).

Invariants
----------
* A lambda's parameters get their types when the function is resolved, from its
  arrays' element types (``aggregate``'s accumulator: the initial value's type), so the
  body is type-checked as Spark checks it; a function is resolved once its inputs are.
* Nulls as in Spark: a null array gives null; ``filter`` drops elements whose predicate
  is null; ``exists`` is null when no element satisfies the predicate and one gives
  null (three-valued logic), ``forall`` likewise; ``zip_with`` pads the shorter array
  with nulls.
* Parameters are addressed by expression id, never by name, so nested lambdas that
  reuse a name (``x``) do not clash.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import AnalysisException
from ..execution.physical import as_array
from ..types import ArrayType, BooleanType, DataType, IntegerType
from .base import AttributeReference, EvalContext, Expression, LeafExpression, column_key, new_expr_id

__all__ = ["ArrayAggregate", "ArrayExists", "ArrayFilter", "ArrayForAll", "ArrayTransform", "HigherOrderFunction",
           "LambdaFunction", "LambdaVariable", "ZipWith"]


class LambdaVariable(LeafExpression):
    """A lambda's parameter: untyped until its function binds it."""

    def __init__(self, name: str, expr_id: int | None = None, dtype: DataType | None = None,
                 nullable: bool = True) -> None:
        self.name = name
        self.expr_id = new_expr_id() if expr_id is None else expr_id
        self.dtype = dtype
        self._nullable = nullable

    @property
    def resolved(self) -> bool:
        return self.dtype is not None

    def data_type(self) -> DataType:
        if self.dtype is None:
            raise AnalysisException(f"The lambda variable {self.name} is used outside its function.",
                                    "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", {"objectName": self.name})
        return self.dtype

    @property
    def nullable(self) -> bool:
        return self._nullable

    def sql(self) -> str:
        return "namedlambdavariable()"  # Spark names every lambda variable so in generated names

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return batch.column(column_key(self.expr_id))

    def bound(self, dtype: DataType, nullable: bool) -> LambdaVariable:
        return LambdaVariable(self.name, self.expr_id, dtype, nullable)

    def _options(self) -> Any:
        return (self.expr_id,)


class LambdaFunction(Expression):
    """``lambdafunction(body, x, ...)``: children are the body, then the parameters."""

    def __init__(self, body: Expression, variables: Sequence[LambdaVariable]) -> None:
        self.children = (body, *variables)

    @property
    def body(self) -> Expression:
        return self.children[0]

    @property
    def variables(self) -> list[LambdaVariable]:
        return [v for v in self.children[1:] if isinstance(v, LambdaVariable)]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return LambdaFunction(children[0], [c for c in children[1:] if isinstance(c, LambdaVariable)])

    @property
    def foldable(self) -> bool:
        return False

    def data_type(self) -> DataType:
        return self.body.data_type()

    def sql(self) -> str:
        return f"lambdafunction({self.body.sql()}, {', '.join(v.sql() for v in self.variables)})"

    def bind(self, types: Sequence[tuple[DataType, bool]]) -> LambdaFunction:
        """This lambda with typed parameters and its body resolved against them."""
        if len(types) < len(self.variables):
            raise AnalysisException(
                f"The lambda function has {len(self.variables)} arguments, but the higher-order function "
                f"gives it at most {len(types)}.", "INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH",
                {"expectedNumArgs": str(len(types)), "actualNumArgs": str(len(self.variables))})
        typed = {v.expr_id: v.bound(t, n) for v, (t, n) in zip(self.variables, types)}

        def substitute(node: Expression) -> Expression | None:
            return typed.get(node.expr_id) if isinstance(node, LambdaVariable) else None

        body = resolve_types(self.body.transform_up(substitute))
        return LambdaFunction(body, list(typed.values()))


def resolve_types(expr: Expression) -> Expression:
    """``expr`` with implicit casts and type checks applied bottom-up, as the analyzer does."""
    def coerce(node: Expression) -> Expression | None:
        if not node.resolved:
            return None
        coerced = node.coerce()
        coerced.check_input_types()
        return coerced if coerced is not node else None
    return expr.transform_up(coerce)


# -- evaluation over the elements ------------------------------------------------------------


def _lists(value: Any, rows: int) -> pa.Array:
    value = as_array(value, rows)
    if pa.types.is_null(value.type):
        return pa.nulls(rows, pa.list_(pa.null()))
    return value


def _lengths(lists: pa.Array) -> np.ndarray:
    return pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False).astype(np.int64)


def _element_batch(batch: pa.RecordBatch, body: Expression, parents: np.ndarray,
                   variables: dict[int, pa.Array]) -> pa.RecordBatch:
    """One row per element: the row's columns the body reads, repeated, and the lambda's parameters."""
    # Columns of the row, and parameters of enclosing lambdas (a nested lambda reads them too).
    wanted = {column_key(e.expr_id) for e in body.walk() if isinstance(e, AttributeReference | LambdaVariable)}
    index = pa.array(parents, pa.int64())
    names = [n for n in batch.schema.names if n in wanted]
    arrays = [batch.column(n).take(index) for n in names]
    names += [column_key(i) for i in variables]
    arrays += list(variables.values())
    if not arrays:
        return pa.RecordBatch.from_pydict({"__rows": pa.nulls(len(parents), pa.int8())})
    return pa.RecordBatch.from_arrays(arrays, names=names)


def _evaluate(body: Expression, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
    return as_array(body.eval(batch, ctx), batch.num_rows)


def _element_variables(function: LambdaFunction, lists: pa.Array, parents: np.ndarray,
                       counts: np.ndarray) -> dict[int, pa.Array]:
    """The lambda's parameters over the flattened elements: the element, and its position if asked for."""
    variables = {function.variables[0].expr_id: pc.list_flatten(lists)}
    if len(function.variables) > 1:
        starts = np.concatenate([[0], np.cumsum(counts)])[:-1]
        variables[function.variables[1].expr_id] = pa.array(np.arange(len(parents)) - starts[parents], pa.int32())
    return variables


def _rebuild(lists: pa.Array, counts: np.ndarray, values: pa.Array) -> pa.Array:
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]), pa.int32())
    return pa.ListArray.from_arrays(offsets, values, mask=lists.is_null())


class HigherOrderFunction(Expression):
    """An array function with lambda arguments: children are the inputs, then the lambdas."""

    name = "hof"
    n_inputs = 1

    def __init__(self, *children: Expression) -> None:
        self.children = tuple(children)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(*children)

    @property
    def inputs(self) -> list[Expression]:
        return list(self.children[:self.n_inputs])

    @property
    def functions(self) -> list[LambdaFunction]:
        return [c for c in self.children[self.n_inputs:] if isinstance(c, LambdaFunction)]

    @property
    def resolved(self) -> bool:
        # The lambdas are resolved by this function's coerce, once its inputs are.
        return all(c.resolved for c in self.inputs)

    @property
    def foldable(self) -> bool:
        return False

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"{self.name}({', '.join(c.sql() for c in self.children)})"

    def _element(self, i: int) -> tuple[DataType, bool]:
        dtype = self.inputs[i].data_type()
        if not isinstance(dtype, ArrayType):
            raise AnalysisException(
                f'Cannot resolve "{self.sql()}" due to data type mismatch: the {_ordinal(i)} parameter requires '
                f'the "ARRAY" type, however "{self.inputs[i].sql()}" has the type "{dtype.simpleString()}".',
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", {"sqlExpr": self.sql()})
        return dtype.elementType, dtype.containsNull

    def coerce(self) -> Expression:
        if all(c.resolved for c in self.functions):
            return self
        bound = self.bind_lambdas()
        return type(self)(*self.inputs, *bound)

    def bind_lambdas(self) -> list[Expression]:
        """The lambdas with typed parameters (see the subclasses)."""
        raise NotImplementedError

    def require_predicate(self) -> None:
        """Raise ``UNEXPECTED_INPUT_TYPE`` unless the (bound) lambda returns a boolean (``filter``...)."""
        if self.functions and self.functions[0].resolved and not isinstance(self.functions[0].data_type(),
                                                                             BooleanType):
            raise AnalysisException(
                f'Cannot resolve "{self.sql()}" due to data type mismatch: the lambda must return "BOOLEAN", not '
                f'"{self.functions[0].data_type().simpleString()}".', "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                {"sqlExpr": self.sql()})


def _ordinal(i: int) -> str:
    return ("first", "second", "third")[i] if i < 3 else f"#{i + 1}"


class ArrayTransform(HigherOrderFunction):
    """``transform(a, x -> f(x))`` or ``(x, i) -> ...`` (``i`` the 0-based position)."""

    name = "transform"

    def bind_lambdas(self) -> list[Expression]:
        return [self.functions[0].bind([self._element(0), (IntegerType(), False)])]

    def data_type(self) -> DataType:
        function = self.functions[0]
        return ArrayType(function.data_type(), function.body.nullable)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - a leaf import

        function = self.functions[0]
        lists = _lists(self.inputs[0].eval(batch, ctx), batch.num_rows)
        parents = pc.list_parent_indices(lists).to_numpy()
        counts = _lengths(lists)
        variables = _element_variables(function, lists, parents, counts)
        values = _evaluate(function.body, _element_batch(batch, function.body, parents, variables), ctx)
        target = to_arrow_type(function.data_type())
        return _rebuild(lists, counts, values if values.type == target else values.cast(target))


class ArrayFilter(HigherOrderFunction):
    """``filter(a, x -> p(x))`` or ``(x, i) -> ...``: the elements whose predicate is true."""

    name = "filter"

    def bind_lambdas(self) -> list[Expression]:
        return [self.functions[0].bind([self._element(0), (IntegerType(), False)])]

    def check_input_types(self) -> None:
        self.require_predicate()

    def data_type(self) -> DataType:
        return self.inputs[0].data_type()

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        function = self.functions[0]
        lists = _lists(self.inputs[0].eval(batch, ctx), batch.num_rows)
        parents = pc.list_parent_indices(lists).to_numpy()
        counts = _lengths(lists)
        variables = _element_variables(function, lists, parents, counts)
        flat = variables[function.variables[0].expr_id]
        keep = pc.fill_null(_evaluate(function.body, _element_batch(batch, function.body, parents, variables), ctx),
                            False)
        kept = np.bincount(parents[keep.to_numpy(zero_copy_only=False)], minlength=len(lists))
        return _rebuild(lists, kept, flat.filter(keep))


class _Quantified(HigherOrderFunction):
    """``exists`` / ``forall``: whether some / every element satisfies the predicate."""

    every = False

    def bind_lambdas(self) -> list[Expression]:
        return [self.functions[0].bind([self._element(0)])]

    def data_type(self) -> DataType:
        return BooleanType()

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        function = self.functions[0]
        lists = _lists(self.inputs[0].eval(batch, ctx), batch.num_rows)
        parents = pc.list_parent_indices(lists).to_numpy()
        variables = {function.variables[0].expr_id: pc.list_flatten(lists)}
        tested = _evaluate(function.body, _element_batch(batch, function.body, parents, variables), ctx)
        rows = len(lists)
        trues = np.bincount(parents[pc.fill_null(tested, False).to_numpy(zero_copy_only=False)], minlength=rows)
        falses = np.bincount(parents[pc.fill_null(pc.invert(tested), False).to_numpy(zero_copy_only=False)],
                             minlength=rows)
        nulls = np.bincount(parents[tested.is_null().to_numpy(zero_copy_only=False)], minlength=rows)
        decided = falses > 0 if self.every else trues > 0
        value = ~decided if self.every else decided
        unknown = ~decided & (nulls > 0)
        return pa.array(value, pa.bool_(), mask=unknown | lists.is_null().to_numpy(zero_copy_only=False))


class ArrayExists(_Quantified):
    name = "exists"


class ArrayForAll(_Quantified):
    name = "forall"
    every = True


class ArrayAggregate(HigherOrderFunction):
    """``aggregate(a, zero, (acc, x) -> merge[, acc -> finish])``: a left fold of each array."""

    name = "aggregate"
    n_inputs = 2

    def bind_lambdas(self) -> list[Expression]:
        zero = self.inputs[1]
        merge = self.functions[0].bind([(zero.data_type(), True), self._element(0)])
        if merge.data_type() != zero.data_type():
            raise AnalysisException(
                f'Cannot resolve "{self.sql()}" due to data type mismatch: the merge function returns '
                f'"{merge.data_type().simpleString()}", not the initial value\'s type '
                f'"{zero.data_type().simpleString()}". Cast the initial value (for example 0D or '
                "cast(0 as double)).", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", {"sqlExpr": self.sql()})
        bound: list[Expression] = [merge]
        if len(self.functions) > 1:
            bound.append(self.functions[1].bind([(zero.data_type(), True)]))
        return bound

    def data_type(self) -> DataType:
        functions = self.functions
        return functions[1].data_type() if len(functions) > 1 else self.inputs[1].data_type()

    def sql(self) -> str:
        text = super().sql()
        if len(self.functions) > 1:
            return text
        # Spark fills in the identity finish, and names the call with it.
        return text[:-1] + ", lambdafunction(namedlambdavariable(), namedlambdavariable()))"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        rows = batch.num_rows
        merge = self.functions[0]
        lists = _lists(self.inputs[0].eval(batch, ctx), rows)
        acc = _evaluate(self.inputs[1], batch, ctx)
        lengths = _lengths(lists)
        acc_id, x_id = merge.variables[0].expr_id, merge.variables[1].expr_id
        for k in range(int(lengths.max()) if rows else 0):
            active = np.flatnonzero(lengths > k)
            index = pa.array(active, pa.int64())
            elements = pc.list_element(lists.take(index), k)
            step = _element_batch(batch, merge.body, active, {acc_id: acc.take(index), x_id: elements})
            merged = _evaluate(merge.body, step, ctx)
            position = np.zeros(rows, dtype=np.int64)
            position[active] = np.arange(len(active))
            mask = np.zeros(rows, dtype=bool)
            mask[active] = True
            acc = pc.if_else(pa.array(mask), merged.take(pa.array(position, pa.int64())), acc)
        if len(self.functions) > 1:
            finish = self.functions[1]
            acc = _evaluate(finish.body, _element_batch(batch, finish.body, np.arange(rows),
                                                        {finish.variables[0].expr_id: acc}), ctx)
        return pc.if_else(lists.is_null(), pa.nulls(rows, acc.type), acc)


class ZipWith(HigherOrderFunction):
    """``zip_with(a, b, (x, y) -> f)``: ``f`` of the elements at each position, the shorter padded with nulls."""

    name = "zip_with"
    n_inputs = 2

    def bind_lambdas(self) -> list[Expression]:
        return [self.functions[0].bind([self._element(0), self._element(1)])]

    def data_type(self) -> DataType:
        function = self.functions[0]
        return ArrayType(function.data_type(), function.body.nullable)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - a leaf import

        rows = batch.num_rows
        function = self.functions[0]
        left = _lists(self.inputs[0].eval(batch, ctx), rows)
        right = _lists(self.inputs[1].eval(batch, ctx), rows)
        missing = pc.or_(left.is_null(), right.is_null())
        counts = np.where(missing.to_numpy(zero_copy_only=False), 0, np.maximum(_lengths(left), _lengths(right)))
        parents = np.repeat(np.arange(rows), counts)
        position = np.arange(len(parents)) - np.repeat(np.cumsum(counts) - counts, counts)
        variables = {}
        for variable, lists in zip(function.variables, (left, right)):
            lengths, starts = _lengths(lists), np.concatenate([[0], np.cumsum(_lengths(lists))])[:-1]
            inside = position < lengths[parents]
            flat = pc.list_flatten(lists)
            picked = flat.take(pa.array(np.where(inside, starts[parents] + position, 0), pa.int64())) \
                if len(flat) else pa.nulls(len(parents), flat.type)
            variables[variable.expr_id] = pc.if_else(pa.array(inside), picked, pa.nulls(len(parents), flat.type))
        values = _evaluate(function.body, _element_batch(batch, function.body, parents, variables), ctx)
        target = to_arrow_type(function.data_type())
        offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]), pa.int32())
        return pa.ListArray.from_arrays(offsets, values if values.type == target else values.cast(target),
                                        mask=missing)
