"""CSV text functions of ``dstream.sql.functions``: ``from_csv``, ``to_csv`` and ``schema_of_csv``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the semantics are stated in
``expressions.csv_functions`` (the CSV reader's and writer's own rules).

Examples
--------
>>> df = spark.createDataFrame([("1,abc",)], "value string")
>>> df.select(from_csv("value", "a INT, b STRING").alias("csv")).first().csv
Row(a=1, b='abc')
>>> df.select(to_csv(from_csv("value", "a INT, b STRING")).alias("line")).first().line
'1,abc'
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, lit_expr
from .errors import PySparkTypeError
from .expressions.base import Alias, Literal
from .types import DataType, StructType, _parse_datatype_string, _without_char_varchar

__all__ = ["from_csv", "schema_of_csv", "to_csv"]

ColumnOrName = Column | str


def _options(options: Any) -> dict[str, str]:
    if options is None:
        return {}
    if isinstance(options, Column):  # SQL's map('sep', ';'): a map of literals
        expr = expr_of(options)
        items = getattr(expr, "children", ())
        if getattr(expr, "name", None) == "map" and all(isinstance(c, Literal) for c in items):
            options = {str(k.value): v.value for k, v in zip(items[::2], items[1::2])}
    if not isinstance(options, dict):
        raise PySparkTypeError(f"Argument `options` should be a dict, got {type(options).__name__}.", "NOT_DICT",
                               {"arg_name": "options", "arg_type": type(options).__name__})
    return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()}


def _literal_text(value: Column | str, what: str) -> str:
    if isinstance(value, str):
        return value
    expr = expr_of(value)
    while isinstance(expr, Alias):
        expr = expr.child
    if isinstance(expr, Literal) and isinstance(expr.value, str):
        return expr.value
    raise PySparkTypeError(f"{what} must be a string or a literal Column (lit('...')), got {expr.sql()}.",
                           "NOT_STR_OR_LITERAL", {"arg_name": what})


def from_csv(col: ColumnOrName, schema: DataType | Column | str, options: dict[str, Any] | None = None) -> Column:
    """A CSV record parsed into a struct of ``schema``'s fields.

    Parameters
    ----------
    col : Column or str
        The CSV records (one per value).
    schema : StructType, str or Column
        The fields: a StructType, DDL text, or a literal Column such as ``schema_of_csv(...)``.
    options : dict, optional
        CSV reader options (``sep``, ``quote``, ``nullValue``, ``mode``, ``timestampFormat``...).
    """
    from .expressions.csv_functions import FromCsv  # noqa: PLC0415 - the expressions load when used

    dt = _without_char_varchar(schema if isinstance(schema, DataType)
                               else _parse_datatype_string(_literal_text(schema, "schema")))
    if not isinstance(dt, StructType):
        raise PySparkTypeError(f"from_csv: the schema must be a struct of fields, got {dt.simpleString()}.",
                               "NOT_STRUCT", {"arg_name": "schema"})
    return Column(FromCsv(expr_of(col), dt, _options(options)))


def to_csv(col: ColumnOrName, options: dict[str, Any] | None = None) -> Column:
    """A struct as one CSV line (the CSV writer's rules; no header).

    Parameters
    ----------
    col : Column or str
        The structs.
    options : dict, optional
        CSV writer options (``sep``, ``quote``, ``nullValue``, ``timestampFormat``...).
    """
    from .expressions.csv_functions import ToCsv  # noqa: PLC0415 - the expressions load when used

    return Column(ToCsv(expr_of(col), _options(options)))


def schema_of_csv(csv: Column | str, options: dict[str, Any] | None = None) -> Column:
    """The schema the CSV reader infers for one record, as DDL (``STRUCT<_c0: INT, _c1: STRING>``).

    Parameters
    ----------
    csv : Column or str
        The record: a string, or a literal Column.
    options : dict, optional
        CSV options (``sep``...).
    """
    from .expressions.csv_functions import csv_schema_text  # noqa: PLC0415 - the expressions load when used

    text = _literal_text(csv, "csv")
    return Column(lit_expr(csv_schema_text(text, _options(options)))).alias(f"schema_of_csv({text})")
