"""``spark.sql`` statements on tables and the session beyond queries and views.

What this module owns
---------------------
The statements :mod:`dstream.sql.statements` hands over, each from its token list:

* ``INSERT INTO|OVERWRITE [TABLE] t [(col, ...)] VALUES (...), ...`` (or a query), rows by
  position (or by the listed names, other columns NULL), cast to the table's types;
* ``CREATE TABLE [IF NOT EXISTS] t (col type [NOT NULL] [COMMENT '...'], ...) [USING fmt]
  [PARTITIONED BY (col, ...)]``: an empty managed table.

Invariants
----------
* Each returns what Spark's command returns: no columns.
* Bad input is an ``AnalysisException`` or ``ParseException`` naming the statement.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import AnalysisException
from .parser.lexer import Token, syntax_error

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .session import SparkSession

__all__ = ["create_table_columns", "insert", "table_clauses"]

#: A name reader: the dotted name starting at a token index, and the index past it.
NameReader = Callable[[int], tuple[str, int]]


def _empty(session: SparkSession) -> DataFrame:
    return session.createDataFrame([], "dummy int").select()


def _closing(tokens: list[Token], i: int) -> int:
    """The index of the ``)`` matching the ``(`` at ``i``."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].is_op("("):
            depth += 1
        elif tokens[j].is_op(")"):
            depth -= 1
            if depth == 0:
                return j
    raise syntax_error(tokens[-1], ": missing ')'")


def _names_in_parentheses(tokens: list[Token], i: int) -> tuple[list[str], int]:
    """The comma-separated names in the parentheses opening at ``i``, and the index past ``)``."""
    names: list[str] = []
    j = i + 1
    while True:
        if tokens[j].kind not in ("WORD", "QUOTED"):
            raise syntax_error(tokens[j])
        names.append(tokens[j].value)
        j += 1
        if tokens[j].is_op(")"):
            return names, j + 1
        if not tokens[j].is_op(","):
            raise syntax_error(tokens[j])
        j += 1


def insert(session: SparkSession, tokens: list[Token], i: int, overwrite: bool, text: str,
           read_name: NameReader, functions: Any) -> DataFrame:
    """``INSERT INTO|OVERWRITE [TABLE] t [(cols)] VALUES ... | query`` (``i``: the table name's index).

    Raises
    ------
    AnalysisException
        When the table is unknown, the row width differs from the table's (or the column
        list's), or a listed column is not the table's.
    """
    from .functions import lit  # noqa: PLC0415 - the functions import this module's callers
    from .parser import run_query  # noqa: PLC0415 - the parser loads with the first query

    name, j = read_name(i)
    columns: list[str] | None = None
    if tokens[j].is_op("(") and not tokens[j + 1].is_word("SELECT", "WITH", "VALUES"):
        columns, j = _names_in_parentheses(tokens, j)
    rest = text[tokens[j].pos:]
    # VALUES as a statement's source is an inline table: read it as one.
    df = run_query(session, ("SELECT * FROM " + rest) if tokens[j].is_word("VALUES") else rest, functions)
    if columns is not None:
        table = session.table(name)
        known = {c.lower(): c for c in table.columns}
        unknown = [c for c in columns if c.lower() not in known]
        if unknown:
            raise AnalysisException(
                f"Cannot insert into `{name}`: it has no column {unknown[0]!r} (its columns are "
                f"{table.columns}).", "UNRESOLVED_COLUMN.WITH_SUGGESTION", {"objectName": f"`{unknown[0]}`"})
        if len(columns) != len(df.columns):
            raise AnalysisException(
                f"Cannot write to `{name}`: the column list names {len(columns)} columns, the rows have "
                f"{len(df.columns)}.", "INSERT_COLUMN_ARITY_MISMATCH", {"tableName": name})
        given = {c.lower(): df[d] for c, d in zip(columns, df.columns)}
        # Columns left out of the list get their default, NULL, as Spark fills them.
        df = df.select(*[given.get(c.lower(), lit(None)).alias(c) for c in table.columns])
    df.write.insertInto(name, overwrite=overwrite)
    return _empty(session)


def create_table_columns(session: SparkSession, tokens: list[Token], i: int, text: str, name: str,
                         mode: str) -> DataFrame:
    """``CREATE TABLE t (col type, ...) [USING fmt] [PARTITIONED BY (cols)]`` (``i``: the ``(``)."""
    end = _closing(tokens, i)
    schema = text[tokens[i].pos + 1:tokens[end].pos]
    fmt, partition_by, j = table_clauses(tokens, end + 1)
    if not tokens[j].kind == "EOF":
        raise syntax_error(tokens[j])
    df = session.createDataFrame([], schema)
    missing = [c for c in partition_by if c not in df.columns]
    if missing:
        raise AnalysisException(
            f"The partition column {missing[0]!r} of `{name}` is not one of its columns {df.columns}.",
            "COLUMN_NOT_DEFINED_IN_TABLE", {"colName": f"`{missing[0]}`", "tableName": f"`{name}`"})
    df.write.format(fmt).mode(mode).partitionBy(*partition_by).saveAsTable(name)
    return _empty(session)


def table_clauses(tokens: list[Token], j: int) -> tuple[str, list[str], int]:
    """``USING fmt`` and ``PARTITIONED BY (cols)`` from ``j`` (either order): the format, the
    partition columns and the index past them."""
    fmt, partition_by = "parquet", list[str]()
    while True:
        if tokens[j].is_word("USING"):
            fmt = tokens[j + 1].value.lower()
            j += 2
        elif tokens[j].is_word("PARTITIONED") and tokens[j + 1].is_word("BY") and tokens[j + 2].is_op("("):
            partition_by, j = _names_in_parentheses(tokens, j + 2)
        else:
            return fmt, partition_by, j
