"""dstreams' batch engine: PySpark's SparkContext / RDD API in pure Python.

Change ``from pyspark import SparkContext`` to ``from rdd import SparkContext``.
Masters: ``local`` (inline), ``local[N]`` (N worker processes), ``local[*]``.
"""

from __future__ import annotations

from .accumulators import Accumulator, AccumulatorParam
from .broadcast import Broadcast
from .conf import SparkConf
from .context import SparkContext
from .errors import (ActiveContextError, BrokenExecutorError, CheckpointError, ContextStoppedError, DriverOnlyError,
                     JobAbortedError, SerializationError, SparkError)
from .partitioner import Partitioner, portable_hash
from .rdd import RDD
from .scheduler.task_context import TaskContext
from .statcounter import StatCounter
from .storage.level import StorageLevel

__all__ = [
    "Accumulator",
    "AccumulatorParam",
    "ActiveContextError",
    "Broadcast",
    "BrokenExecutorError",
    "CheckpointError",
    "ContextStoppedError",
    "DriverOnlyError",
    "JobAbortedError",
    "Partitioner",
    "RDD",
    "SerializationError",
    "SparkConf",
    "SparkContext",
    "SparkError",
    "StatCounter",
    "StorageLevel",
    "TaskContext",
    "portable_hash",
]
