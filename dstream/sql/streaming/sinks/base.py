"""What a streaming sink is: where each micro-batch's rows go, once per batch id.

What this module owns
---------------------
:class:`Sink` and :class:`SinkProvider`, and the registry of providers by format
name (:func:`register_sink`, ``SINKS``; :mod:`..formats` looks formats up).

Invariants
----------
* ``add_batch(batch_id, df)`` is idempotent per batch id: a restart re-runs the last
  batch that has no commit, and the sink skips a batch id it has already made
  visible (the file sink's manifest, the memory sink's batch list).
* ``df`` is a batch DataFrame: an action on it runs the micro-batch's job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...errors import AnalysisException
from ..registry import FormatRegistry

if TYPE_CHECKING:
    from ...dataframe import DataFrame
    from ...session import SparkSession
    from ...types import StructType

__all__ = ["SINKS", "Sink", "SinkProvider", "register_sink"]


class Sink:
    """A started sink of one streaming query."""

    #: What progress reports show as the sink's ``description``.
    description: str = "Sink"

    def started(self, schema: StructType) -> None:
        """The query starts, its rows of ``schema``: called once, before its first batch."""

    def add_batch(self, batch_id: int, df: DataFrame) -> int:
        """Write batch ``batch_id``; the rows written, or -1 when the sink cannot count them."""
        raise NotImplementedError

    def stop(self) -> None:
        """Release what the sink holds."""


class SinkProvider:
    """A format of ``df.writeStream.format(name)``."""

    #: Whether a query writing here needs a ``checkpointLocation`` (no temporary one).
    needs_checkpoint: bool = False
    #: The output modes the format can write (``None``: all three).
    output_modes: tuple[str, ...] | None = None
    #: The format's name in messages.
    format_name: str = ""

    def create(self, session: SparkSession, options: dict[str, str], output_mode: str, partition_by: list[str],
               query_name: str | None) -> Sink:
        """A sink for one run of a query."""
        raise NotImplementedError

    def check_output_mode(self, output_mode: str) -> None:
        """Refuse, with Spark's error, an output mode the format cannot write."""
        mode = output_mode.lower()
        if self.output_modes is not None and mode not in self.output_modes:
            raise AnalysisException(
                f"Invalid streaming output mode: {mode}. This output mode is not supported in Data Source "
                f"{self.format_name}.", "STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE",
                {"className": self.format_name, "outputMode": mode})


SINKS: FormatRegistry[SinkProvider] = FormatRegistry("sinks")


def register_sink(name: str, factory: Callable[[], SinkProvider]) -> None:
    """Make ``df.writeStream.format(name)`` use the providers ``factory`` makes."""
    SINKS.register(name, factory)
