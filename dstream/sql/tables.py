"""Managed tables: ``df.write.saveAsTable(name)``, ``insertInto``, and reading them back by name.

What this module owns
---------------------
The application's table catalog (Spark's in-memory catalog, shared by every session of a
SparkContext): a managed table is a directory ``<spark.sql.warehouse.dir>/<name>`` of files
in one format (Parquet by default), registered under its name for ``spark.table``,
``spark.sql`` and ``spark.catalog``.

Invariants
----------
* A temporary view of the same name hides a table, as in Spark.
* ``saveAsTable`` modes apply to the table: ``error`` refuses an existing table
  (``TABLE_OR_VIEW_ALREADY_EXISTS``), ``ignore`` leaves it, ``overwrite`` replaces its rows
  and schema, ``append`` adds rows matched by column name. A directory left in the
  warehouse by another application, without a table, is refused as Spark refuses it
  (``LOCATION_ALREADY_EXISTS``) unless the mode is ``overwrite``.
* ``insertInto`` adds (or, with ``overwrite``, replaces) rows matched by position, cast to
  the table's types; the table must exist.
* An external table (``spark.catalog.createTable(name, path=...)``) reads files it does not
  own, with the reader options it was created with; dropping it forgets it and keeps them.
* Nothing is kept between applications but the files (no metastore), as Spark without Hive.
"""

from __future__ import annotations

import os
import shutil
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import AnalysisException

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .session import SparkSession

__all__ = ["ManagedTable", "create_external_table", "drop_table", "insert_into", "lookup_table", "partition_columns",
           "save_as_table", "table_kinds", "table_names", "warehouse_dir"]

#: Spark's default warehouse directory, relative to the working directory.
DEFAULT_WAREHOUSE = "spark-warehouse"

#: SparkContext -> its tables (name, lower case -> table), as Spark's shared in-memory catalog.
_CATALOGS: weakref.WeakKeyDictionary[Any, dict[str, ManagedTable]] = weakref.WeakKeyDictionary()


@dataclass
class ManagedTable:
    """A table's name, directory, file format, partition columns and schema (the catalog keeps it:
    the files are read with it, so a JSON table keeps its column order and types)."""

    name: str
    path: str
    format: str
    partition_by: list[str] = field(default_factory=list)
    schema: Any = None
    external: bool = False  # files it does not own (created over a path): a drop keeps them
    options: dict[str, str] = field(default_factory=dict)  # the reader options of an external table

    def read(self, session: SparkSession) -> DataFrame:
        reader = session.read.format(self.format).options(**self.options)
        return (reader if self.schema is None else reader.schema(self.schema)).load(self.path)


def _tables(session: SparkSession) -> dict[str, ManagedTable]:
    return _CATALOGS.setdefault(session.sparkContext, {})


def partition_columns(session: SparkSession, name: str) -> list[str]:
    """The partition columns of the managed table ``name`` (none for a view or an unknown name)."""
    try:
        table = _tables(session).get(_plain_name(name).lower())
    except AnalysisException:
        return []
    return [] if table is None else list(table.partition_by)


def warehouse_dir(session: SparkSession) -> str:
    """The absolute warehouse directory (``spark.sql.warehouse.dir``)."""
    return os.path.abspath(session.conf.get("spark.sql.warehouse.dir", DEFAULT_WAREHOUSE) or DEFAULT_WAREHOUSE)


def _plain_name(name: str) -> str:
    database, _, rest = name.partition(".")
    if rest and database.lower() in ("default", "spark_catalog"):
        return _plain_name(rest)
    if not name or "." in name or "/" in name:
        raise AnalysisException(f"The table name {name!r} is not valid here: use a plain name such as 'sales' (one "
                                "database, default).", "INVALID_TABLE_NAME", {"name": name})
    return name


def lookup_table(session: SparkSession, name: str) -> DataFrame | None:
    """The rows of the managed table ``name``, or ``None`` when there is none."""
    try:
        plain = _plain_name(name)
    except AnalysisException:
        return None
    table = _tables(session).get(plain.lower())
    if table is None:
        return None
    return table.read(session)


def managed_table(session: SparkSession, name: str) -> ManagedTable | None:
    """The catalog's record of table ``name`` (``None`` for a view or an unknown name)."""
    try:
        return _tables(session).get(_plain_name(name).lower())
    except AnalysisException:
        return None


def streaming_table(session: SparkSession, name: str, fmt: str, schema: Any, partition_by: list[str]) -> ManagedTable:
    """The table a streaming query's ``toTable(name)`` writes into: the existing one, or a new empty
    managed table of ``fmt`` with the stream's ``schema`` (its directory made now)."""
    plain = _plain_name(name)
    tables = _tables(session)
    existing = tables.get(plain.lower())
    if existing is not None:
        return existing
    path = os.path.join(warehouse_dir(session), plain.lower())
    if os.path.exists(path):
        raise _location_exists(plain, path)
    os.makedirs(path)
    table = tables[plain.lower()] = ManagedTable(plain, path, fmt.lower(), list(partition_by),
                                                 _stored_schema(schema, partition_by))
    return table


def table_names(session: SparkSession) -> list[str]:
    """The managed tables' names (lower case)."""
    return sorted(_tables(session))


def table_kinds(session: SparkSession) -> list[tuple[str, str]]:
    """``(name, "MANAGED" or "EXTERNAL")`` of every table, by name."""
    return [(n, "EXTERNAL" if t.external else "MANAGED") for n, t in sorted(_tables(session).items())]


