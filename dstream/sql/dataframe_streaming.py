"""The DataFrame methods of Structured Streaming, kept apart from the batch facade.

What this module owns
---------------------
:class:`StreamingMethods`, a base of :class:`~dstream.sql.dataframe.DataFrame` with
``isStreaming``, ``writeStream``, ``withWatermark`` and
``dropDuplicatesWithinWatermark``. They reach the streaming engine through the session
(imported when first used), so that neither the DataFrame module nor batch programs
import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import AnalysisException

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .plan.logical import LogicalPlan
    from .session import SparkSession

__all__ = ["StreamingMethods"]


class StreamingMethods:
    """``DataFrame``'s streaming methods (PySpark's names)."""

    _plan: LogicalPlan
    _session: SparkSession

    @property
    def isStreaming(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether this DataFrame reads a stream (run it with ``writeStream.start()``)."""
        return any(node.is_streaming for node in self._plan.walk())

    @property
    def writeStream(self) -> Any:  # noqa: N802 - PySpark's name
        """Start a streaming query writing this streaming DataFrame (a ``DataStreamWriter``)."""
        if not self.isStreaming:
            raise AnalysisException(
                "'writeStream' can be called only on streaming Dataset/DataFrame (this one reads no stream: "
                "write it with df.write).", "WRITE_STREAM_NOT_ALLOWED", {})
        return self._session._streaming().DataStreamWriter(self)

    def withWatermark(self, eventTime: str, delayThreshold: str) -> DataFrame:  # noqa: N802,N803 - PySpark's names
        """Mark ``eventTime`` (a timestamp column) as event time, late by at most ``delayThreshold``."""
        return self._session._streaming().with_watermark(self, eventTime, delayThreshold)

    def dropDuplicatesWithinWatermark(self, subset: list[str] | None = None) -> DataFrame:  # noqa: N802
        """``dropDuplicates`` on a stream, each key kept until the watermark passes its event time plus the delay.

        Streams only: a batch DataFrame refuses it when it runs, as Spark does.
        """
        return self._session._streaming().drop_duplicates_within_watermark(self, subset)
