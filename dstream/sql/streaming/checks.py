"""What a streaming query may not do: Spark's ``UnsupportedOperationChecker``, at ``start()``.

What this module owns
---------------------
:func:`check_streaming_query`: raises ``AnalysisException`` with Spark's reason for
the plans a micro-batch engine cannot run with the chosen output mode:

* complete mode without an aggregation;
* append mode on an aggregation without a watermark on a grouping column;
* sorting a stream that is not aggregated (or not in complete mode);
* a stateful operator after an aggregation in update or complete mode;
* operations Spark never allows on streams: ``distinct`` aggregates, ``limit`` with
  an offset, ``sample`` is fine but ``intersect``/``except`` with a stream are not,
  full outer stream-static joins, and outer joins with the stream on the outer-null
  side; stream-stream joins outside append mode, without an equi-join key, left anti,
  and outer/semi ones whose state no watermark bounds;
* ``dropDuplicatesWithinWatermark`` on an input without a watermarked column;
* ``*GroupsWithState`` in a mode or without a watermark Spark refuses
  (:func:`.groups_with_state.check_groups_with_state`).
"""

from __future__ import annotations

from ..errors import AnalysisException
from ..expressions.aggregate_base import AggregateFunction
from ..expressions.aggregates import ApproxCountDistinct
from ..expressions.base import AttributeReference
from ..plan.logical import Aggregate, Deduplicate, Join, Limit, LogicalPlan, Sort
from ..plan.window_plan import WindowPlan
from .groups_with_state import check_groups_with_state
from .relation import reads_stream
from .state.dedup import DeduplicateWithinWatermark
from .state.join_bounds import join_parts, state_value_watermark, watermark_in_join_keys, watermarked_columns
from .watermark import event_time_columns

__all__ = ["check_streaming_query"]


#: The condition of Spark's refusals that are about the output mode itself.
_OUTPUT_MODE = "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION"


def _fail(reason: str, condition: str = "_LEGACY_ERROR_TEMP_3102") -> None:
    # Spark's UnsupportedOperationChecker: its output-mode errors have a condition of their
    # own; the others are its legacy condition 3102, the text ending in ";".
    if condition == _OUTPUT_MODE:
        raise AnalysisException(reason, condition)
    raise AnalysisException(reason if reason.endswith(";") else reason + ";", condition)


def _aggregates(plan: LogicalPlan) -> list[Aggregate]:
    return [n for n in plan.walk() if isinstance(n, Aggregate) and reads_stream(n.child)]


def _has_watermarked_key(agg: Aggregate) -> bool:
    columns = event_time_columns(agg.child)
    return any(isinstance(g, AttributeReference) and g.expr_id in columns for g in agg.grouping)


