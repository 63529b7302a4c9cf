"""The error a Python UDTF's worker raises, as the driver sees it.

What this module owns
---------------------
:func:`udtf_failure`: PySpark's worker error (a ``PySparkRuntimeError`` with a UDTF
condition) wrapped in the ``PythonException`` the driver raises, the user's traceback
first. Shared by the row and the Arrow conversions of UDTF output.
"""

from __future__ import annotations

import traceback

from ..errors import PySparkRuntimeError, PythonException

__all__ = ["udtf_failure"]


def udtf_failure(method: str, message: str, condition: str = "UDTF_EXEC_ERROR",
             parameters: dict[str, str] | None = None, cause: BaseException | None = None) -> PythonException:
    """PySpark's worker error (a ``PySparkRuntimeError``) as the driver sees it: a ``PythonException``."""
    error = PySparkRuntimeError(message, condition, parameters or {"method_name": method, "error": message})
    text = "".join(traceback.format_exception(type(error), error, None))
    if cause is not None:  # the user's own traceback first, as the worker prints it
        text = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__)) + (
            "\nDuring handling of the above exception, another exception occurred:\n\n" + text)
    # PySpark's PythonException carries no condition of its own: the worker's error is in its text.
    return PythonException(f"\n  An exception was thrown from the Python worker. Please see the stack trace below.\n"
                           f"Traceback (most recent call last):\n{text}")
