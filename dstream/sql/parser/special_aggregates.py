"""Aggregates SQL spells beyond a plain call: ``f(DISTINCT ...)`` and ``f(...) WITHIN GROUP (ORDER BY k)``.

What this module owns
---------------------
:func:`distinct_aggregate`: ``count``/``sum``/``avg`` (``mean``) of distinct values, and the
aggregates DISTINCT does not change (``min``, ``max``, ``collect_set``...); others raise
``UNSUPPORTED_FEATURE``. :func:`within_group`: ``percentile_cont``, ``percentile_disc``,
``mode``, ``listagg`` and ``string_agg`` over an ordering. Both take the expression builder
of :mod:`.columns` (its functions module and its ``build``).

Invariants
----------
* Where PySpark has a function (``count_distinct``, ``sum_distinct``) it is called; the
  SQL-only forms build their aggregate expression directly, named as Spark names them.
"""

from __future__ import annotations

from typing import Any

from dstream.sql.errors import AnalysisException
from dstream.sql.parser.lexer import unsupported_in_sql
from dstream.sql.parser.nodes import Call, Literal

__all__ = ["distinct_aggregate", "within_group"]


def within_group(builder: Any, node: Call) -> Any:
    """``percentile_cont(p)``, ``percentile_disc(p)``, ``mode()``, ``listagg(v[, d])`` and ``string_agg``
    ``WITHIN GROUP (ORDER BY k [DESC])``."""
    from ..expressions.numeric_aggregates import OrderedListAgg  # noqa: PLC0415 - SQL-only aggregates
    from ..expressions.statistical_aggregates import Mode, Percentile  # noqa: PLC0415

    name, args, order = node.name, node.args, node.within_group
    if len(order) != 1 or node.distinct or name not in (
            "percentile_cont", "percentile_disc", "mode", "listagg", "string_agg"):
        raise AnalysisException(
            f"{name}(...) WITHIN GROUP (ORDER BY ...) is not supported: WITHIN GROUP takes one ordering, for "
            "percentile_cont, percentile_disc, mode, listagg and string_agg (without DISTINCT).",
            "UNSUPPORTED_FEATURE", {"feature": "WITHIN GROUP"})
    column = builder.build(order[0].operand)
    descending = not order[0].ascending
    if name in ("listagg", "string_agg"):
        if not 1 <= len(args) <= 2:
            raise AnalysisException(f"{name} takes a value and an optional delimiter.", "WRONG_NUM_ARGS",
                                    {"functionName": name})
        value = builder.build(args[0])
        delimiter = builder.build(args[1]).expr if len(args) == 2 else builder.fns.lit(None).expr
        return type(column)(OrderedListAgg(value.expr, delimiter, column.expr, descending, name))
    if name == "mode":
        if args:
            raise AnalysisException("mode() takes no argument with WITHIN GROUP: the values are its ORDER BY.",
                                    "WRONG_NUM_ARGS", {"functionName": "mode"})
        mode = Mode(column.expr)
        mode.within_group = True
        mode.descending = descending
        return type(column)(mode)
    literals = args[0].args if len(args) == 1 and isinstance(args[0], Call) and args[0].name == "array" else args
    if len(args) != 1 or not literals or not all(isinstance(a, Literal) for a in literals):
        raise AnalysisException(f"{name} takes one literal percentage (or an array of them), as "
                                f"{name}(0.5) WITHIN GROUP (ORDER BY v).", "WRONG_NUM_ARGS", {"functionName": name})
    values = [float(a.value) for a in literals]  # type: ignore[union-attr, arg-type]
    percentage = values if isinstance(args[0], Call) else values[0]
    return type(column)(Percentile(column.expr, percentage, name, discrete=name == "percentile_disc",
                                   descending=descending))


def distinct_aggregate(builder: Any, node: Call) -> Any:
    cols = [builder.build(a) for a in node.args]
    if node.name == "count":
        return builder.fns.count_distinct(*cols)  # PySpark's function, not a SQL name
    if node.name == "sum" and len(cols) == 1:
        return builder.fns.sum_distinct(*cols)
    if node.name in ("avg", "mean") and len(cols) == 1:
        from ..expressions.aggregates import Avg  # noqa: PLC0415 - SQL-only: PySpark has no avg_distinct

        average = Avg(cols[0].expr, distinct=True)
        average.name = node.name  # named as called: mean(DISTINCT x)
        return type(cols[0])(average)
    if node.name in ("min", "max", "collect_set", "approx_count_distinct", "bool_and", "bool_or", "every",
                     "some", "any"):
        return builder.function(node.name)(*cols)  # DISTINCT does not change these results
    raise unsupported_in_sql(f"{node.name}(DISTINCT ...)")