def check_streaming_query(plan: LogicalPlan, output_mode: str) -> None:
    """Refuse, with Spark's reason, a streaming plan that cannot run in ``output_mode``."""
    aggs = _aggregates(plan)
    for agg in aggs:
        for e in agg.aggregates:
            # approx_count_distinct is the advised alternative (exact here, counted like
            # count(DISTINCT) inside, which is what the flag says).
            if any(isinstance(n, AggregateFunction) and getattr(n, "distinct", False)
                   and not isinstance(n, ApproxCountDistinct) for n in e.walk()):
                _fail("Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using "
                      "approx_count_distinct() instead.")
    if output_mode == "complete" and not aggs:
        _fail("Invalid streaming output mode: complete. This output mode is not supported for no streaming "
              "aggregations on streaming DataFrames/DataSets.", _OUTPUT_MODE)
    if output_mode == "append":
        for agg in aggs:
            if not _has_watermarked_key(agg):
                _fail("Append output mode not supported when there are streaming aggregations on streaming "
                      "DataFrames/DataSets without watermark; add withWatermark on the event-time column and "
                      "group by it (or a window over it), or use update/complete output mode.", _OUTPUT_MODE)
    for node in plan.walk():
        if isinstance(node, Sort) and reads_stream(node.child):
            below_agg = any(isinstance(n, Aggregate) for n in node.child.walk())
            if not (below_agg and output_mode == "complete"):
                _fail("Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated "
                      "DataFrame/Dataset in Complete output mode")
        if isinstance(node, Limit) and reads_stream(node.child) and node.offset:
            _fail("Offset is not supported on streaming DataFrames/Datasets.")
        if isinstance(node, Limit) and reads_stream(node.child) and output_mode == "update":
            _fail("Limits are not supported on streaming DataFrames/Datasets in Update output mode")
        if isinstance(node, Join):
            _check_join(node, output_mode)
        if isinstance(node, WindowPlan) and reads_stream(node.child):
            window = node.window_exprs[0]
            raise AnalysisException(
                f"Window function is not supported in {window.child.sql()} (as column `{window.name}`) on "
                "streaming DataFrames/Datasets. Structured Streaming only supports time-window aggregation "
                "using the WINDOW function (groupBy(window(...))); rank or number rows in foreachBatch, on "
                "each micro-batch's DataFrame.", "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING",
                {"windowFunc": window.child.sql(), "columnName": window.name})
        if isinstance(node, DeduplicateWithinWatermark) and reads_stream(node) and not watermarked_columns(node.child):
            _fail("dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark")
    if output_mode in ("update", "complete"):
        for agg in aggs:
            above = [n for n in plan.walk() if n is not agg and agg in list(n.walk())]
            if any(isinstance(n, Aggregate | Deduplicate) or (isinstance(n, Join) and reads_stream(n.left)
                                                               and reads_stream(n.right)) for n in above):
                _fail(f"Multiple streaming aggregations are not supported with {output_mode} output mode: a "
                      "stateful operator after an aggregation needs append mode and a watermark.", _OUTPUT_MODE)
    check_groups_with_state(plan, output_mode)


def _check_join(join: Join, output_mode: str) -> None:
    left, right = reads_stream(join.left), reads_stream(join.right)
    how = join.how
    if left and right:
        if output_mode != "append":
            _fail(f"Join between two streaming DataFrames/Datasets is not supported in {output_mode.capitalize()} "
                  "output mode, only in Append output mode", _OUTPUT_MODE)
        _check_stream_stream_join(join)
        return
    if not (left or right):
        return
    if how == "full_outer":
        _fail("FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on "
              "the right is not supported" if left else "FullOuter joins with a static DataFrame/Dataset on the "
              "left and a streaming DataFrame/Dataset on the right is not supported")
    if right and how in ("left_outer", "left_semi", "left_anti"):
        _fail(f"{_join_name(how)} joins with a static DataFrame/Dataset on the left and a streaming "
              "DataFrame/Dataset on the right are not supported")
    if left and how == "right_outer":
        _fail("RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/Dataset on "
              "the right not supported")


def _join_name(how: str) -> str:
    return {"left_outer": "LeftOuter", "left_semi": "LeftSemi", "left_anti": "LeftAnti", "right_outer": "RightOuter",
            "full_outer": "FullOuter"}.get(how, how)


def _check_stream_stream_join(join: Join) -> None:
    how = join.how
    if how == "left_anti":
        _fail("LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported")
    if how in ("left_outer", "left_semi", "right_outer", "full_outer"):
        left, right = join.left.output(), join.right.output()
        lw = {a.expr_id for a in watermarked_columns(join.left)}
        rw = {a.expr_id for a in watermarked_columns(join.right)}
        # A bound on the preserved side's state, from the watermark of the nullable side.
        bounded = {"left_outer": [(left, right, rw)], "left_semi": [(left, right, rw)],
                   "right_outer": [(right, left, lw)],
                   "full_outer": [(left, right, rw), (right, left, lw)]}[how]
        ranged = any(state_value_watermark(this, other, marks, join.condition, 1_000_000) is not None
                     for this, other, marks in bounded)
        if not watermark_in_join_keys(join) and not ranged:
            _fail(f"Stream-stream {_join_name(how)} join between two streaming DataFrame/Datasets is not supported "
                  "without a watermark in the join keys, or a watermark on the nullable side and an appropriate "
                  "range condition")
    if not join_parts(join).left_keys:
        _fail("Stream-stream join without equality predicate is not supported: join the two streams on at least "
              "one column equal on both sides (a key, or a time window of both).")
