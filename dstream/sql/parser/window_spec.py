"""Parsing ``OVER (...)`` window specifications and ``ORDER BY`` items.

What this module owns
---------------------
:class:`WindowSpecParsing`, the part of the expression parser that reads what follows a
function call's ``OVER``, in Spark SQL's grammar::

    OVER ( [PARTITION BY e, ...] [ORDER BY sort, ...] [frame] )
    frame := (ROWS | RANGE) (bound | BETWEEN bound AND bound)
    bound := UNBOUNDED (PRECEDING | FOLLOWING) | CURRENT ROW | n (PRECEDING | FOLLOWING)
           | INTERVAL ... (PRECEDING | FOLLOWING)
    sort  := e [ASC | DESC] [NULLS FIRST | NULLS LAST]

A frame of one bound ends at the current row (``ROWS 2 PRECEDING`` is ``ROWS BETWEEN 2
PRECEDING AND CURRENT ROW``). Offsets are integer literals, or for a RANGE frame over a
timestamp or date ordering day-time intervals (``INTERVAL 1 DAY PRECEDING``, a
``datetime.timedelta`` in the frame). ``OVER w`` names a window of
the query's ``WINDOW w AS (...)`` clause; the query builder puts its specification in place.
"""

from __future__ import annotations

import datetime
from typing import Any

from dstream.sql.parser.lexer import syntax_error
from dstream.sql.parser.nodes import Call, Expr, Over, SortItem

__all__ = ["WindowSpecParsing"]


class WindowSpecParsing:
    """Mixed into the expression parser (which provides the token cursor and ``expression``)."""

    tok: Any
    _interval: Any  # the expression parser's INTERVAL literal reader

    def _over(self, call: Call) -> Over:
        cursor: Any = self
        cursor.advance()  # OVER
        if not cursor.tok.is_op("("):
            if cursor.tok.kind not in ("WORD", "QUOTED"):
                raise syntax_error(cursor.tok)
            return Over(call, window=cursor.identifier())
        return self._window_spec(call)

    def _window_spec(self, call: Call) -> Over:
        """``( [PARTITION BY ...] [ORDER BY ...] [frame] )`` (the parenthesis is the current token)."""
        cursor: Any = self
        cursor.expect_op("(")
        partition_by: list[Expr] = []
        if cursor.accept_word("PARTITION"):
            cursor.expect_word("BY")
            partition_by.append(cursor.expression())
            while cursor.accept_op(","):
                partition_by.append(cursor.expression())
        order_by: list[SortItem] = []
        if cursor.accept_word("ORDER"):
            cursor.expect_word("BY")
            order_by = self._sort_items()
        frame = None
        if cursor.tok.is_word("ROWS", "RANGE"):
            kind = cursor.advance().value.lower()
            if cursor.accept_word("BETWEEN"):
                lower = self._bound()
                cursor.expect_word("AND")
                upper = self._bound()
            else:
                lower, upper = self._bound(), 0
            frame = (kind, lower, upper)
        cursor.expect_op(")")
        return Over(call, tuple(partition_by), tuple(order_by), frame)

    def _bound(self) -> int | datetime.timedelta | None:
        """A frame bound as an offset from the current row (``None``: unbounded)."""
        cursor: Any = self
        if cursor.accept_word("UNBOUNDED"):
            cursor.expect_word("PRECEDING", "FOLLOWING")
            return None
        if cursor.accept_word("CURRENT"):
            cursor.expect_word("ROW")
            return 0
        if cursor.accept_word("INTERVAL"):
            span: datetime.timedelta = self._interval().value
            return -span if cursor.expect_word("PRECEDING", "FOLLOWING").value.upper() == "PRECEDING" else span
        token = cursor.tok
        if token.kind != "NUMBER" or not token.value.isdigit():
            raise syntax_error(token)
        cursor.advance()
        n = int(token.value)
        return -n if cursor.expect_word("PRECEDING", "FOLLOWING").value.upper() == "PRECEDING" else n

    def _sort_items(self) -> list[SortItem]:
        """``sort, ...`` after ``ORDER BY`` (of a window or of ``WITHIN GROUP``)."""
        cursor: Any = self
        items = [self._sort_item()]
        while cursor.accept_op(","):
            items.append(self._sort_item())
        return items

    def _sort_item(self) -> SortItem:
        cursor: Any = self
        expr = cursor.expression()
        ascending = True
        if cursor.accept_word("DESC"):
            ascending = False
        else:
            cursor.accept_word("ASC")
        nulls_first = None
        if cursor.accept_word("NULLS"):
            nulls_first = cursor.expect_word("FIRST", "LAST").value.upper() == "FIRST"
        return SortItem(expr, ascending, nulls_first)
