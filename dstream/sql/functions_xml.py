"""XML text functions of ``dstream.sql.functions``: ``from_xml``, ``to_xml`` and ``schema_of_xml``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the semantics are stated in
``expressions.xml_functions`` (the XML reader's and writer's own rules).

Examples
--------
>>> df = spark.createDataFrame([("<p><a>1</a><b>x</b><b>y</b></p>",)], "value string")
>>> df.select(from_xml("value", "a INT, b ARRAY<STRING>").alias("p")).first().p
Row(a=1, b=['x', 'y'])
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, lit_expr
from .errors import PySparkTypeError
from .functions_csv import _literal_text, _options
from .types import DataType, StructType, _parse_datatype_string, _without_char_varchar

__all__ = ["from_xml", "schema_of_xml", "to_xml"]

ColumnOrName = Column | str


def from_xml(col: ColumnOrName, schema: StructType | Column | str, options: dict[str, Any] | None = None) -> Column:
    """An XML element parsed into a struct of ``schema``'s fields.

    Parameters
    ----------
    col : Column or str
        The XML texts (one element per value).
    schema : StructType, str or Column
        The fields: a StructType, DDL text, or a literal Column such as ``schema_of_xml(...)``.
    options : dict, optional
        XML reader options (``attributePrefix``, ``valueTag``, ``mode``, ``nullValue``...).
    """
    from .expressions.xml_functions import FromXml  # noqa: PLC0415 - the expressions load when used

    dt = _without_char_varchar(schema if isinstance(schema, DataType)
                               else _parse_datatype_string(_literal_text(schema, "schema")))
    if not isinstance(dt, StructType):
        raise PySparkTypeError(f"from_xml: the schema must be a struct of fields, got {dt.simpleString()}.",
                               "NOT_STRUCT", {"arg_name": "schema"})
    return Column(FromXml(expr_of(col), dt, _options(options)))


def to_xml(col: ColumnOrName, options: dict[str, Any] | None = None) -> Column:
    """A struct as one XML element (``rowTag``, default ``ROW``), as the XML writer writes a row.

    Parameters
    ----------
    col : Column or str
        The structs.
    options : dict, optional
        XML writer options (``rowTag``, ``attributePrefix``, ``valueTag``, ``nullValue``...).
    """
    from .expressions.xml_functions import ToXml  # noqa: PLC0415 - the expressions load when used

    return Column(ToXml(expr_of(col), _options(options)))


def schema_of_xml(xml: Column | str, options: dict[str, Any] | None = None) -> Column:
    """The schema the XML reader infers for one element, as DDL (``STRUCT<a: BIGINT>``).

    Parameters
    ----------
    xml : Column or str
        The element: a string, or a literal Column.
    options : dict, optional
        XML options (``attributePrefix``, ``valueTag``, ``excludeAttribute``...).
    """
    from .expressions.xml_functions import xml_schema_text  # noqa: PLC0415 - the expressions load when used

    text = _literal_text(xml, "xml")
    return Column(lit_expr(xml_schema_text(text, _options(options)))).alias(f"schema_of_xml({text})")
