"""The application's first events: ApplicationStart and EnvironmentUpdate.

What this module owns
---------------------
What a context tells its listeners about itself when it starts: its name, id, user and
start time, and its environment (Spark properties, system properties, the runtime),
with the values of keys that match ``spark.redaction.regex`` replaced by Spark's
``*********(redacted)`` before they leave the context (the UI, the REST API and the
event log all see the redacted form).
"""

from __future__ import annotations

import getpass
import os
import platform
import re
import sys
from typing import Any

from ..version import __version__
from .events import SparkListenerApplicationStart, SparkListenerEnvironmentUpdate

REDACTION_KEY = "spark.redaction.regex"
#: Spark's default ``spark.redaction.regex``.
DEFAULT_REDACTION_REGEX = r"(?i)secret|password|token|access[.]key"
REDACTED = "*********(redacted)"


def redact(pairs: list[tuple[str, str]], pattern: str) -> list[list[str]]:
    """``[key, value]`` pairs, sorted by key, values of matching keys replaced by ``REDACTED``."""
    regex = re.compile(pattern)
    return [[k, REDACTED if regex.search(k) else str(v)] for k, v in sorted(pairs)]


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name (a container): Spark shows the same
        return "<unknown>"


def application_started(bus: Any, conf: Any, app_name: str, app_id: str, start_time: int,
                        store: Any = None) -> None:
    """Post ApplicationStart and EnvironmentUpdate for a context just created.

    ``store`` (the context's status store) also gets both at once, not only through the bus:
    the UI serves as soon as the context exists, and its first request must already see
    the application (the store applies the same two events again when the bus delivers them).
    """
    if not bus.listeners:
        return
    pattern = conf.get(REDACTION_KEY, DEFAULT_REDACTION_REGEX) or DEFAULT_REDACTION_REGEX
    events: list[Any] = [SparkListenerApplicationStart(app_name, app_id, start_time, _user())]
    runtime = [("Java Version", f"Python {platform.python_version()} ({platform.python_implementation()})"),
               ("Java Home", sys.prefix), ("Scala Version", f"dstreams {__version__}")]
    system = [("python.executable", sys.executable), ("os.name", platform.system()),
              ("os.version", platform.release()), ("os.arch", platform.machine()),
              ("user.dir", os.getcwd()), ("user.name", _user()), ("pid", str(os.getpid()))]
    events.append(SparkListenerEnvironmentUpdate({
        "JVM Information": [list(p) for p in runtime],
        "Spark Properties": redact(conf.getAll(), pattern),
        "Hadoop Properties": [],
        "System Properties": redact(system, pattern),
        "Metrics Properties": [],
        "Classpath Entries": [[p, "System Classpath"] for p in sys.path if p],
    }))
    for event in events:
        if store is not None:
            store.on_event(event)
        bus.post(event)
