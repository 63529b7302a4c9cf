"""What a streaming query may not do: Spark's ``UnsupportedOperationChecker``, at ``start()``.

What this module owns
---------------------
:func:`check_streaming_query`: raises ``AnalysisException`` with Spark's reason for
the plans a micro-batch engine cannot run with the chosen output mode:

* complete mode without an aggregation; append mode when the aggregation nearest the
  sink has no watermarked grouping column (a window of a watermarked column, or the
  ``window_time`` of an upstream aggregation's window, counts);
* sorting a stream that is not aggregated (or not in complete mode);
* a stateful operator above one that can emit rows older than the watermark (an
  aggregation in update or complete mode, an event-time ``*GroupsWithState``): Spark's
  correctness check of chained operators, a warning only when
  ``spark.sql.streaming.statefulOperator.checkCorrectness.enabled`` is false;
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

import logging

from ..errors import AnalysisException
from ..expressions.aggregate_base import AggregateFunction
from ..expressions.aggregates import ApproxCountDistinct
from ..expressions.base import Alias, AttributeReference
from ..expressions.window_functions import WindowExpression
from ..plan.logical import Aggregate, Deduplicate, Join, Limit, LogicalPlan, Project, Sort
from ..plan.window_plan import WindowPlan
from .group_state import GroupStateTimeout
from .groups_with_state import FlatMapGroupsWithState, check_groups_with_state
from .relation import reads_stream
from .state.dedup import DeduplicateWithinWatermark
from .state.join_bounds import join_parts, state_value_watermark, watermark_in_join_keys, watermarked_columns
from .transform_with_state import TransformWithState
from .watermark import event_time_columns

__all__ = ["check_streaming_query"]

_log = logging.getLogger(__name__)


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


def check_streaming_query(plan: LogicalPlan, output_mode: str, check_correctness: bool = True) -> None:
    """Refuse, with Spark's reason, a streaming plan that cannot run in ``output_mode``.

    The checks run in Spark's order: the output mode against the first aggregation, then
    each operator, then the chained stateful operators (skipped, with a warning, when
    ``check_correctness`` is false: Spark's ``statefulOperator.checkCorrectness.enabled``).
    Session windows in update mode are let through, where Spark refuses them (see the
    Structured Streaming guide).
    """
    aggs = _aggregates(plan)
    if output_mode == "complete" and not aggs:
        _fail("Invalid streaming output mode: complete. This output mode is not supported for no streaming "
              "aggregations on streaming DataFrames/DataSets.", _OUTPUT_MODE)
    # Spark looks at the first aggregation of the plan (the one nearest the sink) only.
    if output_mode == "append" and aggs and not _has_watermarked_key(aggs[0]):
        _fail("Invalid streaming output mode: append. This output mode is not supported for streaming "
              "aggregations without watermark on streaming DataFrames/DataSets.", _OUTPUT_MODE)
    for agg in aggs:
        for e in agg.aggregates:
            # approx_count_distinct is the advised alternative (exact here, counted like
            # count(DISTINCT) inside, which is what the flag says).
            if any(isinstance(n, AggregateFunction) and getattr(n, "distinct", False)
                   and not isinstance(n, ApproxCountDistinct) for n in e.walk()):
                _fail("Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using "
                      "approx_count_distinct() instead.")
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
            _refuse_window_function(node, plan)
        if isinstance(node, DeduplicateWithinWatermark) and reads_stream(node) and not watermarked_columns(node.child):
            _fail("dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark")
    check_groups_with_state(plan, output_mode)
    _check_chained_stateful(plan, output_mode, check_correctness)


_CORRECTNESS = ("Detected pattern of possible 'correctness' issue due to global watermark. The query contains "
                "stateful operation which can emit rows older than the current watermark plus allowed late record "
                "delay, which are \"late rows\" in downstream stateful operations and these rows can be discarded. "
                "Please refer the programming guide doc for more details. If you understand the possible risk of "
                "correctness issue and still need to run the query, you can disable this check by setting the "
                "config `spark.sql.streaming.statefulOperator.checkCorrectness.enabled` to false.")


def _check_chained_stateful(plan: LogicalPlan, output_mode: str, enabled: bool) -> None:
    """Spark's check of chained stateful operators (SPARK-28074): none may sit above an operator
    that can emit rows older than the watermark (an aggregation outside append mode, a
    ``*GroupsWithState`` with an event-time timeout), as the rows it emits late would be
    dropped as late by the one above."""
    for node in plan.walk():
        if _is_stateful(node) and any(n is not node and _emits_late_rows(n, output_mode) for n in node.walk()):
            if enabled:
                _fail(_CORRECTNESS)
            _log.warning("%s", _CORRECTNESS)
            return


def _is_stateful(node: LogicalPlan) -> bool:
    if isinstance(node, Aggregate):
        return reads_stream(node.child)
    if isinstance(node, Join):
        return reads_stream(node.left) and reads_stream(node.right)
    if isinstance(node, FlatMapGroupsWithState | TransformWithState | DeduplicateWithinWatermark):
        return reads_stream(node)
    if isinstance(node, Deduplicate) and reads_stream(node):
        # A deduplication counts only when it keys on an event time (it then evicts by the watermark).
        marked = event_time_columns(node.child)
        return any(isinstance(k, AttributeReference) and k.expr_id in marked for k in node.keys)
    return False


def _emits_late_rows(node: LogicalPlan, output_mode: str) -> bool:
    if isinstance(node, Aggregate):
        return output_mode != "append" and reads_stream(node.child)
    return (isinstance(node, FlatMapGroupsWithState) and node.timeout == GroupStateTimeout.EventTimeTimeout
            and reads_stream(node))



def _refuse_window_function(node: WindowPlan, plan: LogicalPlan) -> None:
    """Spark's NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING, with its parameters as PySpark shows them:
    the function and the window specification upper-cased, the column by the user's name."""
    window = node.window_exprs[0]
    name = window.name
    for n in plan.walk():
        # The window's column as the user named it (withColumn, alias) in the projection above.
        for e in n.exprs if isinstance(n, Project) else ():
            if isinstance(e, Alias) and isinstance(e.child, AttributeReference) and e.child.expr_id == window.expr_id:
                name = e.name
    over = window.child
    assert isinstance(over, WindowExpression)
    function = over.function.sql().upper()
    spec = over.spec_sql().upper()
    column = "`" + name.replace("`", "``") + "`"
    raise AnalysisException(
        f"Window function is not supported in {function} (as column {column}) on streaming DataFrames/Datasets.\n"
        f"Structured Streaming only supports time-window aggregation using the WINDOW function. (window "
        f"specification: {spec})", "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING",
        {"windowFunc": function, "columnName": column, "windowSpec": spec})


def _check_join(join: Join, output_mode: str) -> None:
    left, right = reads_stream(join.left), reads_stream(join.right)
    how = join.how
    if left and right:
        if output_mode != "append":
            _fail(f"Join between two streaming DataFrames/Datasets is not supported in {output_mode.capitalize()} "
                  "output mode, only in Append output mode")
        _check_stream_stream_join(join)
        return
    if not (left or right):
        return
    # Spark's texts, word for word (its "DataFrame/DataSet" capitals included).
    if how == "full_outer":
        _fail("FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on "
              "the right is not supported" if left else "FullOuter joins with streaming DataFrames/Datasets on the "
              "right and a static DataFrame/Dataset on the left is not supported")
    if right and how == "left_anti":
        _fail("LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported")
    if right and not left and how in ("left_outer", "left_semi"):
        _fail(f"{_join_name(how)} join with a streaming DataFrame/Dataset on the right and a static "
              "DataFrame/Dataset on the left is not supported")
    if left and not right and how == "right_outer":
        _fail("RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on "
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
