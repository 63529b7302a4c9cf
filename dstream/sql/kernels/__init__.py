"""Vectorized Spark-semantics functions over pyarrow arrays (the kernels of ``dstream.sql``).

What this package owns
----------------------
One pure function per Spark operator or function, taking and returning ``pa.Array``
(never ChunkedArray), with Spark 4's results, null rules and ANSI errors:

* :mod:`.arith` -- ``+ - * / % pmod div``, negation, ``abs``, rounding.
* :mod:`.compare` -- comparisons (NaN and null rules), Kleene logic, ``IN``, ``BETWEEN``.
* :mod:`.cast` -- ``CAST`` in ANSI, legacy and try modes.
* :mod:`.strings` -- string functions; Java regular expressions run on RE2 or ``re``.
* :mod:`.cast_text` -- CAST's string parsing (numbers, booleans, dates, timestamps).
* :mod:`.hashing` -- stable partition ids for shuffles.
* :mod:`.javafmt` -- Java's text of doubles over whole arrays.
* :mod:`.conditions` -- Spark's runtime error conditions and their messages.
* :mod:`.datetimes` -- ``to_timestamp``, ``to_date``, ``date_format``, ``unix_timestamp``,
  ``from_unixtime`` with Spark's datetime patterns (:mod:`.datetime_pattern` parses patterns,
  :mod:`.datetime_format` prints them).
* :mod:`.jsonfn` -- ``from_json`` (PERMISSIVE) and ``to_json`` (:mod:`.json_write`).

Invariants
----------
* Inputs are not modified; outputs have the length of the inputs.
* A target type may be given as a Spark ``DataType`` object or as a ``pa.DataType``
  (:func:`.sparktypes.arrow_type`); both mean the same Arrow type.
* Per-row Python runs only where no Arrow kernel has Spark's semantics; each module's
  docstring lists where.
"""
