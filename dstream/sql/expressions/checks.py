"""Analysis errors of expressions: Spark's ``DATATYPE_MISMATCH`` family, and masked evaluation.

What this module owns
---------------------
:func:`mismatch`, the one way an expression node reports inputs of the wrong type
(``[DATATYPE_MISMATCH.<SUB>] Cannot resolve "<expr>" due to data type mismatch: ...``),
and :func:`eval_where` / :func:`merge_by_mask`, which evaluate an expression on some
rows only. Spark evaluates ``CASE``, ``IF``, ``coalesce``, ``AND`` and ``OR`` lazily,
so ``CASE WHEN b = 0 THEN NULL ELSE a / b END`` never divides by zero under ANSI; the
vectorized nodes reproduce that by evaluating a branch only on the rows that reach it.

Invariants
----------
* :func:`eval_where` returns an array of the batch's length, null where the mask is
  false or null; the expression sees only the selected rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import AnalysisException
from .coercion import type_sql

if TYPE_CHECKING:
    from ..types import DataType
    from .base import EvalContext, Expression

__all__ = ["eval_where", "mismatch", "quoted_type", "scatter"]


def quoted_type(dt: DataType) -> str:
    """A type as Spark's messages quote it: ``"INT"``."""
    return f'"{type_sql(dt)}"'


def mismatch(expr: Expression, sub: str, detail: str) -> AnalysisException:
    """The ``DATATYPE_MISMATCH.<sub>`` error of ``expr`` (raise it)."""
    text = expr.sql()
    return AnalysisException(
        f'Cannot resolve "{text}" due to data type mismatch: {detail}.',
        f"DATATYPE_MISMATCH.{sub}",
        {"sqlExpr": f'"{text}"'},
    )


def require_foldable_path(expr: Expression, path: Expression) -> None:
    """Spark's ``NON_FOLDABLE_INPUT`` for a ``path`` argument that is not a constant
    (``variant_get``, the ``xpath`` functions)."""
    if not path.foldable:
        raise mismatch(expr, "NON_FOLDABLE_INPUT", 'the input `path` should be a foldable "STRING" expression; '
                       f'however, got "{path.sql()}"')


def scatter(mask: pa.Array, values: pa.Array, length: int) -> pa.Array:
    """An array of ``length`` with ``values`` at the true positions of ``mask``, null elsewhere."""
    if len(values) == length:
        return values
    positions = pc.subtract(pc.cumulative_sum(pc.cast(mask, pa.int64())), 1)
    indices = pc.if_else(mask, positions, pa.scalar(None, pa.int64()))
    return values.take(indices)


def eval_where(expr: Expression, batch: pa.RecordBatch, ctx: EvalContext, mask: pa.Array) -> pa.Array:
    """``expr`` evaluated on the rows where ``mask`` is true; null on the others.

    Parameters
    ----------
    expr : Expression
        The expression to evaluate.
    batch : pyarrow.RecordBatch
        All rows.
    ctx : EvalContext
        The evaluation settings.
    mask : pyarrow.Array
        Booleans of the batch's length; null counts as false.
    """
    mask = pc.fill_null(mask, False)
    selected = pc.sum(pc.cast(mask, pa.int64())).as_py() or 0
    if selected == batch.num_rows:
        return expr.eval(batch, ctx)
    values = expr.eval(batch.filter(mask), ctx)
    return scatter(mask, values, batch.num_rows)


#: Functions that compare their inputs' values (Spark refuses VARIANT, which has no order).
_COMPARING = frozenset({"array_contains", "array_distinct", "greatest", "least", "array_union", "array_intersect",
                        "array_except", "array_position", "array_remove", "arrays_overlap", "array_max", "array_min",
                        "sort_array", "in"})


def refuse_variant_comparisons(expr: Expression) -> None:
    """Spark's analysis errors for a comparing function over VARIANT values (``INVALID_ORDERING_TYPE``)
    and for a map keyed by VARIANT (``INVALID_MAP_KEY_TYPE``)."""
    from ..types import ArrayType, MapType  # noqa: PLC0415 - light; the types import nothing of this
    from ..variant.casting import contains_variant  # noqa: PLC0415

    if not any(contains_variant(c.data_type()) for c in expr.children if c.resolved):
        return
    text = expr.sql()
    name = text.lstrip("(").split("(", 1)[0].strip().lower()
    if " in " in text.lower() and text.startswith("("):
        name = "in"
    result = expr.data_type()
    if name == "map" and isinstance(result, MapType) and contains_variant(result.keyType):
        raise mismatch(expr, "INVALID_MAP_KEY_TYPE", 'The key of map cannot be/contain "VARIANT"')
    if name not in _COMPARING:
        return
    for child in expr.children:
        dt = child.data_type()
        if contains_variant(dt):
            shown = dt.elementType if isinstance(dt, ArrayType) and name != "sort_array" else dt
            raise mismatch(expr, "INVALID_ORDERING_TYPE",
                           f"The `{name}` does not support ordering on type {quoted_type(shown)}")
