"""The HTTP answer of the REST API, shared by the live UI and the history server.

What this module owns
---------------------
:func:`rest_answer`: a request's query arguments decoded, the API asked, and its answer
turned into a status, a content type and a body: JSON, or plain text for the API's error
messages (Spark's REST answers its 404s with text). An endpoint that raises answers 500
with the error named and logged; the server goes on. No tornado here: the handlers write
what this returns.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["rest_answer"]

log = logging.getLogger(__name__)


def rest_answer(get: Callable[[str, dict[str, list[str]]], tuple[int, Any]], path: str,
                query_arguments: Mapping[str, list[bytes]]) -> tuple[int, str, str]:
    """``(status, content type, body)`` of ``GET /api/v1/{path}`` answered by ``get``."""
    query = {key: [v.decode("utf-8", "replace") for v in values] for key, values in query_arguments.items()}
    try:
        status, body = get(path.strip("/"), query)
    except Exception as exc:  # noqa: BLE001 - a broken endpoint answers 500, the server goes on
        log.exception("REST API request /api/v1/%s failed", path)
        status, body = 500, f"internal error: {type(exc).__name__}: {exc}"
    if isinstance(body, str) and status >= 400:
        return status, "text/plain; charset=utf-8", body
    return status, "application/json", json.dumps(body, indent=2)
