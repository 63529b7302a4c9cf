"""Window functions: ``f(...) OVER (PARTITION BY ... ORDER BY ... frame)``.

What this module owns
---------------------
:class:`WindowFrame` (Spark's ``SpecifiedWindowFrame``), :class:`WindowExpression`
(a function over a window: the function, the partition keys, the ordering and the
frame) and the functions that only exist over a window: the ranking functions
(``row_number``, ``rank``, ``dense_rank``, ``percent_rank``, ``cume_dist``,
``ntile``) and the offset functions (``lag``, ``lead``). Any aggregate function can
also be computed over a window.

Invariants
----------
* A frame bound is ``None`` for unbounded, else an offset from the current row (rows)
  or from its ordering value (range); ``0`` is the current row.
* The frame of an expression without one is Spark's default: rows between unbounded
  preceding and current row for the ranking functions; ``lag(x, n)`` and ``lead(x, n)``
  look at the row ``n`` before or after (rows between ``-n`` and ``-n``, or ``n`` and
  ``n``); an aggregate's is range between unbounded preceding and current row when the
  window is ordered (the current row's peers, rows with the same ordering values, are in
  its frame), else the whole partition.
* Window functions are never evaluated row by row (the window operator computes them);
  :meth:`Expression.eval` raises.
* The generated column name is Spark's: ``rank() OVER (PARTITION BY k ORDER BY v ASC
  NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)``.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..errors import AnalysisException
from ..types import DataType, DayTimeIntervalType, DoubleType, IntegerType, NullType
from .aggregate_base import AggregateFunction, SortOrder
from .base import EvalContext, Expression, Literal, with_new_children

__all__ = [
    "CumeDist",
    "DenseRank",
    "Lag",
    "Lead",
    "NTile",
    "NthValue",
    "OffsetFunction",
    "PercentRank",
    "Rank",
    "RankingFunction",
    "RowNumber",
    "WindowExpression",
    "WindowFrame",
    "WindowFunction",
]


@dataclass(frozen=True)
class WindowFrame:
    """``ROWS|RANGE BETWEEN lower AND upper``: bounds relative to the current row, ``None`` unbounded.

    A RANGE frame's offsets are numbers added to a numeric ordering value, or day-time
    intervals (``datetime.timedelta``, from SQL) added to a timestamp or date one.
    """

    kind: str  # "rows" or "range"
    lower: int | float | datetime.timedelta | None
    upper: int | float | datetime.timedelta | None

    @property
    def has_intervals(self) -> bool:
        return isinstance(self.lower, datetime.timedelta) or isinstance(self.upper, datetime.timedelta)

    def sql(self) -> str:
        lower, upper = _bound_sql(self.lower, "PRECEDING"), _bound_sql(self.upper, "FOLLOWING")
        return f"{self.kind.upper()} BETWEEN {lower} AND {upper}"

    @property
    def is_whole_partition(self) -> bool:
        return self.lower is None and self.upper is None


def _bound_sql(bound: int | float | datetime.timedelta | None, unbounded: str) -> str:
    if bound is None:
        return f"UNBOUNDED {unbounded}"
    if isinstance(bound, datetime.timedelta):
        # SQL's INTERVAL ... PRECEDING is a negated interval, which Spark prints so.
        span = Literal(abs(bound), DayTimeIntervalType()).sql()
        return f"{span} PRECEDING" if bound < datetime.timedelta(0) else f"{span} FOLLOWING"
    if bound == 0:
        return "CURRENT ROW"
    return f"{bound} FOLLOWING"  # Spark prints a literal offset so, -1 included


def offset_value(bound: int | float | datetime.timedelta) -> float:
    """A frame offset as a number: an interval in microseconds."""
    if isinstance(bound, datetime.timedelta):
        return bound / datetime.timedelta(microseconds=1)
    return float(bound)


RUNNING = WindowFrame("rows", None, 0)
RANGE_RUNNING = WindowFrame("range", None, 0)
WHOLE = WindowFrame("rows", None, None)


class WindowFunction(Expression):
    """A function that only has a value over a window (ranking and offset functions)."""

    name = "window_function"
    children: tuple[Expression, ...] = ()
    #: Computed over a frame of its own (:meth:`frame`), needing an ordered window; else over
    #: the window's frame, as an aggregate (``nth_value``).
    fixed_frame = True

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return with_new_children(self, children)

    @property
    def foldable(self) -> bool:
        return False

    def frame(self) -> WindowFrame:
        """The frame this function requires (the user may not choose another)."""
        return RUNNING

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        raise AnalysisException(
            f"Window function {self.sql()} requires an OVER clause: {self.sql()}.over(Window.partitionBy(...)"
            ".orderBy(...)).", "WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE", {"funcName": self.sql()})


class RankingFunction(WindowFunction):
    """``row_number()``, ``rank()``...: computed from each row's place in its ordered partition."""

    #: Spark prints the rank-like functions in capitals (``RANK()``), row_number() not.
    upper_case = True

    @property
    def nullable(self) -> bool:
        return False

    def data_type(self) -> DataType:
        return IntegerType()

    def sql(self) -> str:
        return f"{self.name.upper()}()" if self.upper_case else f"{self.name}()"


