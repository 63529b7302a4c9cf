"""SQL's keyword-argument function forms and quantified LIKE, for the expression parser.

What this module owns
---------------------
:class:`SpecialForms`, a mixin of :class:`~.expression.ExpressionParser` parsing::

    TRIM([BOTH | LEADING | TRAILING] [chars] FROM str)   -> trim|ltrim|rtrim(chars, str) or (str)
    OVERLAY(str PLACING repl FROM pos [FOR len])         -> overlay(str, repl, pos[, len])
    x [NOT] LIKE|ILIKE ANY|SOME|ALL (p, ...)             -> likeany|likeall|notlikeany|notlikeall(x, p, ...)

Each becomes the :class:`~.nodes.Call` of the function form Spark treats it as (SQL's
two-argument ``trim(chars, str)`` takes the characters first). ILIKE compares lower-cased
text, as Spark rewrites it: the operand becomes ``lower(x)`` and each pattern is lower-cased.

Invariants
----------
* ``trim(s)``, ``trim(chars, s)`` and ``overlay(a, b, c)`` written as plain calls give the
  same calls as before (their arguments are plain expressions).
"""

from __future__ import annotations

from typing import Any

from dstream.sql.parser.lexer import syntax_error
from dstream.sql.parser.nodes import Call, Expr, Literal

__all__ = ["SpecialForms"]

_TRIM_SIDES = {"BOTH": "trim", "LEADING": "ltrim", "TRAILING": "rtrim"}


class SpecialForms:
    """Parsing of TRIM/OVERLAY's keyword forms and of LIKE ANY/ALL (a mixin of the expression parser)."""

    def _trim(self) -> Expr:
        """``TRIM([side] [chars] FROM str)`` or a plain ``trim(...)`` call (TRIM the current token)."""
        cursor: Any = self
        cursor.advance()
        cursor.expect_op("(")
        name = "trim"
        if cursor.tok.is_word(*_TRIM_SIDES) and not cursor.peek().is_op(",", ")"):
            name = _TRIM_SIDES[cursor.advance().value.upper()]
        elif not cursor.tok.is_word("FROM"):
            first = cursor.expression()
            if not cursor.tok.is_word("FROM"):  # trim(s) or SQL's trim(chars, s)
                return Call("trim", (first, *cursor._more_arguments()))
            cursor.advance()
            source = cursor.value_expression()
            cursor.expect_op(")")
            return Call("trim", (first, source))
        chars = None if cursor.tok.is_word("FROM") else cursor.value_expression()
        cursor.expect_word("FROM")
        source = cursor.value_expression()
        cursor.expect_op(")")
        return Call(name, (source,) if chars is None else (chars, source))

    def _overlay(self) -> Expr:
        """``OVERLAY(str PLACING repl FROM pos [FOR len])`` or a plain ``overlay(...)`` call."""
        cursor: Any = self
        cursor.advance()
        cursor.expect_op("(")
        source = cursor.expression()
        if not cursor.accept_word("PLACING"):
            return Call("overlay", (source, *cursor._more_arguments()))
        replacement = cursor.value_expression()
        cursor.expect_word("FROM")
        args = [source, replacement, cursor.value_expression()]
        if cursor.accept_word("FOR"):
            args.append(cursor.value_expression())
        cursor.expect_op(")")
        return Call("overlay", tuple(args))

    def _quantified_like(self, kind: str, value: Expr, negated: bool) -> Expr:
        """``x [NOT] LIKE|ILIKE ANY|SOME|ALL (p, ...)`` (the quantifier the current token)."""
        cursor: Any = self
        quantifier = "all" if cursor.advance().is_word("ALL") else "any"
        cursor.expect_op("(")
        if cursor.tok.is_op(")"):
            raise syntax_error(cursor.tok, f": {kind} {quantifier.upper()} needs at least one pattern")
        patterns = [cursor.expression()]
        while cursor.accept_op(","):
            patterns.append(cursor.expression())
        cursor.expect_op(")")
        if kind == "ILIKE":  # case-insensitive: both sides lower-cased, as Spark rewrites it
            value = Call("lower", (value,))
            patterns = [Literal(p.value.lower(), p.type_name) if isinstance(p, Literal) and isinstance(p.value, str)
                        else p if isinstance(p, Literal) else Call("lower", (p,)) for p in patterns]
        name = ("not" if negated else "") + "like" + quantifier
        return Call(name, (value, *patterns))
