"""The query parser: the SELECT subset of Spark SQL to the syntax tree of :mod:`.nodes`.

What this module owns
---------------------
The grammar of the queries ``spark.sql`` runs::

    query   := block ((UNION [ALL | DISTINCT]) block)* [ORDER BY sort, ...] [LIMIT n | LIMIT ALL]
               [OFFSET n]
    block   := SELECT [DISTINCT | ALL] named_expr, ... [FROM relation, ...] [WHERE e]
               [GROUP BY ALL | GROUP BY e, ... [WITH ROLLUP | WITH CUBE] | GROUP BY ROLLUP(e, ...) | CUBE(e, ...)
                | GROUP BY GROUPING SETS ((e, ...), e, (), ...)]
               [HAVING e]
    relation:= primary ([NATURAL] join_type JOIN primary [ON e | USING (c, ...)])*
    from    := relation, ... [LATERAL VIEW ...] [PIVOT (agg, ... FOR col IN (value [AS v], ...))]
    primary := name [sample] [[AS] alias] | (query) [sample] [AS] alias | (relation)
    sample  := TABLESAMPLE (n PERCENT | n ROWS) [REPEATABLE (seed)]
    sort    := e [ASC | DESC] [NULLS FIRST | NULLS LAST]

``join_type`` is ``[INNER] | CROSS | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER] |
LEFT SEMI | LEFT ANTI``; a comma between relations is a cross join.

Invariants
----------
* ORDER BY, LIMIT and OFFSET after a single block belong to that block; after a UNION they
  apply to the union's result (as in Spark). OFFSET skips rows before LIMIT counts them.
* GROUP BY ALL and ORDER BY ALL are desugared here: to the select items without aggregates,
  and to ``ORDER BY 1, 2, ...`` over every item (over ``SELECT *`` the builder counts the
  columns: :data:`~.nodes.ALL_OUTPUT_COLUMNS`).
* Errors are ``ParseException`` (``PARSE_SYNTAX_ERROR``) at the first token that does not fit.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from dstream.sql.errors import AnalysisException, ParseException
from dstream.sql.parser.columns import AGGREGATES
from dstream.sql.parser.cursor import ALIAS_RESERVED, STRICT_NON_RESERVED
from dstream.sql.parser.expression import ExpressionParser
from dstream.sql.parser.lexer import syntax_error
from dstream.sql.parser.nodes import (
    ALL_OUTPUT_COLUMNS,
    Alias,
    Call,
    Expr,
    InlineTable,
    Join,
    Lambda,
    LateralSubquery,
    LateralView,
    Literal,
    Over,
    Pivot,
    Query,
    Relation,
    Select,
    SetOp,
    SortItem,
    Star,
    Subquery,
    SubqueryRef,
    Table,
    TableSample,
    With,
)
from dstream.sql.parser.table_args import lateral_function_call, table_function_call

__all__ = ["parse_query"]

#: GROUP BY ALL / ORDER BY ALL while a block is parsed (replaced before the block is returned).
_ALL = Call("__all")


class QueryParser(ExpressionParser):
    """The expression parser plus the SELECT subset."""

    def query(self) -> Query:
        """A query: [WITH ...] SELECT blocks joined by set operators, then ORDER BY and LIMIT."""
        if self.tok.is_word("WITH"):
            return self._with()
        result: Select | SetOp = self._intersections()
        while self.tok.is_word("UNION", "EXCEPT", "MINUS"):
            op = "union" if self.advance().is_word("UNION") else "except"
            distinct = self._set_quantifier()
            result = SetOp(op, result, self._intersections(), distinct)
        order_by = self._order_by()
        if order_by and order_by[0].operand == _ALL:
            order_by = _order_by_all(result, order_by[0])
        limit = self._limit_like("LIMIT")
        offset = self._limit_like("OFFSET")
        if isinstance(result, Select):
            return replace(result, order_by=order_by, limit=limit, offset=offset)
        return SetOp(result.op, result.left, result.right, result.distinct, order_by, limit, offset)

    def _identifiers(self) -> tuple[str, ...]:
        """``name, name, ...`` (at least one)."""
        names = [self.identifier()]
        while self.accept_op(","):
            names.append(self.identifier())
        return tuple(names)

    def _subquery_body(self) -> Query:
        return self.query()

    def _set_quantifier(self) -> bool:
        """``ALL`` (False) or ``[DISTINCT]`` (True) after a set operator; the right operand follows."""
        if self.accept_word("ALL"):
            return False
        self.accept_word("DISTINCT")
        return True

    def _intersections(self) -> Select | SetOp:
        """Blocks joined by INTERSECT, which binds tighter than UNION and EXCEPT (as in Spark)."""
        result: Select | SetOp = self._block()
        while self.tok.is_word("INTERSECT"):
            self.advance()
            distinct = self._set_quantifier()
            result = SetOp("intersect", result, self._block(), distinct)
        return result

    def _with(self) -> With:
        """``WITH name [(cols)] AS (query), ... query``."""
        self.expect_word("WITH")
        ctes: list[tuple[str, tuple[str, ...], Select | SetOp]] = []
        while True:
            name = self.identifier()
            columns: tuple[str, ...] = ()
            if self.accept_op("("):
                columns = self._identifiers()
                self.expect_op(")")
            self.accept_word("AS")
            self.expect_op("(")
            inner = self.query()
            self.expect_op(")")
            if isinstance(inner, With):
                raise syntax_error(self.tok, ": a WITH inside a WITH definition is not supported; define both "
                                             "names in one WITH")
            ctes.append((name, columns, inner))
            if not self.accept_op(","):
                break
        body = self.query()
        if isinstance(body, With):
            raise syntax_error(self.tok, ": one WITH per query; define every name in it")
        return With(tuple(ctes), body)

    def _block(self) -> Select:
        if self.tok.is_op("(") and self.peek().is_word("SELECT"):
            self.advance()
            inner = self.query()
            self.expect_op(")")
            if not isinstance(inner, Select) or inner.order_by or inner.limit is not None or inner.offset is not None:
                raise syntax_error(self.tok, ": a parenthesised UNION operand must be a plain SELECT")
            return inner
        self.expect_word("SELECT")
        # SELECT all, x / SELECT distinct.f: a column named so, not the quantifier (as Spark reads them)
        quantifier = self.tok.is_word("DISTINCT", "ALL") and not (self.stands_alone() or self.peek().is_op("."))
        distinct = quantifier and self.tok.is_word("DISTINCT")
        if quantifier:
            self.advance()
        items = [self.named_expression()]
        while self.accept_op(","):
            if self.tok.is_word("FROM") and self.peek().kind in ("WORD", "QUOTED") and not self.peek().is_word(
                    "FROM", "AS"):  # `SELECT a, FROM t`: Spark reads a column FROM named t, then names the slip
                raise AnalysisException("Trailing comma detected in SELECT clause. Remove the trailing comma "
                                        "before the FROM clause.", "TRAILING_COMMA_IN_SELECT", {})
            items.append(self.named_expression())
        relation = None
        if self.accept_word("FROM"):
            relation = self._relation()
            while self.accept_op(","):
                if self.tok.is_word("LATERAL") and not self.peek().is_word("VIEW"):
                    relation = lateral_function_call(self, relation)
                else:
                    relation = Join(relation, self._relation(), "cross")
            while self.tok.is_word("LATERAL"):
                relation = self._lateral_view(relation)
            if self.tok.is_word("PIVOT"):  # after the whole FROM clause, as in Spark's grammar
                relation = self._pivot(relation)
        where = self.expression() if self.accept_word("WHERE") else None
        group_by: list[Expr] = []
        if self.tok.is_word("GROUP"):
            self.advance()
            self.expect_word("BY")
            if self._at_all():
                self.advance()
                group_by = [_ALL]
            elif self.tok.is_word("GROUPING") and self.peek().is_word("SETS"):
                group_by.append(self._grouping_sets())
            else:
                group_by.append(self.expression())
            while self.accept_op(","):
                group_by.append(self.expression())
            if self.tok.is_word("GROUPING") and self.peek().is_word("SETS"):
                # Hive's form, GROUP BY a, b GROUPING SETS (...): the listed keys, then the sets.
                sets = self._grouping_sets()
                group_by = [Call("grouping_sets", (Call("__keys", tuple(group_by)), *sets.args))]
            if self.tok.is_word("WITH") and self.peek().is_word("ROLLUP", "CUBE"):
                self.advance()  # GROUP BY a, b WITH ROLLUP is GROUP BY ROLLUP(a, b)
                group_by = [Call(self.advance().value.lower(), tuple(group_by))]
        having = self.expression() if self.accept_word("HAVING") else None
        windows: list[tuple[str, Over]] = []
        if self.accept_word("WINDOW"):
            while True:
                name = self.identifier()
                self.expect_word("AS")
                windows.append((name, self._window_spec(Call("__window"))))
                if not self.accept_op(","):
                    break
        if group_by == [_ALL]:
            group_by = _group_by_all(items)
        return Select(tuple(items), relation, distinct, where, tuple(group_by), having, windows=tuple(windows))

    def _grouping_sets(self) -> Call:
        """``GROUPING SETS ((a, b), a, ())`` as ``grouping_sets(set(a, b), set(a), set())``."""
        self.advance()
        self.advance()
        self.expect_op("(")
        sets: list[Expr] = []
        while True:
            if self.accept_op("("):
                members: list[Expr] = []
                if not self.tok.is_op(")"):
                    members.append(self.expression())
                    while self.accept_op(","):
                        members.append(self.expression())
                self.expect_op(")")
            else:
                members = [self.expression()]
            sets.append(Call("__set", tuple(members)))
            if not self.accept_op(","):
                break
        self.expect_op(")")
        return Call("grouping_sets", tuple(sets))

    def _lateral_view(self, relation: Relation) -> LateralView:
        """``LATERAL VIEW [OUTER] f(args) table [AS] col, ...`` (LATERAL is the current token)."""
        self.advance()
        self.expect_word("VIEW")
        outer = self.accept_word("OUTER")
        at = self.tok
        generator = self._primary()
        if not isinstance(generator, Call):
            raise syntax_error(at, ": LATERAL VIEW needs a generator function call, such as explode(col)")
        table = self.identifier()
        columns: tuple[str, ...] = ()
        if self.accept_word("AS") or (self.tok.kind in ("WORD", "QUOTED") and
                                      self.tok.value.upper() not in ALIAS_RESERVED):
            columns = self._identifiers()
        return LateralView(relation, generator, outer, table, columns)

    def _at_all(self) -> bool:
        """Whether ``ALL`` here is GROUP BY ALL / ORDER BY ALL (not ``all(...)``, a function)."""
        return self.tok.is_word("ALL") and not self.peek().is_op("(", ".")

    def _order_by(self) -> tuple[SortItem, ...]:
        if not self.tok.is_word("ORDER"):
            return ()
        self.advance()
        self.expect_word("BY")
        if self._at_all():  # ORDER BY ALL [ASC | DESC] [NULLS FIRST | LAST]: the direction of every item
            self.advance()
            ascending = not self.accept_word("DESC")
            if ascending:
                self.accept_word("ASC")
            nulls_first = None
            if self.accept_word("NULLS"):
                nulls_first = self.expect_word("FIRST", "LAST").value.upper() == "FIRST"
            return (SortItem(_ALL, ascending, nulls_first),)
        items = [self._sort_item()]
        while self.accept_op(","):
            items.append(self._sort_item())
        return tuple(items)

    def _limit_like(self, keyword: str) -> int | None:
        """``LIMIT n`` / ``LIMIT ALL`` or ``OFFSET n``: the integer, None when absent (or ALL).

        A negative count parses (Spark's parser takes any expression); the DataFrame's
        ``limit``/``offset`` then refuse it with Spark's ``INVALID_LIMIT_LIKE_EXPRESSION``.
        """
        if not self.accept_word(keyword):
            return None
        if keyword == "LIMIT" and self.accept_word("ALL"):
            return None
        negative = self.accept_op("-")
        token = self.tok
        if token.kind != "NUMBER" or not token.value.isdigit():
            raise syntax_error(token, f": {keyword} takes an integer, as in {keyword} 10")
        self.advance()
        return -int(token.value) if negative else int(token.value)

    def _alias(self) -> str | None:
        """A table alias, ``[AS] name``: any word but a join keyword (``FROM t left`` is no alias)."""
        if self.tok.is_word("AS") and not self.stands_alone():
            self.advance()
            if self.tok.kind == "WORD" and self.tok.value.upper() in STRICT_NON_RESERVED:
                raise syntax_error(self.tok)
            return self.identifier()
        if self.tok.kind == "WORD" and self.tok.value.upper() in STRICT_NON_RESERVED:
            return None
        return self.bare_alias(ALIAS_RESERVED)

    def _primary_relation(self) -> Relation:
        if self.tok.is_op("(") and self.peek().is_word("VALUES"):
            # (VALUES ...) [AS] v(a, b): the alias and column names may follow the parenthesis
            self.advance()
            inline = self._inline_table()
            self.expect_op(")")
            alias = self._alias()
            if alias is None:
                return inline
            names = inline.columns
            if self.accept_op("("):
                names = self._identifiers()
                self.expect_op(")")
            return replace(inline, alias=alias, columns=names)
        if self.tok.is_op("("):
            if self.peek().is_word("SELECT", "WITH") or self.peek().is_op("("):
                if self.peek().is_op("(") and not self._query_in_parentheses():
                    return self._parenthesised_relation()
                self.advance()
                query = self.query()
                self.expect_op(")")
                sample = self._sample_clause()
                return self._sampled(SubqueryRef(query, self._alias()), sample)
            return self._parenthesised_relation()
        if self.tok.is_word("VALUES"):
            return self._inline_table()
        parts = self.multipart_identifier()
        if len(parts) == 1 and self.tok.is_op("("):  # a table-valued function: range(10), explode(...)
            return table_function_call(self, parts[0])
        sample = self._sample_clause()
        return self._sampled(Table(parts, self._alias()), sample)

    def _sample_clause(self) -> tuple[float | None, int | None, int | None] | None:
        """``TABLESAMPLE (n PERCENT | n ROWS) [REPEATABLE (seed)]`` as (percent, rows, seed), or None."""
        if not self.accept_word("TABLESAMPLE"):
            return None
        self.expect_op("(")
        at = self.tok
        if at.kind != "NUMBER":
            raise syntax_error(at, ": TABLESAMPLE takes (n PERCENT) or (n ROWS); BUCKET x OUT OF y is not "
                                   "supported here")
        self.advance()
        percent, rows = None, None
        if self.accept_word("PERCENT"):
            percent = float(at.value)
            if not 0 <= percent <= 100:
                raise ParseException(f"Sampling fraction ({percent / 100}) must be on interval [0, 1]. Give "
                                     "TABLESAMPLE a percentage from 0 to 100.", "PARSE_SYNTAX_ERROR",
                                     {"error": "TABLESAMPLE", "hint": ""})
        else:
            self.expect_word("ROWS")
            if not at.value.isdigit():
                raise syntax_error(at, ": TABLESAMPLE (n ROWS) takes a whole number of rows")
            rows = int(at.value)
        self.expect_op(")")
        seed = None
        if self.accept_word("REPEATABLE"):
            self.expect_op("(")
            if self.tok.kind != "NUMBER" or not self.tok.value.isdigit():
                raise syntax_error(self.tok, ": REPEATABLE takes an integer seed")
            seed = int(self.advance().value)
            self.expect_op(")")
        return percent, rows, seed

    @staticmethod
    def _sampled(relation: Relation, sample: tuple[float | None, int | None, int | None] | None) -> Relation:
        return relation if sample is None else TableSample(relation, *sample)

    def _pivot(self, relation: Relation) -> Pivot:
        """``PIVOT (agg [AS a], ... FOR column IN (value [AS v], ...))`` (PIVOT the current token)."""
        self.advance()
        self.expect_op("(")
        aggregates = [self._pivot_item()]
        while self.accept_op(","):
            aggregates.append(self._pivot_item())
        self.expect_word("FOR")
        if self.tok.is_op("("):
            raise ParseException("PIVOT over several columns, FOR (a, b) IN (...), is not supported; pivot one "
                                 "column (combine them into one first).", "UNSUPPORTED_FEATURE",
                                 {"feature": "PIVOT FOR (columns)"})
        column = self.identifier()
        self.expect_word("IN")
        self.expect_op("(")
        values = [self._pivot_item()]
        while self.accept_op(","):
            values.append(self._pivot_item())
        self.expect_op(")")
        self.expect_op(")")
        return Pivot(relation, tuple(aggregates), column, tuple(values))

    def _pivot_item(self) -> Expr:
        """``expr [[AS] name]`` of PIVOT, where FOR ends an aggregate (it is no alias there)."""
        expr = self.expression()
        if self.accept_word("AS"):
            return Alias(expr, (self.identifier(),))
        token = self.tok
        if token.kind == "QUOTED" or (token.kind == "WORD" and token.value.upper() not in ALIAS_RESERVED
                                      and not token.is_word("FOR")):
            self.advance()
            return Alias(expr, (token.value,))
        return expr

    def _inline_table(self) -> InlineTable:
        """``VALUES (a, b), ... [AS] alias[(col, ...)]`` (VALUES is the current token)."""
        self.advance()
        rows: list[tuple[Expr, ...]] = []
        while True:
            if self.tok.is_op("(") and not self.peek().is_word("SELECT", "WITH"):
                self.advance()
                row = [self.expression()]
                while self.accept_op(","):
                    row.append(self.expression())
                self.expect_op(")")
            else:
                row = [self.expression()]
            rows.append(tuple(row))
            if not self.accept_op(","):
                break
        alias = self._alias()
        columns: tuple[str, ...] = ()
        if alias is not None and self.accept_op("("):
            columns = self._identifiers()
            self.expect_op(")")
        return InlineTable(tuple(rows), alias, columns)

    def _parenthesised_relation(self) -> Relation:
        self.expect_op("(")
        relation = self._relation()
        self.expect_op(")")
        return relation

    def _query_in_parentheses(self) -> bool:
        """Whether the ``(`` here opens, through more ``(``, a SELECT."""
        k = 0
        while self.peek(k).is_op("("):
            k += 1
        return self.peek(k).is_word("SELECT", "WITH")

    def _join_type(self) -> str | None:
        """The ``how`` of the join starting here (JOIN consumed), or None when no join follows."""
        tok = self.tok
        if tok.is_word("JOIN"):
            self.advance()
            return "inner"
        how = None
        if tok.is_word("INNER", "CROSS"):
            how = tok.value.lower()
            self.advance()
        elif tok.is_word("LEFT"):
            self.advance()
            how = "left"
            if self.accept_word("SEMI"):
                how = "left_semi"
            elif self.accept_word("ANTI"):
                how = "left_anti"
            else:
                self.accept_word("OUTER")
        elif tok.is_word("RIGHT", "FULL"):
            how = tok.value.lower()
            self.advance()
            self.accept_word("OUTER")
        elif tok.is_word("SEMI", "ANTI"):
            how = "left_" + tok.value.lower()
            self.advance()
        if how is None:
            return None
        self.expect_word("JOIN")
        return how

    def _relation(self) -> Relation:
        relation = self._primary_relation()
        while True:
            natural = self.accept_word("NATURAL")
            how = self._join_type()
            if how is None:
                if natural:
                    raise syntax_error(self.tok)
                return relation
            if not natural and self.tok.is_word("LATERAL") and not self.peek().is_word("VIEW") and (
                    how in ("inner", "cross") or self.peek().is_op("(")):  # t JOIN LATERAL f(t.a) / (SELECT ...)
                relation = lateral_function_call(self, relation)
                if isinstance(relation, LateralSubquery):
                    relation = replace(relation, how=how, condition=self.expression() if self.accept_word("ON")
                                       else None)
                continue
            right = self._primary_relation()
            if natural:
                relation = Join(relation, right, how, natural=True)
            elif self.accept_word("ON"):
                relation = Join(relation, right, how, condition=self.expression())
            elif self.accept_word("USING"):
                self.expect_op("(")
                names = self._identifiers()
                self.expect_op(")")
                relation = Join(relation, right, how, using=names)
            else:
                relation = Join(relation, right, "cross" if how == "inner" else how)


def _group_by_all(items: list[Expr]) -> list[Expr]:
    """GROUP BY ALL's keys: every select item without an aggregate (Spark 3.4+).

    Literals are left out: grouping by a constant changes no group, and a bare integer
    key would read as a GROUP BY ordinal.
    """
    keys: list[Expr] = []
    for item in items:
        expr = item.operand if isinstance(item, Alias) else item
        if isinstance(expr, Star):  # its columns are known only to the query builder
            raise ParseException("GROUP BY ALL with SELECT * is not supported here; list the columns to group by.",
                                 "UNSUPPORTED_FEATURE", {"feature": "GROUP BY ALL with SELECT *"})
        if not isinstance(expr, Literal) and not contains_aggregate(expr) and expr not in keys:
            keys.append(expr)
    if not keys and not any(contains_aggregate(i) for i in items):
        # Only constants: still one group of every row (Spark gives one row), as GROUPING SETS (()) is.
        return [Call("grouping_sets", (Call("__set"),))]
    return keys


def contains_aggregate(node: Any) -> bool:
    """Whether the tree ``node`` aggregates rows (an aggregate over a window, or in a lambda, does not)."""
    if isinstance(node, Over | Lambda | Subquery):
        return False
    if isinstance(node, Call) and (node.name in AGGREGATES or node.within_group or node.filter is not None):
        return True
    if isinstance(node, tuple):
        return any(contains_aggregate(v) for v in node)
    return hasattr(node, "__dataclass_fields__") and any(contains_aggregate(getattr(node, f.name))
                                                         for f in fields(node))


def _order_by_all(query: Select | SetOp, spec: SortItem) -> tuple[SortItem, ...]:
    """ORDER BY ALL as ``ORDER BY 1, 2, ...`` over every select item, in ``spec``'s direction
    (over ``SELECT *``, whose width the builder knows, as :data:`ALL_OUTPUT_COLUMNS`)."""
    first = query
    while isinstance(first, SetOp):  # a set operation's columns are its first block's
        first = first.left  # type: ignore[assignment]
    assert isinstance(first, Select)
    if any(isinstance(i.operand if isinstance(i, Alias) else i, Star) for i in first.items):
        return (SortItem(ALL_OUTPUT_COLUMNS, spec.ascending, spec.nulls_first),)
    return tuple(SortItem(Literal(n, "int"), spec.ascending, spec.nulls_first)
                 for n in range(1, len(first.items) + 1))


def parse_query(text: str) -> Query:
    """Parse a query of the supported SELECT subset to its syntax tree.

    Parameters
    ----------
    text : str
        The query text, as ``spark.sql`` takes it (trailing semicolons allowed).

    Returns
    -------
    Query
        A :class:`~.nodes.Select` or a :class:`~.nodes.SetOp`.

    Raises
    ------
    ParseException
        ``PARSE_SYNTAX_ERROR`` at the first token that does not fit the grammar.
    """
    parser = QueryParser(text)
    result = parser.query()
    parser.expect_end(semicolons=True)
    return result
