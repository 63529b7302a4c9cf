"""What a stream-stream join's condition says about its state: keys, condition parts, time bounds.

What this module owns
---------------------
The analysis Spark's ``StreamingJoinHelper`` does, used by the join operator and by
the start-time checks:

* :func:`join_parts`: the equi-join keys of a join (``=`` / ``<=>`` terms across the
  sides, and the pairs of a join ``on`` column names), and the rest of the condition
  split into the terms reading only the left side, only the right side, and both.
* :func:`key_watermark_ordinal`: the position of the first equi-key that is a
  watermarked column (a timestamp or a window) of the left side, else of the right
  side. Both sides' state is then dropped by that key: a key whose time (a window's
  end) is ``<=`` the watermark.
* :func:`state_watermarks`: each side's state watermark (Spark's ``getStateWatermark``):
  the watermark itself on both sides when an equi-key holds it, else each watermarked
  side's state value watermark, below.
* :func:`state_value_watermark`: Spark's "state value watermark", the time below which
  one side's stored rows can no longer match a row the other side may still send.
  It is solved from the terms of the condition of the forms ``a < b``, ``a <= b``,
  ``a > b`` and ``a >= b`` where each of ``a`` and ``b`` is a sum of terms, each term
  one column (optionally cast to a number or a timestamp, optionally negated), a
  numeric literal meaning seconds or a day-time interval literal, with exactly one
  column of this side (with a minus sign after moving everything to one side:
  ``this > other + c``, or ``other + c < this``) and only the other side's watermarked
  column among the other side's columns. For example ``l.t >= r.t``,
  ``l.t <= r.t + INTERVAL 1 HOUR`` (``l.t`` at most an hour after ``r.t``) and
  ``cast(l.t as long) <= cast(r.t as long) + 3600``. The bound of a strict comparison
  is the solved value; of ``<=``/``>=`` one millisecond less; of several terms the
  smallest.

Invariants
----------
* Values are solved in microseconds as doubles and the result is truncated to
  milliseconds, as Spark does; a literal that is not numeric (a date, a string) makes
  its term unusable, never an error.
* A watermarked column is one that :func:`~dstream.sql.streaming.watermark.event_time_columns`
  reports for that side's plan and that the side outputs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from ...execution.joins import conjuncts, split_join_condition
from ...expressions.base import AttributeReference, Expression, Literal, is_deterministic
from ...expressions.cast import Cast
from ...expressions.operators import Add, Subtract, UnaryMinus
from ...expressions.predicates import And, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual
from ...plan.logical import Join, LogicalPlan
from ...types import DayTimeIntervalType, NumericType, TimestampNTZType, TimestampType
from ..watermark import event_time_columns

__all__ = ["JoinParts", "join_parts", "key_watermark_ordinal", "state_value_watermark", "state_watermarks",
           "watermark_in_join_keys",
           "watermarked_columns"]

_MICROS_PER_SECOND = 1_000_000.0


class JoinParts:
    """A join's equi-keys and the rest of its condition, split by the sides it reads."""

    def __init__(self, left_keys: list[Expression], right_keys: list[Expression], null_safe: list[bool],
                 left_only: Expression | None, right_only: Expression | None, both: Expression | None) -> None:
        self.left_keys = left_keys
        self.right_keys = right_keys
        self.null_safe = null_safe
        self.left_only = left_only
        self.right_only = right_only
        self.both = both


def _conjoin(terms: Sequence[Expression]) -> Expression | None:
    out: Expression | None = None
    for term in terms:
        out = term if out is None else And(out, term)
    return out


