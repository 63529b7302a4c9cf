"""One INFO line per completed batch, for long runs (``make run``, ``make bench``).

What this module owns
---------------------
:class:`BatchStatusLine`, a StreamingListener that logs each completed batch on the
``dstream.status`` logger: its time, records, scheduling delay, processing time, total
delay, how many batches are queued behind it, and where the Streaming tab is; and
:func:`enable_status_line`, which adds it to a StreamingContext and makes sure the line
reaches stderr even when the program configured no logging.

Invariants
----------
* The line is built on the listener thread, never on the engine's threads.
* A program that configured logging itself keeps its handlers: the stderr handler is
  added only when the ``dstream.status`` logger would print nowhere.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

from dstream.listener import StreamingListener
from dstream.time import describe_time

if TYPE_CHECKING:
    from dstream.context import StreamingContext

__all__ = ["BatchStatusLine", "enable_status_line"]

logger = logging.getLogger("dstream.status")


class _Stderr(logging.StreamHandler):
    """Writes to the ``sys.stderr`` of the moment (it may be replaced after the handler is made)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


class BatchStatusLine(StreamingListener):
    """Log one line per completed batch (see the module docstring)."""

    def __init__(self, ui_url: str | None = None) -> None:
        self._ui_url = ui_url
        self._submitted: set[int] = set()

    def onBatchSubmitted(self, batchSubmitted: Any) -> None:  # noqa: N802, N803 - PySpark's names
        self._submitted.add(batchSubmitted.batchInfo().batchTime().milliseconds())

    def onBatchCompleted(self, batchCompleted: Any) -> None:  # noqa: N802, N803
        info = batchCompleted.batchInfo()
        batch_time = info.batchTime().milliseconds()
        self._submitted.discard(batch_time)
        self._submitted = {t for t in self._submitted if t > batch_time}
        where = f"; UI {self._ui_url}/streaming/" if self._ui_url else ""
        logger.info("batch %s: %d records, scheduling delay %d ms, processing time %d ms, total delay %d ms, "
                    "%d queued%s", describe_time(batch_time), info.numRecords(), info.schedulingDelay(),
                    info.processingDelay(), info.totalDelay(), len(self._submitted), where)


def enable_status_line(ssc: StreamingContext) -> BatchStatusLine:
    """Log a status line per completed batch of ``ssc`` (and the UI's address once)."""
    url = ssc.sparkContext.uiWebUrl
    quiet = not logger.hasHandlers() or logger.getEffectiveLevel() > logging.INFO
    if quiet and not any(isinstance(h, _Stderr) for h in logger.handlers):
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    if url:
        logger.info("Spark UI at %s (Streaming tab: %s/streaming/)", url, url)
    line = BatchStatusLine(url)
    ssc.addStreamingListener(line)
    return line
