"""``dstream.sql.avro.functions``: PySpark's ``from_avro`` and ``to_avro``.

What this module owns
---------------------
The two public builders, with PySpark's names, parameters and checks; the encoding, the
type mapping and the modes are stated in :mod:`dstream.sql.avro.expressions`. Spark ships
them in its external ``spark-avro`` module; here they need nothing more than this package.

Examples
--------
>>> df = spark.createDataFrame([(1, Row(age=2, name="Alice"))], ("key", "value"))
>>> avro = df.select(to_avro(df.value).alias("avro"))
>>> avro.collect()
[Row(avro=bytearray(b'\\x00\\x00\\x04\\x00\\nAlice'))]
"""

from __future__ import annotations

from ..column import Column, expr_of
from ..errors import AnalysisException, PySparkTypeError

__all__ = ["from_avro", "to_avro"]

ColumnOrName = Column | str


def _check(data: object, schema: object) -> None:
    """PySpark's argument checks of both functions: ``data`` a Column or name, the schema a str."""
    if not isinstance(data, Column | str):
        raise PySparkTypeError(f"Argument `data` should be a Column or str, got {type(data).__name__}.",
                               "NOT_COLUMN_OR_STR", {"arg_name": "data", "arg_type": type(data).__name__})
    if not isinstance(schema, str):
        raise PySparkTypeError(
            f"Argument `jsonFormatSchema` should be a str, got {type(schema).__name__}.", "NOT_STR",
            {"arg_name": "jsonFormatSchema", "arg_type": type(schema).__name__})


def from_avro(data: ColumnOrName, jsonFormatSchema: str,  # noqa: N803 - PySpark's names
              options: dict[str, str] | None = None) -> Column:
    """Decode a binary column of Avro data into the Spark value its schema maps to.

    Parameters
    ----------
    data : Column or str
        The binary column (one Avro datum per value, without a container file's header).
    jsonFormatSchema : str
        The writer's Avro schema, as JSON.
    options : dict, optional
        ``mode``: ``FAILFAST`` (the default: a malformed datum fails the query) or
        ``PERMISSIVE`` (it gives null, or a struct of nulls).
    """
    from .expressions import FromAvro  # noqa: PLC0415 - loaded when used

    _check(data, jsonFormatSchema)
    if options is not None and not isinstance(options, dict):
        raise PySparkTypeError(f"Argument `options` should be a dict, got {type(options).__name__}.", "NOT_DICT",
                               {"arg_name": "options", "arg_type": type(options).__name__})
    return Column(FromAvro(expr_of(data), jsonFormatSchema, {str(k): str(v) for k, v in (options or {}).items()}))


def to_avro(data: ColumnOrName, jsonFormatSchema: str = "") -> Column:  # noqa: N803 - PySpark's name
    """Encode a column as Avro binary data (one datum per value; null stays null).

    Parameters
    ----------
    data : Column or str
        The values (a struct for a record).
    jsonFormatSchema : str, optional
        The Avro schema to write with, as JSON; by default the one Spark derives from the
        column's type (nullable values as unions with ``null``, structs as records).
    """
    from .expressions import ToAvro  # noqa: PLC0415 - loaded when used

    _check(data, jsonFormatSchema)
    return Column(ToAvro(expr_of(data), jsonFormatSchema or None))


def sql_call(name: str, columns: list[Column]) -> Column:
    """SQL's ``from_avro(data, schema[, options])`` and ``to_avro(data[, schema])``: the schema a
    string constant, the options a constant ``map(...)``."""
    from ..expressions.predicates import fold  # noqa: PLC0415

    wanted = (2, 3) if name == "from_avro" else (1, 2)
    if len(columns) not in wanted:
        raise AnalysisException(
            f"The `{name}` requires {wanted[0]} or {wanted[1]} parameters but the actual number is {len(columns)}.",
            "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", {"functionName": f"`{name}`", "actualNum": str(len(columns))})
    constants = []
    for c in columns[1:]:
        if not c.expr.foldable:
            raise AnalysisException(
                f"The {name} schema and options must be constants: {c.expr.sql()} is not. Write the schema as a "
                "string literal and the options as map('mode', 'PERMISSIVE').", "NON_FOLDABLE_ARGUMENT",
                {"funcName": f"`{name}`"})
        constants.append(fold(c.expr))
    if name == "to_avro":
        return to_avro(columns[0], str(constants[0]) if constants and constants[0] is not None else "")
    options = constants[1] if len(constants) > 1 else None
    pairs = options.items() if isinstance(options, dict) else (options or [])
    return from_avro(columns[0], str(constants[0]), {str(k): str(v) for k, v in pairs})
