"""The DataFrame methods that only mean something on streams: ``withWatermark`` and friends.

What this module owns
---------------------
The argument checks and plan building behind ``DataFrame.withWatermark`` and
``DataFrame.dropDuplicatesWithinWatermark`` (kept out of the DataFrame facade so that
batch code does not import the streaming engine).

Invariants
----------
* The event-time column is a timestamp, or a window (``struct<start, end>``) column,
  whose end is its event time; the delay is a non-negative interval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import AnalysisException, PySparkTypeError
from ..expressions.base import AttributeReference
from ..types import StructType, TimestampNTZType, TimestampType
from .relation import EventTimeWatermark
from .triggers import interval_ms

if TYPE_CHECKING:
    from ..dataframe import DataFrame

__all__ = ["drop_duplicates_within_watermark", "with_watermark"]


def with_watermark(df: DataFrame, event_time: str, delay: str) -> DataFrame:
    """``df.withWatermark(event_time, delay)``."""
    if not isinstance(event_time, str):
        raise PySparkTypeError(f"Argument `eventTime` should be a str, got {type(event_time).__name__}.",
                               "NOT_STR", {"arg_name": "eventTime", "arg_type": type(event_time).__name__})
    if not isinstance(delay, str) or not delay.strip():
        raise PySparkTypeError(f"Argument `delayThreshold` should be a non-empty str, got {delay!r}.",
                               "NOT_STR", {"arg_name": "delayThreshold", "arg_type": type(delay).__name__})
    column = df._resolve(event_time)
    if not isinstance(column, AttributeReference):
        raise AnalysisException(f"withWatermark needs a column of the DataFrame, got {event_time!r}: add the "
                                f"expression as a column first (withColumn) and watermark that column.")
    dtype = column.dtype
    is_window = isinstance(dtype, StructType) and [f.name for f in dtype.fields] == ["start", "end"]
    if not isinstance(dtype, TimestampType | TimestampNTZType) and not is_window:
        raise AnalysisException(
            f"Event time must be defined on a window or a timestamp, but {column.name} is of type "
            f"{dtype.simpleString()}. Cast it to a timestamp first (col.cast('timestamp')).",
            "EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE", {"eventName": column.name, "eventType": dtype.simpleString()})
    delay_ms = interval_ms(delay, "delayThreshold")
    if delay_ms < 0:
        raise AnalysisException(f"delayThreshold should not be negative, got {delay!r}.")
    return df._new(EventTimeWatermark(column, delay_ms, df._plan))


def drop_duplicates_within_watermark(df: DataFrame, subset: list[str] | None) -> DataFrame:
    """``df.dropDuplicatesWithinWatermark(subset)``: the plan; a batch DataFrame refuses it when it runs."""
    from .state.dedup import DeduplicateWithinWatermark

    if subset is not None and (isinstance(subset, str) or not isinstance(subset, list | tuple)):
        raise PySparkTypeError(f"Argument `subset` should be a list or tuple, got {type(subset).__name__}.",
                               "NOT_LIST_OR_TUPLE", {"arg_name": "subset", "arg_type": type(subset).__name__})
    keys = []
    for name in subset or []:
        column = df._resolve(name)
        if not isinstance(column, AttributeReference):
            raise AnalysisException(f"dropDuplicatesWithinWatermark needs column names of the DataFrame, got "
                                    f"{name!r}: add the expression as a column first (withColumn).")
        keys.append(column)
    return df._new(DeduplicateWithinWatermark(keys or df._plan.output(), df._plan))
