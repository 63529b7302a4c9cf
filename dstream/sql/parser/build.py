"""Query syntax trees to DataFrames, through the public DataFrame API only.

What this module owns
---------------------
:func:`run_query` (what ``spark.sql`` runs) and :func:`parse_expression` (what ``F.expr``,
``selectExpr`` and string filters run). A SELECT block becomes, in Spark's order of
evaluation::

    session.table(t).alias(t) [.join(...)] [.where(cond)]
        then, without aggregates:  [.orderBy(sorts)] .select(items) [.distinct()] [.limit(n)]
        with GROUP BY/aggregates:  .groupBy(keys).agg(items as hidden names, hidden aggregates)
                                   [.where(having)] [.orderBy(sorts)]
                                   .select(items renamed back) [.distinct()] [.limit(n)]

Invariants
----------
* Only public calls: ``session.table``, ``session.range``, ``DataFrame.alias/join/crossJoin/
  where/groupBy/agg/select/distinct/orderBy/limit/union/columns`` and the Columns of
  :mod:`.columns`. The functions module is passed in, never imported.
* Output column names are Spark's: the aggregated path reads the names ``agg`` gives the
  items (``.columns``, analysis only) and renames the hidden columns back to them.
* HAVING and ORDER BY of an aggregation may use select aliases, GROUP BY expressions and
  aggregates that are not selected (computed as hidden columns); GROUP BY and ORDER BY
  accept 1-based ordinals and select aliases, as Spark's defaults allow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace
from types import ModuleType
from typing import Any, get_args

from dstream.sql.errors import AnalysisException, ParseException
from dstream.sql.parser.columns import AGGREGATES, quote_name, to_column, to_sort
from dstream.sql.parser.expression import parse_expression_ast
from dstream.sql.parser.inline_tables import inline_table
from dstream.sql.parser.lateral_subquery import lateral_subquery
from dstream.sql.parser.nodes import (
    ALL_OUTPUT_COLUMNS,
    Alias,
    Call,
    Expr,
    InlineTable,
    Join,
    Lambda,
    LateralFunction,
    LateralSubquery,
    LateralView,
    Literal,
    Name,
    Over,
    Pivot,
    Query,
    Relation,
    Select,
    SetOp,
    SortItem,
    Star,
    SubqueryRef,
    Table,
    TableFunction,
    TableSample,
    With,
)
from dstream.sql.parser.query import parse_query
from dstream.sql.parser.reshape import pivot, table_sample
from dstream.sql.parser.subqueries import SubqueryRewriter, not_inward
from dstream.sql.parser.table_functions import lateral_function, table_function

__all__ = ["parse_expression", "run_query", "to_column", "build_query"]

#: The generators a FROM clause may call as table-valued functions (Spark's).
_GENERATORS = frozenset({"explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer",
                         "stack", "json_tuple"})

_EXPR_TYPES = get_args(Expr)


def parse_expression(text: str, functions: ModuleType) -> Any:
    """The Column of an SQL expression string (``F.expr``'s implementation).

    Parameters
    ----------
    text : str
        One expression, optionally named: ``"a + 1"``, ``"count(*) AS n"``, ``"x y"``.
    functions : module
        ``dstream.sql.functions``.

    Returns
    -------
    Column
        Built from the public API only.

    Raises
    ------
    ParseException
        When ``text`` is not one well-formed expression.
    """
    return to_column(parse_expression_ast(text), functions)


def run_query(session: Any, text: str, functions: ModuleType) -> Any:
    """The DataFrame of a query of the supported SELECT subset (``spark.sql``'s implementation).

    Parameters
    ----------
    session : SparkSession
        Whose temporary views the query's tables name.
    text : str
        The query.
    functions : module
        ``dstream.sql.functions``.

    Returns
    -------
    DataFrame
        Lazy, as every DataFrame: analysis errors surface here, runtime errors at an action.
    """
    return build_query(session, parse_query(text), functions)


def build_query(session: Any, query: Query, functions: ModuleType) -> Any:
    """The DataFrame of a parsed query (see :func:`run_query`)."""
    return _QueryBuilder(session, functions).query(query)


def _rewrite(node: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
    """``node`` with every subtree ``fn`` maps replaced (outermost first; lambdas untouched)."""
    mapped = fn(node)
    if mapped is not None:
        return mapped
    if isinstance(node, Lambda):
        return node

    def visit(value: Any) -> Any:
        if isinstance(value, _EXPR_TYPES):
            return _rewrite(value, fn)
        if isinstance(value, tuple):
            return tuple(visit(v) for v in value)
        return value

    changes = {f.name: visit(getattr(node, f.name)) for f in fields(node)}
    return replace(node, **changes)


def _is_aggregate(node: Expr) -> bool:
    return isinstance(node, Call) and node.name in AGGREGATES


def _grouping_analytics(group_by: tuple[Expr, ...]) -> tuple[tuple[Expr, ...], str | None, list[list[int]]]:
    """``GROUP BY ROLLUP(a, b)`` / ``CUBE(a, b)`` / ``GROUPING SETS (...)`` as its keys, the kind
    (``"rollup"``, ``"cube"``, ``"groupingSets"``, or None for plain keys) and, for grouping sets,
    each set as positions among the keys."""
    analytics = [g for g in group_by if isinstance(g, Call) and g.name in ("rollup", "cube", "grouping_sets")]
    if not analytics:
        return group_by, None, []
    first = analytics[0]
    assert isinstance(first, Call)
    if len(group_by) > 1:
        raise ParseException(
            "Only one ROLLUP(...), CUBE(...) or GROUPING SETS (...) as the whole GROUP BY is supported (not "
            "mixed with other keys); list every key in it.", "UNSUPPORTED_FEATURE",
            {"feature": "GROUP BY " + first.name.upper()})
    if first.name != "grouping_sets":
        return first.args, first.name, []
    keys: list[Expr] = []
    sets: list[list[int]] = []
    for member in first.args:
        assert isinstance(member, Call)
        if member.name == "__keys":  # GROUP BY a, b GROUPING SETS (...): these keys first, in order
            keys.extend(k for k in member.args if k not in keys)
            continue
        positions = []
        for expr in member.args:
            if expr not in keys:
                keys.append(expr)
            positions.append(keys.index(expr))
        sets.append(positions)
    return tuple(keys), "groupingSets", sets


def _named_windows(node: Select) -> Select:
    """``node`` with each ``OVER w`` given the specification of ``WINDOW w AS (...)``."""
    defined = {name.lower(): spec for name, spec in node.windows}

    def place(sub: Expr) -> Expr | None:
        if not isinstance(sub, Over) or sub.window is None:
            return None
        spec = defined.get(sub.window.lower())
        if spec is None:
            raise AnalysisException(
                f"Window specification {sub.window} is not defined in the WINDOW clause; define it there "
                f"(WINDOW {sub.window} AS (PARTITION BY ... ORDER BY ...)) or write it in place.",
                "MISSING_WINDOW_SPECIFICATION", {"windowName": sub.window})
        return replace(spec, call=_rewrite(sub.call, place))  # type: ignore[arg-type]

    if not node.windows and not any(_contains(i, lambda e: isinstance(e, Over) and e.window is not None)
                                    for i in node.items):
        return node
    return _rewrite_select(node, place)


def _rewrite_select(node: Select, fn: Callable[[Expr], Expr | None]) -> Select:
    """``node`` with :func:`_rewrite` applied to the expressions of each of its clauses."""
    return replace(node, items=tuple(_rewrite(i, fn) for i in node.items),
                   where=None if node.where is None else _rewrite(node.where, fn),
                   group_by=tuple(_rewrite(g, fn) for g in node.group_by),
                   having=None if node.having is None else _rewrite(node.having, fn),
                   order_by=tuple(replace(o, operand=_rewrite(o.operand, fn)) for o in node.order_by))


def _contains(node: Expr, test: Callable[[Expr], bool], opaque: type | None = None) -> bool:
    """Whether a subtree of ``node`` passes ``test`` (subtrees of type ``opaque`` not looked into)."""
    found = False

    def probe(sub: Expr) -> Expr | None:
        nonlocal found
        if opaque is not None and isinstance(sub, opaque):
            return sub
        found = found or test(sub)
        return sub if found else None

    _rewrite(node, probe)
    return found


def _contains_window(node: Expr) -> bool:
    return _contains(node, lambda sub: isinstance(sub, Over))


def _contains_aggregate(node: Expr) -> bool:
    """Whether ``node`` aggregates rows: an aggregate over a window (``sum(v) OVER (...)``) does not."""
    return _contains(node, _is_aggregate, opaque=Over)


def _strip(item: Expr) -> Expr:
    return item.operand if isinstance(item, Alias) else item


def _ordinal(node: Expr) -> int | None:
    if isinstance(node, Literal) and node.type_name == "int" and isinstance(node.value, int):
        return node.value
    return None


def _each_column(order_by: tuple[SortItem, ...], df: Any) -> list[SortItem]:
    """``order_by`` with ORDER BY ALL over ``SELECT *`` as the ordinals of ``df``'s columns."""
    out: list[SortItem] = []
    for item in order_by:
        if item.operand == ALL_OUTPUT_COLUMNS:
            width = len(df.columns)
            out += [SortItem(Literal(n, "int"), item.ascending, item.nulls_first) for n in range(1, width + 1)]
        else:
            out.append(item)
    return out


def _limit_offset(df: Any, node: Select | SetOp) -> Any:
    """``df`` after the query's OFFSET (skipped first) and LIMIT (counted after it), as in Spark."""
    if node.offset is not None:
        df = df.offset(node.offset)
    return df if node.limit is None else df.limit(node.limit)


def _alias_of(item: Expr) -> str | None:
    return item.names[0].lower() if isinstance(item, Alias) and len(item.names) == 1 else None


class _QueryBuilder:
    def __init__(self, session: Any, functions: ModuleType) -> None:
        self.session = session
        self.fns = functions
        self.lateral_tables: dict[str, tuple[str, ...]] = {}  # lateral view table -> its column aliases
        self.subqueries = SubqueryRewriter(self)
        # WITH names in scope: name -> (column names, query, the names its own definition sees).
        self.ctes: dict[str, tuple[tuple[str, ...], Any, dict[str, Any]]] = {}

    def column(self, node: Expr) -> Any:
        return to_column(node, self.fns, subquery=self.subqueries.scalar)

    def contains_aggregate(self, node: Expr) -> bool:
        return _contains_aggregate(node)

    def contains_window(self, node: Expr) -> bool:
        return _contains_window(node)

    def rewrite(self, node: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
        """``node`` with every subtree ``fn`` maps replaced (outermost first; lambdas untouched)."""
        return _rewrite(node, fn)

    def query(self, node: Query) -> Any:
        if isinstance(node, With):
            return self.with_ctes(node)
        if isinstance(node, Select):
            return self.select(node)
        left, right = self.query(node.left), self.query(node.right)
        if node.op == "intersect":
            df = left.intersect(right) if node.distinct else left.intersectAll(right)
        elif node.op == "except":
            df = left.subtract(right) if node.distinct else left.exceptAll(right)
        else:
            df = left.union(right)
            if node.distinct:
                df = df.distinct()
        if node.order_by:
            df = df.orderBy(*[self.output_sort(df, item, ()) for item in _each_column(node.order_by, df)])
        return _limit_offset(df, node)

    def with_ctes(self, node: With) -> Any:
        """The body with each named query readable as a table (each sees the ones before it only)."""
        outer = self.ctes
        scope = dict(outer)
        for name, columns, query in node.ctes:
            scope[name.lower()] = (columns, query, dict(scope))
        self.ctes = scope
        try:
            return self.query(node.body)
        finally:
            self.ctes = outer

    def cte(self, name: str) -> Any:
        """The DataFrame of named query ``name``, built in the scope it was defined in."""
        columns, query, scope = self.ctes[name.lower()]
        outer, self.ctes = self.ctes, scope
        try:
            df = self.query(query)
        finally:
            self.ctes = outer
        if columns:
            if len(columns) != len(df.columns):
                raise AnalysisException(
                    f"The WITH query {name} names {len(columns)} columns ({', '.join(columns)}) but returns "
                    f"{len(df.columns)}; name each of its columns once.", "ASSIGNMENT_ARITY_MISMATCH",
                    {"numTarget": str(len(columns)), "numExpr": str(len(df.columns))})
            df = df.toDF(*columns)
        return df

    def relation(self, node: Relation) -> Any:
        if isinstance(node, Table):
            if len(node.parts) == 1 and node.parts[0].lower() in self.ctes:
                return self.cte(node.parts[0]).alias(node.alias or node.parts[0])
            name = ".".join(node.parts)
            return self.session.table(name).alias(node.alias or node.parts[-1])
        if isinstance(node, SubqueryRef):
            df = self.query(node.query)
            return df.alias(node.alias) if node.alias else df
        if isinstance(node, LateralView):
            return self.lateral_view(node)
        if isinstance(node, LateralFunction):
            return lateral_function(self, node)
        if isinstance(node, LateralSubquery):
            return lateral_subquery(self, node)
        if isinstance(node, InlineTable):
            return self.inline_table(node)
        if isinstance(node, TableFunction):
            return self.table_function(node)
        if isinstance(node, TableSample):
            return table_sample(self, node)
        if isinstance(node, Pivot):
            return pivot(self, node)
        left, right = self.relation(node.left), self.relation(node.right)
        return self.join(node, left, right)

    def lateral_view(self, node: LateralView) -> Any:
        """Every row of the relation with each row its generator makes (OUTER: a null row for none)."""
        df = self.relation(node.relation)
        call = node.generator
        if node.outer and not call.name.endswith("_outer") and hasattr(self.fns, f"{call.name}_outer"):
            call = replace(call, name=f"{call.name}_outer")
        generated = self.column(call)
        if node.columns:
            generated = generated.alias(*node.columns)
        self.lateral_tables[node.table.lower()] = node.columns
        return df.select("*", generated)

    def table_function(self, node: TableFunction) -> Any:
        """``range(...)``, a generator's rows (``explode``, ``inline``, ``stack``...) or a registered UDTF's."""
        return table_function(self, node, _GENERATORS)

    def inline_table(self, node: InlineTable) -> Any:
        """The rows of ``VALUES`` (see :mod:`.inline_tables`)."""
        return inline_table(self, node)

    def join(self, node: Join, left: Any, right: Any) -> Any:
        using = list(node.using)
        if node.natural:  # the columns both sides have, in the left side's order (as Spark)
            theirs = {c.lower() for c in right.columns}
            using = [c for c in left.columns if c.lower() in theirs]
        if using:
            return left.join(right, using, node.how)
        if node.condition is None:
            return left.crossJoin(right)
        return left.join(right, self.column(node.condition), "inner" if node.how == "cross" else node.how)

    def unqualified(self, node: Select) -> Select:
        """``node`` with its lateral views' ``table.col`` references made plain ``col`` (their
        columns carry no qualifier)."""
        def strip(sub: Expr) -> Expr | None:
            if isinstance(sub, Name) and len(sub.parts) == 2 and sub.parts[0].lower() in self.lateral_tables:
                return Name(sub.parts[1:])
            return None

        def expand(item: Expr) -> tuple[Expr, ...]:  # f.* of a lateral function: its columns
            names = self.lateral_tables.get(item.qualifier[0].lower(), ()) if isinstance(item, Star) and len(
                item.qualifier) == 1 else ()
            return tuple(Name((n,)) for n in names) or (item,)
        node = replace(node, items=tuple(e for i in node.items for e in expand(i)))
        return _rewrite_select(node, strip)

    def ordinal_item(self, items: tuple[Expr, ...], n: int, clause: str) -> Expr:
        if not 1 <= n <= len(items) or isinstance(_strip(items[n - 1]), Star):
            raise AnalysisException(
                f"{clause} position {n} is not in select list (valid range is [1, {len(items)}]).",
                "GROUP_BY_POS_OUT_OF_RANGE" if clause == "GROUP BY" else "ORDER_BY_POS_OUT_OF_RANGE",
                {"index": str(n), "size": str(len(items))})
        return _strip(items[n - 1])

    def select(self, node: Select) -> Any:
        fns = self.fns
        # No FROM: Spark's OneRowRelation, one row of no columns (so no name resolves against it)
        # in a single partition (rand(1) and spark_partition_id() see partition 0).
        df = self.session.range(0, 1, 1, 1).select() if node.relation is None else self.relation(node.relation)
        if self.lateral_tables:
            node = self.unqualified(node)
        node = _rewrite_select(_named_windows(node), not_inward)  # NOT (k IN (SELECT ...)) is NOT IN, as in Spark
        aggregated = bool(node.group_by) or node.having is not None or any(
            _contains_aggregate(e) for e in list(node.items) + [item.operand for item in node.order_by])
        # Correlated scalar subqueries become left joins first: WHERE and the items read their column.
        joined = len(df.columns)
        df = self.subqueries.join_correlated_scalars(df, [node.where] + ([] if aggregated else list(node.items)),
                                                      node.relation)
        if node.where is not None:
            df, where = self.subqueries.filter(df, node.where, node.relation)
            if where is not None:
                df = df.where(self.column(where))
        # IN / EXISTS among the items (and the GROUP BY keys): existence joins, after WHERE kept fewer rows
        df = self.subqueries.join_predicates(df, list(node.items) + list(node.group_by), node.relation)
        helpers = df.columns[joined:]  # the subqueries' join columns: never in the result
        if aggregated:
            df = self.aggregate(df, node)
        elif node.order_by and not node.distinct and not any(_contains_window(i) for i in node.items) and not (
                any(isinstance(_strip(i), Star) for i in node.items)
                and any(_ordinal(s.operand) is not None or s.operand == ALL_OUTPUT_COLUMNS
                        for s in node.order_by)):  # * ORDER BY 1: by output position
            # Sort first, then project: ORDER BY may use input columns the select drops (not with
            # window functions, whose columns only the select computes: ORDER BY may name them).
            aliases = {_alias_of(i): _strip(i) for i in node.items if _alias_of(i)}
            sorts = [to_sort(item, fns, self.column(self.resolve_sort(node.items, aliases, item.operand)))
                     for item in node.order_by]
            df = df.orderBy(*sorts).select(*[self.column(i) for i in node.items])
        else:
            df = df.select(*[self.column(i) for i in node.items])
            if node.distinct:
                df = df.distinct()
            if node.order_by:
                df = df.orderBy(*[self.output_sort(df, item, node.items) for item in _each_column(node.order_by, df)])
        if helpers and not aggregated:
            df = df.drop(*[c for c in helpers if c in df.columns])  # a SELECT * took them in
        return _limit_offset(df, node)

    def resolve_sort(self, items: tuple[Expr, ...], aliases: dict[str | None, Expr], expr: Expr) -> Expr:
        """An ORDER BY expression over the input: ordinals and select aliases replaced."""
        n = _ordinal(expr)
        if n is not None:
            return self.ordinal_item(items, n, "ORDER BY")

        def alias(sub: Expr) -> Expr | None:
            if isinstance(sub, Name) and len(sub.parts) == 1 and sub.parts[0].lower() in aliases:
                return aliases[sub.parts[0].lower()]
            return None

        return _rewrite(expr, alias)

    def output_sort(self, df: Any, item: SortItem, items: tuple[Expr, ...]) -> Any:
        """A sort over the columns of ``df`` (the select's output): ordinals and equal items by position."""
        fns = self.fns
        columns = df.columns
        n = _ordinal(item.operand)
        if n is not None:
            if not 1 <= n <= len(columns):
                raise AnalysisException(
                    f"ORDER BY position {n} is not in select list (valid range is [1, {len(columns)}]).",
                    "ORDER_BY_POS_OUT_OF_RANGE", {"index": str(n), "size": str(len(columns))})
            return to_sort(item, fns, fns.col(quote_name(columns[n - 1])))
        if not any(isinstance(_strip(i), Star) for i in items):
            for position, selected in enumerate(items):
                if _strip(selected) == item.operand:
                    return to_sort(item, fns, fns.col(quote_name(columns[position])))
        return to_sort(item, fns)

    def aggregate(self, df: Any, node: Select) -> Any:
        fns = self.fns
        items = node.items
        if any(isinstance(_strip(i), Star) for i in items):
            raise AnalysisException(
                "SELECT * cannot be used with GROUP BY or aggregate functions; list the grouping columns and "
                "aggregates instead.", "STAR_GROUP_BY_POS", {})
        aliases = {_alias_of(i): _strip(i) for i in items if _alias_of(i)}
        input_names = {c.lower() for c in df.columns}
        group_by, analytics, sets = _grouping_analytics(node.group_by)
        keys = [self.group_key(items, aliases, input_names, g) for g in group_by]
        stripped = [_strip(i) for i in items]
        extras: list[Expr] = []

        def hidden(sub: Expr) -> Expr | None:
            """A subtree of HAVING/ORDER BY as a reference to a hidden column of the aggregation."""
            if sub in stripped:
                return Name((f"__i{stripped.index(sub)}",))
            if sub in keys:
                return Name((f"__k{keys.index(sub)}",))
            if isinstance(sub, Name) and len(sub.parts) == 1 and sub.parts[0].lower() in aliases:
                return Name((f"__i{stripped.index(aliases[sub.parts[0].lower()])}",))
            if _is_aggregate(sub):
                if sub not in extras:
                    extras.append(sub)
                return Name((f"__x{extras.index(sub)}",))
            if isinstance(sub, Name):
                for k, key in enumerate(keys):  # t.k in HAVING for GROUP BY k, or the reverse
                    if isinstance(key, Name) and key.parts[-1].lower() == sub.parts[-1].lower():
                        return Name((f"__k{k}",))
            return None

        having = None if node.having is None else _rewrite(node.having, hidden)
        sorts = []
        for item in node.order_by:
            n = _ordinal(item.operand)
            operand = (Name((f"__i{self.items_index(items, n)}",)) if n is not None
                       else _rewrite(item.operand, hidden))
            sorts.append(SortItem(operand, item.ascending, item.nulls_first))
        key_columns = [self.column(k) for k in keys]
        # Spark's names of the items: ``agg`` names them on analysis (no job runs).
        def group(*columns: Any) -> Any:  # groupBy, rollup, cube or groupingSets
            if analytics == "groupingSets":
                return df.groupingSets([[columns[k] for k in chosen] for chosen in sets], *columns)
            return getattr(df, analytics)(*columns) if analytics else df.groupBy(*columns)
        names = group(*key_columns).agg(*[self.column(i) for i in items]).columns[len(keys):]
        # Each item gets a column of its own: ``k`` selected and grouped is one attribute twice otherwise.
        result = group(*key_columns).agg(*[self.column(i).alias(f"__i{n}") for n, i in enumerate(items)],
                                              *[self.column(e).alias(f"__x{n}") for n, e in enumerate(extras)])
        # Keys keep the names agg gave them (a rename would hide the aggregate's attributes behind a
        # projection); HAVING and ORDER BY refer to them by those names.
        key_names = {f"__k{k}": Name((name,)) for k, name in enumerate(result.columns[:len(keys)])}

        def key_name(sub: Expr) -> Expr | None:
            return key_names.get(sub.parts[0]) if isinstance(sub, Name) and len(sub.parts) == 1 else None

        having = None if having is None else _rewrite(having, key_name)
        sorts = [SortItem(_rewrite(s.operand, key_name), s.ascending, s.nulls_first) for s in sorts]
        if having is not None:  # its IN / EXISTS subqueries filter the groups as WHERE's filter rows
            result, having = self.subqueries.filter(result, having, None)
            if having is not None:
                result = result.where(self.column(having))
        outputs = [fns.col(f"__i{i}") for i in range(len(items))]
        if node.distinct:
            result = result.select(*outputs).distinct()
        if sorts:
            result = result.orderBy(*[to_sort(s, fns) for s in sorts])
        return result.select(*[fns.col(f"__i{i}").alias(name) for i, name in enumerate(names)])

    def items_index(self, items: tuple[Expr, ...], n: int) -> int:
        self.ordinal_item(items, n, "ORDER BY")
        return n - 1

    def group_key(self, items: tuple[Expr, ...], aliases: dict[str | None, Expr], input_names: set[str],
                  key: Expr) -> Expr:
        """A GROUP BY expression with ordinals and select aliases (not shadowing a column) replaced."""
        n = _ordinal(key)
        if n is not None:
            resolved = self.ordinal_item(items, n, "GROUP BY")
            if _contains_aggregate(resolved):
                raise AnalysisException(
                    f"GROUP BY {n} refers to an expression that contains an aggregate function. Aggregate "
                    "functions are not allowed in GROUP BY.", "GROUP_BY_POS_AGGREGATE", {"index": str(n)})
            return resolved
        if isinstance(key, Name) and len(key.parts) == 1:
            name = key.parts[0].lower()
            if name not in input_names and name in aliases:
                return aliases[name]
        return key