def join_parts(join: Join) -> JoinParts:
    """The equi-keys of ``join`` (condition and ``on`` names) and the other terms by side."""
    left_ids = {a.expr_id for a in join.left.output()}
    right_ids = {a.expr_id for a in join.right.output()}
    left_keys: list[Expression] = []
    right_keys: list[Expression] = []
    null_safe: list[bool] = []
    rest: list[Expression] = []
    for term in conjuncts(join.condition):
        lk, rk, ns, residual = split_join_condition(term, left_ids, right_ids)
        if lk and residual is None:
            left_keys += lk
            right_keys += rk
            null_safe += ns
        else:
            rest.append(term)
    have = {(k.expr_id, r.expr_id) for k, r in zip(left_keys, right_keys)
            if isinstance(k, AttributeReference) and isinstance(r, AttributeReference)}
    for l_attr, r_attr in join.using:
        if l_attr.expr_id in left_ids and r_attr.expr_id in right_ids and (l_attr.expr_id, r_attr.expr_id) not in have:
            left_keys.append(l_attr)
            right_keys.append(r_attr)
            null_safe.append(False)
    left_only: list[Expression] = []
    right_only: list[Expression] = []
    both: list[Expression] = []
    for term in rest:
        refs = term.references()
        if not is_deterministic(term):
            both.append(term)
        elif refs <= left_ids:
            left_only.append(term)
        elif refs <= right_ids:
            right_only.append(term)
        else:
            both.append(term)
    return JoinParts(left_keys, right_keys, null_safe, _conjoin(left_only), _conjoin(right_only), _conjoin(both))


def watermarked_columns(plan: LogicalPlan) -> list[AttributeReference]:
    """The columns ``plan`` outputs that carry a watermarked event time, in output order."""
    columns = event_time_columns(plan)
    return [a for a in plan.output() if a.expr_id in columns]


def _watermarked_key(key: Expression, watermarked: set[int]) -> bool:
    return isinstance(key, AttributeReference) and key.expr_id in watermarked


def key_watermark_ordinal(left_keys: Sequence[Expression], right_keys: Sequence[Expression],
                          left_watermarked: set[int], right_watermarked: set[int]) -> int | None:
    """The first equi-key position holding a watermarked column (left keys first), or ``None``."""
    for keys, marked in ((left_keys, left_watermarked), (right_keys, right_watermarked)):
        for i, key in enumerate(keys):
            if _watermarked_key(key, marked):
                return i
    return None


def watermark_in_join_keys(join: Join) -> bool:
    """Whether an equi-key of ``join`` is a watermarked column (of either side)."""
    parts = join_parts(join)
    left = {a.expr_id for a in watermarked_columns(join.left)}
    right = {a.expr_id for a in watermarked_columns(join.right)}
    return key_watermark_ordinal(parts.left_keys, parts.right_keys, left, right) is not None


# -- solving a time-range condition for one side's bound --------------------------------

#: A term of a canonical sum: (sign, column or None, constant microseconds).
_Term = tuple[int, AttributeReference | None, float]


def _literal_micros(lit: Literal) -> float | None:
    value = lit.value
    if value is None or isinstance(value, bool):
        return None
    if isinstance(lit.dtype, TimestampType | TimestampNTZType) and isinstance(value, dt.datetime):
        epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) if value.tzinfo else dt.datetime(1970, 1, 1)
        return (value - epoch) / dt.timedelta(microseconds=1)
    if isinstance(lit.dtype, DayTimeIntervalType) and isinstance(value, dt.timedelta):
        return value / dt.timedelta(microseconds=1)  # INTERVAL 1 HOUR
    if isinstance(lit.dtype, NumericType):
        return float(value) * _MICROS_PER_SECOND  # a number next to a time means seconds
    return None


def _terms(expr: Expression, negate: bool, out: list[_Term]) -> bool:
    """Collect ``expr`` as signed terms into ``out``; ``False`` when it is not a sum of columns and literals."""
    sign = -1 if negate else 1
    if isinstance(expr, Add):
        return _terms(expr.children[0], negate, out) and _terms(expr.children[1], negate, out)
    if isinstance(expr, Subtract):
        return _terms(expr.children[0], negate, out) and _terms(expr.children[1], not negate, out)
    if type(expr) is UnaryMinus:  # not Abs, its subclass
        return _terms(expr.children[0], not negate, out)
    if isinstance(expr, Cast):
        if isinstance(expr.to_type, NumericType | TimestampType | TimestampNTZType):
            return _terms(expr.children[0], negate, out)
        return False
    if isinstance(expr, AttributeReference):
        out.append((sign, expr, 0.0))
        return True
    if isinstance(expr, Literal):
        micros = _literal_micros(expr)
        if micros is None:
            return False
        out.append((sign, None, sign * micros))
        return True
    return False


