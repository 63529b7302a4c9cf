"""VARIANT functions of ``dstream.sql.functions``: ``parse_json``, ``variant_get`` and the rest.

What this module owns
---------------------
The public builders, with PySpark 4's names and parameters: ``parse_json``,
``try_parse_json``, ``variant_get``, ``try_variant_get``, ``is_variant_null``,
``schema_of_variant``, ``schema_of_variant_agg`` and ``to_variant_object``. The semantics
are stated in ``expressions.variant_functions`` and the ``variant`` package.

Examples
--------
>>> df = spark.createDataFrame([('{"a": {"b": [1, 2.5]}}',)], "j string")
>>> v = df.select(parse_json("j").alias("v"))
>>> v.select(variant_get("v", "$.a.b[1]", "double").alias("x")).first().x
2.5
>>> v.select(schema_of_variant("v")).first()[0]
'OBJECT<a: OBJECT<b: ARRAY<DECIMAL(2,1)>>>'
"""

from __future__ import annotations

from .column import Column, expr_of, lit_expr
from .types import VariantType, _parse_datatype_string

__all__ = ["is_variant_null", "parse_json", "schema_of_variant", "schema_of_variant_agg", "to_variant_object",
           "try_parse_json", "try_variant_get", "variant_get"]

ColumnOrName = Column | str


def parse_json(col: ColumnOrName) -> Column:
    """Each JSON text as a variant; malformed text raises ``MALFORMED_RECORD_IN_PARSING``.

    Parameters
    ----------
    col : Column or str
        The JSON texts.
    """
    from .expressions.variant_functions import ParseJson  # noqa: PLC0415 - the expressions load when used

    return Column(ParseJson(expr_of(col)))


def try_parse_json(col: ColumnOrName) -> Column:
    """Each JSON text as a variant; null for malformed text.

    Parameters
    ----------
    col : Column or str
        The JSON texts.
    """
    from .expressions.variant_functions import ParseJson  # noqa: PLC0415 - the expressions load when used

    return Column(ParseJson(expr_of(col), try_mode=True))


def _get(v: ColumnOrName, path: Column | str, target_type: str | None, try_mode: bool) -> Column:
    from .expressions.variant_functions import VariantGet  # noqa: PLC0415 - the expressions load when used

    path_expr = lit_expr(path) if isinstance(path, str) else expr_of(path)
    target = VariantType() if target_type is None else _parse_datatype_string(target_type)
    return Column(VariantGet(expr_of(v), path_expr, target, try_mode))


def variant_get(v: ColumnOrName, path: Column | str,
                targetType: str | None = None) -> Column:  # noqa: N803 - PySpark's name
    """The part of each variant ``path`` reaches, converted to ``targetType``.

    A missing part is null; one that does not convert raises ``INVALID_VARIANT_CAST``.

    Parameters
    ----------
    v : Column or str
        The variants.
    path : str or Column
        ``$`` then ``.key``, ``['key']`` or ``[index]`` steps (a constant).
    targetType : str, optional
        A DDL type (``"int"``, ``"array<string>"``, ``"struct<a:int>"``); the part itself as a
        variant when omitted (as SQL's two-argument ``variant_get``).
    """
    return _get(v, path, targetType, False)


def try_variant_get(v: ColumnOrName, path: Column | str,
                    targetType: str | None = None) -> Column:  # noqa: N803 - PySpark's name
    """As :func:`variant_get`, with null where the part does not convert.

    Parameters
    ----------
    v : Column or str
        The variants.
    path : str or Column
        ``$`` then ``.key``, ``['key']`` or ``[index]`` steps (a constant).
    targetType : str, optional
        A DDL type; the part itself as a variant when omitted.
    """
    return _get(v, path, targetType, True)


def is_variant_null(v: ColumnOrName) -> Column:
    """Whether each variant is a variant null (``parse_json('null')``); false for an SQL null.

    Parameters
    ----------
    v : Column or str
        The variants.
    """
    from .expressions.variant_functions import IsVariantNull  # noqa: PLC0415 - the expressions load when used

    return Column(IsVariantNull(expr_of(v)))


def schema_of_variant(v: ColumnOrName) -> Column:
    """The SQL type of each variant, as text (``OBJECT<a: BIGINT, b: ARRAY<STRING>>``).

    Parameters
    ----------
    v : Column or str
        The variants.
    """
    from .expressions.variant_functions import SchemaOfVariant  # noqa: PLC0415 - the expressions load when used

    return Column(SchemaOfVariant(expr_of(v)))


def schema_of_variant_agg(v: ColumnOrName) -> Column:
    """Aggregate: the SQL type of all the variants of a group, merged (``VOID`` when none).

    Parameters
    ----------
    v : Column or str
        The variants.
    """
    from .expressions.variant_functions import SchemaOfVariantAgg  # noqa: PLC0415 - the expressions load when used

    return Column(SchemaOfVariantAgg(expr_of(v)))


def to_variant_object(col: ColumnOrName) -> Column:
    """Structs (and maps with string keys, arrays of them) as variants of objects and arrays.

    Parameters
    ----------
    col : Column or str
        The values.
    """
    from .expressions.variant_functions import ToVariantObject  # noqa: PLC0415 - the expressions load when used

    return Column(ToVariantObject(expr_of(col)))
