"""Subqueries in expressions: ``x [NOT] IN (SELECT ...)``, ``[NOT] EXISTS (SELECT ...)`` and
scalar subqueries, rewritten into the public DataFrame API as Spark's optimizer rewrites them.

What this module owns
---------------------
* A WHERE condition's AND-ed ``IN``/``EXISTS`` subqueries become joins: ``IN`` and
  ``EXISTS`` a left semi join, ``NOT EXISTS`` a left anti join, ``NOT IN`` the null-aware
  anti join (Spark's semantics: an empty subquery keeps every row; otherwise a row is kept
  only when its value is not null, absent from the subquery, and the subquery holds no
  null).
* A correlated subquery (its WHERE compares its own columns with the outer query's, as
  ``u.k = t.k``) is decorrelated as Spark does: those equalities become the join's keys.
  Only equalities joined by AND, in a subquery without aggregation, DISTINCT or LIMIT.
* An IN or EXISTS under OR or NOT (``a IN (SELECT ...) OR b = 2``), or among a SELECT's
  items, GROUP BY keys and aggregate FILTERs, gets an existence join: a left join with the
  subquery's distinct values (or correlation keys) and a marker, so the predicate is a
  boolean column with the two values of Spark's existence join (IN true only on a match;
  NOT IN false where a null compares). A NOT above an IN subquery is first pushed down to
  it (:func:`not_inward`), as Spark's optimizer does.
* A scalar subquery ``(SELECT max(v) FROM u)`` runs when the query is built (Spark runs it
  before the main query too) and becomes a literal of its column's type: no row gives
  null, more than one is ``SCALAR_SUBQUERY_TOO_MANY_ROWS``.
* A correlated scalar subquery ``(SELECT max(v) FROM u WHERE u.k = t.k)`` in a SELECT's
  items or WHERE is rewritten as Spark's optimizer does: the subquery grouped by its side
  of the equalities, left-joined to the outer rows on them. Its item must be an aggregate
  (Spark's rule, so a key gives one value). A row without a match gets the value of the
  aggregate over no rows, computed once (``count`` gives 0 there, not null: Spark's
  "count bug" rule).

Invariants
----------
* Helper columns are named ``__sq...`` and never appear in the result.
* Anything this rewrite cannot express raises ``UNSUPPORTED_FEATURE`` naming the
  construct, never a wrong answer.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from dstream.sql.errors import AnalysisException, SparkRuntimeException
from dstream.sql.parser.lexer import unsupported_in_sql
from dstream.sql.parser.nodes import (
    Alias,
    Binary,
    Exists,
    Expr,
    InSubquery,
    Join,
    LateralView,
    Literal,
    Name,
    Relation,
    Select,
    Subquery,
    SubqueryRef,
    Table,
    TableSample,
    Unary,
)

__all__ = ["SubqueryRewriter", "not_inward"]

_names = itertools.count()
_LOOSE_REFERENCES = "An IN or EXISTS subquery whose outer references are not AND-ed equalities of its WHERE,"


def conjuncts(node: Expr) -> list[Expr]:
    """``a AND b AND c`` as ``[a, b, c]``."""
    if isinstance(node, Binary) and node.op == "AND":
        return conjuncts(node.left) + conjuncts(node.right)
    return [node]


def conjoin(parts: list[Expr]) -> Expr | None:
    result: Expr | None = None
    for part in parts:
        result = part if result is None else Binary("AND", result, part)
    return result


def aliases(relation: Relation | None) -> set[str]:
    """The lower-case names a relation's columns can be qualified with."""
    if relation is None:
        return set()
    if isinstance(relation, Table):
        return {(relation.alias or relation.parts[-1]).lower()}
    if isinstance(relation, SubqueryRef):
        return {relation.alias.lower()} if relation.alias else set()
    if isinstance(relation, Join):
        return aliases(relation.left) | aliases(relation.right)
    if isinstance(relation, LateralView):
        return aliases(relation.relation) | {relation.table.lower()}
    if isinstance(relation, TableSample):  # a sample keeps its relation's names
        return aliases(relation.relation)
    return set()


