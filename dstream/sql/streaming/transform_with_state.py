"""``groupBy(...).transformWithStateInPandas``: the logical plan and argument checks of state API v2.

What this module owns
---------------------
* :class:`TransformWithState`, the logical node: the user's
  :class:`~.stateful_processor.StatefulProcessor` applied to the groups of its child,
  with the output schema, output mode, time mode, the optional initial state (a
  grouped batch DataFrame) and the optional event-time column of the output.
* :func:`transform_with_state_in_pandas`, PySpark's argument checks (with its error
  classes) and the plan behind the ``GroupedData`` method.

Execution lives in :mod:`.state.transform_with_state_exec`.

Invariants
----------
* The node's keys are attributes of its child (computed grouping expressions are
  projected below it); the frames the processor sees hold the grouped DataFrame's
  columns, never helper columns.
* The initial state's keys are cast to the types of the grouping keys, so equal keys
  hash to the same state partition on both sides.
* With ``eventTimeColumnName``, that output column carries the query's watermark on to
  the operators after this one (as Spark re-registers it), so an append-mode window
  aggregation can follow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import IllegalArgumentException, PySparkTypeError
from ..expressions.base import AttributeReference, Expression
from ..local_data import attributes_of, schema_argument
from ..plan.logical import LogicalPlan, UnaryPlan
from ..types import StructType, TimestampNTZType, TimestampType
from .groups_with_state import project_keys
from .state.processor_state import TIME_MODES
from .stateful_processor import StatefulProcessor

if TYPE_CHECKING:
    from ..dataframe import DataFrame
    from ..group import GroupedData

__all__ = ["OPERATION", "TransformWithState", "transform_with_state_in_pandas"]

OPERATION = "transformWithStateInPandas"
_OUTPUT_MODES = ("append", "complete", "update")


class TransformWithState(UnaryPlan):
    """The processor applied to each group of ``child`` with the group's state variables and timers.

    Parameters
    ----------
    processor : StatefulProcessor
        The user's processor (shipped to the tasks).
    keys, data : list of AttributeReference
        The grouping columns, and the columns of the frames the processor sees (attributes of ``child``).
    output : list of AttributeReference
        The node's columns, one per field of ``output_schema``.
    output_schema : StructType
        The schema of the frames the processor yields.
    output_mode : {"append", "update", "complete"}
        The mode the operation declares.
    time_mode : {"none", "processingtime", "eventtime"}
        The clock of timers and TTLs.
    initial : DataFrame, optional
        The initial state: its data columns then its keys (cast to the grouping keys' types).
    event_time_output : AttributeReference, optional
        The output column that carries the watermark on (``eventTimeColumnName``).
    """

    def __init__(self, processor: StatefulProcessor, keys: Sequence[AttributeReference],
                 data: Sequence[AttributeReference], output: Sequence[AttributeReference], output_schema: StructType,
                 output_mode: str, time_mode: str, initial: DataFrame | None,
                 event_time_output: AttributeReference | None, child: LogicalPlan) -> None:
        super().__init__(child)
        self.processor = processor
        self.keys = list(keys)
        self.data = list(data)
        self._output = list(output)
        self.output_schema = output_schema
        self.output_mode = output_mode
        self.time_mode = time_mode
        self.initial = initial
        self.event_time_output = event_time_output

    def output(self) -> list[AttributeReference]:
        return list(self._output)

    def expressions(self) -> list[Expression]:
        return [*self.keys, *self.data]

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return TransformWithState(self.processor, self.keys, self.data, self._output, self.output_schema,
                                  self.output_mode, self.time_mode, self.initial, self.event_time_output,
                                  children[0])

    def describe(self) -> str:
        keys = ", ".join(repr(k) for k in self.keys)
        out = ", ".join(repr(a) for a in self._output)
        return (f"TransformWithStateInPandas {type(self.processor).__name__}, [{keys}], [{out}], "
                f"{self.output_mode.capitalize()}, {TIME_MODES[self.time_mode]}"
                + (", with initial state" if self.initial is not None else ""))


def _output_schema(value: Any) -> StructType:
    if isinstance(value, StructType):
        return value
    if not isinstance(value, str):
        raise PySparkTypeError(f"Argument `returnType` should be a DataType or str, got {type(value).__name__}.",
                               "NOT_DATATYPE_OR_STR",
                               {"arg_name": "returnType", "arg_type": type(value).__name__})
    schema = schema_argument(value)
    if not isinstance(schema, StructType):
        raise PySparkTypeError(f"outputStructType of {OPERATION} must be a struct (such as 'id long, n long'), got "
                               f"{value!r}.", "NOT_STR_OR_STRUCT",
                               {"arg_name": "outputStructType", "arg_type": type(value).__name__})
    return schema


def _check_mode(output_mode: Any) -> str:
    mode = output_mode.strip().lower() if isinstance(output_mode, str) else None
    if mode not in _OUTPUT_MODES:
        raise IllegalArgumentException(
            f"Invalid streaming output mode: {output_mode}. Accepted output modes "
            "are 'Append', 'Complete', 'Update'.", "STREAMING_OUTPUT_MODE.INVALID", {"outputMode": str(output_mode)})
    return mode


def _check_time_mode(time_mode: Any) -> str:
    mode = time_mode.strip().lower() if isinstance(time_mode, str) else None
    if mode not in TIME_MODES:
        raise IllegalArgumentException(
            f"Unknown time mode {time_mode}. Accepted timeMode modes are "
            "'none', 'processingTime', 'eventTime'", "STATEFUL_PROCESSOR_UNKNOWN_TIME_MODE",
            {"timeMode": str(time_mode)})
    return mode


def _initial_frame(initial: GroupedData, key_types: list[Any]) -> DataFrame:
    """The initial state's columns, then its keys as ``__tws_key<i>`` cast to the grouping keys' types."""
    from ..column import Column  # noqa: PLC0415 - column imports the expressions this module's callers use

    frame = initial._df
    keys = [Column(k) for k in initial._keys]
    if len(keys) != len(key_types):
        raise IllegalArgumentException(
            f"{OPERATION}: the initial state is grouped by {len(keys)} column(s) and the input by "
            f"{len(key_types)}: group both by the same keys.", "STATEFUL_PROCESSOR_INITIAL_STATE_KEYS", {})
    types = [f.dataType for f in frame.select(*keys).schema.fields]
    cast = [k if t == want else k.cast(want) for k, t, want in zip(keys, types, key_types)]
    data = [Column(a) for a in frame._plan.output()]
    return frame.select(*data, *[c.alias(f"__tws_key{i}") for i, c in enumerate(cast)])


def transform_with_state_in_pandas(df: DataFrame, keys: list[Expression], processor: Any, output_struct: Any,
                                   output_mode: Any, time_mode: Any, initial_state: Any,
                                   event_time_column: Any) -> DataFrame:
    """The DataFrame of ``df.groupBy(*keys).transformWithStateInPandas(...)`` (see the module doc).

    Raises
    ------
    PySparkTypeError
        ``processor`` is not a StatefulProcessor, the output schema is not a StructType or
        DDL string, or ``initialState`` is not a grouped DataFrame.
    IllegalArgumentException
        An unknown output mode or time mode, or an event-time column the output lacks.
    """
    from ..group import GroupedData  # noqa: PLC0415 - group imports the DataFrame, which imports this lazily

    if not isinstance(processor, StatefulProcessor):
        raise PySparkTypeError(
            f"Argument `statefulProcessor` of {OPERATION} should be a StatefulProcessor (an instance of a subclass "
            f"of pyspark.sql.streaming.StatefulProcessor), got {type(processor).__name__}.",
            "NOT_STATEFUL_PROCESSOR", {"arg_name": "statefulProcessor", "arg_type": type(processor).__name__})
    schema = _output_schema(output_struct)
    mode = _check_mode(output_mode)
    clock = _check_time_mode(time_mode)
    if initial_state is not None and not isinstance(initial_state, GroupedData):
        raise PySparkTypeError(f"Argument `initialState` of {OPERATION} should be a GroupedData (df.groupBy(...)), "
                               f"got {type(initial_state).__name__}.", "NOT_GROUPED_DATA",
                               {"arg_name": "initialState", "arg_type": type(initial_state).__name__})
    child, key_attrs = project_keys(df._plan, keys)
    output = attributes_of(schema)
    event_time = None
    if event_time_column:
        found = [a for a in output if a.name == event_time_column]
        if not found or not isinstance(found[0].dtype, TimestampType | TimestampNTZType):
            raise IllegalArgumentException(
                f"{OPERATION}: eventTimeColumnName '{event_time_column}' must name a timestamp column of the output "
                f"schema {schema.simpleString()}.", "STATEFUL_PROCESSOR_EVENT_TIME_COLUMN",
                {"eventTimeColumnName": str(event_time_column)})
        event_time = found[0]
    initial = None
    if initial_state is not None:
        initial = _initial_frame(initial_state, [k.dtype for k in key_attrs])
    node = TransformWithState(processor, key_attrs, df._plan.output(), output, schema, mode, clock, initial,
                              event_time, child)
    return df._new(node)
