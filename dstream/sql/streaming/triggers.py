"""Triggers: when a query runs its next micro-batch.

What this module owns
---------------------
:class:`Trigger` and :func:`trigger_from_args` (the rules of PySpark's
``DataStreamWriter.trigger``): the default (the next batch as soon as the previous one
ends; an idle query polls every ``spark.sql.streaming.pollingDelay``, 10 ms),
``processingTime`` (batches at multiples of the interval; a batch longer than the
interval is followed by the next one at the next boundary, missed ones are not made
up), ``once`` (one batch with all available data, read limits ignored, then stop) and
``availableNow`` (batches honouring read limits until what was available at start is
processed, then stop). ``continuous`` is refused: dstreams runs micro-batches only.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import IllegalArgumentException, PySparkNotImplementedError, PySparkValueError
from ..expressions.windows import duration_us

__all__ = ["Trigger", "interval_ms", "trigger_from_args"]


@dataclass(frozen=True)
class Trigger:
    """A query's trigger: ``kind`` is ``default``, ``processing_time``, ``once`` or ``available_now``."""

    kind: str = "default"
    interval_ms: int = 0

    def describe(self) -> str:
        if self.kind == "processing_time":
            return f"ProcessingTimeTrigger({self.interval_ms})"
        return {"default": "ProcessingTimeTrigger(0)", "once": "OneTimeTrigger",
                "available_now": "AvailableNowTrigger"}[self.kind]


def trigger_from_args(processingTime: str | None = None, once: bool | None = None,  # noqa: N803
                      continuous: str | None = None, availableNow: bool | None = None) -> Trigger:  # noqa: N803
    """The trigger ``writeStream.trigger(...)`` describes (exactly one argument set)."""
    given = [p for p in (processingTime, once, continuous, availableNow) if p is not None]
    if len(given) > 1:
        raise PySparkValueError("Only a single trigger is allowed.", "ONLY_ALLOW_SINGLE_TRIGGER", {})
    if not given:
        raise PySparkValueError("No trigger provided: pass one of processingTime, once, availableNow.",
                                "ONLY_ALLOW_SINGLE_TRIGGER", {})
    if processingTime is not None:
        if not isinstance(processingTime, str) or not processingTime.strip():
            raise PySparkValueError(f"Value for processingTime must be a non empty string. Got: {processingTime!r}",
                                    "VALUE_NOT_NON_EMPTY_STR",
                                    {"arg_name": "processingTime", "arg_value": str(processingTime)})
        interval = interval_ms(processingTime, "processingTime")
        if interval < 0:
            raise PySparkValueError(f"processingTime must be >= 0, got {processingTime!r}.",
                                    "VALUE_NOT_POSITIVE", {"arg_name": "processingTime"})
        return Trigger("processing_time", interval)
    if once is not None:
        if once is not True:
            raise PySparkValueError(f"Value for once must be True. Got: {once!r}", "VALUE_NOT_TRUE",
                                    {"arg_name": "once", "arg_value": str(once)})
        return Trigger("once")
    if availableNow is not None:
        if availableNow is not True:
            raise PySparkValueError(f"Value for availableNow must be True. Got: {availableNow!r}", "VALUE_NOT_TRUE",
                                    {"arg_name": "availableNow", "arg_value": str(availableNow)})
        return Trigger("available_now")
    raise PySparkNotImplementedError(
        "Continuous processing (trigger(continuous=...)) is not supported by dstreams: it runs micro-batches "
        "only. Use trigger(processingTime=...) for a fixed interval, or no trigger for the lowest latency.",
        "NOT_IMPLEMENTED", {"feature": "continuous trigger"})


#: Interval words counted in months (a month of delay is 31 days, as Spark's).
_MONTHS = {"month": 1, "months": 1, "year": 12, "years": 12}


def interval_ms(text: str, what: str) -> int:
    """``"10 seconds"`` -> milliseconds; a month counts as 31 days (Spark's rule for delays)."""
    parts = text.lower().replace("interval", " ").split()
    months = 0
    kept: list[str] = []
    i = 0
    while i < len(parts):
        unit = _MONTHS.get(parts[i + 1]) if i + 1 < len(parts) else None
        if unit is not None and parts[i].lstrip("-").isdigit():
            months += int(parts[i]) * unit
            i += 2
            continue
        kept.append(parts[i])
        i += 1
    try:
        us = duration_us(" ".join(kept)) if kept else 0
    except IllegalArgumentException:
        raise IllegalArgumentException(
            f"Invalid {what} {text!r}: expected an interval such as '10 seconds' or '1 minute 30 seconds'.",
            "INVALID_INTERVAL_FORMAT", {"input": text}) from None
    return us // 1000 + months * 31 * 86_400_000
