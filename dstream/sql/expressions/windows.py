"""Event-time windows: ``window(ts, "10 minutes"[, slide[, start]])`` and ``session_window(ts, gap)``.

What this module owns
---------------------
:class:`TimeWindow` and :class:`SessionWindow` (both named ``window`` /
``session_window`` and typed ``struct<start: timestamp, end: timestamp>``) and
:func:`duration_us`, the interval text (``"10 minutes"``, ``"1 hour 30 minutes"``,
``"interval 5 seconds"``) as microseconds.

How the analyzer uses them
--------------------------
* A *tumbling* window (slide == duration) is an ordinary expression: :meth:`eval`
  gives one window per row.
* A *sliding* window puts a row in several windows: :attr:`TimeWindow.is_sliding` is
  true and the window must be planned as a ``Generate`` over
  :meth:`TimeWindow.generate` (``(parent_indices, [window structs])``, output field
  ``window``), then the grouping refers to the generated column.
* Rows whose time is null belong to no window: ``generate`` drops them and ``eval``
  gives a null struct (Spark filters those rows out).
* :class:`SessionWindow` gives each row ``[ts, ts + gap)``; merging overlapping
  sessions of a key is the aggregation's job: :attr:`SessionWindow.gap_us`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import AnalysisException, IllegalArgumentException
from ..types import DataType, NullType, StringType, StructField, StructType, TimestampNTZType, TimestampType
from .base import EvalContext, Expression
from .cast import cast_to

__all__ = ["SessionWindow", "TimeWindow", "duration_us", "gap_micros", "positive_duration_us", "window_type"]

_UNITS = {
    "microsecond": 1, "millisecond": 1000, "second": 1_000_000, "minute": 60_000_000,
    "hour": 3_600_000_000, "day": 86_400_000_000, "week": 7 * 86_400_000_000,
}
_PART = re.compile(r"\s*(-?\d+)\s*([a-z]+?)s?\b", re.IGNORECASE)


def duration_us(text: str) -> int:
    """``"10 minutes"`` -> microseconds; months and years are refused (their length varies)."""
    total = _read_duration(text)
    if total is None:
        raise IllegalArgumentException(
            f"The provided interval ({text}) did not correspond to a valid interval string.",
            "INVALID_INTERVAL_FORMAT", {"input": text})
    return total


def positive_duration_us(text: str) -> int | None:
    """The microseconds of a positive interval string; ``None`` when unreadable or not positive (months raise)."""
    total = _read_duration(text)
    return total if total is not None and total > 0 else None


def _read_duration(text: str) -> int | None:
    """The microseconds of an interval string, ``None`` when it is not one (months raise)."""
    body = text.strip()
    if body.lower().startswith("interval"):
        body = body[len("interval"):]
    total, pos, found = 0, 0, False
    body = body.strip()
    while pos < len(body):
        m = _PART.match(body, pos)
        if m is None:
            break
        unit = m.group(2).lower()
        if unit in ("month", "year"):
            raise IllegalArgumentException(
                f"Intervals greater than a month is not supported ({text}).", "INVALID_INTERVAL_FORMAT",
                {"input": text})
        if unit not in _UNITS:
            break
        total += int(m.group(1)) * _UNITS[unit]
        pos, found = m.end(), True
    if not found or body[pos:].strip():
        return None
    return total


def window_type(time_type: DataType | None = None) -> StructType:
    """``struct<start, end>`` of the time column's timestamp type."""
    ts: DataType = TimestampNTZType() if isinstance(time_type, TimestampNTZType) else TimestampType()
    return StructType([StructField("start", ts, True), StructField("end", ts, True)])


def _struct(starts: pa.Array, ends: pa.Array, arrow_type: pa.DataType, valid: pa.Array | None) -> pa.Array:
    mask = None if valid is None else pc.invert(valid)
    return pa.StructArray.from_arrays([starts.cast(arrow_type), ends.cast(arrow_type)], names=["start", "end"],
                                      mask=mask)


