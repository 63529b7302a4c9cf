"""``spark.tvf``: PySpark 4's table-valued functions as DataFrame builders.

What this module owns
---------------------
:class:`TableValuedFunction`: ``range``, ``explode``, ``explode_outer``, ``posexplode``,
``posexplode_outer``, ``inline``, ``inline_outer``, ``json_tuple``, ``stack``, ``variant_explode``
and ``variant_explode_outer``. Each is the
SQL table function of that name: the rows the generator makes from its arguments, under the
generator's column names (``col``, ``pos``, ``c0``...), as ``SELECT * FROM explode(...)``.

Invariants
----------
* The arguments are Columns of constants (no input table), as PySpark's; a generator is
  evaluated once, on a single row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .column import Column
    from .dataframe import DataFrame
    from .session import SparkSession

__all__ = ["TableValuedFunction"]


class TableValuedFunction:
    """The table-valued functions of a session (``spark.tvf``)."""

    def __init__(self, session: SparkSession) -> None:
        self._session = session

    def _generate(self, name: str, *args: Any) -> DataFrame:
        from . import functions  # noqa: PLC0415 - the functions import the session's modules
        from .lateral_join import LateralCall, has_outer_argument  # noqa: PLC0415

        if has_outer_argument(args):  # over outer() columns: the right side of a lateralJoin
            return LateralCall(name, args)  # type: ignore[return-value]
        return self._session.range(1).select(getattr(functions, name)(*args))

    def range(self, start: int, end: int | None = None, step: int = 1,
              numPartitions: int | None = None) -> DataFrame:  # noqa: N803 - PySpark's name
        """``spark.range``: ``id`` from ``start`` (0 without ``end``) up to ``end``, by ``step``."""
        return self._session.range(start, end, step, numPartitions)

    def explode(self, collection: Column) -> DataFrame:
        """A row per element (``col``) or map entry (``key``, ``value``); none for null or empty."""
        return self._generate("explode", collection)

    def explode_outer(self, collection: Column) -> DataFrame:
        """:meth:`explode`, with one row of nulls for a null or empty collection."""
        return self._generate("explode_outer", collection)

    def posexplode(self, collection: Column) -> DataFrame:
        """:meth:`explode` with each element's position (``pos``) first."""
        return self._generate("posexplode", collection)

    def posexplode_outer(self, collection: Column) -> DataFrame:
        """:meth:`posexplode`, with one row of nulls for a null or empty collection."""
        return self._generate("posexplode_outer", collection)

    def inline(self, input: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        """A row per struct of an array of structs, a column per field."""
        return self._generate("inline", input)

    def inline_outer(self, input: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        """:meth:`inline`, with one row of nulls for a null or empty array."""
        return self._generate("inline_outer", input)

    def json_tuple(self, input: Column, *fields: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        """The values of top-level ``fields`` of a JSON string, as ``c0``, ``c1``..."""
        from .column import Column as _Column  # noqa: PLC0415 - the column module loads with the session
        from .errors import PySparkValueError  # noqa: PLC0415

        if not fields:
            raise PySparkValueError("At least one field must be specified.", "CANNOT_BE_EMPTY",
                                    {"item": "field"})
        # functions.json_tuple takes the field names as strings: a literal Column gives its text.
        names = [f.expr.value if isinstance(f, _Column) and hasattr(f.expr, "value") else f for f in fields]
        return self._generate("json_tuple", input, *names)

    def variant_explode(self, input: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        """A row per field of a variant object (``pos``, ``key``, ``value``) or element of an array
        (``key`` null); none for a scalar or null."""
        return self._variant_explode(input, outer=False)

    def variant_explode_outer(self, input: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        """:meth:`variant_explode`, with one row of nulls for a scalar or null."""
        return self._variant_explode(input, outer=True)

    def _variant_explode(self, input: Column, outer: bool) -> DataFrame:  # noqa: A002 - PySpark's name
        from .column import Column as _Column  # noqa: PLC0415 - the column module loads with the session
        from .column import expr_of  # noqa: PLC0415
        from .expressions.variant_functions import VariantExplode  # noqa: PLC0415 - the expressions load when used
        from .lateral_join import LateralCall, has_outer_argument  # noqa: PLC0415

        if has_outer_argument((input,)):
            return LateralCall("variant_explode_outer" if outer else "variant_explode", (input,))  # type: ignore

        return self._session.range(1).select(_Column(VariantExplode(expr_of(input), outer)))

    def stack(self, n: Column, *fields: Column) -> DataFrame:
        """``n`` rows from the values (``col0``, ``col1``...), filled row by row."""
        return self._generate("stack", n, *fields)
