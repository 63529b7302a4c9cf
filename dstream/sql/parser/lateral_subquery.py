"""``LATERAL (SELECT ...)`` in FROM: a subquery evaluated for each row of the relations before it.

What this module owns
---------------------
:func:`lateral_subquery` builds ``t, LATERAL (SELECT items [FROM r] [WHERE cond]) [AS] s`` and
``t [INNER|CROSS] JOIN LATERAL (...) s [ON cond]`` as Spark's decorrelation does for such a
subquery: ``t`` crossed with ``r`` (one row when there is no FROM), filtered by ``cond``, then
``t``'s columns followed by ``items``. Inside the subquery its own columns come first: a
name the subquery's relation has is that relation's, any other name (``a``, ``t.a``) is the
outer row's. The subquery's columns are renamed while the two are joined, so a name both
sides have is not ambiguous; ``s.col`` and ``s.*`` in the outer query name the subquery's
items.

``LEFT JOIN LATERAL (...) s ON cond`` numbers the outer rows and left-joins the subquery's
rows (with ``cond``) back to them, so an outer row without any keeps one row of nulls.

``ORDER BY``, ``LIMIT`` and ``OFFSET`` apply per outer row (the top rows of each): the rows of
one outer row are ranked with ``row_number`` in ``ORDER BY`` order (input order for ties and
without one) and cut to ``OFFSET + 1 .. OFFSET + LIMIT``.

Aggregates group per outer row (and per the subquery's GROUP BY keys, then HAVING); without
GROUP BY every outer row gets one row, the aggregates of no rows for those without inner
rows (``count`` 0), as Spark's rule for correlated aggregates says. An outer column read
outside WHERE/HAVING next to aggregates is Spark's ``CORRELATED_REFERENCE`` error.

A lateral subquery with DISTINCT, windows, a set operation, or ORDER BY/LIMIT with
aggregates raises ``UNSUPPORTED_FEATURE`` naming the construct.

Invariants
----------
* The result has the outer relation's columns (as they were, qualifiers kept), then the
  subquery's items, one row per pair of outer row and subquery row.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from dstream.sql.errors import AnalysisException
from dstream.sql.parser.nodes import Alias, Expr, LateralSubquery, Literal, Name, Select, Star, SubqueryRef, Table

__all__ = ["lateral_subquery"]

_IDS = itertools.count()


def _unsupported(what: str) -> AnalysisException:
    return AnalysisException(
        f"The feature is not supported: {what} in a LATERAL subquery. A lateral subquery here is a SELECT of "
        "expressions over an optional FROM and WHERE; aggregate in a subquery of its own and join it instead.",
        "UNSUPPORTED_FEATURE", {"feature": f"{what} in a LATERAL subquery"})


def _relation_alias(relation: Any) -> str | None:
    if isinstance(relation, Table):
        return relation.alias or relation.parts[-1]
    if isinstance(relation, SubqueryRef):
        return relation.alias
    return getattr(relation, "alias", None)


def lateral_subquery(builder: Any, node: LateralSubquery) -> Any:
    """The DataFrame of ``node`` (see the module doc); ``builder`` is the SQL builder."""
    _rewrite = builder.rewrite
    query = node.subquery.query
    if node.how not in ("inner", "cross", "left"):
        raise _unsupported(f"{node.how.upper().replace('_', ' ')} JOIN")
    if not isinstance(query, Select):
        raise _unsupported("a set operation or WITH")
    aggregated = bool(query.group_by) or query.having is not None or any(
        builder.contains_aggregate(i) for i in query.items)
    limited = bool(query.order_by) or query.limit is not None or query.offset is not None
    for present, what in ((query.distinct, "DISTINCT"), (aggregated and limited, "ORDER BY or LIMIT with aggregates"),
                          (any(builder.contains_window(i) for i in query.items), "a window function")):
        if present:
            raise _unsupported(what)
    left = builder.relation(node.relation)
    if query.relation is None:
        inner = builder.session.range(0, 1, 1, 1).select()
    else:
        inner = builder.relation(query.relation)
    own = _relation_alias(query.relation)
    tag = next(_IDS)
    hidden = {c.lower(): f"__lateral{tag}_{i}" for i, c in enumerate(inner.columns)}
    original = {c.lower(): c for c in inner.columns}
    renamed = inner.select(*[inner[c].alias(hidden[c.lower()]) for c in inner.columns])

    def inside(sub: Expr) -> Expr | None:  # the subquery's own names first, then the outer row's
        if isinstance(sub, Name):
            parts = sub.parts
            if parts[0].lower() in hidden:
                return Name((hidden[parts[0].lower()], *parts[1:]))
            if len(parts) >= 2 and own is not None and parts[0].lower() == own.lower() and \
                    parts[1].lower() in hidden:
                return Name((hidden[parts[1].lower()], *parts[2:]))
        return None

    outer_alias = _relation_alias(node.relation)

    def shown_outer(sub: Expr) -> Expr | None:  # Spark names an outer column outer(t.a) in a generated name
        if isinstance(sub, Name) and inside(sub) is None:
            written = ".".join(sub.parts if len(sub.parts) > 1 or outer_alias is None else (outer_alias, *sub.parts))
            return Name((f"outer({written})",))
        return None

    items: list[Any] = []
    for item in query.items:
        if isinstance(item, Star) and (not item.qualifier or (own is not None and len(item.qualifier) == 1
                                                              and item.qualifier[0].lower() == own.lower())):
            items += [Alias(Name((h,)), (original[c],)) for c, h in hidden.items()]
        elif isinstance(item, Alias):
            items.append(replace(item, operand=_rewrite(item.operand, inside)))
        else:
            shown = builder.column(_rewrite(item, shown_outer)).expr.sql() if not isinstance(item, Name) \
                else item.parts[-1]
            items.append(Alias(_rewrite(item, inside), (shown,)))
    width = len(left.columns)
    row = f"__lateral{tag}_row"
    if node.how == "left" or limited or aggregated:  # each outer row numbered: to join back, rank or group
        left = left.withColumn(row, builder.fns.monotonically_increasing_id())
    joined = left.crossJoin(renamed)
    if query.where is not None:
        joined = joined.where(builder.column(_rewrite(query.where, inside)))
    if aggregated:
        result = _aggregated(builder, query, left, joined, items, row, tag, inside)
        kept = [result[row]]
    else:
        if limited:
            joined = _first_rows(builder, query, joined, items, row, tag, inside)
        kept = [joined[i] for i in range(width)] + ([joined[row]] if node.how == "left" else [])
        result = joined.select(*kept, *[builder.column(i) for i in items])
    names = tuple(result.columns[len(kept):])
    alias = node.subquery.alias
    if alias is not None:
        builder.lateral_tables[alias.lower()] = names
    condition = None
    if node.condition is not None:
        condition = node.condition
        if alias is not None:
            def strip(sub: Expr) -> Expr | None:
                if isinstance(sub, Name) and len(sub.parts) == 2 and sub.parts[0].lower() == alias.lower():
                    return Name(sub.parts[1:])
                return None
            condition = _rewrite(condition, strip)
    if node.how != "left" and not aggregated:
        return result if condition is None else result.where(builder.column(condition))
    # Joined back to the numbered outer rows; LEFT keeps the rows without any (or failing ON) once, with nulls.
    found = result.select(result[row].alias(f"{row}_of"), *[result[n] for n in names])
    on = left[row] == found[f"{row}_of"]
    if condition is not None:
        on = on & builder.column(condition)
    both = left.join(found, on, "left" if node.how == "left" else "inner")
    return both.select(*[both[i] for i in range(width)], *[found[n] for n in names])


def _aggregated(builder: Any, query: Select, left: Any, joined: Any, items: list[Any], row: str, tag: int,
                inside: Any) -> Any:
    """The subquery's aggregates per outer row (``row``, then the items); without GROUP BY one row for
    each outer row, those without inner rows getting the aggregates of no rows (``count`` 0), as Spark."""
    for item in items:
        outer = _outer_names(builder, item)
        if outer:
            raise AnalysisException(
                "Unsupported subquery expression: Expressions referencing the outer query are not supported outside "
                f"of WHERE/HAVING clauses: {', '.join(outer)}. Move the reference into the subquery's WHERE.",
                "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE", {"sqlExprs": ", ".join(outer)})
    view = f"__lateral{tag}_rows"
    joined.createOrReplaceTempView(view)
    try:
        keys = tuple(builder.rewrite(g, inside) for g in query.group_by)
        having = None if query.having is None else builder.rewrite(query.having, inside)
        grouped = builder.select(Select(items=(Name((row,)), *items), relation=Table((view,)),
                                        group_by=(Name((row,)), *keys), having=having))
        if keys:
            return grouped
        over_none = builder.select(Select(items=tuple(items), relation=Table((view,)), where=Literal(False, "boolean"),
                                          having=having)).collect()
    finally:
        builder.session.catalog.dropTempView(view)
    if not over_none:  # HAVING drops the aggregates of no rows: outer rows without inner rows give none
        return grouped
    fns = builder.fns
    names = grouped.columns[1:]
    hit = f"{row}_hit"
    filled = left.select(row).join(grouped.withColumn(hit, fns.lit(True)), row, "left")
    return filled.select(row, *[fns.when(filled[hit].isNotNull(), filled[n]).otherwise(
        fns.lit(over_none[0][i]).cast(grouped.schema[n].dataType)).alias(n) for i, n in enumerate(names)])


def _outer_names(builder: Any, item: Any) -> list[str]:
    """The outer row's columns an (already renamed) item reads: names not hidden inner columns."""
    found: list[str] = []

    def probe(sub: Expr) -> Expr | None:
        if isinstance(sub, Name) and not sub.parts[0].startswith("__lateral"):
            found.append(".".join(sub.parts))
        return None

    builder.rewrite(item, probe)
    return found