def _walk(value: Any, stop: Any) -> None:
    """Call ``stop`` on each node of ``value`` (syntax-tree dataclasses and tuples), outermost
    first; the nodes it returns True for are not looked into."""
    if stop(value):
        return
    if isinstance(value, tuple):
        for item in value:
            _walk(item, stop)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            _walk(getattr(value, name), stop)


def _qualifiers(node: Expr) -> set[str]:
    found: set[str] = set()

    def stop(value: Any) -> bool:
        if isinstance(value, Name):
            if len(value.parts) > 1:
                found.add(value.parts[0].lower())
            return True
        return isinstance(value, Subquery | InSubquery | Exists)  # a nested subquery's names are its own

    _walk(node, stop)
    return found


class SubqueryRewriter:
    """Rewrites one SELECT's subqueries through its query builder (``build.QueryBuilder``)."""

    def __init__(self, builder: Any) -> None:
        self.builder = builder
        self.fns = builder.fns
        # The Column of a scalar subquery, or of an IN or EXISTS under OR, by node: a query
        # builds some expressions twice (an aggregation names its items, then computes
        # them); its subquery runs, or is joined, once.
        self._scalars: dict[int, tuple[Subquery | InSubquery | Exists, Any]] = {}

    # -- WHERE ... [NOT] IN / [NOT] EXISTS ------------------------------------------------------
    def filter(self, df: Any, condition: Expr, relation: Relation | None) -> tuple[Any, Expr | None]:
        """``df`` joined for each AND-ed subquery predicate of ``condition``; the rest of the condition."""
        rest: list[Expr] = []
        outer = aliases(relation)
        for part in conjuncts(condition):
            negated = False
            inner = part
            while isinstance(inner, Unary) and inner.op == "NOT" and isinstance(inner.operand, Unary | InSubquery
                                                                                 | Exists):
                negated, inner = not negated, inner.operand
            if isinstance(inner, InSubquery):
                df = self._in(df, inner, negated != inner.negated, outer)
            elif isinstance(inner, Exists):
                df = self._exists(df, inner.query, negated, outer)
            else:
                rest.append(part)
        for predicate in _predicates(rest):  # under OR (or another operator): existence joins
            df = self._existence(df, predicate, outer)
        return df, conjoin(rest)

    def join_predicates(self, df: Any, exprs: list[Expr], relation: Relation | None) -> Any:
        """``df`` left-joined so that each IN or EXISTS of ``exprs`` (a SELECT's items) has its column.

        There Spark's existence join gives two values, not three: IN is true only on a match;
        NOT IN only when no subquery value compares true or null, so a null operand or a null
        in a non-empty subquery makes both false. Columns get Spark's names, ``exists()``,
        ``exists(k)`` (correlated on outer ``k``) and ``(k IN (listquery()))``.
        """
        outer = aliases(relation)
        for node in _predicates(exprs):
            if id(node) not in self._scalars:
                df = self._existence(df, node, outer)
        return df

    def _existence(self, df: Any, node: InSubquery | Exists, outer: set[str]) -> Any:
        """``df`` left-joined so that ``node`` (IN or EXISTS nested in a condition, or a select
        item) has a boolean column, which :meth:`scalar` then answers for it (Spark's existence join)."""
        fns = self.fns
        tag = next(_names)
        marker = f"__sq{tag}_m"
        query, keys = self._split(node.query, outer)
        if isinstance(node, Exists):
            frame, key_columns, _ = self._sub_frame(query, keys, with_value=False)
            if keys:
                found = frame.select(*key_columns).distinct().withColumn(marker, fns.lit(True))
                df = df.join(found, self._condition(keys, key_columns), "left")
            else:
                df = df.join(frame.limit(1).select(fns.lit(True).alias(marker)), fns.lit(True), "left")
            outer_names = ", ".join(o.parts[-1] if isinstance(o, Name) else "outer" for _, o in keys)
            self._scalars[id(node)] = (node, fns.col(marker).isNotNull().alias(f"exists({outer_names})"))
            return df
        if keys:
            raise unsupported_in_sql(
                "A correlated IN subquery under OR or NOT (write it as EXISTS with the equalities)")
        frame, _, value = self._sub_frame(query, keys, with_value=True)
        found = frame.select(value).where(value.isNotNull()).distinct().withColumn(marker, fns.lit(True))
        stats, rows, nulls = self._value_stats(frame, value)
        operand = self.builder.column(node.operand)
        df = df.join(found, operand == value, "left").crossJoin(stats)
        # The three-valued IN: found -> true; an empty subquery -> false; a null operand, or a
        # subquery holding a null -> null; else false.
        result = (fns.when(fns.col(marker).isNotNull(), True).when(rows == 0, False)
                  .when(operand.isNull() | (nulls > 0), fns.lit(None).cast("boolean")).otherwise(False))
        # Spark's existence join gives two values: IN true only on a match; NOT IN (null-aware)
        # false wherever the three-valued answer is null.
        result = (~result) if node.negated else result
        name = f"({operand.expr.sql()} IN (listquery()))"
        result = fns.coalesce(result, fns.lit(False)).alias(f"(NOT {name})" if node.negated else name)
        self._scalars[id(node)] = (node, result)
        return df

    def _split(self, query: Any, outer: set[str]) -> tuple[Any, list[tuple[Expr, Expr]]]:
        """The subquery without its correlated equalities, and those as (inner, outer) key pairs."""
        if not isinstance(query, Select) or query.where is None:
            return query, []
        outside = outer - aliases(query.relation)  # names only the outer query defines
        keys: list[tuple[Expr, Expr]] = []
        kept: list[Expr] = []
        for part in conjuncts(query.where):
            if not _qualifiers(part) & outside:
                kept.append(part)
                continue
            if not (isinstance(part, Binary) and part.op == "="):
                raise unsupported_in_sql("A correlated subquery condition other than AND-ed equalities (inner = outer)")
            left_outer = bool(_qualifiers(part.left) & outside)
            right_outer = bool(_qualifiers(part.right) & outside)
            if left_outer == right_outer:
                raise unsupported_in_sql(
                    "A correlated equality that does not compare a subquery column with an outer one")
            keys.append((part.right, part.left) if left_outer else (part.left, part.right))
        if keys and (query.group_by or query.having is not None or query.distinct or query.limit is not None
                     or query.offset is not None):
            raise unsupported_in_sql("A correlated subquery with GROUP BY, HAVING, DISTINCT, LIMIT or OFFSET")
        return replace(query, where=conjoin(kept)), keys

    def _build(self, query: Any, what: str) -> Any:
        """The DataFrame of a subquery; a column it cannot resolve is taken as the outer query's."""
        try:
            return self.builder.query(query)
        except AnalysisException as exc:
            if exc.getErrorClass() in ("UNRESOLVED_COLUMN.WITH_SUGGESTION", "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION"):
                raise unsupported_in_sql(f"{what} reading a column it does not define (a correlated reference to the "
                                         f"outer query there: {exc})") from exc
            raise

    def _sub_frame(self, query: Any, keys: list[tuple[Expr, Expr]], with_value: bool) -> tuple[Any, list[Any], Any]:
        """The subquery's rows with its key columns (and value column): (frame, key columns, value column)."""
        tag = next(_names)
        fns = self.fns
        if isinstance(query, Select) and keys:
            key_items = tuple(Alias(inner, (f"__sq{tag}_k{i}",)) for i, (inner, _) in enumerate(keys))
            value_items = (Alias(query.items[0], (f"__sq{tag}_v",)),) if with_value else ()
            if with_value and len(query.items) != 1:
                raise _subquery_columns(len(query.items))
            frame = self._build(replace(query, items=value_items + key_items), _LOOSE_REFERENCES)
        else:
            frame = self._build(query, _LOOSE_REFERENCES)
            if with_value:
                if len(frame.columns) != 1:
                    raise _subquery_columns(len(frame.columns))
                frame = frame.select(fns.col(f"`{frame.columns[0]}`").alias(f"__sq{tag}_v"))
        key_columns = [fns.col(f"__sq{tag}_k{i}") for i in range(len(keys))]
        value = fns.col(f"__sq{tag}_v") if with_value else None
        return frame, key_columns, value

    def _condition(self, keys: list[tuple[Expr, Expr]], key_columns: list[Any]) -> Any:
        condition = None
        for (_, outer_expr), column in zip(keys, key_columns):
            eq = self.builder.column(outer_expr) == column
            condition = eq if condition is None else condition & eq
        return condition

    def _exists(self, df: Any, query: Any, negated: bool, outer: set[str]) -> Any:
        query, keys = self._split(query, outer)
        frame, key_columns, _ = self._sub_frame(query, keys, with_value=False)
        if not keys:
            # Uncorrelated: every row or none, by whether the subquery has a row.
            marker = frame.limit(1).select(self.fns.lit(1).alias("__sq_exists"))
            if negated:
                return df.join(marker, self.fns.lit(True), "left_anti")
            return df.join(marker, self.fns.lit(True), "left_semi")
        return df.join(frame, self._condition(keys, key_columns), "left_anti" if negated else "left_semi")

    def _in(self, df: Any, node: InSubquery, negated: bool, outer: set[str]) -> Any:
        query, keys = self._split(node.query, outer)
        if keys and negated:
            raise unsupported_in_sql("A correlated NOT IN subquery (write it as NOT EXISTS with an equality)")
        frame, key_columns, value = self._sub_frame(query, keys, with_value=True)
        operand = self.builder.column(node.operand)
        match = operand == value
        condition = self._condition(keys, key_columns)
        condition = match if condition is None else condition & match
        if not negated:
            return df.join(frame, condition, "left_semi")
        # Null-aware: an empty subquery keeps every row; else the value must be non-null and
        # absent, and the subquery must hold no null.
        stats, rows, nulls = self._value_stats(frame, value)
        kept = df.join(frame, condition, "left_anti").crossJoin(stats)
        keep = (rows == 0) | (operand.isNotNull() & (nulls == 0))
        return kept.where(keep).drop(*stats.columns)

    def _value_stats(self, frame: Any, value: Any) -> tuple[Any, Any, Any]:
        """The one-row frame of a subquery's row count and null values (IN's null rules need
        both), and its two columns."""
        fns, tag = self.fns, next(_names)
        rows, nulls = f"__sq{tag}_n", f"__sq{tag}_nulls"
        stats = frame.agg(fns.count(fns.lit(1)).alias(rows), fns.count_if(value.isNull()).alias(nulls))
        return stats, fns.col(rows), fns.col(nulls)

    # -- scalar subqueries ---------------------------------------------------------------------
    def join_correlated_scalars(self, df: Any, exprs: list[Expr | None], relation: Relation | None) -> Any:
        """``df`` left-joined with the grouped frame of each correlated scalar subquery in ``exprs``;
        :meth:`scalar` then answers those nodes with the joined value column."""
        outer = aliases(relation)
        for node in _scalar_subqueries(exprs):
            if id(node) in self._scalars or not isinstance(node.query, Select):
                continue
            query, keys = self._split(node.query, outer)
            if not keys:
                continue
            if len(query.items) != 1 or not self.builder.contains_aggregate(query.items[0]):
                raise AnalysisException(
                    "Correlated scalar subqueries must be aggregated: the subquery's one item must be an aggregate "
                    "(as max(v) or count(*)), so that each outer row gets one value.",
                    "INVALID_SUBQUERY_EXPRESSION.CORRELATED_SCALAR_SUBQUERY_NOT_AGGREGATED", {})
            tag = next(_names)
            fns = self.fns
            key_items = tuple(Alias(inner, (f"__sq{tag}_k{i}",)) for i, (inner, _) in enumerate(keys))
            grouped = replace(query, items=(Alias(query.items[0], (f"__sq{tag}_v",)), *key_items),
                              group_by=tuple(inner for inner, _ in keys))
            frame = self._build(grouped, "A correlated scalar subquery").withColumn(f"__sq{tag}_m", fns.lit(True))
            key_columns = [fns.col(f"__sq{tag}_k{i}") for i in range(len(keys))]
            df = df.join(frame, self._condition(keys, key_columns), "left")
            # The aggregate over no rows, for outer rows no group matched (0 for a count).
            empty = self._run_scalar(Subquery(replace(query, where=Literal(False, "boolean"))))
            value = fns.when(fns.col(f"__sq{tag}_m").isNull(), empty).otherwise(fns.col(f"__sq{tag}_v"))
            outer_names = ", ".join(o.parts[-1] if isinstance(o, Name) else "outer" for _, o in keys)
            self._scalars[id(node)] = (node, value.alias(f"scalarsubquery({outer_names})"))  # Spark's name
        return df

    def scalar(self, node: Subquery | InSubquery | Exists) -> Any:
        """The Column of a scalar subquery's one value (null when it has no row), or of an IN or
        EXISTS predicate :meth:`filter` joined for."""
        known = self._scalars.get(id(node))
        if known is not None:
            return known[1]
        if not isinstance(node, Subquery):
            raise unsupported_in_sql("IN (subquery) or EXISTS outside WHERE, HAVING, GROUP BY and the select list "
                                     "(in ORDER BY, a join condition or a window)")
        column = self._run_scalar(node)
        self._scalars[id(node)] = (node, column)  # the node is kept beside its Column, so its id stays its own
        return column

    def _run_scalar(self, node: Subquery) -> Any:
        return scalar_subquery(self._build(node.query, "A correlated scalar subquery,"), self.fns)


