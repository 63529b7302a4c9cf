"""JSON text functions of ``dstream.sql.functions``: ``get_json_object``, ``json_tuple``
and ``schema_of_json`` (``from_json``/``to_json`` are in the main module).

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the semantics are stated in
``expressions.json_functions`` and ``kernels.json_path``.

Examples
--------
>>> df = spark.createDataFrame([('{"a": {"b": [1, 2]}, "c": "x"}',)], "j string")
>>> df.select(get_json_object("j", "$.a.b[1]").alias("b1"), get_json_object("j", "$.c").alias("c")).collect()
[Row(b1='2', c='x')]
>>> df.select(json_tuple("j", "c", "a")).collect()
[Row(c0='x', c1='{"b":[1,2]}')]
"""

from __future__ import annotations

import json as _json
from typing import Any

from .column import Column, expr_of, lit_expr
from .errors import PySparkTypeError
from .expressions.json_functions import JsonTuple
from .functions_scalar import _call

__all__ = ["get_json_object", "json_tuple", "schema_of_json"]

ColumnOrName = Column | str


def get_json_object(col: ColumnOrName, path: str) -> Column:
    """The value at JSON ``path`` (``$.a.b[0]``) in each JSON text, as a string (null if absent or invalid).

    Parameters
    ----------
    col : Column or str
        The JSON texts.
    path : str
        ``$`` followed by ``.name``, ``['name']``, ``[n]``, ``[*]`` or ``.*`` steps.
    """
    return _call("get_json_object", expr_of(col), lit_expr(path))


def json_tuple(col: ColumnOrName, *fields: str) -> Column:
    """The top-level ``fields`` of each JSON object, as string columns ``c0``, ``c1``... (one row per row).

    Parameters
    ----------
    col : Column or str
        The JSON texts.
    fields : str
        The field names (at least one).
    """
    if not fields:
        raise PySparkTypeError("json_tuple needs at least one field name: json_tuple(col, 'a', 'b').",
                               "CANNOT_BE_EMPTY", {"item": "field"})
    return Column(JsonTuple(expr_of(col), *[lit_expr(f) for f in fields]))


def schema_of_json(json: Column | str, options: dict[str, Any] | None = None) -> Column:
    """The schema Spark infers for one JSON document, in DDL form (``STRUCT<a: BIGINT>``).

    Parameters
    ----------
    json : Column or str
        The document: a string (the JSON text itself, as in PySpark) or a literal Column.
    options : dict, optional
        JSON options; ``primitivesAsString`` is honoured.
    """
    document = json.expr if isinstance(json, Column) else lit_expr(json)
    if options is not None and not isinstance(options, dict):
        raise PySparkTypeError(f"Argument `options` should be a dict, got {type(options).__name__}.", "NOT_DICT",
                               {"arg_name": "options", "arg_type": type(options).__name__})
    if not options:
        return _call("schema_of_json", document)
    return _call("schema_of_json", document, lit_expr(_json.dumps({k: str(v) for k, v in options.items()})))