class TimeWindow(Expression):
    """``window(timeColumn, windowDuration, slideDuration, startTime)`` (durations in microseconds)."""

    def __init__(self, child: Expression, window_us: int, slide_us: int | None = None, start_us: int = 0) -> None:
        self.children = (child,)
        self.window_us = window_us
        self.slide_us = window_us if slide_us is None else slide_us
        self.start_us = start_us
        if self.window_us <= 0 or self.slide_us <= 0:
            raise IllegalArgumentException(
                "The window duration and the slide duration must be greater than 0.", "INVALID_PARAMETER_VALUE", {})
        if self.slide_us > self.window_us:
            raise IllegalArgumentException(
                "The slide duration must be less than or equal to the windowDuration.", "INVALID_PARAMETER_VALUE", {})

    @property
    def is_sliding(self) -> bool:
        """Whether a row may fall in several windows (plan a ``Generate``)."""
        return self.slide_us != self.window_us

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return TimeWindow(children[0], self.window_us, self.slide_us, self.start_us)

    def data_type(self) -> DataType:
        return window_type(self.children[0].data_type())

    def sql(self) -> str:
        return "window"

    def coerce(self) -> Expression:
        dt = self.children[0].data_type()
        if isinstance(dt, (TimestampType, TimestampNTZType)):
            return self
        return TimeWindow(cast_to(self.children[0], TimestampType()), self.window_us, self.slide_us, self.start_us)

    def output_fields(self) -> list[tuple[str, DataType, bool]]:
        """The one column a ``Generate`` of this window produces."""
        return [("window", self.data_type(), False)]

    def _last_start(self, micros: pa.Array) -> pa.Array:
        # Integer floor-modulo: a float quotient misplaces times just below a window edge once
        # timestamps exceed 2**52 microseconds.
        if micros.null_count == 0:
            # floor((t - start) / slide) * slide + start: the last start at or before t. numpy's //
            # floors as this needs, and divides by one scalar with a precomputed reciprocal
            # (libdivide), where % divides element by element: 0.05 against 0.2 ms per 100,000
            # rows. One result array, then in-place passes: every fresh array of a batch's size
            # costs its page faults (more than the arithmetic).
            values = micros.to_numpy(zero_copy_only=False)
            if self.start_us:
                out = np.subtract(values, self.start_us)
                np.floor_divide(out, self.slide_us, out=out)
            else:
                out = np.floor_divide(values, self.slide_us)
            np.multiply(out, self.slide_us, out=out)
            if self.start_us:
                np.add(out, self.start_us, out=out)
            return pa.array(out, pa.int64())
        shifted = pc.subtract(micros, self.start_us)
        remainder = pc.subtract(shifted, pc.multiply(pc.divide(shifted, self.slide_us), self.slide_us))
        remainder = pc.if_else(pc.less(remainder, 0), pc.add(remainder, self.slide_us), remainder)
        return pc.subtract(micros, remainder)

    def __repr__(self) -> str:
        return f"window({self.children[0]!r}, {self.window_us}, {self.slide_us}, {self.start_us})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        values = self.children[0].eval(batch, ctx)
        micros = values.cast(pa.int64())
        start = self._last_start(micros)
        if self.is_sliding:
            # The earliest window containing the row, as Spark's first generated one.
            count = -(-self.window_us // self.slide_us)
            start = pc.subtract(start, (count - 1) * self.slide_us)
            start = _first_containing(start, micros, self.window_us, self.slide_us)
        valid = values.is_valid() if values.null_count else None  # no mask to build when no time is null
        return _struct(start, pc.add(start, self.window_us), values.type, valid)

    def generate(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[pa.Array, list[pa.Array]]:
        """Every window of every row with a time, windows of a row by increasing start."""
        values = self.children[0].eval(batch, ctx)
        micros = values.cast(pa.int64())
        last = self._last_start(micros)
        count = -(-self.window_us // self.slide_us)
        parents, starts = [], []
        rows = pa.array(range(len(values)), pa.int64())
        for i in range(count - 1, -1, -1):
            start = pc.subtract(last, i * self.slide_us)
            keep = pc.fill_null(pc.and_(pc.less_equal(start, micros),
                                        pc.less(micros, pc.add(start, self.window_us))), False)
            parents.append(rows.filter(keep))
            starts.append(start.filter(keep))
        parent = pa.concat_arrays(parents) if parents else pa.array([], pa.int64())
        start_all = pa.concat_arrays(starts) if starts else pa.array([], pa.int64())
        order = pc.sort_indices(parent)
        parent, start_all = parent.take(order), start_all.take(order)
        return parent, [_struct(start_all, pc.add(start_all, self.window_us), values.type, None)]

    def _options(self) -> Any:
        return (self.window_us, self.slide_us, self.start_us)


def _first_containing(start: pa.Array, micros: pa.Array, window_us: int, slide_us: int) -> pa.Array:
    end = pc.add(start, window_us)
    outside = pc.fill_null(pc.less_equal(end, micros), False)
    return pc.if_else(outside, pc.add(start, slide_us), start)


class SessionWindow(Expression):
    """``session_window(timeColumn, gapDuration)``: ``[ts, ts + gap)`` before sessions are merged.

    The gap is one duration (``gap_us``) or, as Spark allows, a string expression over the
    row (``F.when(...)``: ``gap`` is then the second child), read per row as an interval:
    rows whose gap is null, not an interval or not positive belong to no session (a null
    struct here; Spark's rewrite filters such rows out, as rows without a time).
    """

    def __init__(self, child: Expression, gap_us: int, gap: Expression | None = None) -> None:
        self.children = (child,) if gap is None else (child, gap)
        self.gap_us = gap_us
        if gap is None and gap_us <= 0:
            raise IllegalArgumentException("The session gap must be greater than 0.", "INVALID_PARAMETER_VALUE", {})

    @property
    def gap(self) -> Expression | None:
        """The per-row gap expression (``None``: every row's gap is ``gap_us``)."""
        return self.children[1] if len(self.children) > 1 else None

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return SessionWindow(children[0], self.gap_us, children[1] if len(children) > 1 else None)

    def data_type(self) -> DataType:
        return window_type(self.children[0].data_type())

    def sql(self) -> str:
        return "session_window"

    def __repr__(self) -> str:
        gap = self.gap_us if self.gap is None else repr(self.gap)
        return f"session_window({self.children[0]!r}, {gap})"

    def check_input_types(self) -> None:
        gap = self.gap
        if gap is not None and not isinstance(gap.data_type(), StringType | NullType):
            # Spark wants a CalendarIntervalType; strings are how PySpark programs give one.
            shown = repr(gap.data_type()).removesuffix("()").replace(", ", ",")
            raise AnalysisException(
                f"Gap duration expression used in session window must be CalendarIntervalType, but got {shown}. "
                "Give the gap as a duration string per row, e.g. F.when(cond, '5 seconds').otherwise('1 minute').",
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", {"sqlExpr": "session_window"})

    def coerce(self) -> Expression:
        dt = self.children[0].data_type()
        if isinstance(dt, (TimestampType, TimestampNTZType)):
            return self
        return SessionWindow(cast_to(self.children[0], TimestampType()), self.gap_us, self.gap)

    def ends(self, micros: pa.Array, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        """Each row's ``ts + gap`` in microseconds; null where the row has no valid gap."""
        gap = self.gap
        if gap is None:
            return pc.add(micros, self.gap_us)
        gaps = gap_micros(gap.eval(batch, ctx), len(micros))
        return pc.add(micros, gaps)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        values = self.children[0].eval(batch, ctx)
        micros = values.cast(pa.int64())
        ends = self.ends(micros, batch, ctx)
        valid = pc.and_(values.is_valid(), ends.is_valid()) if self.gap is not None else values.is_valid()
        return _struct(micros, pc.fill_null(ends, 0), values.type, valid)

    def _options(self) -> Any:
        return (self.gap_us,)


def gap_micros(texts: pa.Array | pa.Scalar, rows: int) -> pa.Array:
    """Per-row gap strings as positive microseconds; null where absent, not a duration or not positive.

    Each distinct string is read once (a query has a handful of gaps). Months and years are
    refused, as for a fixed gap: their length depends on the date.
    """
    if isinstance(texts, pa.Scalar):
        texts = pa.repeat(texts, rows)
    if pa.types.is_null(texts.type):
        return pa.nulls(rows, pa.int64())
    encoded = pc.dictionary_encode(texts.cast(pa.string()))
    gaps: list[int | None] = []
    for text in encoded.dictionary.to_pylist():
        # Spark casts an unreadable interval string to null: such a row has no session.
        gaps.append(positive_duration_us(text))
    return pa.array(gaps, pa.int64()).take(encoded.indices)
