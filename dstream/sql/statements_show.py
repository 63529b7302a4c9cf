"""``SHOW FUNCTIONS``, ``SHOW DATABASES`` and ``SHOW TABLES``, as Spark's commands answer them.

What this module owns
---------------------
* ``SHOW [USER | SYSTEM | ALL] FUNCTIONS [[LIKE] 'pattern']``: one ``function`` row per SQL
  function name this engine runs, spelled as Spark lists it (its operators and keyword
  forms such as ``+``, ``case``, ``if`` included; PySpark-only helpers such as ``col`` or
  ``create_map`` left out), sorted; ``USER`` lists the session's registered UDFs.
* ``SHOW {DATABASES | NAMESPACES | SCHEMAS} [[LIKE] 'pattern']``: ``namespace`` rows.
* ``SHOW TABLES [{IN | FROM} db] [[LIKE] 'pattern']``: ``namespace``, ``tableName``,
  ``isTemporary`` rows (a temporary view's namespace is empty).

Invariants
----------
* A pattern is Spark's: ``*`` matches any text, ``|`` separates alternatives, case is
  ignored, and the whole name must match.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .errors import AnalysisException

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .session import SparkSession

__all__ = ["show_statement", "matches_pattern"]

#: SQL operators and keyword forms Spark lists among its functions, all of which parse here.
_SQL_FORMS = frozenset({
    "!", "!=", "%", "&", "*", "+", "-", "/", "<", "<<", "<=", "<=>", "<>", "=", "==", ">", ">=", ">>", ">>>", "^",
    "|", "||", "~", "and", "or", "not", "between", "case", "cast", "div", "if", "in", "mod", "when",
    "percentile_cont", "percentile_disc", "range",
})

#: Names this engine's SQL accepts that are no Spark SQL function (PySpark-only spellings,
#: or SQL forms Spark parses without listing them): SHOW FUNCTIONS leaves them out.
_NOT_LISTED = frozenset({
    "count_distinct", "countdistinct", "create_map", "sum_distinct", "negate", "bitwise_not", "product",
    "timestamp_add", "timestamp_diff", "timestampadd", "timestampdiff", "integer", "listagg_distinct",
    "string_agg_distinct", "iff",
})


def matches_pattern(name: str, pattern: str | None) -> bool:
    """Whether ``name`` matches Spark's SHOW pattern (``*`` any text, ``|`` alternatives, any case)."""
    if pattern is None:
        return True
    return any(re.fullmatch(".*".join(re.escape(part) for part in alternative.split("*")), name, re.IGNORECASE)
               for alternative in pattern.split("|"))


def _system_functions() -> list[str]:
    from . import functions  # noqa: PLC0415 - the functions load with the first statement
    from .expressions.function_registry import registered_names  # noqa: PLC0415
    from .parser import columns  # noqa: PLC0415 - the SQL names the parser resolves

    names = {n for n in functions.__all__ if n == n.lower() and n not in columns._NOT_SQL}  # noqa: SLF001
    names |= set(columns._ALIASES) | set(columns._CAST_FUNCTIONS)  # noqa: SLF001 - the SQL-only names
    names |= {n.lower() for n in registered_names()}
    return sorted((names - _NOT_LISTED) | _SQL_FORMS)


def show_statement(session: SparkSession, tokens: list[Any]) -> DataFrame | None:
    """The result of the SHOW statement ``tokens`` (after SHOW), or ``None`` when it is another one.

    Parameters
    ----------
    session : SparkSession
        The session whose catalog and UDFs are listed.
    tokens : list of Token
        The statement's tokens, ``SHOW`` first.

    Returns
    -------
    DataFrame or None
        Spark's rows and columns for the statement.
    """
    from .parser.lexer import syntax_error  # noqa: PLC0415 - loaded with the parser

    i = 1
    scope = "ALL"
    if tokens[i].is_word("USER", "SYSTEM", "ALL") and tokens[i + 1].is_word("FUNCTIONS"):
        scope = tokens[i].value.upper()
        i += 1
    kind = tokens[i].value.upper() if tokens[i].kind == "WORD" else ""
    if kind not in ("FUNCTIONS", "DATABASES", "NAMESPACES", "SCHEMAS", "TABLES"):
        return None
    i += 1
    database = None
    if kind == "TABLES" and tokens[i].is_word("IN", "FROM"):
        database = tokens[i + 1].value
        i += 2
    pattern = None
    if tokens[i].is_word("LIKE"):
        i += 1
    if tokens[i].kind == "STRING":
        pattern = tokens[i].value
        i += 1
    if tokens[i].kind != "EOF" and not tokens[i].is_op(";"):
        raise syntax_error(tokens[i], f": SHOW {kind} takes [LIKE] 'pattern' here")
    if kind == "FUNCTIONS":
        names: list[str] = []
        registry = session._udf_registration  # noqa: SLF001 - the session's own registrations
        if scope in ("SYSTEM", "ALL"):
            names += _system_functions()
        if scope in ("USER", "ALL") and registry is not None:
            names = sorted(set(names) | {n.lower() for n in registry.names()})
        return session.createDataFrame([(n,) for n in names if matches_pattern(n, pattern)], "function string")
    if kind == "TABLES":
        if database is not None and not session.catalog.databaseExists(database):
            raise AnalysisException(f"The schema `{database}` cannot be found. Verify the spelling of the schema "
                                    "name (SHOW DATABASES lists them).", "SCHEMA_NOT_FOUND",
                                    {"schemaName": f"`{database}`"})
        rows = [(t.database or "", t.name, t.isTemporary) for t in session.catalog.listTables()
                if matches_pattern(t.name, pattern)]
        return session.createDataFrame(rows, "namespace string, tableName string, isTemporary boolean")
    namespaces = [(d.name,) for d in session.catalog.listDatabases() if matches_pattern(d.name, pattern)]
    return session.createDataFrame(namespaces, "namespace string")
