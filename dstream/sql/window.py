"""``Window`` and ``WindowSpec``: PySpark's ``pyspark.sql.window``.

What this module owns
---------------------
The window specification a column is computed over with ``Column.over(spec)``: its
partition keys (``partitionBy``), its ordering (``orderBy``) and its frame
(``rowsBetween``/``rangeBetween``). A spec is immutable: each method returns a new one.

Frame bounds are PySpark's: ``Window.unboundedPreceding`` (any value at or below
``-sys.maxsize`` is unbounded), ``Window.unboundedFollowing`` (at or above
``sys.maxsize``), ``Window.currentRow`` (0), or an offset (negative: before the row).

>>> from dstream.sql import Window, functions as F
>>> w = Window.partitionBy("k").orderBy("v").rowsBetween(Window.unboundedPreceding, Window.currentRow)
>>> F.sum("v").over(w)
Column<'sum(v) OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)'>
"""

from __future__ import annotations

import sys
from typing import Any

from .column import Column, expr_of
from .errors import PySparkTypeError, PySparkValueError
from .expressions.aggregate_base import SortOrder
from .expressions.base import Expression
from .expressions.window_functions import WindowExpression, WindowFrame

__all__ = ["Window", "WindowSpec"]

_JAVA_MIN_LONG = -(1 << 63)
_JAVA_MAX_LONG = (1 << 63) - 1
# PySpark's thresholds: a bound at or beyond them is unbounded (so -sys.maxsize works too).
_PRECEDING_THRESHOLD = max(-sys.maxsize, _JAVA_MIN_LONG)
_FOLLOWING_THRESHOLD = min(sys.maxsize, _JAVA_MAX_LONG)


def _columns(cols: tuple[Any, ...]) -> list[Any]:
    if len(cols) == 1 and isinstance(cols[0], list | tuple):
        return list(cols[0])
    return list(cols)


def _order(col: Any) -> Expression:
    expr = expr_of(col)
    return expr if isinstance(expr, SortOrder) else SortOrder(expr)


def _bound(value: Any, name: str) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PySparkTypeError(
            f"[NOT_INT] Argument `{name}` should be an int, got {type(value).__name__}. Use "
            "Window.unboundedPreceding, Window.currentRow, Window.unboundedFollowing or an offset.",
            "NOT_INT", {"arg_name": name, "arg_type": type(value).__name__})
    if value <= _PRECEDING_THRESHOLD or value >= _FOLLOWING_THRESHOLD:
        return None
    return value


class WindowSpec:
    """A window: partition keys, ordering and frame (build it with :class:`Window`)."""

    def __init__(self, partition_by: list[Expression] | None = None, order_by: list[Expression] | None = None,
                 frame: WindowFrame | None = None) -> None:
        self._partition_by = list(partition_by or [])
        self._order_by = list(order_by or [])
        self._frame = frame

    def partitionBy(self, *cols: Any) -> WindowSpec:  # noqa: N802 - PySpark's name
        """The same window, partitioned by ``cols`` (names or columns)."""
        return WindowSpec([expr_of(c) for c in _columns(cols)], self._order_by, self._frame)

    def orderBy(self, *cols: Any) -> WindowSpec:  # noqa: N802 - PySpark's name
        """The same window, ordered by ``cols`` (ascending, nulls first, unless a column says otherwise)."""
        return WindowSpec(self._partition_by, [_order(c) for c in _columns(cols)], self._frame)

    def rowsBetween(self, start: int, end: int) -> WindowSpec:  # noqa: N802 - PySpark's name
        """The same window with the frame of rows ``start`` to ``end`` around the current row (inclusive).

        Parameters
        ----------
        start, end : int
            Offsets from the current row: ``Window.currentRow`` (0), a negative number of
            rows before, a positive number after, or ``Window.unboundedPreceding`` /
            ``Window.unboundedFollowing``.
        """
        return WindowSpec(self._partition_by, self._order_by, self._frame_of("rows", start, end))

    def rangeBetween(self, start: int, end: int) -> WindowSpec:  # noqa: N802 - PySpark's name
        """The same window with the frame of the rows whose ordering value is within ``start`` to ``end``
        of the current row's (its peers, rows with an equal value, included).

        Parameters
        ----------
        start, end : int
            Offsets added to the current row's ordering value (a single numeric column
            unless both are ``currentRow`` or unbounded), or the unbounded constants.
        """
        return WindowSpec(self._partition_by, self._order_by, self._frame_of("range", start, end))

    def interval_range(self, lower: Any, upper: Any) -> WindowSpec:
        """The same window with a RANGE frame of day-time interval offsets (``datetime.timedelta``,
        ``0`` for the current row, ``None`` unbounded): SQL's ``RANGE BETWEEN INTERVAL 1 DAY PRECEDING
        AND CURRENT ROW`` over a timestamp or date ordering."""
        return WindowSpec(self._partition_by, self._order_by, WindowFrame("range", lower, upper))

    @staticmethod
    def _frame_of(kind: str, start: Any, end: Any) -> WindowFrame:
        lower, upper = _bound(start, "start"), _bound(end, "end")
        if start >= _FOLLOWING_THRESHOLD or end <= _PRECEDING_THRESHOLD:
            raise PySparkValueError(
                f"[INVALID_WINDOW_BOUND] a frame cannot start at unbounded following nor end at unbounded "
                f"preceding (got start={start}, end={end}).", "INVALID_WINDOW_BOUND",
                {"start": str(start), "end": str(end)})
        return WindowFrame(kind, lower, upper)

    def _over(self, function: Expression) -> Column:
        return Column(WindowExpression(function, self._partition_by, self._order_by, self._frame))

    def __repr__(self) -> str:
        return f"<WindowSpec partitionBy={self._partition_by} orderBy={self._order_by} frame={self._frame}>"


class Window:
    """Entry points of window specifications (PySpark's ``Window``).

    >>> from dstream.sql import Window
    >>> Window.partitionBy("k").orderBy("t")  # doctest: +ELLIPSIS
    <WindowSpec ...>
    """

    unboundedPreceding: int = _JAVA_MIN_LONG  # noqa: N815 - PySpark's names
    unboundedFollowing: int = _JAVA_MAX_LONG  # noqa: N815
    currentRow: int = 0  # noqa: N815

    @staticmethod
    def partitionBy(*cols: Any) -> WindowSpec:  # noqa: N802 - PySpark's name
        """A window partitioned by ``cols``."""
        return WindowSpec().partitionBy(*cols)

    @staticmethod
    def orderBy(*cols: Any) -> WindowSpec:  # noqa: N802 - PySpark's name
        """A window (over all rows) ordered by ``cols``."""
        return WindowSpec().orderBy(*cols)

    @staticmethod
    def rowsBetween(start: int, end: int) -> WindowSpec:  # noqa: N802 - PySpark's name
        """A window (over all rows) with a row frame; see :meth:`WindowSpec.rowsBetween`."""
        return WindowSpec().rowsBetween(start, end)

    @staticmethod
    def rangeBetween(start: int, end: int) -> WindowSpec:  # noqa: N802 - PySpark's name
        """A window (over all rows) with a range frame; see :meth:`WindowSpec.rangeBetween`."""
        return WindowSpec().rangeBetween(start, end)
