"""``spark.catalog``: the session's temporary views, the application's global views and managed
tables, and PySpark's Catalog API over them.

What this module owns
---------------------
:class:`Catalog` and the records it returns (PySpark's namedtuples): :class:`Table`,
:class:`Column`, :class:`Database`, :class:`Function` and :class:`CatalogMetadata`.

Invariants
----------
* There is one catalog, ``spark_catalog``, with one database, ``default`` (managed tables
  live there; temporary views in no database; global views in ``global_temp``).
* A name resolves to a temporary view first, then a global view (``global_temp.v``), then
  a managed table, then (SQL on files) ``<format>.`<path>```.
* ``cacheTable`` caches the view's or table's rows for the session; ``isCached`` says so,
  ``uncacheTable`` and ``clearCache`` undo it.
"""

from __future__ import annotations

import fnmatch
import threading
import warnings
import weakref
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import AnalysisException

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .session import SparkSession

__all__ = ["Catalog", "CatalogMetadata", "Column", "Database", "Function", "GLOBAL_TEMP_DATABASE", "Table"]

_LOCK = threading.RLock()


class CatalogMetadata(NamedTuple):
    name: str
    description: str | None


class Database(NamedTuple):
    name: str
    catalog: str | None
    description: str | None
    locationUri: str  # noqa: N815 - PySpark's field name


class Table(NamedTuple):
    name: str
    catalog: str | None
    namespace: list[str] | None
    description: str | None
    tableType: str  # noqa: N815 - PySpark's field names
    isTemporary: bool  # noqa: N815

    @property
    def database(self) -> str | None:
        return self.namespace[0] if self.namespace else None


class Column(NamedTuple):
    name: str
    description: str | None
    dataType: str  # noqa: N815 - PySpark's field names
    nullable: bool
    isPartition: bool  # noqa: N815
    isBucket: bool  # noqa: N815
    isCluster: bool = False  # noqa: N815


class Function(NamedTuple):
    name: str
    catalog: str | None
    namespace: list[str] | None
    description: str | None
    className: str  # noqa: N815 - PySpark's field names
    isTemporary: bool  # noqa: N815


#: Global temporary views, per application (SparkContext): every session of it sees them
#: as ``global_temp.<name>``, as Spark's do.
_GLOBAL_VIEWS: weakref.WeakKeyDictionary[Any, dict[str, DataFrame]] = weakref.WeakKeyDictionary()
GLOBAL_TEMP_DATABASE = "global_temp"
#: The formats a table name may start with to read files in SQL (`csv.`/path``), as Spark's runSQLOnFiles.
_FILE_FORMATS = frozenset({"csv", "json", "parquet", "text", "orc", "avro"})


