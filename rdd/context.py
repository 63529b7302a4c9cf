"""SparkContext: the entry point of the ``rdd`` engine (PySpark's surface).

Owns the one-active-context rule of a process, creation of source RDDs, broadcast
variables and accumulators, and the ``_run_job`` funnel through which every action
runs (and after which marked RDDs are checkpointed).
"""

from __future__ import annotations

import atexit
import getpass
import itertools
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from . import checkpoint, exit_signals
from .accumulators import (
    COMPLEX_ACCUMULATOR_PARAM,
    FLOAT_ACCUMULATOR_PARAM,
    INT_ACCUMULATOR_PARAM,
    Accumulator,
    AccumulatorParam,
)
from .broadcast import Broadcast
from .conf import SparkConf
from .context_files import ContextFiles
from .context_jobs import ContextJobs
from .env import Env
from .errors import ActiveContextError, ContextStoppedError, DriverOnlyError
from .logs import LIBRARY_LOGGERS, level_of
from .master import DEFAULT_MASTER, Master
from .nodes.files import (
    BinaryFilesNode,
    BinaryRecordsNode,
    PickleFileNode,
    TextFileNode,
    WholeTextFilesNode,
    group_files,
    list_input_files,
    plan_splits,
)
from .nodes.narrow import PartitionerAwareUnionNode, UnionNode
from .nodes.parallel import ParallelCollectionNode, serialize_slices, slice_sequence
from .profiler import ContextProfiles
from .scheduler.reporter import call_site_parts
from .serialization.serializer import SPARK_CONTEXT_ON_WORKER, dumps_records
from .status.environment import application_started
from .status.events import SparkListenerApplicationEnd
from .ui.console_progress import DEFAULT_INTERVAL_MS, INTERVAL_KEY, ConsoleProgressBar
from .ui.web_ui import SparkUI, create_ui
from .version import SPARK_VERSION

if TYPE_CHECKING:
    from .rdd import RDD

T = TypeVar("T")
U = TypeVar("U")

log = logging.getLogger(__name__)



def spark_user() -> str:
    """The user running the application: ``SPARK_USER`` if set, else the login name (also in a worker)."""
    user = os.environ.get("SPARK_USER")
    if user:
        return user
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container without /etc/passwd entry)
        return str(os.getuid())

