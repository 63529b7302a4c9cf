"""dstreams' batch engine: PySpark's SparkContext / RDD API in pure Python.

Change ``from pyspark import SparkContext`` to ``from rdd import SparkContext``.
Masters: ``local`` (inline), ``local[N]`` (N worker processes), ``local[*]``.

The public names are imported on first use (PEP 562): a worker process, which imports
``rdd.executor.worker``, then loads only the engine modules its tasks need, not the
driver's facade, and starts faster.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from .version import __version__

if _typing.TYPE_CHECKING:
    from .accumulators import Accumulator, AccumulatorParam
    from .broadcast import Broadcast
    from .conf import SparkConf
    from .context import SparkContext
    from .context_jobs import SparkJobInfo, SparkStageInfo, StatusTracker
    from .errors import (
        ActiveContextError,
        BrokenExecutorError,
        CheckpointError,
        ConfigError,
        ContextStoppedError,
        DriverOnlyError,
        JobAbortedError,
        JobCancelledError,
        KeyHashError,
        MissingConfigError,
        SerializationError,
        SparkError,
    )
    from .partitioner import Partitioner, portable_hash
    from .profiler import BasicProfiler, Profiler
    from .rdd import RDD
    from .runtime.task_context import TaskContext
    from .statcounter import StatCounter
    from .storage.level import StorageLevel
    from .threads import InheritableThread, inheritable_thread_target
    from .user_files import SparkFiles

_WHERE = {
    "Accumulator": ".accumulators",
    "AccumulatorParam": ".accumulators",
    "ActiveContextError": ".errors",
    "BasicProfiler": ".profiler",
    "Broadcast": ".broadcast",
    "BrokenExecutorError": ".errors",
    "CheckpointError": ".errors",
    "ConfigError": ".errors",
    "InheritableThread": ".threads",
    "ContextStoppedError": ".errors",
    "DriverOnlyError": ".errors",
    "JobAbortedError": ".errors",
    "JobCancelledError": ".errors",
    "KeyHashError": ".errors",
    "MissingConfigError": ".errors",
    "Partitioner": ".partitioner",
    "Profiler": ".profiler",
    "RDD": ".rdd",
    "SerializationError": ".errors",
    "SparkConf": ".conf",
    "SparkContext": ".context",
    "SparkError": ".errors",
    "SparkFiles": ".user_files",
    "SparkJobInfo": ".context_jobs",
    "SparkStageInfo": ".context_jobs",
    "StatCounter": ".statcounter",
    "StatusTracker": ".context_jobs",
    "StorageLevel": ".storage.level",
    "TaskContext": ".runtime.task_context",
    "inheritable_thread_target": ".threads",
    "portable_hash": ".partitioner",
}

__all__ = sorted(_WHERE)

# Spark prints its log (WARN and above, unless setLogLevel says otherwise) to stderr
# from the start; so does this package, unless the application configures logging.
from .logs import install_default_handler as _install_default_handler  # noqa: E402

_install_default_handler(__name__)


def __getattr__(name: str) -> _typing.Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'rdd' has no attribute {name!r}")
    value = getattr(_importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
