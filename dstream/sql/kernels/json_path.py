"""JSON path kernels: ``get_json_object`` and ``json_tuple``'s field lookup.

What this module owns
---------------------
The parsing of Spark's JSON path subset (``$``, ``.name``, ``['name']``, ``[n]``,
``[*]``, ``.*``) and its evaluation over JSON text, one document per value.

Invariants
----------
* Invalid JSON text, a path that is not valid, or a path that leads nowhere gives null,
  never an error (as Spark's ``get_json_object``).
* A string value comes out as its text (unquoted); a number, boolean, object or array as
  compact JSON; a JSON ``null`` as null.
* A wildcard that matches one value gives that value; several give them as a JSON array.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

__all__ = ["get_json_object", "json_fields", "parse_path"]

_STEP = re.compile(r"\.([^.\[\]]+)|\[\s*'([^']*)'\s*\]|\[\s*(\d+)\s*\]|\[\s*\*\s*\]")
_WILDCARD = object()
_MISSING = object()


def parse_path(path: str) -> list[Any] | None:
    """The steps of ``path`` (names, indices, the wildcard), or None if it is not a valid path."""
    if not path.startswith("$"):
        return None
    steps: list[Any] = []
    at = 1
    while at < len(path):
        m = _STEP.match(path, at)
        if m is None:
            return None
        name, quoted, index = m.group(1), m.group(2), m.group(3)
        if name is not None:
            steps.append(_WILDCARD if name == "*" else name)
        elif quoted is not None:
            steps.append(quoted)
        elif index is not None:
            steps.append(int(index))
        else:
            steps.append(_WILDCARD)
        at = m.end()
    return steps


def _walk(value: Any, steps: Sequence[Any]) -> list[Any]:
    """The values ``steps`` lead to from ``value`` (several after a wildcard)."""
    current = [value]
    for step in steps:
        following: list[Any] = []
        for item in current:
            if step is _WILDCARD:
                if isinstance(item, list):
                    following.extend(item)
                elif isinstance(item, dict):
                    following.extend(item.values())
            elif isinstance(step, int):
                if isinstance(item, list) and step < len(item):
                    following.append(item[step])
            elif isinstance(item, dict) and step in item:
                following.append(item[step])
        current = following
    return current


def _render(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _MISSING


def get_json_object(values: pa.Array, path: str | None) -> pa.Array:
    """The value at ``path`` in each JSON text, as a string (see the module doc)."""
    steps = None if path is None else parse_path(path)
    if steps is None:
        return pa.nulls(len(values), pa.string())
    wildcard = any(s is _WILDCARD for s in steps)
    out: list[str | None] = []
    for text in values.to_pylist():
        document = _MISSING if text is None else _loads(text)
        if document is _MISSING:
            out.append(None)
            continue
        found = _walk(document, steps)
        if not found:
            out.append(None)
        elif len(found) == 1 or not wildcard:
            out.append(_render(found[0]))
        else:
            out.append(_render(found))
    return pa.array(out, pa.string())


def json_fields(values: pa.Array, fields: Sequence[str | None]) -> list[pa.Array]:
    """Each top-level field of each JSON object text, as ``get_json_object(v, '$.field')`` renders it."""
    columns: list[list[str | None]] = [[] for _ in fields]
    for text in values.to_pylist():
        document = _MISSING if text is None else _loads(text)
        for column, field in zip(columns, fields):
            found = document.get(field, None) if isinstance(document, dict) and field is not None else None
            column.append(_render(found))
    return [pa.array(c, pa.string()) for c in columns]
