"""``spark.sql``: its statements besides queries, and its parameters.

What this module owns
---------------------
:func:`run_sql`, what ``spark.sql(text, args, **kwargs)`` runs:

* ``kwargs`` format the text as PySpark's ``SQLStringFormatter`` does: ``{df}`` names a
  DataFrame (a temporary view made for the query, dropped once it is built), ``{col}`` a
  Column (its SQL), anything else its ``str``;
* ``args`` bind parameter markers: named ``:name`` (a dict) or positional ``?`` (a list),
  each value as a SQL literal (never spliced as text);
* the statements ``CREATE [OR REPLACE] [GLOBAL] TEMP[ORARY] VIEW v AS query``,
  ``DROP VIEW [IF EXISTS] v``, ``CREATE [OR REPLACE] TABLE [IF NOT EXISTS] t [USING fmt] AS
  query``, ``DROP TABLE [IF EXISTS] t`` and ``INSERT INTO|OVERWRITE [TABLE] t query``; anything
  else is a query for the parser;
* :mod:`.statements_show` runs ``SHOW FUNCTIONS``, ``SHOW DATABASES`` and ``SHOW TABLES``;
* :mod:`.statements_ddl` runs ``INSERT ... VALUES``, ``CREATE TABLE t (cols)``, ``DESCRIBE``,
  ``SHOW COLUMNS``, ``CACHE``/``UNCACHE TABLE``, ``CLEAR CACHE``, ``SET`` and ``EXPLAIN``.

Invariants
----------
* A statement returns an empty DataFrame, as Spark's do (``SHOW TABLES`` its listing).
* A marker inside a string literal, a quoted name or a comment is text, not a marker.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
import string
import uuid
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

from .errors import AnalysisException

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .session import SparkSession

__all__ = ["run_sql"]

#: What a marker scan skips: quoted text, quoted names and comments, kept as they are.
_SKIP = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`(?:``|[^`])*`|--[^\n]*|/\*.*?\*/", re.S)
_MARKER = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)|\?")


def run_sql(session: SparkSession, text: str, args: Any, kwargs: Mapping[str, Any],
            functions: ModuleType) -> DataFrame:
    """``spark.sql(text, args, **kwargs)`` (see the module doc)."""
    views: list[str] = []
    try:
        if kwargs:
            text = _Formatter(session, views).format(text, **kwargs)
        if args:
            text = _bind(text, args)
        return _run(session, text, functions)
    finally:
        for view in views:
            session.catalog.dropTempView(view)


class _Formatter(string.Formatter):
    def __init__(self, session: SparkSession, views: list[str]) -> None:
        self.session = session
        self.views = views

    def format_field(self, value: Any, format_spec: str) -> str:
        from .column import Column, expr_of  # noqa: PLC0415 - the columns import the session's modules
        from .dataframe import DataFrame  # noqa: PLC0415

        if isinstance(value, DataFrame):
            name = f"__dstreams_df_{uuid.uuid4().hex[:12]}"
            value.createOrReplaceTempView(name)
            self.views.append(name)
            return name
        if isinstance(value, Column):
            return expr_of(value).sql()
        return super().format_field(value, format_spec)


def _literal(value: Any) -> str:
    """``value`` as a SQL literal of its type."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value) if -(2**31) <= value < 2**31 else f"{value}L"
    if isinstance(value, float):
        return f"CAST('{value!r}' AS DOUBLE)"
    if isinstance(value, decimal.Decimal):
        return f"{value}BD"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP'{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE'{value.isoformat()}'"
    raise AnalysisException(f"The parameter value {value!r} of type {type(value).__name__} cannot be a SQL literal "
                            "here: use None, a bool, int, float, Decimal, str, date or datetime.",
                            "INVALID_SQL_ARG", {"name": repr(value)})


