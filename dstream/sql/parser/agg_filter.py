"""Aggregates with a ``FILTER (WHERE cond)`` clause, as Columns of the public API.

What this module owns
---------------------
:func:`filtered_aggregate`: ``agg(x) FILTER (WHERE cond)`` aggregates only the rows where
``cond`` is true. The aggregate is built over inputs nulled outside the filter
(``sum(CASE WHEN cond THEN x END)``; ``count(*)`` counts ``CASE WHEN cond THEN 1 END``),
which every aggregate that skips nulls computes exactly. ``first``/``last``/``any_value``
without IGNORE NULLS do not skip nulls, so they become ``min_by``/``max_by`` of the value by
its input position, nulled outside the filter. The result carries Spark's
name, ``sum(x) FILTER (WHERE (cond))``.

Invariants
----------
* Literal arguments after the first (a percentage, a delimiter, an ignore-nulls flag) are
  parameters, not data: they are not filtered.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dstream.sql.errors import AnalysisException
from dstream.sql.parser.nodes import Call, Case, Expr, Literal, Name, Star

__all__ = ["filtered_aggregate"]

#: Aggregates that do not skip null inputs unless asked to (their second argument or IGNORE NULLS).
_NULL_KEEPING = frozenset({"first", "last", "first_value", "last_value", "any_value"})


#: The name the rewrite of ``first``/``last`` binds the input position to (no SQL name can be it).
_POSITION = " input position"


def filtered_aggregate(builder: Any, node: Call, is_aggregate: bool) -> Any:
    """The Column of ``node`` (a call with a ``filter``) over the rows its filter keeps.

    Parameters
    ----------
    builder : columns._Builder
        Builds the Columns of syntax trees (``build``) and calls (``call``).
    node : Call
        The aggregate call; ``node.filter`` is the condition.
    is_aggregate : bool
        Whether ``node.name`` is an aggregate function (only those take FILTER).

    Returns
    -------
    Column
        The aggregate, named as Spark names it.

    Raises
    ------
    AnalysisException
        ``INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX`` for a function that is not an
        aggregate (Spark's error).
    """
    condition = node.filter
    assert condition is not None
    if not (is_aggregate or node.within_group) or node.name in ("grouping", "grouping_id"):
        raise AnalysisException(
            f"Invalid SQL syntax: The function `{node.name}` does not support FILTER CLAUSE; FILTER (WHERE ...) "
            "follows an aggregate function such as count or sum.",
            "INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX",
            {"inputString": f"The function `{node.name}` does not support FILTER CLAUSE."})
    plain = replace(node, filter=None)
    text = f"{builder.call(plain).expr.sql()} FILTER (WHERE {builder.build(condition).expr.sql()})"

    def only_kept(value: Expr) -> Expr:
        return Case(None, ((condition, value),), None)

    if node.within_group:  # percentile_cont(p) WITHIN GROUP (ORDER BY v): v is the data
        rewritten = replace(plain, within_group=tuple(replace(s, operand=only_kept(s.operand))
                                                      for s in node.within_group))
    elif node.args == (Star(),):
        rewritten = replace(plain, args=(only_kept(Literal(1, "int")),))
    elif node.name in _NULL_KEEPING and not _ignores_nulls(node):
        # The value at the kept row of least (greatest) input position: min_by/max_by skip the
        # rows whose position the filter nulled, and keep a null value of a kept row.
        from ..expressions.partition_functions import InputPosition  # noqa: PLC0415 - this rewrite's own

        column_type = type(builder.fns.lit(0))
        builder = type(builder)(builder.fns, {**builder.env, _POSITION: column_type(InputPosition())},
                                builder.subquery)
        position = only_kept(Name((_POSITION,)))
        rewritten = Call("max_by" if node.name.startswith("last") else "min_by", (node.args[0], position))
    else:
        args = tuple(only_kept(a) if i == 0 or not isinstance(a, Literal) else a for i, a in enumerate(node.args))
        rewritten = replace(plain, args=args)
    column = builder.build(rewritten)
    from ..expressions.sql_named import SqlNamed  # noqa: PLC0415 - SQL-only expression

    return type(column)(SqlNamed(column.expr, text))


def _ignores_nulls(node: Call) -> bool:
    """Whether ``first(x, true)`` / ``first(x) IGNORE NULLS`` skips nulls already."""
    flag = node.args[1] if len(node.args) > 1 else None
    return node.ignore_nulls or (isinstance(flag, Literal) and flag.value is True)
