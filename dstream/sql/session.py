"""``SparkSession``: the entry point of DataFrame programs, as in PySpark.

What this module owns
---------------------
:class:`SparkSession` and its :class:`Builder` (``SparkSession.builder.master(...)
.appName(...).config(k, v).getOrCreate()``), the session's temporary views
(``createOrReplaceTempView``, ``spark.table``, ``spark.catalog``), and the ways to
make a DataFrame: ``createDataFrame``, ``range``, ``read``, ``sql``, ``table``.

Invariants
----------
* One active session per process: ``getOrCreate`` returns it (applying the builder's
  settings to it) until ``stop()``; the session runs on the process's
  ``rdd.SparkContext`` (the same object as ``spark.sparkContext``), created if none
  is active.
* ``stop()`` stops the SparkContext and ends the session; a new ``getOrCreate``
  starts afresh.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rdd import SparkConf, SparkContext
from rdd.engine_api import context_stopped

from .catalog import Catalog
from .conf import RuntimeConfig
from .dataframe import DataFrame
from .errors import AnalysisException
from .local_data import is_pandas_frame, local_relation, range_relation, rdd_relation
from .readwriter import DataFrameReader
from .session_artifacts import SessionArtifacts
from .session_tags import SessionTags
from .timezones import python_time_zone

if TYPE_CHECKING:
    from .plan.logical import LogicalPlan
    from .types import StructType

__all__ = ["Builder", "Catalog", "SparkSession"]

_lock = threading.RLock()


def _add_rdd_to_df(session: SparkSession) -> None:
    """Give ``RDD`` PySpark's ``toDF``, bound to the newest session, as creating a session does in PySpark.

    The RDD layer cannot import this one (the layers are one-way), so the method is
    attached here, when a session exists to build the DataFrame.
    """
    from rdd import RDD

    def toDF(self: RDD[Any], schema: Any = None, sampleRatio: float | None = None) -> DataFrame:  # noqa: N802,N803
        """This RDD as a DataFrame: ``spark.createDataFrame(rdd, schema, sampleRatio)``."""
        return session.createDataFrame(self, schema, sampleRatio)

    RDD.toDF = toDF  # type: ignore[attr-defined]





class Builder:
    """Collects settings and returns the session (``SparkSession.builder``)."""

    def __init__(self) -> None:
        self._options: dict[str, str] = {}

    def master(self, master: str) -> Builder:
        """The master URL (``local``, ``local[2]``, ``local[*]``)."""
        self._options["spark.master"] = master
        return self

    def appName(self, name: str) -> Builder:  # noqa: N802 - PySpark's name
        """The application name."""
        self._options["spark.app.name"] = name
        return self

    def config(self, key: str | None = None, value: Any = None, conf: SparkConf | None = None,
               map: dict[str, Any] | None = None) -> Builder:  # noqa: A002 - PySpark's name
        """Set one setting, or all of a ``SparkConf`` or a dict."""
        if conf is not None:
            for k, v in conf.getAll():
                self._options[k] = v
        if map is not None:
            for k, v in map.items():
                self._options[k] = _conf_text(v)
        if key is not None:
            self._options[key] = _conf_text(value)
        return self

    def enableHiveSupport(self) -> Builder:  # noqa: N802 - PySpark's name
        """Accepted for compatibility; there is no Hive metastore here."""
        return self

    def getOrCreate(self) -> SparkSession:  # noqa: N802 - PySpark's name
        """The active session with these settings applied, or a new one."""
        with _lock:
            session = SparkSession.getActiveSession()
            if session is not None:
                for key, value in self._options.items():
                    if key.startswith("spark.sql."):
                        session.conf.set(key, value)
                return session
            conf = SparkConf()
            for key, value in self._options.items():
                if not key.startswith("spark.sql."):
                    conf.set(key, value)
            if conf.get("spark.master") is None:
                conf.setMaster("local[*]")
            if conf.get("spark.app.name") is None:
                conf.setAppName("dstreams-sql")
            sc = SparkContext.getOrCreate(conf)
            sql_options = [(k, v) for k, v in self._options.items() if k.startswith("spark.sql.")]
            session = SparkSession(sc, sql_options)
            return session

    create = getOrCreate


def _conf_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _BuilderDescriptor:
    """``SparkSession.builder`` is a fresh :class:`Builder` on each access, as in PySpark."""

    def __get__(self, instance: object, owner: type) -> Builder:
        return Builder()


class SparkSession(SessionTags, SessionArtifacts):
    """The entry point of DataFrame programs (``pyspark.sql.SparkSession``).

    Parameters
    ----------
    sparkContext : rdd.SparkContext
        The context the session runs its queries on.
    options : iterable of (str, str), optional
        ``spark.sql.*`` settings.
    """

    builder = _BuilderDescriptor()
    Builder = Builder
    _active: SparkSession | None = None

    def __init__(self, sparkContext: SparkContext, options: Iterable[tuple[str, str]] = ()) -> None:  # noqa: N803
        self._sc = sparkContext
        inherited = [(k, v) for k, v in sparkContext.getConf().getAll() if k.startswith("spark.sql.")]
        self.conf = RuntimeConfig(inherited + list(options))
        self.catalog = Catalog(self)
        self._udf_registration: Any = None
        self._udtf_registration: Any = None
        self._data_sources: dict[str, Any] = {}  # spark.dataSource.register: lower-case name -> class
        self._cached: list[DataFrame] = []
        self._stopped = False
        with _lock:
            SparkSession._active = self
        _add_rdd_to_df(self)

    # -- session --------------------------------------------------------------------

    @property
    def tvf(self) -> Any:
        """The table-valued functions (``spark.tvf.explode(array(...))``, ``spark.tvf.range(3)``...)."""
        from .tvf import TableValuedFunction  # noqa: PLC0415 - loads with its first use

        return TableValuedFunction(self)

    @property
    def udf(self) -> Any:
        """The session's registered Python functions (``spark.udf.register(name, f, returnType)``)."""
        if self._udf_registration is None:
            from .udf_registration import UDFRegistration  # noqa: PLC0415 - loads with the first registration

            self._udf_registration = UDFRegistration(self)
        return self._udf_registration

    @property
    def udtf(self) -> Any:
        """The session's registered Python table functions (``spark.udtf.register(name, f)``)."""
        if self._udtf_registration is None:
            from .udtf import UDTFRegistration  # noqa: PLC0415 - loads with the first registration

            self._udtf_registration = UDTFRegistration(self)
        return self._udtf_registration

    @property
    def dataSource(self) -> Any:  # noqa: N802 - PySpark's name
        """The session's Python data sources (``spark.dataSource.register(MySource)``)."""
        from .datasource import DataSourceRegistration  # noqa: PLC0415 - loads with its first use

        return DataSourceRegistration(self)

    @property
    def profile(self) -> Any:
        """The Python UDF profiles (``spark.profile.show()``): collected while
        ``spark.sql.pyspark.udf.profiler`` is ``perf``."""
        from .udf_profiler import Profile  # noqa: PLC0415 - loads with its first use

        return Profile(self._sc)

    @property
    def sparkContext(self) -> SparkContext:  # noqa: N802 - PySpark's name
        """The SparkContext this session runs on."""
        return self._sc

    @property
    def version(self) -> str:
        """The Spark version whose semantics dstreams follows (``"4.0.1"``), as PySpark's
        ``spark.version``; dstreams' own version is ``dstream.__version__``."""
        return self._sc.version

    @classmethod
    def getActiveSession(cls) -> SparkSession | None:  # noqa: N802 - PySpark's name
        """The active session, or ``None``."""
        # stop() clears the active session; a SparkContext stopped on its own (sc.stop())
        # leaves it recorded, and a session over a stopped context is no session (PySpark's
        # getOrCreate makes a new one then too).
        session = cls._active
        if session is not None and context_stopped(session._sc):
            cls._active = None
            return None
        return session

    @classmethod
    def active(cls) -> SparkSession:
        """The active session; raises if there is none."""
        session = cls.getActiveSession()
        if session is None:
            raise AnalysisException("No active SparkSession: create one with SparkSession.builder.getOrCreate().",
                                    "NO_ACTIVE_SESSION", {})
        return session

    def newSession(self) -> SparkSession:  # noqa: N802 - PySpark's name
        """A session on the same SparkContext with its own settings and views."""
        return SparkSession(self._sc, [(k, v) for k, v in self.conf.getAll().items()])

    def stop(self) -> None:
        """Stop the session (its streaming queries first) and its SparkContext."""
        streams = getattr(self, "_streams", None)
        if streams is not None:
            streams._stop_all()
        with _lock:
            self._stopped = True
            # The context stops with this session: so does every session on it (newSession's).
            if SparkSession._active is not None and SparkSession._active._sc is self._sc:
                SparkSession._active = None
        self._sc.stop()

    def __enter__(self) -> SparkSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- making DataFrames ----------------------------------------------------------

    def createDataFrame(self, data: Any, schema: StructType | str | list[str] | tuple[str, ...] | None = None,  # noqa: N802
                        samplingRatio: float | None = None, verifySchema: bool = True) -> DataFrame:  # noqa: N803
        """A DataFrame of local data (rows, tuples, dicts, a pandas DataFrame, an Arrow table) or an RDD.

        Parameters
        ----------
        data : list, RDD, pandas.DataFrame or pyarrow.Table
            The rows.
        schema : StructType, str, list of str, optional
            The schema (a DDL string like ``"a int, b string"`` works), or only the
            column names; inferred from the data when missing, as PySpark does.
        samplingRatio : float, optional
            Accepted for compatibility; inference looks at every row.
        verifySchema : bool
            Check each value against the schema.
        """
        from rdd import RDD

        plan: LogicalPlan
        if isinstance(data, RDD):
            plan = rdd_relation(data, schema, python_time_zone())
        else:
            plan = local_relation(data, schema, self._input_time_zone(data, schema), verifySchema)
        return DataFrame(plan, self)

    def _input_time_zone(self, data: Any, schema: Any) -> str:
        """The zone naive datetimes of ``data`` are wall times in, as PySpark reads them.

        Python datetimes: the machine's zone (``python_time_zone``). A pandas frame: the session
        zone when Arrow conversion is on or the schema gives the types (PySpark converts those
        columns from the session zone); without either, PySpark turns the frame into Python
        datetimes, so the machine's zone again.
        """
        if not is_pandas_frame(data):
            return python_time_zone()
        from .types import StructType  # noqa: PLC0415 - only for pandas input

        arrow = self.conf.get_boolean("spark.sql.execution.arrow.pyspark.enabled", False)
        typed = isinstance(schema, StructType | str)
        return self.conf.time_zone() if arrow or typed else python_time_zone()

    def range(self, start: int, end: int | None = None, step: int = 1,
              numPartitions: int | None = None) -> DataFrame:  # noqa: N803
        """A DataFrame with one ``id`` bigint column from ``start`` to ``end`` (exclusive)."""
        if end is None:
            start, end = 0, start
        return DataFrame(range_relation(start, end, step, numPartitions), self)

    @property
    def readStream(self) -> Any:  # noqa: N802 - PySpark's name
        """Read a stream into a streaming DataFrame (``spark.readStream.format("rate").load()``)."""
        return self._streaming().DataStreamReader(self)

    @property
    def streams(self) -> Any:
        """The session's streaming queries and query listeners (a ``StreamingQueryManager``)."""
        return self._streaming().streams_of(self)

    def _streaming(self) -> Any:
        """The Structured Streaming facade (imported on first use: batch programs never load it)."""
        from .streaming import facade

        return facade

    @property
    def read(self) -> DataFrameReader:
        """Read files into a DataFrame (``spark.read.csv(path, header=True)``)."""
        return DataFrameReader(self)

    def table(self, tableName: str) -> DataFrame:  # noqa: N803 - PySpark's name
        """The DataFrame of a temporary view."""
        return self.catalog._lookup(tableName)

    def sql(self, sqlQuery: str, args: dict[str, Any] | None = None, **kwargs: Any) -> DataFrame:  # noqa: N803
        """Run a query, or a view/table statement, of the documented subset.

        ``args`` binds ``:name`` (a dict) or ``?`` (a list) markers to literals; ``kwargs``
        format ``{name}`` in the text (a DataFrame becomes a view for the query, a Column
        its SQL), as PySpark's ``spark.sql``.
        """
        from . import functions
        from .statements import run_sql
        from .udf_registration import sql_functions

        return run_sql(self, sqlQuery, args, kwargs, sql_functions(self, functions))

    def _new_dataframe(self, plan: Any) -> DataFrame:
        return DataFrame(plan, self)

    def _register_view(self, name: str, df: DataFrame, replace: bool, global_view: bool = False) -> None:
        self.catalog._register(name, df, replace, global_view)
