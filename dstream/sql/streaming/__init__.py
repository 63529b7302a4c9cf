"""Structured Streaming: ``spark.readStream`` / ``df.writeStream`` queries on the micro-batch engine.

PySpark's ``pyspark.sql.streaming`` names (``DataStreamReader``, ``DataStreamWriter``,
``StreamingQuery``, ``StreamingQueryManager``, ``StreamingQueryListener``) plus
dstreams' additions: ``MemoryStream`` (a source fed by the program, for tests) and the
Scala API's ``GroupState``/``GroupStateTimeout`` for ``mapGroupsWithState``.
"""

from __future__ import annotations

from .group_state import GroupState, GroupStateTimeout
from .listener import (
    QueryIdleEvent,
    QueryProgressEvent,
    QueryStartedEvent,
    QueryTerminatedEvent,
    StreamingQueryListener,
)
from .progress import StreamingQueryProgress, StreamingQueryStatus
from .query import StreamingQuery, StreamingQueryManager
from .readwriter import DataStreamReader, DataStreamWriter
from .sources.memory import MemoryStream
from .stateful_processor import StatefulProcessor, StatefulProcessorHandle

__all__ = [
    "DataStreamReader",
    "DataStreamWriter",
    "GroupState",
    "GroupStateTimeout",
    "MemoryStream",
    "QueryIdleEvent",
    "QueryProgressEvent",
    "QueryStartedEvent",
    "QueryTerminatedEvent",
    "StatefulProcessor",
    "StatefulProcessorHandle",
    "StreamingQuery",
    "StreamingQueryListener",
    "StreamingQueryManager",
    "StreamingQueryProgress",
    "StreamingQueryStatus",
]