def scalar_subquery(frame: Any, fns: Any) -> Any:
    """The Column of an uncorrelated scalar subquery: ``frame`` run now, its value a literal of its type.

    ``frame`` must have one column and at most one row (none gives null). Used by SQL's
    ``(SELECT ...)`` and by ``DataFrame.scalar()``.
    """
    if len(frame.columns) != 1:
        raise AnalysisException(
            f"A scalar subquery must return one column, this one returns {len(frame.columns)} "
            f"({', '.join(frame.columns)}).", "INVALID_SUBQUERY_EXPRESSION."
            "SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN", {"number": str(len(frame.columns))})
    rows = frame.limit(2).collect()
    if len(rows) > 1:
        raise SparkRuntimeException(
            "More than one row returned by a subquery used as an expression. Make it return at most one "
            "(an aggregate, a tighter WHERE, or LIMIT 1).", "SCALAR_SUBQUERY_TOO_MANY_ROWS", {})
    dtype = frame.schema.fields[0].dataType
    return fns.lit(rows[0][0] if rows else None).cast(dtype).alias("scalarsubquery()")  # Spark's name


def _subquery_columns(count: int) -> AnalysisException:
    return AnalysisException(
        f"The subquery of IN must return one column, this one returns {count}.",
        "INVALID_SUBQUERY_EXPRESSION.SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN", {"number": str(count)})


