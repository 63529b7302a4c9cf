"""SQL queries whose answers differed from PySpark's, with PySpark 4.0.1's answers.

``data/differential.json`` holds each query (with its session time zone when not UTC), and
PySpark's answer: the schema and every column cast to a string (as ``show()`` prints it), or
the error's condition. The queries
come from differential runs against PySpark (random queries over small tables), one or a
few per difference found, so that each stays fixed:

* Spark 4's ANSI widening of a string with another type: an integral type at ``bigint``, a
  fractional one at ``double``, a boolean or date at that type, in ``UNION``, ``INTERSECT``,
  ``EXCEPT``, ``coalesce``, ``CASE``, ``array``, ``map``; comparisons cast the string to the
  other side's type instead; ``greatest``/``least`` do not promote strings at all;
* ``greatest``/``least`` over timestamps, booleans and nulls;
* ``corr``, ``regr_r2`` and the moments at their edges (no spread, one row);
* ``ORDER BY ALL`` over ``SELECT *``;
* ANSI ``sum`` of bigints, which fails when a running sum leaves the range in row order
  (``MAX, 1, -1``) even if the total fits, and not when the order keeps it inside;
* ``%`` and ``pmod`` of infinite and NaN doubles (a Python ``math domain error`` before);
* a NaN or infinite double cast to a decimal (NULL, under ANSI too); ``try_element_at`` at
  index 0 (raises); ``mask`` of non-ASCII letters and digits; SQL's ``decode(e, s1, r1, ...)``;
* a timestamp plus a day-time interval across a DST change (whole days on the session
  zone's wall clock), ``timestampdiff`` between local date-times, ``unix_timestamp``
  truncating toward zero, ``repeat`` by a column;
* ``array()`` as ``array<void>``, and how it meets other arrays (``concat`` widens element
  types; ``CASE``, ``coalesce``, ``flatten``, ``explode``...);
* ``signum(-0.0)``; a ``USING`` semi or anti join's key column first; the conditions of a
  frame given to ``lead`` or ``rank``;
* string literals: ``'it''s'`` is two adjacent literals (``its``), not an escaped quote;
  ``upper``/``lower``/``initcap`` with Java's full case mappings (``ß`` is ``SS``);
* ``format_number`` with a DecimalFormat pattern (``'#,##0.00'``, ``'$#,##0'``, ``'0.0###'``);
* casts of maps and structs to other key, value and field types (``CAST(m AS MAP<STRING,
  BIGINT>)``, a struct to renamed fields), and what needs them (``map_concat`` or
  ``coalesce`` of maps with different value types, an array of structs);
* ``avg(DISTINCT ...)`` (and ``mean``), with ``FILTER``, and refused over a window
  (``DISTINCT_WINDOW_FUNCTION_UNSUPPORTED``).
"""

from __future__ import annotations

from typing import Any

import pytest

from dstream.sql import SparkSession

from .pyspark_answers import check_case, load_cases

CASES = load_cases("differential")


@pytest.mark.parametrize("case", CASES, ids=[c["query"][:70] for c in CASES])
def test_queries_give_pysparks_answers(spark: SparkSession, case: dict[str, Any]) -> None:
    check_case(spark, case)
