"""``SQLContext`` and ``HiveContext``: Spark 1.x's entry points, kept by PySpark 4 for old programs.

What this module owns
---------------------
The two legacy classes, each a thin face over a :class:`~dstream.sql.SparkSession` on the
given SparkContext, with PySpark's members: ``createDataFrame``, ``sql``, ``table``,
``tables``/``tableNames``, ``registerDataFrameAsTable``/``dropTempTable``, the table cache,
``setConf``/``getConf``, ``udf``/``registerFunction``, ``range``, ``read``/``readStream``/
``streams`` and ``newSession``. A Spark Streaming program of the DStream era
(``SQLContext.getOrCreate(rdd.context)`` inside ``foreachRDD``) runs unchanged.

Invariants
----------
* Making one without a session, and ``getOrCreate``, warn with PySpark's
  ``FutureWarning``; ``registerFunction`` and ``HiveContext`` with theirs.
* ``getOrCreate(sc)`` returns the first context made while its SparkContext runs (one
  singleton per process, as PySpark's); after that SparkContext stopped, a new one.
* There is no Hive here: ``HiveContext`` is a ``SQLContext`` (tables are this session's
  managed tables), as ``SparkSession.builder.enableHiveSupport()`` is accepted and changes
  nothing.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from rdd.engine_api import context_stopped

if TYPE_CHECKING:
    from rdd import SparkContext

    from .dataframe import DataFrame
    from .session import SparkSession
    from .types import DataType, StructType

__all__ = ["HiveContext", "SQLContext"]

_DEPRECATED = "Deprecated in 3.0.0. Use SparkSession.builder.getOrCreate() instead."


def _session_on(sc: SparkContext) -> SparkSession:
    """The active session if it runs on ``sc``, else a new session on ``sc``."""
    from .session import SparkSession  # noqa: PLC0415 - the session module imports this one's users

    active = SparkSession.getActiveSession()
    return active if active is not None and active.sparkContext is sc else SparkSession(sc)


class SQLContext:
    """The entry point of Spark 1.x SQL programs (``pyspark.sql.SQLContext``); use ``SparkSession``.

    Parameters
    ----------
    sparkContext : rdd.SparkContext
        The context queries run on.
    sparkSession : SparkSession, optional
        The session to use (default: the active one on ``sparkContext``, else a new one).
    """

    _instantiatedContext: ClassVar[SQLContext | None] = None  # noqa: N815 - PySpark's name

    def __init__(self, sparkContext: SparkContext, sparkSession: SparkSession | None = None,  # noqa: N803
                 jsqlContext: Any = None) -> None:  # noqa: N803 - PySpark's name (a JVM object there)
        if sparkSession is None:
            warnings.warn(_DEPRECATED, FutureWarning, stacklevel=2)
        self._sc = sparkContext
        self.sparkSession = sparkSession if sparkSession is not None else _session_on(sparkContext)
        current = SQLContext._instantiatedContext
        if current is None or context_stopped(current._sc):
            SQLContext._instantiatedContext = self

    @classmethod
    def getOrCreate(cls, sc: SparkContext) -> SQLContext:  # noqa: N802 - PySpark's name
        """The process's SQLContext, made on ``sc`` if there is none (or its SparkContext stopped)."""
        warnings.warn(_DEPRECATED, FutureWarning, stacklevel=2)
        return cls._get_or_create(sc)

    @classmethod
    def _get_or_create(cls, sc: SparkContext) -> SQLContext:
        current = SQLContext._instantiatedContext
        if current is None or context_stopped(current._sc):
            cls(sc, _session_on(sc))
        made = SQLContext._instantiatedContext
        assert made is not None
        return made

    def newSession(self) -> SQLContext:  # noqa: N802 - PySpark's name
        """A SQLContext over a new session: its own settings, views and UDFs, the same SparkContext."""
        return type(self)(self._sc, self.sparkSession.newSession())

    # -- settings and functions --------------------------------------------------------

    def setConf(self, key: str, value: bool | int | str) -> None:  # noqa: N802 - PySpark's name
        """Set a ``spark.sql.*`` setting (``spark.conf.set``)."""
        self.sparkSession.conf.set(key, value)

    def getConf(self, key: str, defaultValue: Any = ...) -> str | None:  # noqa: N802,N803 - PySpark's names
        """A setting's value; ``defaultValue`` if unset, else ``SQL_CONF_NOT_FOUND``."""
        return self.sparkSession.conf.get(key, defaultValue)

    @property
    def udf(self) -> Any:
        """The session's ``UDFRegistration`` (``sqlContext.udf.register(name, f, returnType)``)."""
        return self.sparkSession.udf

    @property
    def udtf(self) -> Any:
        """The session's ``UDTFRegistration``."""
        return self.sparkSession.udtf

    def registerFunction(self, name: str, f: Callable[..., Any],  # noqa: N802 - PySpark's name
                         returnType: DataType | None = None) -> Any:  # noqa: N803
        """Register ``f`` as a SQL function (``spark.udf.register``); deprecated since Spark 2.3."""
        warnings.warn("Deprecated in 2.3.0. Use spark.udf.register instead.", FutureWarning, stacklevel=2)
        return self.sparkSession.udf.register(name, f, returnType)

    def registerJavaFunction(self, name: str, javaClassName: str,  # noqa: N802,N803 - PySpark's names
                             returnType: DataType | None = None) -> None:  # noqa: N803
        """Refused as ``spark.udf.registerJavaFunction`` refuses it: there is no JVM here."""
        warnings.warn("Deprecated in 2.3.0. Use spark.udf.registerJavaFunction instead.", FutureWarning,
                      stacklevel=2)
        self.sparkSession.udf.registerJavaFunction(name, javaClassName, returnType)

    # -- DataFrames and tables ----------------------------------------------------------

    def createDataFrame(self, data: Any, schema: Any = None, samplingRatio: float | None = None,  # noqa: N802,N803
                        verifySchema: bool = True) -> DataFrame:  # noqa: N803 - PySpark's name
        """``spark.createDataFrame``."""
        return self.sparkSession.createDataFrame(data, schema, samplingRatio, verifySchema)

    def range(self, start: int, end: int | None = None, step: int = 1,
              numPartitions: int | None = None) -> DataFrame:  # noqa: N803 - PySpark's name
        """``spark.range``: a column ``id`` of longs."""
        return self.sparkSession.range(start, end, step, numPartitions)

    def sql(self, sqlQuery: str) -> DataFrame:  # noqa: N803 - PySpark's name
        """``spark.sql``."""
        return self.sparkSession.sql(sqlQuery)

    def table(self, tableName: str) -> DataFrame:  # noqa: N803 - PySpark's name
        """The DataFrame of a table or temporary view."""
        return self.sparkSession.table(tableName)

    def registerDataFrameAsTable(self, df: DataFrame, tableName: str) -> None:  # noqa: N802,N803
        """Make ``df`` the temporary view ``tableName`` (``df.createOrReplaceTempView``)."""
        df.createOrReplaceTempView(tableName)

    def dropTempTable(self, tableName: str) -> None:  # noqa: N802,N803 - PySpark's names
        """Drop a temporary view (nothing if there is none)."""
        self.sparkSession.catalog.dropTempView(tableName)

    def createExternalTable(self, tableName: str, path: str | None = None,  # noqa: N802,N803
                            source: str | None = None, schema: StructType | None = None,
                            **options: str) -> DataFrame:
        """``spark.catalog.createExternalTable``: a table over files."""
        return self.sparkSession.catalog.createExternalTable(tableName, path, source, schema, **options)

    def tables(self, dbName: str | None = None) -> DataFrame:  # noqa: N803 - PySpark's name
        """The tables and temporary views: ``namespace``, ``tableName``, ``isTemporary`` (``SHOW TABLES``)."""
        rows = [(t.database or "", t.name, t.isTemporary) for t in self.sparkSession.catalog.listTables(dbName)]
        return self.sparkSession.createDataFrame(rows, "namespace string, tableName string, isTemporary boolean")

    def tableNames(self, dbName: str | None = None) -> list[str]:  # noqa: N802,N803 - PySpark's names
        """The names of the tables and temporary views, as :meth:`tables` lists them."""
        return [t.name for t in self.sparkSession.catalog.listTables(dbName)]

    def cacheTable(self, tableName: str) -> None:  # noqa: N802,N803 - PySpark's names
        """Cache a table or view (``TABLE_OR_VIEW_NOT_FOUND`` if there is none)."""
        self.sparkSession.catalog.cacheTable(tableName)

    def uncacheTable(self, tableName: str) -> None:  # noqa: N802,N803 - PySpark's names
        """Drop a table's cached data (``TABLE_OR_VIEW_NOT_FOUND`` if there is no table)."""
        self.sparkSession.catalog.uncacheTable(tableName)

    def clearCache(self) -> None:  # noqa: N802 - PySpark's name
        """Drop every cached table's data."""
        self.sparkSession.catalog.clearCache()

    # -- readers and streams --------------------------------------------------------------

    @property
    def read(self) -> Any:
        """A ``DataFrameReader`` (``sqlContext.read.parquet(path)``)."""
        return self.sparkSession.read

    @property
    def readStream(self) -> Any:  # noqa: N802 - PySpark's name
        """A ``DataStreamReader``."""
        return self.sparkSession.readStream

    @property
    def streams(self) -> Any:
        """The session's ``StreamingQueryManager``."""
        return self.sparkSession.streams


class HiveContext(SQLContext):
    """Spark 1.x's SQLContext with Hive tables (``pyspark.sql.HiveContext``): a :class:`SQLContext` here.

    Parameters
    ----------
    sparkContext : rdd.SparkContext
        The context queries run on.
    sparkSession : SparkSession, optional
        The session to use.
    """

    def __init__(self, sparkContext: SparkContext, sparkSession: SparkSession | None = None,  # noqa: N803
                 jhiveContext: Any = None) -> None:  # noqa: N803 - PySpark's name
        warnings.warn("HiveContext is deprecated in Spark 2.0.0. Please use "
                      "SparkSession.builder.enableHiveSupport().getOrCreate() instead.", FutureWarning, stacklevel=2)
        super().__init__(sparkContext, sparkSession)

    def refreshTable(self, tableName: str) -> None:  # noqa: N802,N803 - PySpark's names
        """Forget what is known of a table's files (``spark.catalog.refreshTable``)."""
        self.sparkSession.catalog.refreshTable(tableName)