class RowNumber(RankingFunction):
    name = "row_number"
    upper_case = False


class Rank(RankingFunction):
    name = "rank"


class DenseRank(RankingFunction):
    name = "dense_rank"


class PercentRank(RankingFunction):
    name = "percent_rank"

    def data_type(self) -> DataType:
        return DoubleType()


class CumeDist(RankingFunction):
    name = "cume_dist"
    upper_case = False

    def data_type(self) -> DataType:
        return DoubleType()


class NTile(RankingFunction):
    """``ntile(n)``: the partition cut into ``n`` buckets whose sizes differ by at most one."""

    name = "ntile"
    upper_case = False

    def __init__(self, buckets: int) -> None:
        if isinstance(buckets, bool) or not isinstance(buckets, int) or buckets <= 0:
            raise AnalysisException(
                f"Buckets expression must be positive, but got: {buckets!r}. Give ntile a positive integer.",
                "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE", {"currentValue": repr(buckets)})
        self.buckets = buckets
        self.children = ()

    def sql(self) -> str:
        return f"ntile({self.buckets})"

    def _options(self) -> Any:
        return (self.buckets,)


class _RowValue(WindowFunction):
    """A function whose value is its input's at some row (``lag``, ``lead``, ``nth_value``)."""

    @property
    def input(self) -> Expression:
        return self.children[0]

    def data_type(self) -> DataType:
        return self.input.data_type()

    @property
    def nullable(self) -> bool:
        return True


class OffsetFunction(_RowValue):
    """``lag(x, n, default)`` / ``lead(x, n, default)``: ``x`` of the row ``n`` before / after.

    Children: the input and the default (evaluated on the current row, used when that row
    is outside the partition; a null value at that row stays null). With ``ignore_nulls``
    (SQL's ``IGNORE NULLS``) the rows whose ``x`` is null are skipped: ``x`` of the ``n``-th
    row before / after with a non-null ``x``, or the default when there is none.
    """

    direction = -1

    def __init__(self, child: Expression, offset: int = 1, default: Expression | None = None,
                 ignore_nulls: bool = False) -> None:
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise AnalysisException(
                f"The offset of {self.name} must be an integer literal, got {offset!r}.",
                "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", {"inputName": "offset"})
        self.offset = offset
        self.ignore_nulls = ignore_nulls
        self.children = (child, default if default is not None else Literal(None, NullType()))

    def ignoring_nulls(self) -> OffsetFunction:
        """The same function with ``IGNORE NULLS``."""
        return type(self)(self.input, self.offset, self.default, True)

    @property
    def default(self) -> Expression:
        return self.children[1]

    @property
    def shift(self) -> int:
        """How many rows ahead the value is read (negative: behind)."""
        return self.direction * self.offset

    def frame(self) -> WindowFrame:
        return WindowFrame("rows", self.shift, self.shift)

    def sql(self) -> str:
        text = f"{self.name}({self.input.sql()}, {self.offset}, {self.default.sql()})"
        return f"{text} IGNORE NULLS" if self.ignore_nulls else text

    def _options(self) -> Any:
        return (self.offset, self.ignore_nulls)


class Lag(OffsetFunction):
    name = "lag"
    direction = -1


class Lead(OffsetFunction):
    name = "lead"
    direction = 1


class NthValue(_RowValue):
    """``nth_value(x, n[, ignoreNulls])``: ``x`` of the frame's ``n``-th row (non-null value with
    ``ignoreNulls``), null when the frame has fewer; the frame is the window's, as an aggregate's."""

    name = "nth_value"
    fixed_frame = False

    def __init__(self, child: Expression, offset: int, ignore_nulls: bool = False) -> None:
        if isinstance(offset, bool) or not isinstance(offset, int) or offset <= 0:
            raise AnalysisException(
                f"The 'offset' parameter of nth_value must be a positive integer literal, got {offset!r}.",
                "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE", {"exprName": "offset", "currentValue": repr(offset)})
        self.offset = offset
        self.ignore_nulls = ignore_nulls
        self.children = (child,)

    def sql(self) -> str:
        text = f"nth_value({self.input.sql()}, {self.offset})"
        return text + " ignore nulls" if self.ignore_nulls else text

    def _options(self) -> Any:
        return (self.offset, self.ignore_nulls)