def _bind(text: str, args: Any) -> str:
    named = isinstance(args, Mapping)
    if not named and not isinstance(args, Sequence):
        raise AnalysisException(f"args must be a dict (for :name markers) or a list (for ? markers), got "
                                f"{type(args).__name__}.", "INVALID_SQL_ARG", {"name": "args"})
    position = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal position
        if match.group(0) == "?":
            if named:
                raise AnalysisException("The query has a ? marker but args is a dict: use :name markers, or a list.",
                                        "UNBOUND_SQL_PARAMETER", {"name": "?"})
            if position >= len(args):
                raise AnalysisException(f"The query has more ? markers than the {len(args)} values of args.",
                                        "UNBOUND_SQL_PARAMETER", {"name": f"_{position + 1}"})
            position += 1
            return _literal(args[position - 1])
        name = match.group(1)
        if not named or name not in args:
            raise AnalysisException(f"Found the unbound parameter: {name}. Please, fix `args` and provide a mapping "
                                    "of the parameter to a SQL literal.", "UNBOUND_SQL_PARAMETER", {"name": name})
        return _literal(args[name])

    out, last = [], 0
    for skipped in _SKIP.finditer(text):
        out.append(_MARKER.sub(replace, text[last:skipped.start()]))
        out.append(skipped.group(0))
        last = skipped.end()
    out.append(_MARKER.sub(replace, text[last:]))
    return "".join(out)


def _run(session: SparkSession, text: str, functions: ModuleType) -> DataFrame:
    from . import statements_ddl as ddl  # noqa: PLC0415 - loaded with the parser
    from .parser import run_query  # noqa: PLC0415 - the parser loads with the first query
    from .parser.lexer import syntax_error, tokenize  # noqa: PLC0415

    tokens = tokenize(text)
    words = [t.value.upper() if t.kind == "WORD" else t.value for t in tokens[:8]]

    def query_after(index: int) -> DataFrame:
        return run_query(session, text[tokens[index].pos:], functions)

    def name_at(index: int) -> str:
        parts = [tokens[index].value]
        while tokens[index + 1].is_op(".") and tokens[index + 2].kind in ("WORD", "QUOTED"):
            parts.append(tokens[index + 2].value)
            index += 2
        return ".".join(parts)

    def past_name(index: int) -> int:
        while tokens[index + 1].is_op("."):
            index += 2
        return index + 1

    def read_name(index: int) -> tuple[str, int]:
        return name_at(index), past_name(index)

    head = words[0] if words else ""
    if head == "CREATE":
        i = 1
        replace = words[i:i + 2] == ["OR", "REPLACE"]
        i += 2 if replace else 0
        global_view = words[i] == "GLOBAL"
        i += 1 if global_view else 0
        if words[i] in ("TEMP", "TEMPORARY") and words[i + 1] == "VIEW":
            name = name_at(i + 2)
            j = past_name(i + 2)
            j += 1 if tokens[j].is_word("AS") else 0
            df = query_after(j)
            if global_view:
                (df.createOrReplaceGlobalTempView if replace else df.createGlobalTempView)(name)
            else:
                (df.createOrReplaceTempView if replace else df.createTempView)(name)
            return _empty(session)
        if words[i] == "TABLE":
            return _create_table(session, tokens, i + 1, replace, query_after, name_at, past_name, text)
    if head == "DROP" and len(words) > 2 and words[1] in ("VIEW", "TABLE"):
        if_exists = words[2:4] == ["IF", "EXISTS"]
        name = name_at(4 if if_exists else 2)
        return _drop(session, words[1], name, if_exists)
    if head == "INSERT" and len(words) > 2 and words[1] in ("INTO", "OVERWRITE"):
        return ddl.insert(session, tokens, 3 if words[2] == "TABLE" else 2, words[1] == "OVERWRITE", text,
                          read_name, functions)
    if head == "SHOW":
        from .statements_show import show_statement  # noqa: PLC0415 - loaded with the first SHOW

        shown = show_statement(session, tokens)
        if shown is not None:
            return shown
    if head in ("DESCRIBE", "DESC") and len(words) > 1 and words[1] not in ("FUNCTION", "DATABASE", "SCHEMA",
                                                                            "CATALOG", "QUERY", "SELECT", "WITH"):
        i = 2 if words[1] == "TABLE" else 1
        extended = words[i] in ("EXTENDED", "FORMATTED") and tokens[i + 1].kind in ("WORD", "QUOTED")
        name, j = read_name(i + 1 if extended else i)
        if tokens[j].kind != "EOF":
            raise syntax_error(tokens[j], ": DESCRIBE of a partition or a column is not supported here")
        return ddl.describe(session, name, extended)
    if words[:2] == ["SHOW", "COLUMNS"] and len(words) > 3 and words[2] in ("IN", "FROM"):
        name, j = read_name(3)
        if tokens[j].is_word("IN", "FROM"):  # SHOW COLUMNS IN t IN db
            name = f"{read_name(j + 1)[0]}.{name}"
        return ddl.show_columns(session, name)
    if words[:2] in (["CACHE", "TABLE"], ["CACHE", "LAZY"], ["UNCACHE", "TABLE"], ["CLEAR", "CACHE"]):
        return ddl.cache_statement(session, words, tokens, read_name, query_after)
    if head == "SET" and not (len(words) > 1 and words[1] in ("TIME", "VAR", "VARIABLE", "CATALOG")):
        return ddl.set_statement(session, text, tokens)
    if head == "EXPLAIN":
        return ddl.explain(session, words, query_after)
    if words[:2] == ["MERGE", "INTO"]:
        return _merge(session, tokens, read_name, syntax_error)
    return run_query(session, text, functions)


