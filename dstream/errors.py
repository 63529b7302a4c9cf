"""Exceptions raised by the streaming package.

The hierarchy::

    rdd.SparkError
    └── StreamingError               base of everything raised by ``dstream`` itself
        ├── StreamingStateError      lifecycle misuse: adding operators after start(),
        │                            start() after stop(), a second active context,
        │                            slice() before start() (also a RuntimeError)
        ├── DurationError            a duration that breaks a rule: not positive, not a
        │                            whole number of milliseconds, not a multiple of the
        │                            parent's slide, unequal slides in a union (also a
        │                            ValueError)
        ├── NoOutputOperationError   start() on a graph without output operations (also
        │                            a ValueError)
        └── BatchTimeoutError        a testing helper waited past its deadline for a
                                     batch (also a TimeoutError)

Pickling a DStream or a StreamingContext raises ``rdd.DriverOnlyError``, like an RDD.

Argument errors subclass the builtin the caller already catches around PySpark calls
(``ValueError``), so code written for PySpark keeps working. Errors raised by *user*
functions inside a batch are never wrapped: ``awaitTermination`` re-raises the user's
own exception object, with its original traceback.

Every message names the rule, the offending value, and the fix, at the raise site.
"""

from __future__ import annotations

from rdd import SparkError

__all__ = [
    "BatchTimeoutError",
    "DurationError",
    "NoOutputOperationError",
    "StreamingError",
    "StreamingStateError",
]


class StreamingError(SparkError):
    """Base class of the exceptions raised by the streaming engine itself."""


class StreamingStateError(StreamingError, RuntimeError):
    """An operation that the StreamingContext's lifecycle state does not allow.

    Raised, for example, when a DStream is created after ``start()``, when ``start()`` is
    called on a stopped context, or when a second context is started while another one
    is active in the process.
    """


class DurationError(StreamingError, ValueError):
    """A batch, window, slide or remember duration that breaks a rule."""


class NoOutputOperationError(StreamingError, ValueError):
    """``start()`` was called on a graph that has no output operation."""


class BatchTimeoutError(StreamingError, TimeoutError):
    """A testing helper waited past its deadline for a batch to finish."""