def _first_rows(builder: Any, query: Select, joined: Any, items: list[Any], row: str, tag: int, inside: Any) -> Any:
    """``joined`` cut to each outer row's rows ``OFFSET`` to ``OFFSET + LIMIT`` in ``ORDER BY``
    order (``row_number`` over the outer row's number; ties and no ORDER BY in input order)."""
    from dstream.sql.parser.columns import to_sort  # noqa: PLC0415 - the column builder's sort form
    from dstream.sql.window import Window  # noqa: PLC0415 - only lateral subqueries with LIMIT need it

    fns = builder.fns
    named = {i.names[0].lower(): i for i in items if isinstance(i, Alias) and len(i.names) == 1}
    keys = []
    for j, item in enumerate(query.order_by):
        operand = item.operand
        target = named.get(operand.parts[0].lower()) if isinstance(operand, Name) and len(operand.parts) == 1 \
            else None
        expr = target.operand if target is not None else builder.rewrite(operand, inside)
        name = f"__lateral{tag}_key{j}"
        joined = joined.withColumn(name, builder.column(expr))
        keys.append(to_sort(item, fns, fns.col(name)))
    sequence = f"__lateral{tag}_seq"
    joined = joined.withColumn(sequence, fns.monotonically_increasing_id())
    rank = f"__lateral{tag}_rank"
    joined = joined.withColumn(rank, fns.row_number().over(Window.partitionBy(row).orderBy(*keys, sequence)))
    first = (query.offset or 0) + 1
    joined = joined.where(fns.col(rank) >= first)
    if query.limit is not None:
        joined = joined.where(fns.col(rank) < first + query.limit)
    return joined.orderBy(row, rank)