class SparkContext(ContextFiles, ContextJobs, ContextProfiles):
    """Main entry point for the ``rdd`` engine: creates RDDs, broadcasts and accumulators.

    Parameters
    ----------
    master : str, optional
        ``local`` (tasks run inline in the driver), ``local[N]`` (N worker processes)
        or ``local[*]`` (one worker per core). Default: the conf's ``spark.master``,
        else ``local[*]``.
    appName : str, optional
        A name for the application. Default: the conf's ``spark.app.name``.
    conf : SparkConf, optional
        Settings; ``master`` and ``appName`` arguments take precedence.
    environment : dict, optional
        Environment variables of the worker processes.
    pyFiles : list of str, optional
        ``.py``, ``.zip`` or ``.egg`` files to ship, as :meth:`addPyFile` does (so do the
        comma-separated paths of the conf's ``spark.submit.pyFiles``).
    sparkHome, batchSize, serializer
        Accepted for PySpark compatibility and ignored.
    gateway, jsc, profiler_cls, udf_profiler_cls, memory_profiler_cls
        Accepted for PySpark compatibility and ignored (there is no JVM).

    Notes
    -----
    Only one SparkContext may be active per process; ``stop()`` it before creating
    another, or use :meth:`getOrCreate`. While it is active, SIGTERM and SIGHUP (if
    their handlers are the default ones) make the driver exit through its exit hooks
    with status 143 / 129, so the context still stops; a context that could not stop
    (the driver was killed with SIGKILL) has its local directory removed by the next
    context created on the machine.

    Examples
    --------
    >>> with SparkContext("local[2]", "example") as sc:
    ...     sc.parallelize(range(10), 2).map(lambda x: x * x).sum()
    285
    """

    _active_spark_context: SparkContext | None = None
    _lock = threading.RLock()

    def __init__(self, master: str | None = None, appName: str | None = None, sparkHome: str | None = None,
                 pyFiles: list[str] | None = None, environment: dict[str, Any] | None = None, batchSize: int = 0,
                 serializer: Any = None, conf: SparkConf | None = None, gateway: Any = None, jsc: Any = None,
                 profiler_cls: Any = None, udf_profiler_cls: Any = None, memory_profiler_cls: Any = None) -> None:
        self._conf = conf.copy() if conf is not None else SparkConf()
        if master is not None:
            self._conf.setMaster(master)
        self._conf.setIfMissing("spark.master", DEFAULT_MASTER)
        if appName is not None:
            self._conf.setAppName(appName)
        self._conf.setIfMissing("spark.app.name", "dstreams")
        for key, value in (environment or {}).items():
            self._conf.set(f"spark.executorEnv.{key}", value)
        self._master = Master.parse(self._conf.get("spark.master"))  # before taking the slot
        self.startTime = int(time.time() * 1000)
        self.applicationId = f"local-{self.startTime}"
        self._conf.set("spark.app.id", self.applicationId)  # as Spark: the event log is named after it
        with SparkContext._lock:
            active = SparkContext._active_spark_context
            if active is not None:
                raise ActiveContextError(
                    f"Cannot run multiple SparkContexts at once; existing SparkContext(app={active.appName}, "
                    f"master={active.master}) is active. Call stop() on it first, or use SparkContext.getOrCreate().")
            self._env = Env(self._conf, self._master)
            SparkContext._active_spark_context = self
        self._stopped = False
        self._ids = itertools.count()
        self._checkpoint_dir: str | None = None
        self._checkpoints_read: set[str] = set()  # run directories read by _checkpoint_file
        self._shipped_files: dict[str, str] = {}     # addFile / addPyFile: name -> source path
        self._shipped_archives: dict[str, str] = {}  # addArchive: name -> source path
        self._local_properties = threading.local()
        self._shuffle_ids = itertools.count()
        self._start_profiles(self._conf, profiler_cls)  # spark.python.profile
        self._listener_bus = self._env.bus
        self._status_store = self._env.status_store
        application_started(self._listener_bus, self._conf, self.appName, self.applicationId, self.startTime,
                            self._status_store)
        atexit.register(self._stop_at_exit)
        self._exit_signals = exit_signals.install()
        self._ui: SparkUI | None = None
        self._progress_bar: ConsoleProgressBar | None = None
        try:
            if ConsoleProgressBar.wanted(self._conf):
                self._progress_bar = ConsoleProgressBar(
                    self._status_store, interval_ms=self._conf.getTimeAsMs(INTERVAL_KEY, f"{DEFAULT_INTERVAL_MS}ms"))
            self._ui = create_ui(self._conf, self._rest_api, self.applicationId, self.appName)
            for py_file in [*(pyFiles or []), *filter(None, (self._conf.get("spark.submit.pyFiles") or "").split(","))]:
                self.addPyFile(py_file)
        except BaseException:
            self.stop()  # free the active-context slot and the workers: the context was never usable
            raise

    # -- properties ------------------------------------------------------------
    @property
    def master(self) -> str:
        """The master URL this context runs on."""
        return self._conf.get("spark.master")  # type: ignore[return-value]

    @property
    def appName(self) -> str:
        """The application name."""
        return self._conf.get("spark.app.name")  # type: ignore[return-value]

    @property
    def sparkHome(self) -> str | None:
        return self._conf.get("spark.home")

    @property
    def version(self) -> str:
        """The Spark version whose semantics this engine follows (``"4.0.1"``), as PySpark's
        ``sc.version``; dstreams' own version is ``rdd.__version__``."""
        return SPARK_VERSION

    @property
    def defaultParallelism(self) -> int:
        """Default partition count: ``spark.default.parallelism``, else the number of workers (1 for ``local``)."""
        if self._conf.contains("spark.default.parallelism"):
            return self._conf.getInt("spark.default.parallelism", 1)
        return max(1, self._env.backend.parallelism)

    @property
    def defaultMinPartitions(self) -> int:
        """Default minimum partitions for files: ``min(defaultParallelism, 2)``."""
        return min(self.defaultParallelism, 2)

    @property
    def pythonVer(self) -> str:  # noqa: N802 - PySpark's name
        """The ``major.minor`` version of the Python running the tasks (``"3.11"``)."""
        return f"{sys.version_info[0]}.{sys.version_info[1]}"

    @property
    def pythonExec(self) -> str:  # noqa: N802 - PySpark's name
        """The Python executable the workers run."""
        return sys.executable

    @property
    def environment(self) -> dict[str, str]:
        """The variables set in the workers' environment (``spark.executorEnv.*``)."""
        prefix = "spark.executorEnv."
        return {k[len(prefix):]: v for k, v in self._conf.getAll() if k.startswith(prefix)}

    def sparkUser(self) -> str:  # noqa: N802 - PySpark's name
        """The user running the application: ``SPARK_USER`` if set, else the login name."""
        return spark_user()

    @property
    def uiWebUrl(self) -> str | None:
        """The web UI's URL (``http://127.0.0.1:4040``), or ``None`` when ``spark.ui.enabled`` is false."""
        return self._ui.web_url if self._ui is not None else None

    @property
    def startTimeMillis(self) -> int:
        return self.startTime

    def getConf(self) -> SparkConf:
        """A copy of this context's configuration."""
        return self._conf.copy()

    # -- lifecycle ---------------------------------------------------------------
    @classmethod
    def getOrCreate(cls, conf: SparkConf | None = None) -> SparkContext:
        """The active SparkContext, or a new one from ``conf``."""
        with cls._lock:
            if cls._active_spark_context is None:
                cls(conf=conf or SparkConf())
            assert cls._active_spark_context is not None
            return cls._active_spark_context

    def stop(self) -> None:
        """Stop the context: its worker processes exit and its temporary files are deleted.

        Jobs still running are cancelled, as in Spark: each raises
        :class:`~rdd.errors.JobCancelledError` ("Job N cancelled because SparkContext was
        shut down") in the thread that ran its action, and ``stop`` returns without
        waiting for them. With ``local[N]`` their tasks are killed with the workers. With
        ``local`` a task runs in the thread of its action and cannot be killed: it runs
        to its end (or the end of the process), then its job raises the same error.
        Calling it again does nothing.
        """
        with SparkContext._lock:
            if self._stopped:
                return
            self._stopped = True
            if SparkContext._active_spark_context is self:
                SparkContext._active_spark_context = None
        try:
            atexit.unregister(self._stop_at_exit)
        except Exception:  # noqa: BLE001
            pass
        ui = getattr(self, "_ui", None)  # absent when __init__ failed before creating it
        if ui is not None:
            ui.stop()
        progress = getattr(self, "_progress_bar", None)
        if progress is not None:
            progress.stop()
        exit_signals.restore(self._exit_signals)
        self._env.stop(SparkListenerApplicationEnd(int(time.time() * 1000)))

    def _rest_api(self) -> Any:
        from .status.api import ApiV1

        return ApiV1(lambda: {self.applicationId: self._status_store})

    def _stop_at_exit(self) -> None:
        try:
            self.stop()
        except Exception:  # noqa: BLE001 - never fail interpreter exit
            log.exception("error while stopping the SparkContext at exit")

    def __enter__(self) -> SparkContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __reduce__(self) -> Any:
        raise DriverOnlyError(SPARK_CONTEXT_ON_WORKER)

    def _check_alive(self) -> None:
        if self._stopped:
            raise ContextStoppedError("This SparkContext was stopped (stop() was called); create a new "
                                      "SparkContext to run more jobs.")

    def setLogLevel(self, logLevel: str) -> None:
        """Control the engine's log level (the ``rdd`` and ``dstream`` loggers).

        Parameters
        ----------
        logLevel : str
            One of ``ALL``, ``DEBUG``, ``ERROR``, ``FATAL``, ``INFO``, ``OFF``, ``TRACE``,
            ``WARN`` (any case). Without an application logging configuration the log goes
            to stderr, Spark's way (``25/12/01 15:20:03 INFO JobScheduler: ...``).

        Raises
        ------
        ValueError
            If ``logLevel`` is not one of those names.
        """
        level = level_of(logLevel)
        for name in LIBRARY_LOGGERS:
            logging.getLogger(name).setLevel(level)

    def setLocalProperty(self, key: str, value: str | None) -> None:
        """Set a property that tasks of jobs submitted from this thread can read."""
        props = self._properties()
        if value is None:
            props.pop(key, None)
        else:
            props[key] = value

    def getLocalProperty(self, key: str) -> str | None:
        """A local property set in this thread, or ``None``."""
        return self._properties().get(key)

    def setJobGroup(self, groupId: str, description: str, interruptOnCancel: bool = False) -> None:
        """Assign a group id and description to jobs started by this thread."""
        self.setLocalProperty("spark.jobGroup.id", groupId)
        self.setLocalProperty("spark.job.description", description)

    def cancelJobGroup(self, groupId: str) -> None:
        """Cancel the running and waiting jobs of job group ``groupId`` (see :meth:`setJobGroup`).

        Returns at once. Each cancelled job raises :class:`~rdd.errors.JobCancelledError`
        in the thread that ran its action; with ``local[N]`` the workers running its
        tasks are killed and replaced (tasks always stop, whatever ``interruptOnCancel``
        said: a Python task cannot be interrupted otherwise). With ``local`` a task
        already running finishes first (it runs in the action's own thread).
        """
        self._env.runner.cancel(f"part of cancelled job group {groupId}", group=groupId)

    def cancelAllJobs(self) -> None:
        """Cancel every running and waiting job of this context (as :meth:`cancelJobGroup`)."""
        self._env.runner.cancel("as part of cancellation of all jobs")

    def setJobDescription(self, value: str) -> None:
        """Set a human readable description of the current job."""
        self.setLocalProperty("spark.job.description", value)

    def _properties(self) -> dict[str, str]:
        props = getattr(self._local_properties, "props", None)
        if props is None:
            props = self._local_properties.props = {}
        return props

    # -- ids ---------------------------------------------------------------------
    def _new_id(self) -> int:
        return next(self._ids)

    def _new_shuffle_id(self) -> int:
        return next(self._shuffle_ids)

    # -- creating RDDs -----------------------------------------------------------
    def _wrap(self, node: Any) -> RDD:
        from .rdd import RDD
        return RDD(node, self)

    def parallelize(self, c: Iterable[T], numSlices: int | None = None) -> RDD[T]:
        """Distribute a local collection into an RDD of ``numSlices`` partitions.

        Partition ``i`` of ``n`` elements in ``p`` slices holds elements
        ``[i*n//p, (i+1)*n//p)``. A ``range`` is sliced lazily.

        Examples
        --------
        >>> sc.parallelize([0, 2, 3, 4, 6], 5).glom().collect()
        [[0], [2], [3], [4], [6]]
        """
        self._check_alive()
        count = self.defaultParallelism if numSlices is None else numSlices
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"numSlices must be a positive integer, got {numSlices!r}")
        data: Sequence[T] = c if isinstance(c, (range, list, tuple)) else list(c)
        if self._master.inline:
            return self._wrap(ParallelCollectionNode(slice_sequence(data, count)))
        return self._wrap(ParallelCollectionNode(serialize_slices(data, count, dumps_records)))

    def range(self, start: int, end: int | None = None, step: int = 1, numSlices: int | None = None) -> RDD[int]:
        """An RDD of ``range(start, end, step)`` (``range(0, start)`` with one argument)."""
        if end is None:
            start, end = 0, start
        return self.parallelize(range(start, end, step), numSlices)

    def emptyRDD(self) -> RDD[Any]:
        """An RDD with no partitions and no elements."""
        self._check_alive()
        return self._wrap(ParallelCollectionNode([]))

    def textFile(self, name: str, minPartitions: int | None = None, use_unicode: bool = True) -> RDD[str]:
        """Lines of text files (a file, a directory, a glob, or a comma-separated list).

        The driver only lists the files; each task reads its own byte range. Invalid
        UTF-8 is replaced with U+FFFD.
        """
        self._check_alive()
        files = list_input_files(name)
        minimum = self.defaultMinPartitions if minPartitions is None else max(1, minPartitions)
        rdd = self._wrap(TextFileNode(plan_splits(files, minimum), use_unicode))
        rdd.setName(name)
        return rdd

    def wholeTextFiles(self, path: str, minPartitions: int | None = None,
                       use_unicode: bool = True) -> RDD[tuple[str, str]]:
        """``(path, content)`` for each file of a directory (or glob, or list)."""
        return self._whole_files(WholeTextFilesNode, path, minPartitions)

    def binaryFiles(self, path: str, minPartitions: int | None = None) -> RDD[tuple[str, bytes]]:  # noqa: N802
        """``(path, bytes)`` for each file of a directory (or glob, or list), the whole file as one value."""
        return self._whole_files(BinaryFilesNode, path, minPartitions)

    def _whole_files(self, node: type[WholeTextFilesNode], path: str, min_partitions: int | None) -> RDD[Any]:
        self._check_alive()
        files = list_input_files(path)
        minimum = self.defaultMinPartitions if min_partitions is None else max(1, min_partitions)
        return self._wrap(node(group_files(files, minimum)))

    def binaryRecords(self, path: str, recordLength: int) -> RDD[bytes]:  # noqa: N802,N803 - PySpark's names
        """The fixed-length records of flat binary files, each ``recordLength`` bytes."""
        self._check_alive()
        if isinstance(recordLength, bool) or not isinstance(recordLength, int) or recordLength <= 0:
            raise ValueError(f"binaryRecords needs recordLength as a positive int (bytes per record), "
                             f"got {recordLength!r}")
        files = list_input_files(path)
        return self._wrap(BinaryRecordsNode(group_files(files, self.defaultMinPartitions), recordLength))

    def pickleFile(self, name: str, minPartitions: int | None = None) -> RDD[Any]:
        """Load an RDD saved with ``RDD.saveAsPickleFile``."""
        self._check_alive()
        files = list_input_files(name)
        return self._wrap(PickleFileNode(group_files(files, max(len(files), minPartitions or 1))))

    def union(self, rdds: list[RDD[T]]) -> RDD[T]:
        """The union of a list of RDDs (keeps a shared partitioner, if all have the same)."""
        self._check_alive()
        rdds = list(rdds)
        if not rdds:
            raise ValueError("union() needs at least one RDD; use emptyRDD() for an empty one")
        nodes = [r._node for r in rdds]
        first = nodes[0].partitioner
        if first is not None and all(n.partitioner == first for n in nodes) and \
                len({n.num_partitions for n in nodes}) == 1:
            return self._wrap(PartitionerAwareUnionNode(nodes))
        return self._wrap(UnionNode(nodes))

    # -- shared variables --------------------------------------------------------
    def broadcast(self, value: T) -> Broadcast[T]:
        """Send a read-only value to every worker once; read it with ``.value``."""
        self._check_alive()
        bid = self._new_id()
        path = os.path.join(self._env.local_dir, "broadcast", f"{bid}.pkl")
        made: Broadcast[T] = Broadcast(bid, path, value, on_driver=True, on_destroy=self._env.broadcast_destroyed)
        self._env.broadcast_created(bid, path)
        return made

    def accumulator(self, value: T, accum_param: AccumulatorParam[T] | None = None) -> Accumulator[T]:
        """An accumulator starting at ``value``; ints, floats and complex need no ``accum_param``."""
        if accum_param is None:
            if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
                raise TypeError(f"No default accumulator param for type {type(value).__name__}: pass "
                                "accum_param=AccumulatorParam subclass with zero() and addInPlace()")
            defaults: dict[type, AccumulatorParam[Any]] = {
                int: INT_ACCUMULATOR_PARAM, float: FLOAT_ACCUMULATOR_PARAM, complex: COMPLEX_ACCUMULATOR_PARAM}
            accum_param = defaults[type(value)]
        return Accumulator(self._new_id(), value, accum_param)

    # -- checkpoints -------------------------------------------------------------
    def setCheckpointDir(self, dirName: str) -> None:
        """Set the directory under which RDDs are checkpointed (created if missing)."""
        os.makedirs(dirName, exist_ok=True)
        self._checkpoint_dir = os.path.join(dirName, f"{self.applicationId}-{os.getpid()}")
        os.makedirs(self._checkpoint_dir, exist_ok=True)

    def getCheckpointDir(self) -> str | None:
        """The checkpoint directory, or ``None`` if not set."""
        return self._checkpoint_dir

    def _checkpoint_file(self, directory: str) -> RDD[Any]:
        """An RDD read back from an RDD checkpoint directory (Spark's ``sc.checkpointFile``).

        Raises
        ------
        CheckpointError
            When the directory is missing or holds no partition files.
        """
        from .checkpoint import read_checkpoint_dir
        node = read_checkpoint_dir(directory)
        # Its run's directory is in use again: later checkpoints must not clean it up.
        self._checkpoints_read.add(os.path.dirname(os.path.abspath(directory)))
        return self._wrap(node)

    # -- jobs --------------------------------------------------------------------
    def runJob(self, rdd: RDD[T], partitionFunc: Callable[[Iterator[T]], Iterable[U]],
               partitions: Sequence[int] | None = None, allowLocal: bool = False) -> list[U]:
        """Run ``partitionFunc`` on the given partitions and concatenate the returned iterables."""
        results = self._run_job(rdd, lambda it: list(partitionFunc(it)), partitions)
        return [x for part in results for x in part]

    def _run_job(self, rdd: RDD[T], func: Callable[[Iterator[T]], U],
                 partitions: Sequence[int] | None = None) -> list[U]:
        self._check_alive()
        node = rdd._node
        count = node.num_partitions
        wanted = list(range(count)) if partitions is None else list(partitions)
        for p in wanted:
            if not 0 <= p < count:
                raise ValueError(f"partition {p} is out of range: the RDD has {count} partitions (0..{count - 1})")
        # The call site, for the listeners: taken here, two frames from the user's, since each
        # frame a walk passes becomes a frame object (the runner's frames would add three).
        site = call_site_parts(2) if self._listener_bus.listeners else None
        try:
            results = self._env.runner.run_job(node, func, wanted, self._profile_properties(dict(self._properties())),
                                               site)
        finally:
            if self._progress_bar is not None:
                self._progress_bar.finish_all()
        if self._checkpoint_dir is not None:
            for marked in checkpoint.marked_nodes(node):
                assert marked.checkpoint_dir is not None  # marked_nodes yields only marked nodes
                write = checkpoint.write_partition(marked.checkpoint_dir)
                sizes = self._env.runner.run_job(marked, write, list(range(marked.num_partitions)))
                checkpoint.finish(marked, sizes, keep=self._checkpoints_read)
        return results
