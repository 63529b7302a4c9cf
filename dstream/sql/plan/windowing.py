"""Event-time windows as grouping keys: the plan rewrite ``groupBy(window(...))`` needs.

What this module owns
---------------------
:func:`rewrite_window_grouping`, which turns the grouping keys of an aggregation that
hold ``window(...)`` or ``session_window(...)`` into plain columns computed by a node
below the aggregation (Spark's ``TimeWindowing`` and ``SessionWindowing`` rules), and
:class:`SessionWindowAssign`, the logical node that gives every row its merged session.

* A *tumbling* window is one window per row: a ``Project`` adds the window column over
  a ``Filter (time IS NOT NULL)``, and the key becomes that column.
* A *sliding* window puts a row in several windows: a :class:`~.logical.Generate` of the
  :class:`~dstream.sql.expressions.windows.TimeWindow` produces one row per window (rows
  without a time produce none), and the key becomes the generated ``window`` column.
* A *session* window depends on the other rows of the same key: a
  :class:`SessionWindowAssign` partitions the rows by the other grouping keys, gives
  each row ``[time, time + gap)``, orders each key's rows by time and merges the
  windows that overlap or touch (Spark's rule: a row starts a new session only when it
  comes after the end of every earlier window of its key); a session spans from its
  first time to its latest end. The gap is one duration or a string per row.

Invariants
----------
* Rows whose time is null belong to no window: every rewrite drops them, as it drops
  the rows whose per-row session gap is null, unreadable or not positive.
* At most one distinct window expression per grouping (Spark refuses more: the rows
  would multiply as a cartesian product of windows).
* The rewritten child keeps every column of the original child (same ids), so the
  aggregate expressions resolved against it stay valid; the window column keeps the
  window's name (``window``/``session_window``, or the key's alias).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import AnalysisException
from ..expressions.base import Alias, AttributeReference, Expression
from ..expressions.predicates import IsNotNull
from ..expressions.windows import SessionWindow, TimeWindow
from .logical import Filter, Generate, LogicalPlan, Project, UnaryPlan

__all__ = ["SessionWindowAssign", "rewrite_window_grouping", "rewrite_window_projection"]


class SessionWindowAssign(UnaryPlan):
    """Every row of the child with a session, plus ``output_attr``: the merged session holding it.

    Parameters
    ----------
    window : SessionWindow
        The ``session_window`` expression: the event time and the gap (one, or per row).
    partition_keys : sequence of Expression
        The other grouping keys: sessions are built separately for each value of them.
    output_attr : AttributeReference
        The ``struct<start, end>`` column produced.
    child : LogicalPlan
    """

    def __init__(self, window: SessionWindow, partition_keys: Sequence[Expression],
                 output_attr: AttributeReference, child: LogicalPlan) -> None:
        super().__init__(child)
        self.window = window
        self.partition_keys = list(partition_keys)
        self.output_attr = output_attr

    @property
    def time_expr(self) -> Expression:
        """The event time over the child's columns."""
        return self.window.children[0]

    def output(self) -> list[AttributeReference]:
        return self.child.output() + [self.output_attr]

    def expressions(self) -> list[Expression]:
        return [self.window] + self.partition_keys

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return SessionWindowAssign(self.window, self.partition_keys, self.output_attr, children[0])

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        window = fn(self.window)
        assert isinstance(window, SessionWindow)
        return SessionWindowAssign(window, [fn(k) for k in self.partition_keys], self.output_attr, self.child)

    def describe(self) -> str:
        keys = ", ".join(repr(k) for k in self.partition_keys)
        return f"SessionWindowAssign {self.window!r}, [{keys}], [{self.output_attr!r}]"


def _window_of(key: Expression) -> tuple[Expression | None, str | None]:
    """The window expression a grouping key is (or aliases), with the alias name."""
    if isinstance(key, Alias) and isinstance(key.child, TimeWindow | SessionWindow):
        return key.child, key.name
    if isinstance(key, TimeWindow | SessionWindow):
        return key, None
    return None, None


def _windows_in(keys: Sequence[Expression]) -> list[Expression]:
    found: dict[object, Expression] = {}
    for key in keys:
        for node in key.walk():
            if isinstance(node, TimeWindow | SessionWindow):
                found.setdefault(node.semantic_key(), node)
    return list(found.values())


