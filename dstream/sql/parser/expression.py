"""The expression parser: Spark SQL expression text to the syntax tree of :mod:`.nodes`.

What this module owns
---------------------
:class:`ExpressionParser`, a precedence-climbing parser over the tokens of
:mod:`.lexer` with Spark SQL's precedence, loosest first::

    OR  <  AND  <  NOT  <  predicate (IS [NOT] NULL, [NOT] IN/BETWEEN/LIKE/ILIKE/RLIKE, LIKE ANY/ALL,
    IS [NOT] DISTINCT FROM)  <  comparison (= == <> != < <= > >= <=>)  <  |  <  ^  <  &
    <  << >> >>>  <  + - ||  <  * / % DIV  <  unary - + ~  <  postfix (. [] ::)

Binary operators are left-associative; a predicate applies once to a value expression (as
in Spark's grammar), so ``a = b IS NULL`` is ``(a = b) IS NULL`` and ``NOT a = b AND c``
is ``(NOT (a = b)) AND c``. Literals get Spark's types (see :func:`number_literal`).

Invariants
----------
* Keywords and function names are case-insensitive; identifiers keep their case.
* Every syntax error is a ``ParseException`` with condition ``PARSE_SYNTAX_ERROR`` naming the
  token where the text stopped making sense.
"""

from __future__ import annotations

import datetime
from typing import Any

from dstream.sql.errors import ParseException
from dstream.sql.kernels import interval_text as intervals
from dstream.sql.parser.cursor import ALIAS_RESERVED, TokenCursor
from dstream.sql.parser.lexer import Token, syntax_error
from dstream.sql.parser.literals import number_literal
from dstream.sql.parser.nodes import (
    Alias,
    Between,
    Binary,
    Call,
    Case,
    Cast,
    DistinctFrom,
    Exists,
    Expr,
    Field,
    In,
    InSubquery,
    IsBool,
    IsNull,
    Lambda,
    Like,
    Literal,
    Name,
    SortItem,
    Star,
    Subquery,
    Subscript,
    Unary,
)
from dstream.sql.parser.special_forms import SpecialForms
from dstream.sql.parser.window_spec import WindowSpecParsing
from dstream.sql.types import DayTimeIntervalType, YearMonthIntervalType

__all__ = ["ExpressionParser", "parse_expression_ast"]


# Binary operators of value expressions: token -> (binding power, node operator).
_BINARY = {
    "*": (7, "*"), "/": (7, "/"), "%": (7, "%"), "DIV": (7, "DIV"),
    "+": (6, "+"), "-": (6, "-"), "||": (6, "||"),
    "<<": (5, "<<"), ">>": (5, ">>"), ">>>": (5, ">>>"),
    "&": (4, "&"), "^": (3, "^"), "|": (2, "|"),
    "=": (1, "="), "==": (1, "="), "<>": (1, "!="), "!=": (1, "!="), "<": (1, "<"), "<=": (1, "<="),
    ">": (1, ">"), ">=": (1, ">="), "<=>": (1, "<=>"),
}


# Functions Spark also accepts without parentheses.
_NILADIC = ("CURRENT_DATE", "CURRENT_TIMESTAMP", "CURRENT_USER", "CURRENT_TIMEZONE")


#: Functions whose first argument may be a bare datetime unit, and the function they are then.
_UNIT_FUNCTIONS = {"TIMESTAMPDIFF": "timestampdiff", "DATEDIFF": "timestampdiff", "DATE_DIFF": "timestampdiff",
                   "TIMESTAMPADD": "timestampadd", "DATEADD": "timestampadd"}
_DATETIME_UNITS = frozenset({"MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH",
                             "QUARTER", "YEAR"})

