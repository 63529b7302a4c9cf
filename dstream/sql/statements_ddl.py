"""``spark.sql`` statements on tables and the session beyond queries and views.

What this module owns
---------------------
The statements :mod:`dstream.sql.statements` hands over, each from its token list:

* ``INSERT INTO|OVERWRITE [TABLE] t [(col, ...)] VALUES (...), ...`` (or a query), rows by
  position (or by the listed names, other columns NULL), cast to the table's types;
* ``CREATE TABLE [IF NOT EXISTS] t (col type [NOT NULL] [COMMENT '...'], ...) [USING fmt]
  [PARTITIONED BY (col, ...)]``: an empty managed table;
* ``DESCRIBE [TABLE] t`` and ``SHOW COLUMNS {IN|FROM} t [{IN|FROM} db]``;
* ``CACHE [LAZY] TABLE t [AS query]``, ``UNCACHE TABLE [IF EXISTS] t``, ``CLEAR CACHE``;
* ``SET``, ``SET key``, ``SET key=value`` (the session conf) and ``EXPLAIN [mode] query``.

Invariants
----------
* Each returns what Spark's command returns: no columns, or the rows Spark prints
  (``col_name/data_type/comment``, ``col_name``, ``key/value``, ``plan``).
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

__all__ = ["cache_statement", "create_table_columns", "describe", "explain", "insert", "set_statement",
           "show_columns"]

#: A name reader: the dotted name starting at a token index, and the index past it.
NameReader = Callable[[int], tuple[str, int]]
#: Runs the SQL text from a token index as a query.
QueryRunner = Callable[[int], "DataFrame"]


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
    df = session.createDataFrame([], declared_schema(schema))
    missing = [c for c in partition_by if c not in df.columns]
    if missing:
        raise AnalysisException(
            f"The partition column {missing[0]!r} of `{name}` is not one of its columns {df.columns}.",
            "COLUMN_NOT_DEFINED_IN_TABLE", {"colName": f"`{missing[0]}`", "tableName": f"`{name}`"})
    df.write.format(fmt).mode(mode).partitionBy(*partition_by).saveAsTable(name)
    return _empty(session)


def declared_schema(text: str) -> Any:
    """The columns of ``CREATE TABLE t (...)``: a ``char(n)``/``varchar(n)`` column is a string column
    that keeps its declaration in its metadata, as Spark's catalog keeps it (checked on insert)."""
    from .expressions.char_varchar import CHAR_VARCHAR_KEY  # noqa: PLC0415 - tables load on first use
    from .types import CharType, StringType, StructField, StructType, VarcharType, _parse_datatype_string  # noqa: PLC0415

    parsed = _parse_datatype_string(text)
    if not isinstance(parsed, StructType):  # one unnamed type: createDataFrame names it "value"
        return parsed
    fields = [f if not isinstance(f.dataType, CharType | VarcharType) else
              StructField(f.name, StringType(), f.nullable, {**(f.metadata or {}),
                                                             CHAR_VARCHAR_KEY: f.dataType.simpleString()})
              for f in parsed.fields]
    return StructType(fields)


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


def describe(session: SparkSession, name: str, extended: bool = False) -> DataFrame:
    """``DESCRIBE [TABLE] [EXTENDED | FORMATTED] t``: a row per column, then the partition columns
    under Spark's headers. A temporary view's EXTENDED description is its columns, as in Spark; a
    table's detailed section (owner, location, times...) is not produced."""
    from .expressions.char_varchar import CHAR_VARCHAR_KEY  # noqa: PLC0415 - tables load on first use
    from .tables import partition_columns  # noqa: PLC0415 - the tables load with the first one

    schema = session.table(name).schema
    if extended and not any(t.isTemporary and t.name.lower() == name.lower() for t in session.catalog.listTables()):
        raise AnalysisException(
            f"DESCRIBE EXTENDED of the table `{name}` (Spark's detailed table information section) is not supported; "
            "use DESCRIBE for its columns.", "UNSUPPORTED_FEATURE", {"feature": "DESCRIBE EXTENDED of a table"})
    # A char(n)/varchar(n) column is described as declared, as Spark describes it.
    rows: list[tuple[str, str, str | None]] = [
        (f.name, (f.metadata or {}).get(CHAR_VARCHAR_KEY) or f.dataType.simpleString(),
         (f.metadata or {}).get("comment")) for f in schema.fields]
    partitions = partition_columns(session, name)
    if partitions:
        by_name = {r[0]: r for r in rows}
        rows += [("# Partition Information", "", ""), ("# col_name", "data_type", "comment")]
        rows += [by_name[c] for c in partitions if c in by_name]
    return session.createDataFrame(rows, "col_name string, data_type string, comment string")


def show_columns(session: SparkSession, name: str) -> DataFrame:
    """``SHOW COLUMNS IN t``: a ``col_name`` row per column."""
    return session.createDataFrame([(c,) for c in session.table(name).columns], "col_name string")


def cache_statement(session: SparkSession, words: list[str], tokens: list[Token], read_name: NameReader,
                    query_after: QueryRunner) -> DataFrame:
    """``CACHE [LAZY] TABLE t [AS query]``, ``UNCACHE TABLE [IF EXISTS] t`` and ``CLEAR CACHE``."""
    catalog = session.catalog
    if words[0] == "CLEAR":
        catalog.clearCache()
        return _empty(session)
    if words[0] == "CACHE":
        i = 3 if words[1] == "LAZY" else 2
        name, j = read_name(i)
        if tokens[j].is_word("AS") or tokens[j].is_word("SELECT", "WITH"):
            query_after(j + 1 if tokens[j].is_word("AS") else j).createOrReplaceTempView(name)
        catalog.cacheTable(name)
        return _empty(session)
    if_exists = words[2:4] == ["IF", "EXISTS"]
    name, _ = read_name(4 if if_exists else 2)
    try:
        session.table(name)
    except AnalysisException:
        if if_exists:
            return _empty(session)
        raise
    catalog.uncacheTable(name)
    return _empty(session)


def set_statement(session: SparkSession, text: str, tokens: list[Token]) -> DataFrame:
    """``SET`` (every set key), ``SET key`` (its value, ``<undefined>`` unset) or ``SET key=value``."""
    body = text[tokens[1].pos:].strip().rstrip(";").strip() if len(tokens) > 2 else ""
    if not body:
        rows: list[tuple[str, Any]] = sorted(session.conf.getAll().items())
    elif "=" in body:
        key, _, value = body.partition("=")
        key, value = key.strip(), value.strip()
        if not key:
            raise syntax_error(tokens[1], ": SET needs a key before '='")
        session.conf.set(key, value)
        rows = [(key, value)]
    else:
        rows = [(body, session.conf.get(body, "<undefined>"))]
    return session.createDataFrame([(k, str(v)) for k, v in rows], "key string, value string")


def explain(session: SparkSession, words: list[str], query_after: QueryRunner) -> DataFrame:
    """``EXPLAIN [EXTENDED|FORMATTED|CODEGEN|COST] query``: one ``plan`` row with the text."""
    from .query import QueryExecution  # noqa: PLC0415 - the planner loads with the first query

    mode = words[1].lower() if len(words) > 1 and words[1] in ("EXTENDED", "FORMATTED", "CODEGEN", "COST") \
        else "simple"
    df = query_after(1 if mode == "simple" else 2)
    text = QueryExecution(session, df._plan).explain_text(mode)  # noqa: SLF001 - the plan explain() reads
    return session.createDataFrame([(text,)], "plan string")