def _replace(keys: Sequence[Expression], window: Expression, attr: AttributeReference) -> list[Expression]:
    target = window.semantic_key()
    out: list[Expression] = []
    for key in keys:
        found, _ = _window_of(key)
        if found is not None and found.semantic_key() == target:
            out.append(attr)
            continue
        out.append(key.transform_down(lambda e: attr if e.semantic_key() == target else None))
    return out


def _one_window(exprs: Sequence[Expression]) -> Expression | None:
    windows = _windows_in(exprs)
    if len(windows) > 1:
        names = ", ".join(repr(w) for w in windows)
        raise AnalysisException(
            f"Multiple time/session window expressions would result in a cartesian product of rows, therefore "
            f"they are currently not supported: {names}. Group by one window expression.",
            "MULTIPLE_TIME_WINDOW_EXPRESSIONS", {"windows": names})
    return windows[0] if windows else None


def rewrite_window_projection(plan: LogicalPlan,
                              exprs: Sequence[Expression]) -> tuple[LogicalPlan, list[Expression]]:
    """The child plan and expressions of ``select(*exprs)`` over ``plan`` with a window planned.

    Outside an aggregation Spark's rewrite still applies: rows without a window (no time,
    or no valid per-row session gap) are filtered out, and a sliding window gives a row
    once per window it falls in. A session window is not merged here: each row keeps
    ``[time, time + gap)``.
    """
    window = _one_window(exprs)
    if window is None:
        return plan, list(exprs)
    if isinstance(window, TimeWindow) and window.is_sliding:
        attr = AttributeReference(window.sql(), window.data_type(), False)
        return Generate(window, False, [attr], plan), _replace(exprs, window, attr)
    return Filter(IsNotNull(window), plan), list(exprs)


def rewrite_window_grouping(plan: LogicalPlan, keys: Sequence[Expression],
                            aggregates: Sequence[Expression] = ()) -> tuple[LogicalPlan, list[Expression]]:
    """The child plan and grouping keys of ``groupBy(*keys)`` over ``plan`` with windows planned.

    Parameters
    ----------
    plan : LogicalPlan
        The plan being grouped.
    keys : sequence of Expression
        The resolved grouping keys.
    aggregates : sequence of Expression
        The resolved aggregate expressions, when they repeat the keys' window (SQL's
        ``SELECT window(t, '1 hour'), count(*) ... GROUP BY window(t, '1 hour')``): they
        come back after the keys, reading the window's column too.

    Returns
    -------
    (LogicalPlan, list of Expression)
        ``plan`` unchanged and ``keys`` (then ``aggregates``) as given when no key holds a
        window; otherwise the plan with the window's node inserted and the keys (then the
        aggregates) reading its column.

    Raises
    ------
    AnalysisException
        When the keys hold two different window expressions.
    """
    window = _one_window(keys)
    if window is None:
        return plan, [*keys, *aggregates]
    alias = next((name for name in (_window_of(k)[1] for k in keys) if name is not None), None)
    name = alias or window.sql()
    time_expr = window.children[0]
    attr = AttributeReference(name, window.data_type(), False)
    if isinstance(window, TimeWindow) and not window.is_sliding:
        # One window per row, computed by a projection; Spark still drops rows without a time.
        window_column = Alias(window, name, attr.expr_id)
        child: LogicalPlan = Project(plan.output() + [window_column], Filter(IsNotNull(time_expr), plan))
    elif isinstance(window, TimeWindow):
        child = Generate(window, False, [attr], plan)
    else:
        assert isinstance(window, SessionWindow)
        others = [k.child if isinstance(k, Alias) else k for k in keys
                  if not any(isinstance(e, SessionWindow) for e in k.walk())]
        child = SessionWindowAssign(window, others, attr, plan)
    return child, _replace(keys, window, attr) + _replace_within(aggregates, window, attr)


def _replace_within(exprs: Sequence[Expression], window: Expression, attr: AttributeReference) -> list[Expression]:
    # Inside an aggregate's Alias the window keeps the alias: only the window node itself moves.
    target = window.semantic_key()
    return [e.transform_down(lambda n: attr if n.semantic_key() == target else None) for e in exprs]
