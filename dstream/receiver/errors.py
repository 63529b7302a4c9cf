"""Exceptions raised by the receiver framework, the write-ahead log and live inputs.

The hierarchy (under :class:`dstream.errors.StreamingError`)::

    StreamingError
    ├── ReceiverError               a receiver cannot do what was asked
    │   └── ReceiverStateError      store()/restart() on a receiver that is not running
    │                               (also a RuntimeError)
    ├── ReceiverConfigError         a spark.streaming.* receiver setting with a bad
    │                               value (also an rdd.errors.ConfigError, a ValueError)
    └── BlockLostError              a batch needs a received block that neither the
                                    block manager nor the write-ahead log holds

Write-ahead log errors live in :mod:`dstream.wal.errors`; file-stream errors in
:mod:`dstream.inputs.file`.

Every message names the rule, the offending value and the fix, at the raise site.
"""

from __future__ import annotations

from rdd import ConfigError

from dstream.errors import StreamingError

__all__ = ["BlockLostError", "ReceiverConfigError", "ReceiverError", "ReceiverStateError"]


class ReceiverError(StreamingError):
    """Base of the errors raised by the receiver framework."""


class ReceiverStateError(ReceiverError, RuntimeError):
    """A receiver (or its block generator) was used in a state that does not allow it.

    For example ``store()`` after the receiver stopped, or ``store()`` on a receiver that
    was never handed to ``ssc.receiverStream()``.
    """


class ReceiverConfigError(ReceiverError, ConfigError):
    """A receiver, rate or write-ahead-log setting has a value outside its rule."""


class BlockLostError(ReceiverError):
    """A received block needed by a batch is gone (not in memory, not in the log)."""
