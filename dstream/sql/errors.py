"""The errors of ``dstream.sql``: PySpark 4's exception classes under the same names.

What this module owns
---------------------
The exceptions a DataFrame program sees, named and shaped as ``pyspark.errors``:
every one carries an *error condition* (``UNRESOLVED_COLUMN.WITH_SUGGESTION``,
``DIVIDE_BY_ZERO``...), its message parameters and an SQLSTATE, and prints as
``[CONDITION] message SQLSTATE: xxxxx`` as Spark does. Code written against PySpark
catches them by the same names (``from dstream.sql import AnalysisException``) and, where
PySpark's class also derives from a builtin (``ArithmeticException`` is an
``ArithmeticError``), so do these.

Invariants
----------
* Errors raised inside a task re-raise on the driver with the same class and fields:
  each class pickles as its constructor arguments.
* Analysis errors are raised when a DataFrame is *defined*; runtime errors (ANSI
  arithmetic, casts) when an action runs.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "PySparkException",
    "PySparkIndexError",
    "CapturedException",
    "AnalysisException",
    "ParseException",
    "ArithmeticException",
    "UnsupportedOperationException",
    "IllegalArgumentException",
    "NumberFormatException",
    "DateTimeException",
    "SparkNoSuchElementException",
    "SparkRuntimeException",
    "SparkUpgradeException",
    "ArrayIndexOutOfBoundsException",
    "PythonException",
    "StreamingQueryException",
    "PySparkValueError",
    "PySparkTypeError",
    "PySparkNotImplementedError",
    "PySparkImportError",
    "PySparkAttributeError",
    "PySparkRuntimeError",
]

# The SQLSTATE of each condition this package raises (Spark's error-conditions.json).
_SQLSTATES: dict[str, str] = {
    "UNRESOLVED_COLUMN": "42703",
    "TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON": "38000",
    "UNEXPECTED_POSITIONAL_ARGUMENT": "4274K",
    "AMBIGUOUS_REFERENCE": "42704",
    "DATATYPE_MISMATCH": "42K09",
    "MISSING_AGGREGATION": "42803",
    "TABLE_OR_VIEW_NOT_FOUND": "42P01",
    "UNRESOLVED_ROUTINE": "42883",
    "PARSE_SYNTAX_ERROR": "42601",
    "TRAILING_COMMA_IN_SELECT": "42601",
    "PATH_ALREADY_EXISTS": "42K04",
    "PATH_NOT_FOUND": "42K03",
    "DIVIDE_BY_ZERO": "22012",
    "REMAINDER_BY_ZERO": "22012",
    "ARITHMETIC_OVERFLOW": "22003",
    "BINARY_ARITHMETIC_OVERFLOW": "22003",
    "CAST_OVERFLOW": "22003",
    "NUMERIC_VALUE_OUT_OF_RANGE": "22003",
    "CAST_INVALID_INPUT": "22018",
    "MALFORMED_RECORD_IN_PARSING": "22023",
    "CANNOT_PARSE_TIMESTAMP": "22007",
    "DATETIME_FIELD_OUT_OF_BOUNDS": "22023",
    "ILLEGAL_DAY_OF_WEEK": "22009",
    "INVALID_ARRAY_INDEX": "22003",
    "INVALID_ARRAY_INDEX_IN_ELEMENT_AT": "22003",
    "INVALID_BITMAP_POSITION": "22003",
    "HLL_INVALID_LG_K": "22546",
    "UNSUPPORTED_PARTITION_TRANSFORM": "0A000",
    "PARTITION_TRANSFORM_EXPRESSION_NOT_IN_PARTITIONED_BY": "42S23",
    "SQL_CONF_NOT_FOUND": "42K0I",
    "HLL_INVALID_INPUT_SKETCH_BUFFER": "22546",
    "HLL_UNION_DIFFERENT_LG_K": "22000",
    "SORT_BY_WITHOUT_BUCKETING": "42601",
    "COLUMN_NOT_DEFINED_IN_TABLE": "42703",
    "UNSUPPORTED_FEATURE": "0A000",
    "INCOMPATIBLE_COLUMN_TYPE": "42825",
    "NUM_COLUMNS_MISMATCH": "42826",
    "CANNOT_INFER_SCHEMA": "42KD9",
    "INVALID_FORMAT": "42601",
    "USER_RAISED_EXCEPTION": "P0001",
    "CONVERSION_INVALID_INPUT": "22018",
    "INVALID_URL": "22P02",
    "INVALID_UTF8_STRING": "22029",
    "INVALID_PARAMETER_VALUE": "22023",
    "UNSUPPORTED_DATA_SOURCE_SAVE_MODE": "0A000",
    "XML_ROW_TAG_MISSING": "42KDF",
    "INVALID_VARIANT_CAST": "22023",
    "INVALID_VARIANT_GET_PATH": "22023",
    "MALFORMED_VARIANT": "22023",
    "VARIANT_DUPLICATE_KEY": "22023",
    "VARIANT_SIZE_LIMIT": "22023",
    "GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE": "42822",
    "INTERVAL_DIVIDED_BY_ZERO": "22012",
    "INTERVAL_ARITHMETIC_OVERFLOW": "22015",
    "INVALID_INTERVAL_FORMAT": "22006",
    "INVALID_INTERVAL_WITH_MICROSECONDS_ADDITION": "22006",
    "INVALID_EXTRACT_FIELD": "42601",
    "EXCEED_LIMIT_LENGTH": "54006",
    "INVALID_DATETIME_PATTERN": "22007",
    "INCONSISTENT_BEHAVIOR_CROSS_VERSION": "42K0B",
}


def sqlstate_of(condition: str) -> str | None:
    """The SQLSTATE of an error condition (its main class decides), or ``None``."""
    return _SQLSTATES.get(condition.split(".", 1)[0])


class PySparkException(Exception):
    """Base of the errors of ``dstream.sql`` (``pyspark.errors.PySparkException``).

    Parameters
    ----------
    message : str, optional
        The text after the ``[CONDITION]`` prefix.
    errorClass : str, optional
        The error condition, such as ``"DIVIDE_BY_ZERO"``.
    messageParameters : dict, optional
        The values the message was made from (column names, values...).
    """

    def __init__(self, message: str | None = None, errorClass: str | None = None,  # noqa: N803 - PySpark's names
                 messageParameters: dict[str, str] | None = None) -> None:
        self._message = message or ""
        self._error_class = errorClass
        self._parameters = dict(messageParameters or {})
        super().__init__(self._render())

    def _render(self) -> str:
        if self._error_class is None or self._error_class.startswith("_LEGACY_ERROR_"):
            return self._message  # Spark's legacy conditions print their text alone
        text = f"[{self._error_class}] {self._message}"
        state = sqlstate_of(self._error_class)
        return f"{text} SQLSTATE: {state}" if state else text

    def getCondition(self) -> str | None:  # noqa: N802 - PySpark's name
        """The error condition (``"UNRESOLVED_COLUMN.WITH_SUGGESTION"``...)."""
        return self._error_class

    def getErrorClass(self) -> str | None:  # noqa: N802 - PySpark's name
        """The error condition (the name PySpark 3.x used)."""
        return self._error_class

    def getMessageParameters(self) -> dict[str, str]:  # noqa: N802 - PySpark's name
        """The values the message names."""
        return dict(self._parameters)

    def getSqlState(self) -> str | None:  # noqa: N802 - PySpark's name
        """The SQLSTATE of the condition, if it has one."""
        return sqlstate_of(self._error_class) if self._error_class else None

    def getMessage(self) -> str:  # noqa: N802 - PySpark's name
        """The whole message, condition prefix included."""
        return self._render()

    def __str__(self) -> str:
        return self._render()

    def __reduce__(self) -> Any:
        return (type(self), (self._message, self._error_class, self._parameters))


class CapturedException(PySparkException):
    """An error of the SQL engine (PySpark's wrapper of a JVM exception)."""


class AnalysisException(CapturedException):
    """A DataFrame or query refers to something that does not exist or does not type-check."""


class ParseException(AnalysisException):
    """An SQL text or expression string could not be parsed."""


class UnsupportedOperationException(CapturedException):
    """An operation Spark does not support (``UNSUPPORTED_PARTITION_TRANSFORM``...)."""


class ArithmeticException(CapturedException, ArithmeticError):
    """Division by zero or overflow under ANSI mode (``spark.sql.ansi.enabled``)."""


class IllegalArgumentException(CapturedException, ValueError):
    """An argument a function cannot accept."""


class NumberFormatException(IllegalArgumentException):
    """A string cast to a number that is not one (``CAST_INVALID_INPUT``)."""


class DateTimeException(CapturedException, ValueError):
    """A date or timestamp that cannot be parsed or represented."""


class SparkRuntimeException(CapturedException, RuntimeError):
    """Any other error while a query runs."""


class SparkUpgradeException(CapturedException):
    """Something Spark 3.0 stopped accepting that earlier versions did (a week-based datetime pattern...)."""


class ArrayIndexOutOfBoundsException(CapturedException, IndexError):
    """An array index out of range under ANSI mode."""


class PythonException(CapturedException):
    """A user-defined function raised; the message holds its traceback."""


class SparkNoSuchElementException(CapturedException, KeyError):
    """``spark.conf.get`` of a key that has no value and no default."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return self._render()


class StreamingQueryException(CapturedException):
    """A streaming query stopped because of an error (``query.exception()``, ``awaitTermination``)."""


class PySparkValueError(PySparkException, ValueError):
    """A bad argument value given to the DataFrame API."""


class PySparkTypeError(PySparkException, TypeError):
    """An argument of the wrong type given to the DataFrame API."""


class PySparkIndexError(PySparkException, IndexError):
    """A column position out of range given to the DataFrame API."""


class PySparkNotImplementedError(PySparkException, NotImplementedError):
    """A PySpark feature ``dstream.sql`` does not offer (yet)."""


class PySparkAttributeError(PySparkException, AttributeError):
    """A missing attribute of a user's object (a UDTF class without ``eval``...)."""


class PySparkImportError(PySparkException, ImportError):
    """A package PySpark needs (pandas, PyArrow...) is missing or too old."""


class PySparkRuntimeError(PySparkException, RuntimeError):
    """A failure of the Python side at run time (``pyspark.errors.PySparkRuntimeError``)."""