class Catalog:
    """``spark.catalog`` (see the module doc)."""

    def __init__(self, session: SparkSession) -> None:
        self._session = session
        self._views: dict[str, DataFrame] = {}
        self._cached_tables: dict[str, DataFrame] = {}

    def _global_views(self) -> dict[str, DataFrame]:
        with _LOCK:
            return _GLOBAL_VIEWS.setdefault(self._session.sparkContext, {})

    def _register(self, name: str, df: DataFrame, replace: bool, global_view: bool = False) -> None:
        key = name.lower()
        views = self._global_views() if global_view else self._views
        if not replace and key in views:
            shown = f"`{GLOBAL_TEMP_DATABASE}`.`{name}`" if global_view else f"`{name}`"
            raise AnalysisException(
                f"Cannot create the temporary view {shown} because it already exists. Choose a different name, "
                "drop or replace the existing view, or use createOrReplace"
                f"{'Global' if global_view else ''}TempView.",
                "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS", {"relationName": shown})
        views[key] = df

    def _is_temp_view(self, name: str) -> bool:
        """Whether ``name`` is a temporary view (``global_temp.x`` for a global one)."""
        database, _, rest = name.partition(".")
        if rest and database.lower() == GLOBAL_TEMP_DATABASE:
            return rest.lower() in self._global_views()
        return name.lower() in self._views

    def _lookup(self, name: str) -> DataFrame:
        database, _, rest = name.partition(".")
        if rest and database.lower() == GLOBAL_TEMP_DATABASE:
            view = self._global_views().get(rest.lower())
        else:
            view = self._views.get(name.lower())
        if view is None:
            from .tables import lookup_table  # noqa: PLC0415 - the tables load with the first lookup

            view = lookup_table(self._session, name)
        if view is None and rest and database.lower() in _FILE_FORMATS:
            # Spark's SQL on files: `SELECT * FROM parquet.`/data/x``, read as spark.read would.
            return self._session.read.format(database.lower()).load(rest)
        if view is None:
            raise AnalysisException(
                f"The table or view `{name}` cannot be found. Verify the spelling and correctness of the "
                "schema and catalog.\nIf you did not qualify the name with a schema, verify the current_schema() "
                "output, or qualify the name with the correct schema and catalog.\nTo tolerate the error on drop "
                "use DROP VIEW IF EXISTS or DROP TABLE IF EXISTS.",
                "TABLE_OR_VIEW_NOT_FOUND", {"relationName": f"`{name}`"})
        return view

    def dropTempView(self, viewName: str) -> bool:  # noqa: N802,N803 - PySpark's names
        """Forget a temporary view; whether it existed."""
        return self._views.pop(viewName.lower(), None) is not None

    def dropGlobalTempView(self, viewName: str) -> bool:  # noqa: N802,N803 - PySpark's names
        """Forget a global temporary view (for every session of the application); whether it existed."""
        return self._global_views().pop(viewName.lower(), None) is not None

    def tableExists(self, tableName: str, dbName: str | None = None) -> bool:  # noqa: N802,N803
        """Whether a temporary view, a global view or a managed table of that name exists."""
        name = tableName if dbName is None else f"{dbName}.{tableName}"
        try:
            self._lookup(name)
        except AnalysisException:
            return False
        return True

    def listTables(self, dbName: str | None = None, pattern: str | None = None) -> list[Table]:  # noqa: N802,N803
        """The managed tables (of ``default``) and the temporary views (of ``global_temp`` for that
        database), as PySpark's ``Table`` records, optionally filtered by a ``*`` pattern."""
        from .tables import table_kinds  # noqa: PLC0415 - the tables load with the first lookup

        if dbName is not None and dbName.lower() == GLOBAL_TEMP_DATABASE:
            found = [Table(n, None, [GLOBAL_TEMP_DATABASE], None, "TEMPORARY", True) for n in self._global_views()]
        else:
            if dbName is not None and dbName.lower() not in ("default", "spark_catalog.default"):
                raise _no_database(dbName)
            found = [Table(n, "spark_catalog", ["default"], None, kind, False)
                     for n, kind in table_kinds(self._session)]
            found += [Table(n, None, [], None, "TEMPORARY", True) for n in self._views]
        if pattern is not None:
            found = [t for t in found if fnmatch.fnmatchcase(t.name, pattern.lower())]
        return sorted(found, key=lambda t: (t.isTemporary, t.name))  # tables, then views (as Spark)

    def getTable(self, tableName: str) -> Table:  # noqa: N802,N803 - PySpark's names
        """The ``Table`` record of ``tableName``."""
        plain = tableName.lower().removeprefix("spark_catalog.").removeprefix("default.")
        for table in self.listTables() + self.listTables(GLOBAL_TEMP_DATABASE):
            if table.name == plain or (table.database == GLOBAL_TEMP_DATABASE
                                       and f"{GLOBAL_TEMP_DATABASE}.{table.name}" == tableName.lower()):
                return table
        raise AnalysisException(f"The table or view `{tableName}` cannot be found.", "TABLE_OR_VIEW_NOT_FOUND",
                                {"relationName": f"`{tableName}`"})

    def createTable(self, tableName: str, path: str | None = None, source: str | None = None,  # noqa: N802,N803
                    schema: Any = None, description: str | None = None, **options: Any) -> DataFrame:
        """A table: managed (an empty one of ``schema``, in ``source`` format) without ``path``, external
        (the files under ``path``, read with ``options``) with it; its DataFrame.

        Parameters
        ----------
        tableName : str
            The new table's name (``TABLE_OR_VIEW_ALREADY_EXISTS`` if taken).
        path : str, optional
            The files of an external table (a drop keeps them).
        source : str, optional
            The format (``spark.sql.sources.default``, Parquet, by default).
        schema : StructType, optional
            The columns (inferred from the files of an external table without it).
        description : str, optional
            Accepted; not kept.
        options
            Reader options (``header="true"``...).
        """
        from .errors import PySparkTypeError  # noqa: PLC0415 - errors is a leaf module
        from .tables import create_external_table  # noqa: PLC0415 - the tables load with the first use
        from .types import StructType  # noqa: PLC0415 - light import

        if schema is not None and not isinstance(schema, StructType):
            raise PySparkTypeError(f"Argument `schema` should be a struct type, got {type(schema).__name__}.",
                                   "NOT_STRUCT", {"arg_name": "schema", "arg_type": type(schema).__name__})
        fmt = (source or self._session.conf.get("spark.sql.sources.default", "parquet") or "parquet").lower()
        texts = {k: ("true" if v is True else "false" if v is False else str(v)) for k, v in options.items()}
        if path is not None:
            create_external_table(self._session, tableName, path, fmt, schema, texts)
        elif schema is None:
            from .io import get_format  # noqa: PLC0415 - the formats load with the first use

            raise AnalysisException(
                f"Unable to infer schema for {get_format(fmt).title}. It must be specified manually: give "
                "createTable a schema (a StructType) or the path of existing files.",
                "UNABLE_TO_INFER_SCHEMA", {"format": fmt})
        else:
            self._session.createDataFrame([], schema).write.format(fmt).options(**texts).saveAsTable(tableName)
        return self._session.table(tableName)

    def createExternalTable(self, tableName: str, path: str | None = None, source: str | None = None,  # noqa: N802,N803
                            schema: Any = None, **options: Any) -> DataFrame:
        """:meth:`createTable` under its deprecated name."""
        warnings.warn("createExternalTable is deprecated since Spark 2.2, please use createTable instead.",
                      FutureWarning, stacklevel=2)
        return self.createTable(tableName, path, source, schema, **options)

    def listColumns(self, tableName: str, dbName: str | None = None) -> list[Column]:  # noqa: N802,N803
        """The columns of a view or table, as PySpark's ``Column`` records."""
        name = tableName if dbName is None else f"{dbName}.{tableName}"
        df = self._lookup(name)
        from .tables import partition_columns  # noqa: PLC0415 - the tables load with the first lookup

        partitions = set(partition_columns(self._session, name))
        return [Column(f.name, None, f.dataType.simpleString(), f.nullable, f.name in partitions, False)
                for f in df.schema.fields]

    def currentCatalog(self) -> str:  # noqa: N802 - PySpark's name
        """``spark_catalog``: the one catalog."""
        return "spark_catalog"

    def setCurrentCatalog(self, catalogName: str) -> None:  # noqa: N802,N803 - PySpark's names
        """Only ``spark_catalog`` exists."""
        if catalogName.lower() != "spark_catalog":
            raise AnalysisException(f"Catalog '{catalogName}' not found: only spark_catalog exists here.",
                                    "CATALOG_NOT_FOUND", {"catalogName": f"`{catalogName}`"})

    def listCatalogs(self, pattern: str | None = None) -> list[CatalogMetadata]:  # noqa: N802
        """``[CatalogMetadata('spark_catalog', None)]``."""
        found = [CatalogMetadata("spark_catalog", None)]
        return [c for c in found if pattern is None or fnmatch.fnmatchcase(c.name, pattern.lower())]

    def currentDatabase(self) -> str:  # noqa: N802 - PySpark's name
        """``default``: the one database."""
        return "default"

    def setCurrentDatabase(self, dbName: str) -> None:  # noqa: N802,N803 - PySpark's names
        """Only ``default`` exists."""
        if dbName.lower() != "default":
            raise _no_database(dbName)

    def listDatabases(self, pattern: str | None = None) -> list[Database]:  # noqa: N802
        """``default``, with the warehouse directory as its location."""
        from .tables import warehouse_dir  # noqa: PLC0415 - the tables load with the first lookup

        found = [Database("default", "spark_catalog", "default database", f"file:{warehouse_dir(self._session)}")]
        return [d for d in found if pattern is None or fnmatch.fnmatchcase(d.name, pattern.lower())]

    def databaseExists(self, dbName: str) -> bool:  # noqa: N802,N803 - PySpark's names
        """Whether ``dbName`` is ``default``."""
        return dbName.lower() in ("default", "spark_catalog.default")

    def getDatabase(self, dbName: str) -> Database:  # noqa: N802,N803 - PySpark's names
        """The ``Database`` record of ``default``."""
        if not self.databaseExists(dbName):
            raise _no_database(dbName)
        return self.listDatabases()[0]

    def listFunctions(self, dbName: str | None = None, pattern: str | None = None) -> list[Function]:  # noqa: N802,N803
        """The built-in functions and the session's registered UDFs, as PySpark's ``Function`` records."""
        from . import functions  # noqa: PLC0415 - the functions import this module's callers

        registry = self._session._udf_registration  # noqa: SLF001 - the session's own registrations
        temporary = set(registry.names()) if registry is not None else set()
        names = {n.lower() for n in functions.__all__ if not n[0].isupper()} | temporary
        found = [Function(n, None if n in temporary else "spark_catalog", None if n in temporary else ["default"],
                          None, "dstreams" if n not in temporary else "python", n in temporary)
                 for n in sorted(names)]
        return [f for f in found if pattern is None or fnmatch.fnmatchcase(f.name, pattern.lower())]

    def getFunction(self, functionName: str) -> Function:  # noqa: N802,N803 - PySpark's names
        """The built-in function or registered UDF of that name (any case), as PySpark's ``Function``:
        both are temporary, outside any catalog; ``UNRESOLVED_ROUTINE`` for an unknown name."""
        from .parser.columns import unresolved_routine  # noqa: PLC0415 - the parser loads with SQL

        found = next((f for f in self.listFunctions() if f.name == functionName.lower()), None)
        if found is None:
            raise unresolved_routine(functionName)
        return found._replace(catalog=None, namespace=None, isTemporary=True,
                              description="N/A." if found.isTemporary else found.description)

    def registerFunction(self, name: str, f: Any, returnType: Any = None) -> Any:  # noqa: N802,N803
        """``spark.udf.register`` under its deprecated name."""
        warnings.warn("Deprecated in 2.3.0. Use spark.udf.register instead.", FutureWarning, stacklevel=2)
        return self._session.udf.register(name, f, returnType)

    def functionExists(self, functionName: str, dbName: str | None = None) -> bool:  # noqa: N802,N803
        """Whether a built-in function or a registered UDF has that name."""
        return any(f.name == functionName.lower() for f in self.listFunctions())

    def cacheTable(self, tableName: str, storageLevel: Any = None) -> None:  # noqa: N802,N803
        """Cache the rows of a view or table for this session."""
        df = self._lookup(tableName)
        df.persist(storageLevel) if storageLevel is not None else df.cache()
        self._cached_tables[tableName.lower()] = df

    def isCached(self, tableName: str) -> bool:  # noqa: N802,N803 - PySpark's names
        """Whether :meth:`cacheTable` cached it (and it was not uncached since)."""
        self._lookup(tableName)
        return tableName.lower() in self._cached_tables

    def uncacheTable(self, tableName: str) -> None:  # noqa: N802,N803 - PySpark's names
        """Drop a view's or table's cached rows (``TABLE_OR_VIEW_NOT_FOUND`` if there is no such table)."""
        self._lookup(tableName)
        df = self._cached_tables.pop(tableName.lower(), None)
        if df is not None:
            df.unpersist()

    def refreshTable(self, tableName: str) -> None:  # noqa: N802,N803 - PySpark's names
        """Nothing to refresh: a table's files are listed each time it is read."""
        self._lookup(tableName)

    def recoverPartitions(self, tableName: str) -> None:  # noqa: N802,N803 - PySpark's names
        """Nothing to recover: a partitioned table's ``k=v`` directories are listed each time it is read.

        As Spark, an unknown name or a table without partition columns is refused.
        """
        from .tables import managed_table  # noqa: PLC0415 - the tables load with the first lookup

        self._lookup(tableName)
        table = managed_table(self._session, tableName)
        if table is None or not table.partition_by:
            name = f"`spark_catalog`.`default`.`{tableName.split('.')[-1]}`"
            raise AnalysisException(
                f"Operation ALTER TABLE RECOVER PARTITIONS is not allowed for {name} because it is not a "
                "partitioned table.", "NOT_A_PARTITIONED_TABLE",
                {"operation": "ALTER TABLE RECOVER PARTITIONS", "tableIdentWithDB": name})

    def refreshByPath(self, path: str) -> None:  # noqa: N802 - PySpark's name
        """Nothing to refresh: files are listed each time they are read."""

    def clearCache(self) -> None:  # noqa: N802 - PySpark's name
        """Forget every cached DataFrame of the session."""
        self._cached_tables.clear()
        for df in list(self._session._cached):  # noqa: SLF001 - the session's own cache list
            df.unpersist()


def _no_database(name: str) -> AnalysisException:
    return AnalysisException(f"[SCHEMA_NOT_FOUND] The schema `{name}` cannot be found: only `default` exists here.",
                             "SCHEMA_NOT_FOUND", {"schemaName": f"`{name}`"})