class ExpressionParser(SpecialForms, WindowSpecParsing, TokenCursor):
    """The expression grammar over a :class:`~.cursor.TokenCursor`.

    Parameters
    ----------
    text : str
        The SQL text; tokenized on construction.
    """

    # -- named expressions -----------------------------------------------------------
    def named_expression(self) -> Expr:
        """``expr [[AS] alias]`` or ``expr AS (a, b)``."""
        expr = self.expression()
        if self.tok.is_word("AS") and not self.stands_alone():
            self.advance()
            if self.accept_op("("):
                names = [self.identifier()]
                while self.accept_op(","):
                    names.append(self.identifier())
                self.expect_op(")")
                return Alias(expr, tuple(names))
            return Alias(expr, (self.identifier(),))
        alias = self.bare_alias(ALIAS_RESERVED, before_from=True)
        return expr if alias is None else Alias(expr, (alias,))

    # -- boolean level ---------------------------------------------------------------
    def expression(self) -> Expr:
        """A full expression (OR is the loosest operator)."""
        left = self._and()
        while self.tok.is_word("OR") and not self.stands_alone():  # `SELECT 1 or`: an alias
            self.advance()
            left = Binary("OR", left, self._and())
        return left

    def _and(self) -> Expr:
        left = self._not()
        while self.tok.is_word("AND") and not self.stands_alone():  # `SELECT 1 and`: an alias
            self.advance()
            left = Binary("AND", left, self._not())
        return left

    def _not(self) -> Expr:
        if self.tok.is_word("NOT") and self._keyword_is_column():
            return self._predicated()  # `not > 0`, `SELECT not, 1`: a column named not, as in Spark
        if self.tok.is_word("NOT") or self.tok.is_op("!"):
            self.advance()
            return Unary("NOT", self._not())
        return self._predicated()

    def _predicated(self) -> Expr:
        value = self.value_expression()
        token = self.tok
        if token.kind == "WORD" and self.stands_alone():  # `SELECT 1 is`: an alias named is
            return value
        if token.is_word("IS"):
            self.advance()
            negated = self.accept_word("NOT")
            if self.accept_word("NULL"):
                return IsNull(value, negated)
            if self.accept_word("DISTINCT"):
                self.expect_word("FROM")
                return DistinctFrom(value, self.value_expression(), negated)
            word = self.expect_word("TRUE", "FALSE", "UNKNOWN").value.upper()
            return IsBool(value, None if word == "UNKNOWN" else word == "TRUE", negated)
        negated = False
        if token.is_word("NOT") and self.peek().is_word("IN", "BETWEEN", "LIKE", "ILIKE", "RLIKE", "REGEXP"):
            self.advance()
            negated = True
        if self.accept_word("IN"):
            self.expect_op("(")
            if self.tok.is_word("SELECT", "WITH"):
                query = self._subquery_body()
                self.expect_op(")")
                return InSubquery(value, query, negated)
            values = [self.expression()]
            while self.accept_op(","):
                values.append(self.expression())
            self.expect_op(")")
            return In(value, tuple(values), negated)
        if self.accept_word("BETWEEN"):
            low = self.value_expression()
            self.expect_word("AND")
            return Between(value, low, self.value_expression(), negated)
        if self.tok.is_word("LIKE", "ILIKE", "RLIKE", "REGEXP"):
            kind = self.advance().value.upper()
            kind = "RLIKE" if kind == "REGEXP" else kind
            if kind != "RLIKE" and self.tok.is_word("ANY", "SOME", "ALL") and self.peek().is_op("("):
                return self._quantified_like(kind, value, negated)
            pattern = self.value_expression()
            escape = None
            if kind != "RLIKE" and self.accept_word("ESCAPE"):
                if self.tok.kind != "STRING" or len(self.tok.value) != 1:
                    raise syntax_error(self.tok)
                escape = self.advance().value
            return Like(kind, value, pattern, negated, escape)
        if negated:
            raise syntax_error(self.tok)
        return value

    def _keyword_is_column(self) -> bool:
        """Whether the keyword here is a column name: nothing, or a binary operator, follows it."""
        nxt = self.peek()
        return self.stands_alone() or nxt.is_op(".") or (nxt.kind == "OP" and nxt.value in _BINARY
                                                         and nxt.value not in "+-")

    # -- value level -----------------------------------------------------------------
    def value_expression(self, min_power: int = 1) -> Expr:
        """A value expression whose binary operators bind at least as tight as ``min_power``."""
        left = self._unary()
        while True:
            token = self.tok
            key = token.value.upper() if token.kind == "WORD" else token.value if token.kind == "OP" else ""
            if key not in _BINARY or (token.kind == "WORD") != (key == "DIV"):
                return left
            power, op = _BINARY[key]
            if power < min_power:
                return left
            self.advance()
            left = Binary(op, left, self.value_expression(power + 1))

    def _unary(self) -> Expr:
        token = self.tok
        if token.is_op("-") and self.peek().kind == "NUMBER":  # +1 stays (+ 1), as Spark names it
            self.advance()
            literal = number_literal(self.advance().value, negative=token.value == "-")
            return self._postfix(literal)
        if token.is_op("-", "+", "~"):
            self.advance()
            return Unary(token.value, self._unary())
        return self._postfix(self._primary())

    def _postfix(self, expr: Expr) -> Expr:
        while True:
            if self.tok.is_op(".") and not isinstance(expr, Literal):
                self.advance()
                if self.tok.is_op("*"):
                    if not isinstance(expr, Name):
                        raise syntax_error(self.tok)
                    self.advance()
                    return Star(expr.parts)
                # After a dot every word names a field, keywords too: Spark's `session.end`.
                name = self.advance().value if self.tok.kind == "WORD" else self.identifier()
                expr = Name(expr.parts + (name,)) if isinstance(expr, Name) else Field(expr, name)
            elif self.accept_op("["):
                index = self.expression()
                self.expect_op("]")
                expr = Subscript(expr, index)
            elif self.accept_op("::"):
                expr = Cast(expr, self.data_type())
            else:
                return expr

    def _primary(self) -> Expr:
        token = self.tok
        if token.kind == "NUMBER":
            self.advance()
            return number_literal(token.value)
        if token.kind == "STRING":
            self.advance()
            return Literal(token.value, "string")
        if token.kind == "QUOTED":
            self.advance()
            return Name((token.value,))
        if token.is_op("*"):
            self.advance()
            return Star()
        if token.is_op("("):
            return self._parenthesized()
        if token.kind != "WORD":
            raise syntax_error(token)
        return self._word_primary(token)

    def _parenthesized(self) -> Expr:
        self.expect_op("(")
        if self.tok.is_word("SELECT", "WITH"):
            query = self._subquery_body()
            self.expect_op(")")
            return Subquery(query)
        expr = self.expression()
        self.expect_op(")")
        return expr

    def _subquery_body(self) -> Any:
        """A query inside an expression (the parenthesis consumed); only a query parser has them."""
        raise ParseException("A subquery is only supported in a query (spark.sql), not in an expression string.",
                             "UNSUPPORTED_FEATURE", {"feature": "subquery in an expression"})

    def _word_primary(self, token: Token) -> Expr:
        word = token.value.upper()
        nxt = self.peek()
        if word in ("TRUE", "FALSE"):
            self.advance()
            return Literal(word == "TRUE", "boolean")
        if word == "NULL":
            self.advance()
            return Literal(None, "void")
        if word == "CASE" and not self._keyword_is_column():
            if self.peek().is_word("WHEN"):
                return self._case()
            start, tokens = self.i, list(self.tokens)
            try:  # CASE x WHEN ...; else `case` names a column (`SELECT case + 1`), as Spark decides
                return self._case()
            except ParseException:
                self.i, self.tokens = start, tokens
        if word == "EXISTS" and nxt.is_op("(") and self.peek(2).is_word("SELECT", "WITH"):  # else exists(array, f)
            self.advance()
            self.expect_op("(")
            query = self._subquery_body()
            self.expect_op(")")
            return Exists(query)
        if word in ("CAST", "TRY_CAST") and nxt.is_op("("):
            self.advance()
            self.advance()
            operand = self.expression()
            self.expect_word("AS")
            type_name = self.data_type()
            self.expect_op(")")
            return Cast(operand, type_name, word == "TRY_CAST")
        if nxt.kind == "STRING" and word in ("DATE", "TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "X"):
            self.advance()
            text = self.advance().value
            if word == "X":
                return self._binary_literal(text, nxt)
            type_name = {"TIMESTAMP_LTZ": "timestamp"}.get(word, word.lower())
            return Literal(text, type_name)
        signed_value = nxt.is_op("-", "+") and self.peek(2).kind in ("NUMBER", "STRING")
        if word == "INTERVAL" and (nxt.kind in ("NUMBER", "STRING") or (  # else a column: `interval + 1`
                signed_value and intervals.is_unit(self.peek(3).value))):
            self.advance()
            return self._interval()
        if word == "EXTRACT" and nxt.is_op("("):
            self.advance()
            self.advance()
            field = self.identifier()
            self.expect_word("FROM")
            source = self.expression()
            self.expect_op(")")
            return Call("extract", (Literal(field, "string"), source))
        if (word in _UNIT_FUNCTIONS and nxt.is_op("(") and self.peek(2).kind == "WORD"
                and self.peek(2).value.upper() in _DATETIME_UNITS and self.peek(3).is_op(",")):
            # TIMESTAMPDIFF(HOUR, a, b), DATEADD(DAY, 1, t): the unit is a bare keyword.
            self.advance()
            self.advance()
            unit = self.advance().value.upper()
            self.expect_op(",")
            args = [Literal(unit, "string"), self.expression()] + self._more_arguments()
            return Call(_UNIT_FUNCTIONS[word], tuple(args))
        if word in ("TRIM", "OVERLAY") and nxt.is_op("(") and not self.peek(2).is_op(")"):
            return self._trim() if word == "TRIM" else self._overlay()
        if word == "POSITION" and nxt.is_op("("):
            self.advance()
            self.advance()
            needle = self.value_expression()
            if self.accept_word("IN"):
                haystack = self.expression()
                self.expect_op(")")
                return Call("locate", (needle, haystack))  # Spark names this form locate(...)
            args = [needle] + self._more_arguments()
            return Call("position", tuple(args))
        if word in ("SUBSTRING", "SUBSTR") and nxt.is_op("(") and not self.peek(2).is_op(")"):
            start = self.i
            self.advance()
            self.advance()
            args = [self.expression()]
            if self.accept_word("FROM"):  # SUBSTRING(s FROM p [FOR n]): named substring(s, p, n) as in Spark
                args.append(self.expression())
                if self.accept_word("FOR"):
                    args.append(self.expression())
                self.expect_op(")")
                return Call("substring", tuple(args))
            self.i = start
        if nxt.is_op("("):
            return self._call()
        if nxt.is_op("->"):
            self.advance()
            self.advance()
            return Lambda((token.value,), self.expression())
        if word in _NILADIC and not nxt.is_op("."):  # current_date.x: a table named current_date
            self.advance()
            return Call(word.lower())
        return Name((self.identifier(),))

    def _interval(self) -> Literal:
        """After ``INTERVAL``: ``'1 02:03' DAY TO MINUTE``, ``-'1-2' YEAR TO MONTH``, ``'1 day 2 hours'``
        or ``1 HOUR 30 MINUTES``."""
        start_token = self.tok
        signed = 1 if self.tok.is_op("-", "+") else 0
        if self.tok.kind == "STRING" and not (self.peek().kind == "WORD" and intervals.is_unit(self.peek().value)):
            value, first, last, year_month = intervals.unit_text(self.advance().value)
        elif self.peek(signed).kind == "STRING" and self.peek(signed + 2).is_word("TO"):
            sign = self.advance().value if signed else ""
            text = self.advance().value
            start = self.advance().value
            self.advance()
            end = self.expect_word(*intervals.FIELDS, "YEAR", "MONTH").value
            value, first, last, year_month = intervals.unit_to_unit(text, start, end)
            value = -value if sign == "-" else value
        else:
            pairs = []
            while True:
                signed = 1 if self.tok.is_op("-", "+") else 0
                number, unit = self.peek(signed), self.peek(signed + 1)
                is_unit = unit.kind == "WORD" and intervals.is_unit(unit.value)
                if number.kind not in ("NUMBER", "STRING") or not is_unit:
                    break
                sign = "-" if signed and self.advance().value == "-" else ""
                self.advance()
                self.advance()
                pairs.append((sign + number.value, unit.value))
            if not pairs:
                raise syntax_error(start_token, ": INTERVAL needs a value and a unit, as in INTERVAL 1 HOUR")
            context = " ".join(f"{v} {u}" for v, u in pairs)
            value, first, last, year_month = intervals.multi_unit(pairs, context)
        if year_month:
            return Literal(value, YearMonthIntervalType(first, last).simpleString())
        return Literal(datetime.timedelta(microseconds=value), DayTimeIntervalType(first, last).simpleString())

    def _binary_literal(self, text: str, token: Token) -> Literal:
        try:
            return Literal(bytes.fromhex(text if len(text) % 2 == 0 else "0" + text), "binary")
        except ValueError:
            raise syntax_error(token) from None

    def _more_arguments(self) -> list[Expr]:
        args: list[Expr] = []
        while self.accept_op(","):
            args.append(self._argument())
        self.expect_op(")")
        return args

    def _argument(self) -> Expr:
        if self.tok.is_op("(") and self._lambda_ahead():
            self.advance()
            params = [self.identifier()]
            while self.accept_op(","):
                params.append(self.identifier())
            self.expect_op(")")
            self.expect_op("->")
            return Lambda(tuple(params), self.expression())
        expr = self.expression()
        if self.accept_word("AS"):  # struct(a AS x): the field's name, as Spark accepts
            return Alias(expr, (self.identifier(),))
        return expr

    def _lambda_ahead(self) -> bool:
        """Whether ``( a, b ) ->`` starts at the current ``(``."""
        k = 1
        while self.peek(k).kind in ("WORD", "QUOTED"):
            if self.peek(k + 1).is_op(")"):
                return self.peek(k + 2).is_op("->")
            if not self.peek(k + 1).is_op(","):
                return False
            k += 2
        return False

    def _call(self) -> Expr:
        name = self.advance().value.lower()
        self.expect_op("(")
        distinct = False
        if self.accept_word("DISTINCT"):
            distinct = True
        else:
            self.accept_word("ALL")
        args: list[Expr] = []
        if not self.tok.is_op(")"):
            args.append(self._argument())
            args.extend(self._more_arguments())
        else:
            self.advance()
        ignore_nulls = False
        if self.tok.is_word("IGNORE", "RESPECT") and self.peek().is_word("NULLS"):
            ignore_nulls = self.advance().value.upper() == "IGNORE"
            self.advance()
        within: list[SortItem] = []
        if self.tok.is_word("WITHIN") and self.peek().is_word("GROUP"):
            self.advance()
            self.advance()
            self.expect_op("(")
            self.expect_word("ORDER")
            self.expect_word("BY")
            within = self._sort_items()
            self.expect_op(")")
        condition = None
        if self.tok.is_word("FILTER") and self.peek().is_op("("):  # Spark's order: WITHIN GROUP, then FILTER
            self.advance()
            self.advance()
            self.expect_word("WHERE")
            condition = self.expression()
            self.expect_op(")")
        if not ignore_nulls and self.tok.is_word("IGNORE", "RESPECT") and self.peek().is_word("NULLS"):
            ignore_nulls = self.advance().value.upper() == "IGNORE"  # after FILTER too, as Spark allows
            self.advance()
        call = Call(name, tuple(args), distinct, ignore_nulls, tuple(within), condition)
        if self.tok.is_word("OVER"):
            return self._over(call)
        return call

    def _case(self) -> Expr:
        self.advance()
        operand = None if self.tok.is_word("WHEN") else self.expression()
        branches = []
        while self.accept_word("WHEN"):
            condition = self.expression()
            self.expect_word("THEN")
            branches.append((condition, self.expression()))
        if not branches:
            raise syntax_error(self.tok)
        otherwise = self.expression() if self.accept_word("ELSE") else None
        self.expect_word("END")
        return Case(operand, tuple(branches), otherwise)


def parse_expression_ast(text: str) -> Expr:
    """Parse one named expression (``expr [[AS] alias]``) to its syntax tree.

    Parameters
    ----------
    text : str
        The expression, as ``F.expr`` or ``selectExpr`` take it.

    Returns
    -------
    Expr
        The tree; an :class:`~.nodes.Alias` at the top when the text names its result.

    Raises
    ------
    ParseException
        When the text is not a single well-formed expression.
    """
    parser = ExpressionParser(text)
    if parser.tok.kind == "EOF":
        raise syntax_error(parser.tok)
    expr = parser.named_expression()
    parser.expect_end()
    return expr
