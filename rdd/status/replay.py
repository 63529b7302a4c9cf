"""Replaying an event log into fresh listeners (the history server's stores).

What this module owns
---------------------
Reading a log written by :class:`~rdd.status.event_log.EventLoggingListener`, finished
or still in progress, and feeding its events, in order, to listeners built for it
(an :class:`~rdd.status.store.AppStatusStore`, and whatever layers above add); and
listing the logs of a directory.

Invariants
----------
* A cut-short *last* line (an in-progress log read while being written, a crash) is
  ignored; a malformed line elsewhere is an error naming the file and the line.
* Events of a type nobody registered (a layer that is not imported) are skipped and
  counted, never fatal: the core pages still work.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .event_log import IN_PROGRESS
from .events import event_from_json, registered_events
from .store import AppStatusStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LogFile:
    """One application's log: its path, its application id, and whether it ended."""

    path: str
    app_id: str
    completed: bool


@dataclass(frozen=True)
class ReplayResult:
    events: int
    skipped: int
    truncated: bool


def find_event_logs(directory: str) -> list[LogFile]:
    """The event logs in ``directory``, oldest modification first."""
    found = []
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if not os.path.isfile(path) or name.startswith("."):
            continue
        completed = not name.endswith(IN_PROGRESS)
        app_id = name if completed else name[: -len(IN_PROGRESS)]
        found.append((os.path.getmtime(path), LogFile(path, app_id, completed)))
    return [f for _, f in sorted(found, key=lambda pair: pair[0])]


def read_events(path: str, stats: dict[str, int] | None = None) -> Iterator[Any]:
    """The events of the log at ``path``, in order (see the module docstring)."""
    known = registered_events()
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    for number, line in enumerate(lines[: last + 1], start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == last + 1:
                if stats is not None:
                    stats["truncated"] = 1
                return  # the line being written when the log was read (or the app died)
            raise ValueError(f"{path}:{number}: not a JSON event ({exc}); the event log is damaged") from None
        if data.get("Event") not in known:
            if stats is not None:
                stats["skipped"] = stats.get("skipped", 0) + 1
            continue
        yield event_from_json(data)


def replay(path: str, listeners: Iterable[Any]) -> ReplayResult:
    """Feed every event of the log at ``path`` to each of ``listeners`` (``on_event``), in order."""
    targets = list(listeners)
    stats: dict[str, int] = {}
    count = 0
    for event in read_events(path, stats):
        count += 1
        for listener in targets:
            listener.on_event(event)
    if stats.get("skipped"):
        log.info("%s: skipped %d event(s) of types not registered in this process", path, stats["skipped"])
    return ReplayResult(count, stats.get("skipped", 0), bool(stats.get("truncated")))


def replay_store(path: str, conf: Any = None) -> AppStatusStore:
    """A fresh status store holding the application logged at ``path``."""
    store = AppStatusStore(conf)
    replay(path, [store])
    return store