def _solve_less_than(smaller: Expression, larger: Expression, this_ids: set[int], other_ids: set[int],
                     other_watermarked: set[int], watermark_ms: int) -> int | None:
    """From ``smaller < larger``: the bound (ms) below which this side's column cannot match."""
    columns = {e.expr_id for side in (smaller, larger) for e in side.walk() if isinstance(e, AttributeReference)}
    if len(columns & this_ids) > 1 or len(columns & other_ids) > 1:
        return None
    terms: list[_Term] = []
    if not (_terms(smaller, False, terms) and _terms(larger, True, terms)):
        return None
    # smaller - larger < 0, as a sum of terms: this side's column must appear negated.
    mine = [t for t in terms if t[1] is not None and t[1].expr_id in this_ids]
    if len(mine) != 1 or mine[0][0] != -1:
        return None
    total = 0.0
    for sign, column, micros in terms:
        if column is None:
            total += micros
        elif column.expr_id in this_ids:
            continue
        elif column.expr_id in other_watermarked:
            total += sign * watermark_ms * 1000.0
        else:
            return None  # a column whose future values the watermark does not bound
    return int(total / 1000.0)


def state_value_watermark(this_side: Sequence[AttributeReference], other_side: Sequence[AttributeReference],
                          other_watermarked: set[int], condition: Expression | None,
                          watermark_ms: int) -> int | None:
    """The state value watermark (ms) of ``this_side``'s rows, from ``condition`` and the other side's watermark.

    ``None`` when no term of the condition bounds this side by the other side's watermarked column.
    """
    if condition is None or not other_watermarked:
        return None
    this_ids = {a.expr_id for a in this_side}
    other_ids = {a.expr_id for a in other_side}
    found: list[int] = []
    for term in conjuncts(condition):
        bound: int | None = None
        if type(term) is LessThan:
            bound = _solve_less_than(term.children[0], term.children[1], this_ids, other_ids, other_watermarked,
                                     watermark_ms)
        elif type(term) is LessThanOrEqual:
            bound = _solve_less_than(term.children[0], term.children[1], this_ids, other_ids, other_watermarked,
                                     watermark_ms)
            bound = None if bound is None else bound - 1
        elif type(term) is GreaterThan:
            bound = _solve_less_than(term.children[1], term.children[0], this_ids, other_ids, other_watermarked,
                                     watermark_ms)
        elif type(term) is GreaterThanOrEqual:
            bound = _solve_less_than(term.children[1], term.children[0], this_ids, other_ids, other_watermarked,
                                     watermark_ms)
            bound = None if bound is None else bound - 1
        if bound is not None:
            found.append(bound)
    return min(found) if found else None


def state_watermarks(join: Join, watermark_ms: int) -> tuple[int | None, int | None]:
    """The state watermark (ms) of the left and the right side of ``join``; ``None`` where
    nothing bounds that side's state (see the module doc)."""
    parts = join_parts(join)
    left_marks, right_marks = watermarked_columns(join.left), watermarked_columns(join.right)
    left_ids, right_ids = {a.expr_id for a in left_marks}, {a.expr_id for a in right_marks}
    if key_watermark_ordinal(parts.left_keys, parts.right_keys, left_ids, right_ids) is not None:
        return watermark_ms, watermark_ms
    left, right = join.left.output(), join.right.output()
    return (state_value_watermark(left, right, right_ids, join.condition, watermark_ms) if left_marks else None,
            state_value_watermark(right, left, left_ids, join.condition, watermark_ms) if right_marks else None)
