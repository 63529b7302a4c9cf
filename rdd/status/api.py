"""ApiV1: Spark's REST API (``/api/v1/...``) over a status store, without HTTP.

What this module owns
---------------------
The routing of a path below ``/api/v1/`` to the status store's reads, the parameter
checks, Spark's status codes and the plug-in table through which layers above add
routes under ``applications/{id}/`` (``streaming/...``, ``sql/streaming/...``). The web
server only turns ``(status, body)`` into an HTTP response with a JSON body.

Invariants
----------
* ``get`` never raises for a bad request: unknown paths and ids give 404, malformed
  parameters (a non-integer id, an unknown ``status``, a bad ``sortBy``) give 400;
  the body is then ``{"message": text}`` with Spark's text (``"unknown job: 7"``).
* Bodies are fresh JSON-able values; nothing returned is shared with the store.
* Routes of a plug-in are matched by their first path parts (the longest registered
  prefix wins) and receive the parts that follow.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..conf_parsing import parse_boolean
from .store import AppStatusStore

Response = tuple[int, Any]
Handler = Callable[[list[str], dict[str, list[str]]], Response]

JOB_STATUSES = {"running": "RUNNING", "succeeded": "SUCCEEDED", "failed": "FAILED", "unknown": "UNKNOWN"}
STAGE_STATUSES = {"active": "ACTIVE", "complete": "COMPLETE", "failed": "FAILED", "pending": "PENDING",
                  "skipped": "SKIPPED"}
TASK_SORTS = {"id": "ID", "runtime": "INCREASING_RUNTIME", "increasing_runtime": "INCREASING_RUNTIME",
              "-runtime": "DECREASING_RUNTIME", "decreasing_runtime": "DECREASING_RUNTIME"}


class ApiError(Exception):
    """A request the API refuses: ``status`` and Spark's message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def not_found(message: str) -> ApiError:
    return ApiError(404, message)


def bad_request(message: str) -> ApiError:
    return ApiError(400, message)


def int_param(value: str, what: str) -> int:
    """``value`` as an int, else a 400 naming ``what``."""
    try:
        return int(value)
    except ValueError:
        raise bad_request(f"{what} must be an integer, got {value!r}") from None


