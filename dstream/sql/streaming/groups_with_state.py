"""``groupBy(...).mapGroupsWithState`` / ``flatMapGroupsWithState``: arbitrary stateful processing without pandas.

What this module owns
---------------------
* :class:`FlatMapGroupsWithState`, the logical node of both operations (a map is a
  flatMap emitting exactly one row per call, in update mode), and
  :func:`groups_with_state`, the argument checks and plan building behind the two
  ``GroupedData`` methods.
* :func:`check_groups_with_state`: Spark's unsupported-operation rules for them, which
  ``checks.check_streaming_query`` applies at ``start()``: ``mapGroupsWithState``
  only in update mode and never with an aggregation; ``flatMapGroupsWithState``'s
  declared mode must be the query's, unless an aggregation follows it (then it must
  be append); an event-time timeout needs a watermarked column in the input.

The signature is PySpark's ``applyInPandasWithState``'s with rows instead of pandas
frames: ``func(key: tuple, rows: Iterator[Row], state: GroupState)`` returns one row
(map) or an iterable of rows (flatMap); a row is a ``Row``, tuple, list or dict of the
output schema. Execution lives in :mod:`.state.group_state_exec`.

Invariants
----------
* The rows a function receives have the grouped DataFrame's columns (names and order),
  never helper columns; the key tuple holds the grouping values in ``groupBy`` order.
* Grouping expressions that are not columns are computed by a projection below the
  node, so the node's keys are always attributes of its child.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import AnalysisException, PySparkTypeError, PySparkValueError
from ..expressions.base import Alias, AttributeReference, Expression
from ..local_data import attributes_of, schema_argument
from ..plan.analysis import ensure_named
from ..plan.logical import Aggregate, LogicalPlan, Project, UnaryPlan
from ..plan.windowing import rewrite_window_grouping
from ..types import StructType
from .group_state import GroupStateTimeout, timeout_kind
from .relation import reads_stream
from .watermark import event_time_columns

if TYPE_CHECKING:
    from ..dataframe import DataFrame

__all__ = ["FlatMapGroupsWithState", "check_groups_with_state", "groups_with_state", "parse_struct",
           "project_keys", "watermarked_input"]


class FlatMapGroupsWithState(UnaryPlan):
    """The user's function applied to each group of ``child`` with the group's state.

    Parameters
    ----------
    func : callable
        ``func(key, rows, state)``.
    keys : list of AttributeReference
        The grouping columns (attributes of ``child``).
    data : list of AttributeReference
        The columns the rows passed to ``func`` have (attributes of ``child``).
    output : list of AttributeReference
        The node's columns, one per field of ``output_schema``.
    state_schema, output_schema : StructType
        The schema of the state value and of the rows ``func`` returns.
    output_mode : {"append", "update"}
        The mode the operation declares (``update`` for a map).
    timeout : str
        A :class:`~.group_state.GroupStateTimeout` name.
    is_map : bool
        ``mapGroupsWithState``: exactly one row per call.
    """

    def __init__(self, func: Callable[..., Any], keys: Sequence[AttributeReference],
                 data: Sequence[AttributeReference], output: Sequence[AttributeReference], state_schema: StructType,
                 output_schema: StructType, output_mode: str, timeout: str, is_map: bool,
                 child: LogicalPlan) -> None:
        super().__init__(child)
        self.func = func
        self.keys = list(keys)
        self.data = list(data)
        self._output = list(output)
        self.state_schema = state_schema
        self.output_schema = output_schema
        self.output_mode = output_mode
        self.timeout = timeout
        self.is_map = is_map

    @property
    def operation(self) -> str:
        """``mapGroupsWithState``, ``flatMapGroupsWithState`` or the adapted function's own (for messages)."""
        own = getattr(self.func, "operation", None)
        if isinstance(own, str):
            return own
        return "mapGroupsWithState" if self.is_map else "flatMapGroupsWithState"

    def output(self) -> list[AttributeReference]:
        return list(self._output)

    def expressions(self) -> list[Expression]:
        return [*self.keys, *self.data]

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return FlatMapGroupsWithState(self.func, self.keys, self.data, self._output, self.state_schema,
                                      self.output_schema, self.output_mode, self.timeout, self.is_map, children[0])

    def describe(self) -> str:
        name = getattr(self.func, "__name__", type(self.func).__name__)
        keys = ", ".join(repr(k) for k in self.keys)
        out = ", ".join(repr(a) for a in self._output)
        return (f"FlatMapGroupsWithState {name}, [{keys}], [{out}], {self.state_schema.simpleString()}, "
                f"{self.output_mode.capitalize()}, isMapGroupsWithState = {str(self.is_map).lower()}, "
                f"{self.timeout}")


def parse_struct(value: Any, arg: str) -> StructType:
    """``value`` (a StructType or DDL text) as a StructType; a clear error naming ``arg`` otherwise."""
    try:
        schema = schema_argument(value)
    except PySparkTypeError:
        schema = None
    if not isinstance(schema, StructType):
        raise PySparkTypeError(f"Argument `{arg}` should be a StructType or a DDL string such as 'count long', got "
                               f"{type(value).__name__} {value!r}.", "NOT_STR_OR_STRUCT",
                               {"arg_name": arg, "arg_type": type(value).__name__})
    return schema


