"""``DataFrame.lateralJoin``: each row joined with the rows a table function makes from it.

What this module owns
---------------------
:class:`LateralCall`, what ``spark.tvf.<f>(...)`` returns when an argument holds
``col.outer()`` (``spark.tvf.explode(col("arr").outer())``): the call, kept until the join
knows the outer DataFrame. :func:`lateral_join` is ``df.lateralJoin(other, on, how)``:

* ``other`` a :class:`LateralCall`: every row of ``df`` with the rows the function makes of
  it (``df.select("*", f(args))`` with the outer columns read from ``df``); as in PySpark
  4.0.1 the function runs as given whatever ``how`` says (``explode_outer`` keeps the rows
  ``explode`` makes nothing of); ``on`` filters the joined rows;
* ``other`` a DataFrame without outer columns: a join of the two (``on`` its condition, a
  cross join without one), as Spark's lateral join of an uncorrelated subquery.

``how`` is ``inner`` (default), ``cross`` or ``left``. A DataFrame built with ``outer()``
columns in its own operations (a correlated subquery) is refused where it is defined:
our DataFrames resolve each step when it is written (see ``expressions.outer_reference``).

Invariants
----------
* The result has ``df``'s columns first, then the function's (or ``other``'s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import AnalysisException
from .expressions.outer_reference import has_outer, without_outer

if TYPE_CHECKING:
    from .column import Column
    from .dataframe import DataFrame

__all__ = ["LateralCall", "lateral_join", "has_outer_argument"]

_HOWS = {"inner": "inner", "cross": "cross", "left": "left", "leftouter": "left", "left_outer": "left"}


def has_outer_argument(args: tuple[Any, ...]) -> bool:
    """Whether one of a call's Column arguments holds ``outer()``."""
    return any(has_outer(a.expr) for a in args if hasattr(a, "expr") and hasattr(a.expr, "walk"))


class LateralCall:
    """A table function call over outer columns, for :func:`lateral_join` (see the module doc)."""

    def __init__(self, name: str, args: tuple[Any, ...]) -> None:
        self.name = name
        self.args = args

    def __repr__(self) -> str:
        shown = ", ".join(a.expr.sql() if hasattr(a, "expr") else repr(a) for a in self.args)
        return f"LateralCall({self.name}({shown}))"

    def __getattr__(self, name: str) -> Any:
        raise AnalysisException(
            f"spark.tvf.{self.name}(...) with outer() columns is the right side of a lateral join: pass it to "
            f"df.lateralJoin(...) (it has no {name!r} of its own).", "UNSUPPORTED_FEATURE",
            {"feature": f"{name} of a table function over outer() columns"})

    def columns_of(self) -> Column:
        """The generator over the outer DataFrame's columns."""
        from . import functions  # noqa: PLC0415 - the functions import the session's modules
        from .column import Column  # noqa: PLC0415

        name = self.name
        args = [Column(without_outer(a.expr)) if hasattr(a, "expr") and hasattr(a.expr, "walk") else a
                for a in self.args]
        if name in ("variant_explode", "variant_explode_outer"):
            from .expressions.variant_functions import VariantExplode  # noqa: PLC0415 - a table function only

            return Column(VariantExplode(args[0].expr, name.endswith("_outer")))
        return getattr(functions, name)(*args)


def lateral_join(df: DataFrame, other: Any, on: Column | None = None, how: str | None = None) -> DataFrame:
    """``df.lateralJoin(other, on, how)`` (see the module doc)."""
    kind = _HOWS.get((how or "inner").lower().replace(" ", ""))
    if kind is None:
        raise AnalysisException(
            f"Unsupported join type '{how}'. Supported join types include: 'inner', 'leftouter', 'left', 'left_outer', "
            "'cross'.", "UNSUPPORTED_JOIN_TYPE",
            {"typ": str(how), "supported": "'inner', 'leftouter', 'left', 'left_outer', 'cross'"})
    if isinstance(other, LateralCall):
        if kind == "left" and on is not None:
            raise AnalysisException(
                "A LEFT lateral join of a table function with an ON condition is not supported here: filter the "
                "result instead.", "UNSUPPORTED_FEATURE", {"feature": "LEFT lateral join with ON"})
        # As PySpark 4.0.1: the function runs as given, so a LEFT join of explode still drops the rows
        # it makes nothing of (explode_outer keeps them).
        joined = df.select("*", other.columns_of())
        return joined if on is None else joined.where(on)
    if on is None:
        return df.crossJoin(other) if kind != "left" else df.join(other, how="left", on=_true())
    return df.join(other, on, "inner" if kind == "cross" else kind)


def _true() -> Column:
    from . import functions  # noqa: PLC0415 - the functions import the session's modules

    return functions.lit(True)
