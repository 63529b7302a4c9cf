"""Spark SQL text to the public DataFrame API: expression strings and the SELECT subset.

What this package owns
----------------------
``parse_expression(text, F)`` (``F.expr``, ``selectExpr``, string filters) and
``run_query(session, text, F)`` (``spark.sql``). Text is parsed to an immutable syntax tree
(:mod:`.nodes`; :mod:`.lexer`, :mod:`.expression`, :mod:`.query`), which is then translated
into calls of the public API (:mod:`.columns` for Columns, :mod:`.build` for DataFrames).

Invariants
----------
* Nothing here imports ``dstream.sql.functions``, ``column`` or ``dataframe``: those import
  this package, so the functions module is an argument.
* Syntax errors are ``ParseException`` (``PARSE_SYNTAX_ERROR``), raised before any DataFrame
  is built.
"""

from __future__ import annotations

from dstream.sql.parser.build import build_query, parse_expression, run_query
from dstream.sql.parser.columns import to_column, to_sort
from dstream.sql.parser.expression import parse_expression_ast
from dstream.sql.parser.query import parse_query

__all__ = ["parse_expression", "run_query", "build_query", "to_column", "to_sort", "parse_expression_ast",
           "parse_query"]