def _mode(value: Any) -> str:
    mode = value.strip().lower() if isinstance(value, str) else None
    if mode not in ("append", "update"):
        raise PySparkValueError(f"outputMode of flatMapGroupsWithState must be 'append' or 'update', got {value!r}.",
                                "INVALID_OUTPUT_MODE", {"outputMode": repr(value)})
    return mode


def groups_with_state(df: DataFrame, keys: Sequence[Expression], func: Any, output_struct: Any, state_struct: Any,
                      output_mode: Any, timeout_conf: Any, is_map: bool) -> DataFrame:
    """The DataFrame of ``df.groupBy(*keys).(flat)mapGroupsWithState(...)``.

    Raises
    ------
    PySparkTypeError
        ``func`` is not callable, or a schema is neither a StructType nor a DDL string.
    PySparkValueError
        An output mode other than append/update, or an unknown timeout.
    """
    operation = "mapGroupsWithState" if is_map else "flatMapGroupsWithState"
    if not callable(func):
        raise PySparkTypeError(f"Argument `func` of {operation} should be a function (key, rows, state) -> rows, got "
                               f"{type(func).__name__}.", "NOT_CALLABLE",
                               {"arg_name": "func", "arg_type": type(func).__name__})
    output_schema = parse_struct(output_struct, "outputStructType")
    state_schema = parse_struct(state_struct, "stateStructType")
    mode = "update" if is_map else _mode(output_mode)
    timeout = timeout_kind(timeout_conf)
    data = df._plan.output()
    child, grouping = rewrite_window_grouping(df._plan, keys)
    child, key_attrs = project_keys(child, grouping)
    node = FlatMapGroupsWithState(func, key_attrs, data, attributes_of(output_schema), state_schema, output_schema,
                                  mode, timeout, is_map, child)
    return df._new(node)


def project_keys(child: LogicalPlan, grouping: Sequence[Expression]) -> tuple[LogicalPlan, list[AttributeReference]]:
    """``child`` with the grouping expressions that are not columns projected, and the key attributes."""
    key_attrs: list[AttributeReference] = []
    computed: list[Expression] = []
    for key in grouping:
        if isinstance(key, Alias) and isinstance(key.child, AttributeReference):
            key = key.child
        if isinstance(key, AttributeReference):
            key_attrs.append(key)
            continue
        named = ensure_named(key)
        assert isinstance(named, Alias)
        computed.append(named)
        key_attrs.append(named.to_attribute())
    if computed:
        child = Project([*child.output(), *computed], child)
    return child, key_attrs


def watermarked_input(node: FlatMapGroupsWithState) -> AttributeReference | None:
    """The first column of the node's input that carries a watermarked event time, if any."""
    columns = event_time_columns(node.child)
    return next((a for a in node.child.output() if a.expr_id in columns), None)


def _fail(reason: str) -> None:
    raise AnalysisException(reason)


def check_groups_with_state(plan: LogicalPlan, output_mode: str) -> None:
    """Refuse, with Spark's reasons, ``*GroupsWithState`` uses a streaming query cannot run."""
    aggregates = [n for n in plan.walk() if isinstance(n, Aggregate) and reads_stream(n.child)]
    shown = output_mode.capitalize()
    for node in plan.walk():
        if not isinstance(node, FlatMapGroupsWithState) or not reads_stream(node.child):
            continue
        if node.is_map:
            if aggregates:
                _fail("mapGroupsWithState is not supported with aggregation on a streaming DataFrame/Dataset")
            if output_mode != "update":
                _fail(f"mapGroupsWithState is not supported with {shown} output mode on a streaming "
                      "DataFrame/Dataset: use outputMode('update').")
        elif not aggregates:
            if node.output_mode != output_mode:
                _fail(f"flatMapGroupsWithState in {node.output_mode} mode is not supported with {shown} output mode "
                      f"on a streaming DataFrame/Dataset: declare outputMode '{output_mode}' in "
                      f"flatMapGroupsWithState or start the query in {node.output_mode} mode.")
        elif node.output_mode == "update":
            _fail("flatMapGroupsWithState in update mode is not supported with aggregation on a streaming "
                  "DataFrame/Dataset: declare 'append' in flatMapGroupsWithState.")
        elif any(isinstance(n, Aggregate) and reads_stream(n.child) for n in node.child.walk()):
            _fail("flatMapGroupsWithState in append mode is not supported after aggregation on a streaming "
                  "DataFrame/Dataset")
        if node.timeout == GroupStateTimeout.EventTimeTimeout and watermarked_input(node) is None:
            _fail("Watermark must be specified in the query using '[Dataset/DataFrame].withWatermark()' for using "
                  "event-time timeout in a [map|flatMap]GroupsWithState. Event-time timeout not supported without "
                  "watermark.")
