"""Spark's generated names of SQL calls that run a function known by another name.

What this module owns
---------------------
:func:`named_as_called`: the Column of an SQL call renamed the way Spark names it. Spark
shows some of its function aliases as called (``pow(2, 3)``, ``mod(5, 2)``, ``mean(v)``,
``any(c)``, ``date_diff(a, b)``) where PySpark's function of that name shows the canonical
name (``F.pow`` is ``POWER(2, 3)``, ``F.mean`` is ``avg(v)``), and names some SQL forms as
their own function (``a << b`` is ``(a << b)``, not ``shiftleft(a, b)``).

Invariants
----------
* Only the name changes: the expression computed is the one the function builds.
* A call whose expression cannot carry another name keeps the function's name.
"""

from __future__ import annotations

from typing import Any

from ..expressions.base import with_new_children
from ..expressions.operators import BinaryArithmetic
from ..expressions.scalar_functions import ScalarFunction

__all__ = ["named_as_called", "SHOWN_AS_CALLED", "OPERATOR_NAMES"]

#: SQL names Spark's column names keep as called.
SHOWN_AS_CALLED = frozenset({"pow", "mod", "mean", "any", "date_diff"})

#: The shift operators, named as written rather than as their functions.
OPERATOR_NAMES = {"shiftleft": "({0} << {1})", "shiftright": "({0} >> {1})", "shiftrightunsigned": "({0} >>> {1})"}


def named_as_called(column: Any, shown: str) -> Any:
    """``column`` (the result of an SQL call) named ``shown``: a name, or a template of its arguments.

    Parameters
    ----------
    column : Column
        What the function of the call built.
    shown : str
        The name as called (``pow``), or a template such as ``"({0} << {1})"``.

    Returns
    -------
    Column
        The same computation under Spark's name (unchanged if its expression has no name to set).
    """
    expr = column.expr
    if isinstance(expr, ScalarFunction):
        return type(column)(expr.shown_as(shown))
    if isinstance(expr, BinaryArithmetic):
        renamed = expr.with_children(expr.children)
        renamed.shown = shown  # type: ignore[attr-defined]
        return type(column)(renamed)
    if isinstance(getattr(type(expr), "name", None), str):  # aggregates, coalesce: a name attribute
        renamed = with_new_children(expr, expr.children)
        renamed.name = shown
        return type(column)(renamed)
    return column
