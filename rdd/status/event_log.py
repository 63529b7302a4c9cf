"""The event log: every listener event of an application as one JSON line.

What this module owns
---------------------
:class:`EventLoggingListener`, added to a context's bus when ``spark.eventLog.enabled``
is true: it writes each event's ``to_json()`` as a line of
``{spark.eventLog.dir}/{appId}.inprogress`` and, when the application ends, renames
the file to ``{dir}/{appId}`` (Spark's layout, so a history server tells finished
applications from running ones by the name).

Invariants
----------
* One event per line, in delivery order; events of any registered type (streaming's
  too: they are forwarded to the same bus) are written, other objects are skipped.
* Lines reach the file at least once a second (and at the end): a reader of an
  in-progress log sees recent events, and at most its last line is cut short.
* The file is only renamed after its last line (ApplicationEnd) is flushed and closed.
"""

from __future__ import annotations

import json
import logging
import os
import time
from typing import IO, Any

from .events import SparkListenerApplicationEnd

log = logging.getLogger(__name__)

ENABLED_KEY = "spark.eventLog.enabled"
DIR_KEY = "spark.eventLog.dir"
#: Spark's default ``spark.eventLog.dir``.
DEFAULT_DIR = "/tmp/spark-events"
IN_PROGRESS = ".inprogress"
_FLUSH_EVERY_S = 1.0


def log_dir(conf: Any) -> str:
    """``spark.eventLog.dir`` as a local path (a ``file:`` URI is accepted, as Spark's)."""
    value = conf.get(DIR_KEY, DEFAULT_DIR) or DEFAULT_DIR
    if value.startswith("file://"):
        value = value[len("file://"):]
    elif value.startswith("file:"):
        value = value[len("file:"):]
    if "://" in value:
        raise ValueError(f"{DIR_KEY}={value!r}: only local directories are supported; give a path "
                         f"such as {DEFAULT_DIR}")
    return value


class EventLoggingListener:
    """Write every event of one application to ``{directory}/{app_id}.inprogress``.

    Parameters
    ----------
    directory : str
        Where logs go (created if missing).
    app_id : str
        The application id: the file's name.

    Raises
    ------
    OSError
        If the directory cannot be created or the file cannot be opened (the context
        then fails to start, as Spark's does, naming the path).
    """

    def __init__(self, directory: str, app_id: str) -> None:
        os.makedirs(directory, exist_ok=True)
        self.final_path = os.path.join(directory, app_id)
        self.path = self.final_path + IN_PROGRESS
        if os.path.exists(self.final_path):
            raise FileExistsError(f"event log {self.final_path} already exists; an application with id {app_id} "
                                  f"already logged to {DIR_KEY}={directory}")
        self._file: IO[str] | None = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - closed at the end
        self._flushed = time.monotonic()
        self.written = 0

    def on_event(self, event: Any) -> None:
        out = self._file
        if out is None or not hasattr(event, "to_json"):
            return
        out.write(json.dumps(event.to_json(), separators=(",", ":"), default=str))
        out.write("\n")
        self.written += 1
        if isinstance(event, SparkListenerApplicationEnd):
            self.close()
            return
        now = time.monotonic()
        if now - self._flushed >= _FLUSH_EVERY_S:
            out.flush()
            self._flushed = now

    def flush(self) -> None:
        """Write the buffered lines to the file now."""
        out = self._file
        if out is not None:
            out.flush()
            self._flushed = time.monotonic()

    def close(self) -> None:
        """Flush, close and rename the log to its final name (idempotent)."""
        out, self._file = self._file, None
        if out is None:
            return
        out.close()
        os.replace(self.path, self.final_path)
        log.info("event log written to %s (%d events)", self.final_path, self.written)