def create_external_table(session: SparkSession, name: str, path: str, fmt: str, schema: Any,
                          options: dict[str, str]) -> None:
    """Register the files under ``path`` as the external table ``name`` (``schema``: inferred if ``None``)."""
    plain = _plain_name(name)
    tables = _tables(session)
    if plain.lower() in tables:
        raise _already_exists(plain)
    reader = session.read.format(fmt).options(**options)
    df = (reader if schema is None else reader.schema(schema)).load(path)  # fails now for a bad path or schema
    tables[plain.lower()] = ManagedTable(plain, path, fmt, [], df.schema, external=True, options=dict(options))


def _location_exists(plain: str, path: str) -> AnalysisException:
    return AnalysisException(
        f"Cannot name the managed table as `default`.`{plain}`, as its associated "
        f"location 'file:{path}' already exists. Please pick a different table name, or remove the existing "
        "location first.", "LOCATION_ALREADY_EXISTS", {"location": f"file:{path}"})


def _already_exists(plain: str) -> AnalysisException:
    return AnalysisException(
        f"Cannot create table or view `default`.`{plain}` because it already "
        "exists. Choose a different name, drop the existing object, or use mode('overwrite') or "
        "mode('append').", "TABLE_OR_VIEW_ALREADY_EXISTS", {"relationName": f"`default`.`{plain}`"})


def save_as_table(df: DataFrame, name: str, fmt: str, mode: str, partition_by: list[str],
                  options: dict[str, str]) -> None:
    """``df.write.saveAsTable(name)`` (see the module doc for the modes)."""
    session = df.sparkSession
    plain = _plain_name(name)
    tables = _tables(session)
    existing = tables.get(plain.lower())
    if existing is not None:
        if mode in ("error", "errorifexists"):
            raise _already_exists(plain)
        if mode == "ignore":
            return
        if mode == "append":
            current = existing.read(session)
            missing = [c for c in current.columns if c not in df.columns]
            if missing or len(df.columns) != len(current.columns):
                raise AnalysisException(
                    f"Cannot append to `{plain}`: its columns are {current.columns}, the rows have {df.columns}. "
                    "Append rows with the table's columns (by name), or use insertInto (by position).",
                    "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_FIND_DATA", {"tableName": plain})
            aligned = df.select(*[_written(df[c], f).alias(f.name) for c, f in zip(current.columns, current.schema)])
            _write(aligned, existing.path, existing.format, "append", existing.partition_by, options)
            return
    path = os.path.join(warehouse_dir(session), plain.lower())
    if existing is None and os.path.exists(path) and mode != "overwrite":
        raise _location_exists(plain, path)
    if os.path.exists(path):
        shutil.rmtree(path)
    _write(df, path, fmt, "error", partition_by, options)
    tables[plain.lower()] = ManagedTable(plain, path, fmt, list(partition_by), _stored_schema(df.schema, partition_by))


def insert_into(df: DataFrame, name: str, overwrite: bool) -> None:
    """``df.write.insertInto(name[, overwrite])``: rows by position into an existing table."""
    session = df.sparkSession
    table = _tables(session).get(_plain_name(name).lower())
    if table is None:
        raise AnalysisException(
            f"The table or view `{name}` cannot be found: insertInto needs a table made "
            "by saveAsTable.", "TABLE_OR_VIEW_NOT_FOUND", {"relationName": f"`{name}`"})
    current = table.read(session)
    if len(df.columns) != len(current.columns):
        raise AnalysisException(
            f"Cannot write to `{table.name}`: it has {len(current.columns)} columns, the rows have {len(df.columns)} "
            "(insertInto matches columns by position).", "INSERT_COLUMN_ARITY_MISMATCH",
            {"tableName": table.name})
    aligned = df.select(*[_written(df[c], f).alias(f.name) for c, f in zip(df.columns, current.schema)])
    if overwrite:
        aligned = aligned.localCheckpoint()  # the rows may be read from the table being replaced
    _write(aligned, table.path, table.format, "overwrite" if overwrite else "append", table.partition_by, {})


def _written(column: Any, field: Any) -> Any:
    """``column`` as a table's ``field`` holds it: cast to its type, a ``char(n)``/``varchar(n)`` one checked."""
    from .column import Column  # noqa: PLC0415 - light import
    from .expressions.char_varchar import CharVarcharWrite, declared_length  # noqa: PLC0415

    cast = column.cast(field.dataType)
    declared = declared_length(field.metadata)
    return cast if declared is None else Column(CharVarcharWrite(cast.expr, *declared))


def _write(df: DataFrame, path: str, fmt: str, mode: str, partition_by: list[str], options: dict[str, str]) -> None:
    writer = df.write.format(fmt).mode(mode).options(**options)
    if partition_by:
        writer = writer.partitionBy(*partition_by)
    writer.save(path)


def drop_table(session: SparkSession, name: str) -> bool:
    """Forget the managed table ``name`` and delete its directory; whether it existed."""
    try:
        plain = _plain_name(name)
    except AnalysisException:
        return False
    table = _tables(session).pop(plain.lower(), None)
    if table is None:
        return False
    if not table.external:
        shutil.rmtree(table.path, ignore_errors=True)
    return True


def _stored_schema(schema: Any, partition_by: list[str]) -> Any:
    """The schema the table's files are read with: the rows', partition columns last (as they are read)."""
    from .types import StructType  # noqa: PLC0415 - light import

    fields = [f for f in schema.fields if f.name not in partition_by]
    fields += [f for name in partition_by for f in schema.fields if f.name == name]
    return StructType(fields)
