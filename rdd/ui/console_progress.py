"""The console progress bar: Spark's ``[Stage 3:=====>   (2 + 2) / 8]`` line on stderr.

What this module owns
---------------------
:class:`ConsoleProgressBar`, started by a ``SparkContext`` when
``spark.ui.showConsoleProgress`` is true and stderr is a terminal: a daemon thread that
reads the running stages from the status store every 200 ms and redraws one line in
place (carriage return, no newline), as Spark's shell does.

Invariants
----------
* A stage appears only once it has run for 500 ms (short jobs never draw); at most
  three stages share the line, each with an equal part of the terminal's width.
* The line is redrawn only when it changed (or a minute passed), and cleared (spaces,
  then a carriage return) when no stage is left to show, so log lines that follow
  start on a clean line.
* The line is cleared as soon as an action returns (``finish_all``), before the code
  after it prints anything; the stages of that job are not drawn again.
* ``stop`` clears the line and ends the thread before it returns.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from typing import IO, Any

SHOW_KEY = "spark.ui.showConsoleProgress"
INTERVAL_KEY = "spark.ui.consoleProgress.update.interval"
#: Spark's redraw period and the age a stage must reach before it is drawn.
DEFAULT_INTERVAL_MS = 200
FIRST_DELAY_MS = 500
MAX_STAGES = 3
_REDRAW_ANYWAY_MS = 60_000


def render(stages: list[tuple[int, int, int, int]], width: int) -> str:
    """The bar for ``(stageId, numTasks, completed, active)`` stages, Spark's format."""
    part = width // max(1, len(stages))
    bars = []
    for stage_id, total, completed, active in stages:
        header = f"[Stage {stage_id}:"
        tailer = f"({completed} + {active}) / {total}]"
        room = part - len(header) - len(tailer)
        if room > 0:
            done = room * completed // total if total else room
            body = "".join("=" if i < done else ">" if i == done else " " for i in range(room))
        else:
            body = ""
        bars.append(header + body + tailer)
    return "".join(bars)


class ConsoleProgressBar:
    """Draw the running stages of ``store`` on ``stream`` (see the module docstring).

    Parameters
    ----------
    store : AppStatusStore
        Where the running stages are read.
    stream : file, optional
        Where the line is drawn (default ``sys.stderr``).
    interval_ms : int
        Redraw period.
    """

    def __init__(self, store: Any, stream: IO[str] | None = None, interval_ms: int = DEFAULT_INTERVAL_MS) -> None:
        self._store = store
        self._stream = stream if stream is not None else sys.stderr
        self._interval = max(10, interval_ms) / 1000
        self._last = ""
        self._last_drawn = 0.0
        self._lock = threading.Lock()  # the bar's thread draws, the job's thread clears
        self._finished: set[int] = set()  # stages of ended jobs the store may not have closed yet
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="console-progress-bar", daemon=True)
        self._thread.start()

    @staticmethod
    def wanted(conf: Any, stream: IO[str] | None = None) -> bool:
        """Whether a context with ``conf`` shows the bar: the setting is on and the stream is a terminal."""
        if not conf.getBoolean(SHOW_KEY, False):
            return False
        target = stream if stream is not None else sys.stderr
        try:
            return bool(target.isatty())
        except (AttributeError, ValueError):
            return False

    def _width(self) -> int:
        columns = os.environ.get("COLUMNS", "")
        if columns.isdigit() and int(columns) > 0:
            return int(columns)
        return shutil.get_terminal_size((80, 24)).columns

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self.refresh()
            except (OSError, ValueError):
                return  # the terminal went away (closed stream): nothing more to draw on

    def refresh(self) -> None:
        """Redraw once (the thread calls it every interval)."""
        now_ms = time.time() * 1000
        progress = self._store.active_stage_progress()
        with self._lock:
            self._finished &= {p[0] for p in progress}
            stages = [(stage_id, total, done, active)
                      for stage_id, submitted, total, done, active in progress
                      if now_ms - submitted > FIRST_DELAY_MS and stage_id not in self._finished][:MAX_STAGES]
            if not stages:
                self._clear()
                return
            line = render(stages, self._width())
            if line != self._last or now_ms - self._last_drawn > _REDRAW_ANYWAY_MS:
                self._stream.write("\r" + line)
                self._stream.flush()
                self._last, self._last_drawn = line, now_ms

    def finish_all(self) -> None:
        """A job ended (its action returned): clear the line now, as Spark does.

        The store may still list the job's stages as running (the bus delivers their
        end a moment later): they are not drawn again.
        """
        progress = self._store.active_stage_progress()
        with self._lock:
            self._finished |= {p[0] for p in progress}
            self._clear()

    def _clear(self) -> None:
        if self._last:
            self._stream.write("\r" + " " * len(self._last) + "\r")
            self._stream.flush()
            self._last = ""

    def stop(self) -> None:
        """Clear the line and end the thread."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
        try:
            with self._lock:
                self._clear()
        except (OSError, ValueError):
            pass
