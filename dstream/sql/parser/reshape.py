"""The PIVOT and TABLESAMPLE clauses of FROM, through the public DataFrame API.

What this module owns
---------------------
:func:`pivot` and :func:`table_sample`, the DataFrames of the :class:`~.nodes.Pivot` and
:class:`~.nodes.TableSample` relations:

* ``PIVOT (agg, ... FOR c IN (v [AS name], ...))`` is ``groupBy(others).pivot(c, values)
  .agg(aggs)``, grouped by every column of the relation that neither the aggregates nor
  the pivot column read (Spark's implicit grouping). A value's alias replaces the value in
  its columns' names (``e_s`` for ``'eng' AS e`` and ``sum(v) AS s``).
* ``TABLESAMPLE (n PERCENT)`` is ``sample(False, n / 100, seed)`` (a Bernoulli sample, as
  Spark's), ``TABLESAMPLE (n ROWS)`` is ``limit(n)`` (Spark plans it as a limit too).

Invariants
----------
* Only public calls, as in :mod:`.build`; ``builder`` is its query builder.
"""

from __future__ import annotations

from typing import Any

from dstream.sql.errors import AnalysisException
from dstream.sql.parser.columns import quote_name
from dstream.sql.parser.nodes import Alias, Expr, Literal, Name, Pivot, TableSample

__all__ = ["pivot", "table_sample"]

#: Literal types whose parsed value is already the Python value the column holds.
_PLAIN_TYPES = ("int", "bigint", "smallint", "tinyint", "string", "boolean", "double", "float")


def table_sample(builder: Any, node: TableSample) -> Any:
    """The DataFrame of ``relation TABLESAMPLE (...)``.

    Parameters
    ----------
    builder : build._QueryBuilder
        Builds the sampled relation.
    node : TableSample
        The relation and its sample.

    Returns
    -------
    DataFrame
        About ``percent`` % of the rows, or the first ``rows`` rows.
    """
    df = builder.relation(node.relation)
    if node.rows is not None:
        return df.limit(node.rows)
    assert node.percent is not None  # the parser sets one of the two
    return df.sample(False, node.percent / 100, node.seed)


def pivot(builder: Any, node: Pivot) -> Any:
    """The DataFrame of ``relation PIVOT (aggregates FOR column IN (values))``.

    Parameters
    ----------
    builder : build._QueryBuilder
        Builds the relation and the aggregates' Columns.
    node : Pivot
        The clause.

    Returns
    -------
    DataFrame
        The grouping columns, then one column per value (and aggregate, value-major).

    Raises
    ------
    AnalysisException
        ``NON_LITERAL_PIVOT_VALUES`` when a value is not a literal.
    """
    df = builder.relation(node.relation)
    fns = builder.fns
    values, names = [], []
    for item in node.values:
        value = item.operand if isinstance(item, Alias) else item
        if not isinstance(value, Literal):
            raise AnalysisException(
                f"Literal expressions required for pivot values, found {value!r}; list constants after IN.",
                "NON_LITERAL_PIVOT_VALUES", {"expression": repr(value)})
        values.append(_python_value(builder, value))
        names.append(item.names[0] if isinstance(item, Alias) else None)
    read = {node.column.lower()}
    for aggregate in node.aggregates:
        read |= _names_read(aggregate)
    keys = [fns.col(quote_name(c)) for c in df.columns if c.lower() not in read]
    aggregates = [builder.column(a) for a in node.aggregates]
    result = df.groupBy(*keys).pivot(quote_name(node.column), values).agg(*aggregates)
    if not any(names):
        return result
    # The pivoted columns come value-major, one per aggregate: "value", or "value_aggregate" for several.
    columns = list(result.columns)
    width = len(aggregates)
    aggregate_names = df.agg(*aggregates).columns if width > 1 else []  # analysis only: no job runs
    for v, alias in enumerate(names):
        for j in range(width):
            if alias is not None:
                columns[len(keys) + v * width + j] = alias if width == 1 else f"{alias}_{aggregate_names[j]}"
    return result.toDF(*columns)


def _python_value(builder: Any, value: Literal) -> Any:
    """The value a literal stands for (typed literals, such as DATE '...', evaluated once)."""
    if value.type_name in _PLAIN_TYPES or value.type_name.startswith("decimal") or value.value is None:
        return value.value
    return builder.session.range(1).select(builder.column(value)).first()[0]


def _names_read(node: Expr) -> set[str]:
    """The lower-case column names ``node`` reads (each part of a qualified name, to be safe)."""
    found: set[str] = set()

    def visit(value: Any) -> None:
        if isinstance(value, Name):
            found.update(p.lower() for p in value.parts)
        elif isinstance(value, tuple):
            for item in value:
                visit(item)
        elif hasattr(value, "__dataclass_fields__"):
            for field in value.__dataclass_fields__:
                visit(getattr(value, field))

    visit(node)
    return found