def not_inward(node: Expr) -> Expr | None:
    """For ``build._rewrite``: a NOT above an IN subquery pushed down to it, as Spark's optimizer does.

    ``NOT (k IN (SELECT ...))`` is ``k NOT IN (...)`` (null-aware), and a NOT over AND/OR
    goes inward by De Morgan's laws (valid in three-valued logic), so that, with IN's two
    values, ``NOT (k IN (...) OR c)`` answers as Spark does. Other NOTs keep their form (and
    their column names).
    """
    if not (isinstance(node, Unary) and node.op == "NOT"):
        return None
    inner = node.operand
    if not any(isinstance(p, InSubquery) for p in _predicates([inner])):
        return None
    if isinstance(inner, InSubquery):
        return replace(inner, negated=not inner.negated)
    if isinstance(inner, Unary) and inner.op == "NOT":
        return inner.operand
    if isinstance(inner, Binary) and inner.op in ("AND", "OR"):
        return Binary("OR" if inner.op == "AND" else "AND", _negated(inner.left), _negated(inner.right))
    return None


def _negated(node: Expr) -> Expr:
    pushed = Unary("NOT", node)
    return not_inward(pushed) or pushed


def _predicates(exprs: list[Expr]) -> list[InSubquery | Exists]:
    """The IN and EXISTS predicates of ``exprs``, not looking inside any subquery."""
    found: list[InSubquery | Exists] = []

    def stop(value: Any) -> bool:
        if isinstance(value, InSubquery | Exists):
            found.append(value)
            return True
        return isinstance(value, Subquery)

    _walk(tuple(exprs), stop)
    return found


def _scalar_subqueries(exprs: list[Expr | None]) -> list[Subquery]:
    """The scalar subqueries of ``exprs``, outermost first, not looking inside any subquery."""
    found: list[Subquery] = []

    def stop(value: Any) -> bool:
        if isinstance(value, Subquery):
            found.append(value)
        return isinstance(value, Subquery | InSubquery | Exists)

    _walk(tuple(exprs), stop)
    return found
