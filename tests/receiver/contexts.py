"""A StreamingContext with the live-input methods, and a SparkContext factory for receivers.

Until ``InputMethods`` is among ``StreamingContext``'s bases, the tests use a subclass
that adds it; afterwards ``SSC`` *is* ``StreamingContext``.
"""

from __future__ import annotations

from typing import Any

from dstream.context import StreamingContext
from dstream.context_inputs import InputMethods

if issubclass(StreamingContext, InputMethods):
    SSC: Any = StreamingContext
else:

    class SSC(InputMethods, StreamingContext):  # type: ignore[no-redef]
        """StreamingContext plus the live inputs (until the context lists the mixin)."""


def receiver_conf(**settings: Any) -> Any:
    """A SparkConf with short receiver intervals (keys given with '_' for '.')."""
    from rdd import SparkConf

    conf = SparkConf()
    conf.set("spark.streaming.blockInterval", "20ms")
    conf.set("spark.streaming.receiverRestartDelay", "100")
    for key, value in settings.items():
        conf.set(key, value)
    return conf
