"""Parsing table function calls in FROM: their arguments (``TABLE(...)`` with its partitioning) and
``LATERAL f(...)`` / ``LATERAL (SELECT ...)``.

What this module owns
---------------------
:func:`table_function_call` (``name(arg, ...) [alias[(col, ...)]]``) and
:func:`lateral_function_call` (``, LATERAL f(...)`` / ``JOIN LATERAL f(...)``), functions
of the query parser (passed in) so that its module stays small.

Invariants
----------
* An argument may be named, ``name => value`` (then passed to ``eval`` by name).
* A ``TABLE`` argument is ``TABLE t``, ``TABLE(t)`` or ``TABLE(query)``, then
  ``PARTITION BY``/``DISTRIBUTE BY`` one expression or a parenthesised list, or ``WITH
  SINGLE PARTITION``; then ``ORDER BY``/``SORT BY`` one item or a parenthesised list,
  as Spark's grammar has them.
"""

from __future__ import annotations

from typing import Any

from dstream.sql.parser.lexer import syntax_error
from dstream.sql.parser.nodes import (
    Expr,
    LateralFunction,
    LateralSubquery,
    NamedArgument,
    Relation,
    SortItem,
    SubqueryRef,
    Table,
    TableArgument,
    TableFunction,
)

__all__ = ["lateral_function_call", "table_function_call"]


def table_function_call(parser: Any, name: str) -> TableFunction:
    """``name(args) [alias[(col, ...)]]``, the opening parenthesis the current token."""
    parser.advance()
    args: list[Expr | TableArgument | NamedArgument] = []
    if not parser.tok.is_op(")"):
        args.append(_function_argument(parser))
        while parser.accept_op(","):
            args.append(_function_argument(parser))
    parser.expect_op(")")
    alias = parser._alias()
    columns: tuple[str, ...] = ()
    if alias is not None and parser.accept_op("("):
        columns = parser._identifiers()
        parser.expect_op(")")
    return TableFunction(name.lower(), tuple(args), alias, columns)


def lateral_function_call(parser: Any, relation: Relation) -> LateralFunction | LateralSubquery:
    """``LATERAL f(args) [alias]`` or ``LATERAL (SELECT ...) [alias] [ON cond]`` after ``relation``
    (LATERAL the current token; ``ON`` only after a JOIN, which the caller says with ``join``)."""
    at = parser.advance()
    function = parser._primary_relation()
    if isinstance(function, SubqueryRef):
        return LateralSubquery(relation, function)
    if not isinstance(function, TableFunction):
        raise syntax_error(at, ": LATERAL here takes a table function call, such as LATERAL my_udtf(t.col), "
                               "or a subquery, such as LATERAL (SELECT t.a * 2 AS b)")
    return LateralFunction(relation, function)


def _function_argument(parser: Any) -> Expr | TableArgument | NamedArgument:
    """An argument of a table function: an expression, ``TABLE ...`` with its partitioning, or
    either of them by name (``name => value``)."""
    tok = parser.tok
    if tok.kind in ("WORD", "QUOTED") and parser.peek().is_op("=>"):
        name = parser.advance().value
        parser.advance()
        value = _function_argument(parser)
        if isinstance(value, NamedArgument):
            raise syntax_error(parser.tok, ": one name per argument, as in f(a => 1)")
        return NamedArgument(name, value)
    if not (tok.is_word("TABLE") and (parser.peek().is_op("(") or parser.peek().kind in ("WORD", "QUOTED"))):
        return parser.expression()
    parser.advance()
    relation: Relation
    if parser.accept_op("("):
        if parser.tok.is_word("SELECT", "WITH", "VALUES") or parser.tok.is_op("("):
            relation = SubqueryRef(parser.query())
        else:
            relation = Table(parser.multipart_identifier())
        parser.expect_op(")")
    else:
        relation = Table(parser.multipart_identifier())
    partition_by: list[Expr] = []
    single = False
    if parser.tok.is_word("WITH") and parser.peek().is_word("SINGLE"):
        parser.advance()
        parser.advance()
        parser.expect_word("PARTITION")
        single = True
    elif parser.tok.is_word("PARTITION", "DISTRIBUTE") and parser.peek().is_word("BY"):
        parser.advance()
        parser.advance()
        partition_by = _parenthesised_list(parser, parser.expression)
    order_by: list[SortItem] = []
    if parser.tok.is_word("ORDER", "SORT") and parser.peek().is_word("BY"):
        parser.advance()
        parser.advance()
        order_by = _parenthesised_list(parser, parser._sort_item)
    return TableArgument(relation, tuple(partition_by), single, tuple(order_by))


def _parenthesised_list(parser: Any, item: Any) -> list[Any]:
    """``(x, y, ...)`` or a single ``x``, as PARTITION BY and ORDER BY of a TABLE argument take them."""
    if not parser.tok.is_op("("):
        return [item()]
    save = parser.i
    parser.advance()
    items = [item()]
    while parser.accept_op(","):
        items.append(item())
    if parser.accept_op(")") and (parser.tok.is_op(",", ")") or parser.tok.is_word("ORDER", "SORT")):
        return items
    parser.i = save  # a parenthesised expression, (a + 1) * 2: read it whole
    return [item()]
