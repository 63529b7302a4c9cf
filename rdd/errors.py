"""The exception hierarchy of the ``rdd`` engine.

::

    SparkError
    ├── ContextError
    │   ├── ContextStoppedError      you called ``stop()`` and then used the context
    │   └── ActiveContextError       a second context while one is active
    ├── BrokenExecutorError          a worker process died under you, repeatedly
    ├── JobAbortedError              a task failed for a reason that is not the user's
    │   └── JobCancelledError        stop(), cancelAllJobs() or cancelJobGroup() ended it
    ├── SerializationError (+TypeError)   a closure or record cannot be pickled
    ├── DriverOnlyError (+RuntimeError)   an RDD or the context used inside a task
    ├── KeyHashError (+TypeError)         a key no process could place like every other
    ├── CheckpointError              a checkpoint is missing or unreadable
    ├── ConfigError (+ValueError)    a configuration value breaks its key's rule
    │   └── MissingConfigError (+KeyError)   a required key is not set
    └── FetchFailedError             a shuffle output a reduce task needs is gone

A task that raises re-raises the *user's* exception type on the driver: the worker's
traceback is chained as ``__cause__`` (a :class:`RemoteTraceback`) and a note names the
stage, partition and attempt. User-argument errors raise the builtin ``ValueError`` or
``TypeError`` (or subclasses of both) so code that catches them around PySpark calls
keeps working.
"""

from __future__ import annotations

from typing import Any


class SparkError(Exception):
    """Base class of every error raised by the engine itself."""


class ContextError(SparkError, RuntimeError):
    """A problem with the lifecycle of a :class:`SparkContext`."""


class ContextStoppedError(ContextError):
    """The context was used after *your* code called ``stop()``.

    If a worker died underneath you, you get :class:`BrokenExecutorError` instead.
    """


class ActiveContextError(ContextError, ValueError):
    """A second SparkContext was created while one is active in this process."""


class BrokenExecutorError(SparkError, RuntimeError):
    """Worker processes kept dying; the job was given up."""


class JobAbortedError(SparkError, RuntimeError):
    """A job was aborted for a reason that is not an exception of the user's code."""


class JobCancelledError(JobAbortedError):
    """A job was cancelled: the SparkContext was stopped, or ``cancelAllJobs``/``cancelJobGroup``.

    Raised in the thread that ran the action, as Spark's ``SparkException: Job N cancelled
    ...``. Its tasks were killed (``local[N]``) or, when they run in the driver thread
    (``local``), let finish with their results dropped.
    """


class SerializationError(SparkError, TypeError):
    """A function, closure or record could not be pickled to cross into a worker."""


class DriverOnlyError(SparkError, RuntimeError):
    """An RDD, a SparkContext or a StreamingContext was used inside a task."""


class KeyHashError(SparkError, TypeError):
    """A key whose ``hash()`` may depend on the string-hash seed, in a process whose seed is
    random: no other process or run would place it in the same partition."""


class CheckpointError(SparkError, OSError):
    """A checkpoint directory or file is missing, unreadable or inconsistent."""


class ConfigError(SparkError, ValueError):
    """A configuration value does not parse or breaks its key's rule.

    The message names the key, the value, the rule and the fix.
    """


class MissingConfigError(ConfigError, KeyError):
    """A typed getter was called without a default for a key that is not set."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


class LineageTooDeepError(SparkError, RecursionError):
    """An RDD's lineage is too deep to plan or describe (thousands of uncheckpointed steps)."""


class FetchFailedError(SparkError):
    """A reduce task could not read a shuffle output; the map stage is re-run.

    Raised inside tasks and handled by the scheduler; users normally never see it.
    """

    def __init__(self, shuffle_id: int, map_id: int, reason: str) -> None:
        super().__init__(f"shuffle {shuffle_id}, map output {map_id}: {reason}")
        self.shuffle_id = shuffle_id
        self.map_id = map_id
        self.reason = reason

    def __reduce__(self) -> Any:  # keep the structured fields across processes
        return (FetchFailedError, (self.shuffle_id, self.map_id, self.reason))


class RemoteTraceback(Exception):  # noqa: N818 - multiprocessing's name for the same thing
    """Carries the text of a traceback from a worker process, as its ``__cause__``."""

    def __init__(self, tb: str) -> None:
        super().__init__(tb)
        self.tb = tb

    def __str__(self) -> str:
        return f'\n"""\n{self.tb}"""'
