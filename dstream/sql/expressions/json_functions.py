"""JSON text functions: ``get_json_object`` (a registry function) and ``json_tuple`` (a generator).

What this module owns
---------------------
The :class:`FunctionSpec` of ``get_json_object`` and the :class:`JsonTuple` generator;
the path language and its evaluation are ``kernels.json_path``'s.

Invariants
----------
* Bad JSON text or a path leading nowhere gives null, never an error, as in Spark.
* ``json_tuple(j, f1, ..., fn)`` yields exactly one row per input row, with string
  columns ``c0``...``c(n-1)``: each top-level field as ``get_json_object(j, '$.f')``
  renders it (all null for a null or non-object text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..schema_tree import type_sql
from ..types import DataType, StringType
from .base import EvalContext, Expression
from .checks import mismatch, quoted_type
from .function_registry import FunctionSpec, register
from .generators import Generator
from .predicates import fold

__all__ = ["JsonTuple"]


def _get_json_object(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    from ..kernels import json_path  # noqa: PLC0415 - kernels load at run time

    return json_path.get_json_object(args[0], args[1])


register(FunctionSpec("get_json_object", 2, 2, lambda ts: [StringType(), StringType()],
                      lambda ts: StringType(), _get_json_object, scalar_positions=(1,)))


class JsonTuple(Generator):
    """``json_tuple(j, 'a', 'b')``: the top-level fields ``a`` and ``b`` of each JSON object, as ``c0``, ``c1``."""

    def __init__(self, *children: Expression) -> None:
        self.children = tuple(children)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return JsonTuple(*children)

    def sql(self) -> str:
        return f"json_tuple({', '.join(c.sql() for c in self.children)})"

    def check_input_types(self) -> None:
        for child in self.children:
            if not isinstance(child.data_type(), StringType):
                raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                               f'every argument requires the "STRING" type, however "{child.sql()}" has the type '
                               f"{quoted_type(child.data_type())}")
        for child in self.children[1:]:
            if not child.foldable:
                raise mismatch(self, "NON_FOLDABLE_INPUT",
                               f'the field names must be constants (literals), not "{child.sql()}"')

    def output_fields(self) -> list[tuple[str, DataType, bool]]:
        return [(f"c{i}", StringType(), True) for i in range(len(self.children) - 1)]

    def generate(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[pa.Array, list[pa.Array]]:
        from ..execution.physical import as_array  # noqa: PLC0415 - execution loads at run time
        from ..kernels import json_path  # noqa: PLC0415 - kernels load at run time

        values = as_array(self.children[0].eval(batch, ctx), batch.num_rows)
        fields = [fold(child, ctx) for child in self.children[1:]]
        return pa.array(range(batch.num_rows), pa.int64()), json_path.json_fields(values, fields)


# -- schema_of_json --------------------------------------------------------------------------


def _schema_of_json(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    import json  # noqa: PLC0415 - only this function parses

    from ..arrow_convert import from_arrow_type  # noqa: PLC0415 - a leaf import
    from ..errors import AnalysisException  # noqa: PLC0415 - the error path only
    from ..io.files import option_bool  # noqa: PLC0415 - the readers' option parsing, loaded when used
    from ..io.jsonfmt import inferred_json_type  # noqa: PLC0415 - the reader's inference, loaded when used

    text = args[0]
    options = json.loads(args[1]) if len(args) > 1 and args[1] else {}
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise AnalysisException(
            f"schema_of_json needs one JSON document as a string literal, got {text!r}: {exc}. Pass a sample "
            "record, e.g. schema_of_json(lit('{\"a\": 1}')).", "INVALID_JSON_SCHEMA_OF_JSON", {"json": str(text)}) \
            from exc
    as_string = option_bool(options, "primitivesAsString")
    return pa.array([type_sql(from_arrow_type(inferred_json_type(value, as_string)))], pa.string())


def _strings(types: list[DataType]) -> list[DataType | None]:
    return [StringType() for _ in types]


# The options travel as one JSON text literal (the builder makes it); Spark's name shows the document only.
register(FunctionSpec("schema_of_json", 1, 2, _strings, lambda ts: StringType(), _schema_of_json,
                      scalar_positions=(0, 1), null_intolerant=False,
                      display=lambda sqls: f"schema_of_json({sqls[0]})"))