class WindowExpression(Expression):
    """``function OVER (PARTITION BY keys ORDER BY orders frame)``.

    Children: the function, then the partition keys, then the orderings (each a
    :class:`SortOrder`). ``frame`` is the one the user gave (``rowsBetween``...) or
    ``None`` for the default (:meth:`resolved_frame`).
    """

    def __init__(self, function: Expression, partition_by: Sequence[Expression], order_by: Sequence[Expression],
                 frame: WindowFrame | None = None) -> None:
        self.n_partition = len(partition_by)
        self.children = (function, *partition_by, *order_by)
        self.frame = frame

    @property
    def function(self) -> Expression:
        return self.children[0]

    @property
    def partition_by(self) -> list[Expression]:
        return list(self.children[1:1 + self.n_partition])

    @property
    def order_by(self) -> list[SortOrder]:
        return [o if isinstance(o, SortOrder) else SortOrder(o) for o in self.children[1 + self.n_partition:]]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return WindowExpression(children[0], children[1:1 + self.n_partition], children[1 + self.n_partition:],
                                self.frame)

    @property
    def foldable(self) -> bool:
        return False

    @property
    def nullable(self) -> bool:
        return self.function.nullable

    def data_type(self) -> DataType:
        return self.function.data_type()

    def resolved_frame(self) -> WindowFrame:
        """The frame the function is computed over (Spark's defaults when none was given)."""
        function = self.function
        if isinstance(function, WindowFunction) and function.fixed_frame:
            return function.frame()
        if self.frame is not None:
            return self.frame
        return RANGE_RUNNING if self.order_by else WHOLE

    def spec_sql(self) -> str:
        parts = []
        if self.partition_by:
            parts.append("PARTITION BY " + ", ".join(p.sql() for p in self.partition_by))
        if self.order_by:
            parts.append("ORDER BY " + ", ".join(o.sql() for o in self.order_by))
        parts.append(self.resolved_frame().sql())
        return "(" + " ".join(parts) + ")"

    def sql(self) -> str:
        return f"{self.function.sql()} OVER {self.spec_sql()}"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        raise TypeError(f"the window expression {self.sql()} is computed by the window operator, not row by row")

    def _options(self) -> Any:
        return (self.n_partition, self.frame)

    def check(self) -> None:
        """Raise ``AnalysisException`` for what Spark refuses (see the module doc)."""
        function = self.function
        if not isinstance(function, WindowFunction | AggregateFunction):
            raise AnalysisException(
                f"Expression '{function.sql()}' not supported within a window function: over() applies to a "
                "window function (row_number, rank, lag...) or an aggregate function (sum, count...).",
                "UNSUPPORTED_EXPR_FOR_WINDOW", {"sqlExpr": function.sql()})
        if isinstance(function, WindowFunction) and function.fixed_frame:
            if not self.order_by:
                raise AnalysisException(
                    f"Window function {function.sql()} requires window to be ordered, please add ORDER BY clause. "
                    f"For example SELECT {function.sql()} OVER (PARTITION BY window_partition ORDER BY "
                    "window_ordering) from table; in the DataFrame API, Window.partitionBy(...).orderBy(...).",
                    "WINDOW_FUNCTION_WITHOUT_ORDER", {"windowExpr": self.sql()})
            if self.frame is not None and self.frame != function.frame():
                # PySpark 4.0.1's conditions: _LEGACY_ERROR_TEMP_1035 for lag/lead, 1036 for the
                # ranking functions (their frame must be "unbounded preceding to current row").
                condition = "_LEGACY_ERROR_TEMP_1035" if function.name in ("lag", "lead") else "_LEGACY_ERROR_TEMP_1036"
                raise AnalysisException(
                    f"Cannot specify window frame for {function.name} function: it requires the frame "
                    f"{function.frame().sql()}, not {self.frame.sql()}. Drop rowsBetween/rangeBetween from its "
                    "window.", condition, {"windowExpr": self.sql()})
        frame = self.resolved_frame()
        if frame.kind == "range" and (frame.lower not in (None, 0) or frame.upper not in (None, 0)):
            orders = self.order_by
            if len(orders) != 1:
                raise AnalysisException(
                    f"A range window frame with value boundaries cannot be used in a window specification with "
                    f"{len(orders)} order by expressions: {self.sql()}. Order by one numeric column, or use "
                    "rowsBetween.", "DATATYPE_MISMATCH.RANGE_FRAME_MULTI_ORDER", {"sqlExpr": self.sql()})
            dtype = orders[0].data_type()
            accepted = (("timestamp", "timestamp_ntz", "date") if frame.has_intervals
                        else ("byte", "short", "integer", "long", "float", "double"))
            if dtype.typeName() not in accepted:
                raise AnalysisException(
                    f"The data type '{dtype.simpleString()}' used in the order specification does not match the "
                    f"data type of the range frame's offsets: {self.sql()}. Number offsets (rangeBetween) need a "
                    "numeric ordering column, INTERVAL offsets a timestamp or date one.",
                    "DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE",
                    {"sqlExpr": self.sql()})
        if (frame.lower is not None and frame.upper is not None
                and offset_value(frame.lower) > offset_value(frame.upper)):
            raise AnalysisException(
                f"The lower bound of a window frame must be less than or equal to the upper bound: {self.sql()}.",
                "DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON", {"sqlExpr": self.sql()})