def _merge(session: SparkSession, tokens: list[Any], read_name: Any, syntax_error: Any) -> NoReturn:
    """``MERGE INTO target USING source ON ... WHEN ...``: refused as ``DataFrame.mergeInto`` is (see .merge)."""
    target, j = read_name(2)
    rest = [t.value.upper() for t in tokens[j:] if t.kind == "WORD"]
    for needed in ("USING", "ON", "WHEN"):
        if needed not in rest:
            raise syntax_error(tokens[j], f": MERGE INTO {target} needs USING source ON condition WHEN ... THEN ...")
    using = next(k for k in range(j, len(tokens)) if tokens[k].is_word("USING"))
    names = [target] if tokens[using + 1].is_op("(") else [target, read_name(using + 1)[0]]
    for name in names:
        if not session.catalog.tableExists(name):
            raise AnalysisException(
                f"The table or view `{name}` cannot be found. Verify the spelling and correctness of the schema and "
                "catalog.", "TABLE_OR_VIEW_NOT_FOUND", {"relationName": f"`{name}`"})
    from .merge import refuse_merge  # noqa: PLC0415 - loaded with the first MERGE

    refuse_merge()


def _create_table(session: SparkSession, tokens: list[Any], i: int, replace: bool, query_after: Any, name_at: Any,
                  past_name: Any, text: str) -> DataFrame:
    from .statements_ddl import create_table_columns, table_clauses  # noqa: PLC0415 - loaded with the parser

    if_not_exists = tokens[i].is_word("IF") and tokens[i + 1].is_word("NOT") and tokens[i + 2].is_word("EXISTS")
    i += 3 if if_not_exists else 0
    name = name_at(i)
    j = past_name(i)
    mode = "overwrite" if replace else ("ignore" if if_not_exists else "error")
    if tokens[j].is_op("("):
        return create_table_columns(session, tokens, j, text, name, mode)
    fmt, partition_by, j = table_clauses(tokens, j)
    if not tokens[j].is_word("AS"):
        raise AnalysisException(
            "CREATE TABLE needs a column list or AS query here (CREATE TABLE t (id INT, ...) [USING fmt] or "
            "CREATE TABLE t [USING fmt] AS SELECT ...).", "UNSUPPORTED_FEATURE", {"feature": "CREATE TABLE"})
    query_after(j + 1).write.format(fmt).mode(mode).partitionBy(*partition_by).saveAsTable(name)
    return _empty(session)


def _drop(session: SparkSession, kind: str, name: str, if_exists: bool) -> DataFrame:
    if kind == "VIEW":
        dropped = session.catalog.dropTempView(name) or session.catalog.dropGlobalTempView(
            name.split(".", 1)[1] if name.lower().startswith("global_temp.") else name)
    else:
        from .tables import drop_table  # noqa: PLC0415 - the tables load with the first one

        dropped = drop_table(session, name)
    if not dropped and not if_exists:
        raise AnalysisException(
            f"The {kind.lower()} `{name}` cannot be found. Verify the spelling; to tolerate the error on drop use "
            f"DROP {kind} IF EXISTS.", "TABLE_OR_VIEW_NOT_FOUND", {"relationName": f"`{name}`"})
    return _empty(session)


def _empty(session: SparkSession) -> DataFrame:
    return session.createDataFrame([], "dummy int").select()
