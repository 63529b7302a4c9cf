"""``x [NOT] LIKE ANY|ALL (p, ...)`` as a Column of the public API.

What this module owns
---------------------
:func:`quantified_like`: the parser's ``likeany(x, p, ...)`` (and ``likeall``,
``notlikeany``, ``notlikeall``) become the OR (ANY) or AND (ALL) of ``x [NOT] LIKE p``, with
SQL's three-valued logic (a null pattern that decides nothing makes the result null). As
Spark does, the result is named ``likeany(x)`` when every pattern is a non-null string
literal (Spark's dedicated expression), else by the expanded form it then uses.
"""

from __future__ import annotations

from typing import Any

from dstream.sql.parser.nodes import Call, Like, Literal

__all__ = ["QUANTIFIED_LIKES", "quantified_like"]

#: The parser's names of the quantified LIKE forms.
QUANTIFIED_LIKES = frozenset({"likeany", "likeall", "notlikeany", "notlikeall"})


def quantified_like(builder: Any, node: Call) -> Any:
    """The Column of ``likeany(x, p1, p2, ...)`` and its siblings.

    Parameters
    ----------
    builder : columns._Builder
        Builds the Column of a syntax tree (``build``).
    node : Call
        ``name`` one of :data:`QUANTIFIED_LIKES`; the operand first, then the patterns.

    Returns
    -------
    Column
        True when any (all) of the patterns match (with NOT: do not match).
    """
    negated = node.name.startswith("not")
    operand, patterns = node.args[0], node.args[1:]
    result = None
    for pattern in patterns:
        test = builder.build(Like("LIKE", operand, pattern, negated))
        result = test if result is None else (result & test if node.name.endswith("all") else result | test)
    assert result is not None  # the parser requires one pattern at least
    if all(isinstance(p, Literal) and isinstance(p.value, str) for p in patterns):
        from ..expressions.sql_named import SqlNamed  # noqa: PLC0415 - SQL-only expression

        text = f"{node.name}({builder.build(operand).expr.sql()})"
        return type(result)(SqlNamed(result.expr, text))
    return result