def query_value(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[-1] if values else None


def _statuses(query: dict[str, list[str]], table: dict[str, str]) -> set[str] | None:
    wanted = set()
    for value in query.get("status", []):
        status = table.get(value.lower())
        if status is None:
            raise bad_request(f"unknown status {value!r}; use one of {', '.join(sorted(table))}")
        wanted.add(status)
    return wanted or None


class ApiV1:
    """Spark's REST API over the store(s) ``store_provider`` gives.

    Parameters
    ----------
    store_provider : callable
        ``store_provider()`` returns ``{appId: AppStatusStore}`` of the applications
        served (every replayed log for the history server), or one ``AppStatusStore``
        (a live context), served under its application's id.
    """

    def __init__(self, store_provider: Callable[[], dict[str, AppStatusStore] | AppStatusStore]) -> None:
        self._provider = store_provider
        self._plugins: dict[tuple[str, ...], Handler] = {}
        self._lock = threading.Lock()

    def register(self, prefix: str, handler: Handler) -> None:
        """Serve ``applications/{id}/{prefix}/...`` with ``handler(parts, query)``.

        ``parts`` are the path parts after ``prefix``; the handler returns
        ``(status, body)`` as :meth:`get` does.
        """
        key = tuple(p for p in prefix.strip("/").split("/") if p)
        if not key:
            raise ValueError("a REST plug-in needs a non-empty prefix such as 'streaming'")
        with self._lock:
            self._plugins[key] = handler

    def unregister(self, prefix: str) -> None:
        with self._lock:
            self._plugins.pop(tuple(p for p in prefix.strip("/").split("/") if p), None)

    def get(self, path: str, query: dict[str, list[str]] | None = None) -> Response:
        """Answer ``GET /api/v1/{path}?{query}``: ``(HTTP status, JSON-able body)``."""
        parts = [p for p in path.strip("/").split("/") if p]
        try:
            return 200, self._route(parts, query or {})
        except ApiError as exc:
            return exc.status, {"message": exc.message}

    def _stores(self) -> dict[str, AppStatusStore]:
        provided = self._provider()
        if isinstance(provided, AppStatusStore):
            with provided.lock:
                app_id = str(provided.application.get("id", ""))
            return {app_id: provided}
        return provided

    # -- routing -------------------------------------------------------------------------
    def _route(self, parts: list[str], query: dict[str, list[str]]) -> Any:
        if parts[:1] == ["version"] and len(parts) == 1:
            from ..version import __version__
            return {"spark": __version__}
        if not parts or parts[0] != "applications":
            raise not_found(f"unknown path: /api/v1/{'/'.join(parts)}")
        stores = self._stores()
        if len(parts) == 1:
            return [store.application_info() for store in stores.values()]
        app_id = parts[1]
        store = stores.get(app_id)
        if store is None:
            raise not_found(f"no such app: {app_id}")
        rest = parts[2:]
        if rest and rest[0].isdigit() and len(rest) >= 1 and _is_attempt(store, rest[0]):
            rest = rest[1:]  # applications/{id}/{attemptId}/...: one attempt per application here
        if not rest:
            return store.application_info()
        status, body = self._plugin(rest, query) or (None, None)
        if status is not None:
            if status != 200:
                message = body.get("message") if isinstance(body, dict) else str(body)
                raise ApiError(status, str(message))
            return body
        return self._core(store, rest, query)

    def _plugin(self, rest: list[str], query: dict[str, list[str]]) -> Response | None:
        with self._lock:
            plugins = dict(self._plugins)
        for size in range(len(rest), 0, -1):
            handler = plugins.get(tuple(rest[:size]))
            if handler is not None:
                return handler(rest[size:], query)
        return None

    def _core(self, store: AppStatusStore, rest: list[str], query: dict[str, list[str]]) -> Any:
        head, args = rest[0], rest[1:]
        if head == "jobs":
            if not args:
                return store.jobs(_statuses(query, JOB_STATUSES))
            if len(args) == 1:
                job = store.job(int_param(args[0], "jobId"))
                if job is None:
                    raise not_found(f"unknown job: {args[0]}")
                return job
        elif head == "stages":
            return self._stages(store, args, query)
        elif head in ("executors", "allexecutors") and not args:
            return store.executors(active_only=head == "executors")
        elif head == "storage" and args[:1] == ["rdd"]:
            if len(args) == 1:
                return store.rdds()
            if len(args) == 2:
                rdd = store.rdd(int_param(args[1], "rddId"))
                if rdd is None:
                    raise not_found(f"unknown rdd: {args[1]}")
                return rdd
        elif head == "environment" and not args:
            return store.environment_info()
        raise not_found(f"unknown path: /api/v1/applications/{{id}}/{'/'.join(rest)}")

    def _stages(self, store: AppStatusStore, args: list[str], query: dict[str, list[str]]) -> Any:
        if not args:
            return store.stages(_statuses(query, STAGE_STATUSES))
        stage_id = int_param(args[0], "stageId")
        try:
            details = parse_boolean("details", query_value(query, "details") or "true")
        except ValueError as exc:
            raise bad_request(str(exc)) from None
        attempts = store.stage_attempts(stage_id, details=details or len(args) > 1)
        if not attempts:
            raise not_found(f"unknown stage: {stage_id}")
        if len(args) == 1:
            return attempts
        attempt_id = int_param(args[1], "stageAttemptId")
        found = [a for a in attempts if a["attemptId"] == attempt_id]
        if not found:
            known = ", ".join(str(a["attemptId"]) for a in attempts)
            raise not_found(f"unknown attempt for stage {stage_id}.  Found attempts: [{known}]")
        if len(args) == 2:
            return found[0]
        if args[2:] == ["taskList"]:
            return self._task_list(store, stage_id, attempt_id, query)
        raise not_found(f"unknown path: stages/{'/'.join(args)}")

    def _task_list(self, store: AppStatusStore, stage_id: int, attempt_id: int,
                   query: dict[str, list[str]]) -> list[dict[str, Any]]:
        offset = int_param(query_value(query, "offset") or "0", "offset")
        length = int_param(query_value(query, "length") or "20", "length")
        if offset < 0 or length < 0:
            raise bad_request(f"offset and length must not be negative, got offset={offset}, length={length}")
        sort_name = query_value(query, "sortBy") or "ID"
        sort = TASK_SORTS.get(sort_name.lower())
        if sort is None:
            raise bad_request(f"unknown sortBy {sort_name!r}; use ID, runtime or -runtime")
        tasks = store.stage_tasks(stage_id, attempt_id) or []
        if sort == "ID":
            tasks.sort(key=lambda t: t["taskId"])
        else:
            tasks.sort(key=lambda t: t.get("taskMetrics", {}).get("executorRunTime", -1),
                       reverse=sort == "DECREASING_RUNTIME")
        return tasks[offset:offset + length]


def _is_attempt(store: AppStatusStore, part: str) -> bool:
    return str(store.application.get("attemptId") or "") == part
