"""dstreams streaming: Spark Streaming's DStream model in pure Python.

The public surface mirrors ``pyspark.streaming``: change the imports of a PySpark
Streaming script and it runs on the ``rdd`` engine.

>>> from dstream import StreamingContext, StreamingListener
"""

from __future__ import annotations

from rdd import StorageLevel
from rdd import __version__ as __version__  # re-exported: dstream.__version__
from rdd.engine_api import install_default_handler as _install_default_handler

from dstream.context import StreamingContext
from dstream.dstream import DStream, MapWithStateDStream
from dstream.errors import (
    BatchTimeoutError,
    DurationError,
    NoOutputOperationError,
    StreamingError,
    StreamingStateError,
)
from dstream.listener import StreamingListener
from dstream.receiver.receiver import Receiver
from dstream.state.spec import State, StateSpec
from dstream.time import Duration, Milliseconds, Minutes, Seconds

_install_default_handler(__name__)  # see rdd.logs: the log's default output, as Spark's

__all__ = [
    "BatchTimeoutError",
    "DStream",
    "Duration",
    "DurationError",
    "MapWithStateDStream",
    "Milliseconds",
    "Minutes",
    "NoOutputOperationError",
    "Receiver",
    "Seconds",
    "State",
    "StateSpec",
    "StorageLevel",
    "StreamingContext",
    "StreamingError",
    "StreamingListener",
    "StreamingStateError",
]
