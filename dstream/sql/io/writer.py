"""Writing a DataFrame to files: save modes, part files per task, an atomic commit.

What this module owns
---------------------
The protocol of a write: :func:`prepare_output` on the driver applies the save mode,
:func:`write_task` in each task writes ``path/_temporary/<job_id>/[k=v/]part-<task>-<job>.<ext>``,
:func:`commit_output` on the driver moves the parts into place, writes ``_SUCCESS`` and
removes ``_temporary``; :func:`abort_output` removes the temporary directory.
:func:`write_files` is the task's writing itself (one file per partition directory), which
the streaming file sink also uses, straight into its output directory.

Invariants
----------
* Until the commit, nothing of the job is visible under ``path`` except ``_temporary``
  (a hidden name readers skip): a failed job leaves the existing output intact.
* Partition columns (``partitionBy``) are not in the part files; their values are the
  ``k=v`` directory names, escaped as Spark escapes them, null as
  ``__HIVE_DEFAULT_PARTITION__``.
"""

from __future__ import annotations

import bz2
import gzip
import os
import shutil
import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from dstream.sql.arrow_convert import SPARK_ROW_METADATA_KEY
from dstream.sql.errors import AnalysisException, IllegalArgumentException
from dstream.sql.expressions.interval_cast import holds_interval, intervals_as_text
from dstream.sql.io.base import FileFormat, time_zone_option
from dstream.sql.io.encode import CsvDialect, csv_field, format_temporal_columns, json_text, value_encoder
from dstream.sql.io.files import HIVE_DEFAULT_PARTITION, option, option_bool
from dstream.sql.io.formats import get_format
from dstream.sql.variant.arrow import has_variant, parquet_layout

if TYPE_CHECKING:
    from dstream.sql.types import StructType

__all__ = ["prepare_output", "check_writable", "write_task", "write_files", "commit_output", "abort_output",
           "csv_lines", "file_extension"]

_MODES = {"error": "error", "errorifexists": "error", "default": "error", "overwrite": "overwrite",
          "append": "append", "ignore": "ignore"}


def _local(path: str) -> str:
    return os.path.abspath(path[len("file:"):] if path.startswith("file:") else path)


def prepare_output(path: str, mode: str = "error", dynamic: bool = False) -> bool:
    """Apply the save mode to ``path`` before a write; ``False`` means skip the write.

    Parameters
    ----------
    path : str
        The output directory.
    mode : str
        ``"error"``/``"errorifexists"`` (default), ``"overwrite"``, ``"append"`` or ``"ignore"``.
    dynamic : bool
        Dynamic partition overwrite: ``overwrite`` keeps the existing output here, and
        :func:`commit_output` replaces only the partitions the job wrote.

    Raises
    ------
    AnalysisException
        ``PATH_ALREADY_EXISTS`` under mode error when ``path`` exists.
    """
    kind = _MODES.get((mode or "error").lower())
    if kind is None:
        raise AnalysisException(f"Unknown save mode: {mode}. Accepted save modes are 'overwrite', 'append', 'ignore', "
                                "'error', 'errorifexists', 'default'.", "INVALID_SAVE_MODE", {"mode": str(mode)})
    local = _local(path)
    exists = os.path.exists(local)
    if kind == "error" and exists:
        raise AnalysisException(f'Path file:{local} already exists. Set mode as "overwrite" to overwrite the existing '
                                "path.", "PATH_ALREADY_EXISTS", {"outputPath": f"file:{local}"})
    if kind == "ignore" and exists:
        return False
    if kind == "overwrite" and exists and not (dynamic and os.path.isdir(local)):
        if os.path.isdir(local):
            shutil.rmtree(local)
        else:
            os.remove(local)
    os.makedirs(local, exist_ok=True)
    return True


def check_writable(fmt: str, schema: StructType, partition_by: Sequence[str] = ()) -> None:
    """Refuse, before anything is written, a write Spark refuses at analysis.

    Parameters
    ----------
    fmt : str
        The output format's name (``"csv"``, ``"json"``, ``"text"``, ``"parquet"``).
    schema : StructType
        The rows' schema.
    partition_by : sequence of str
        The ``partitionBy`` columns (already checked to exist).

    Raises
    ------
    AnalysisException
        ``ALL_PARTITION_COLUMNS_NOT_ALLOWED`` when every column is a partition column (the
        files would hold no column); ``UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE`` for an array,
        map, struct or variant column in CSV, a variant column in ORC, or a text write that is not one string column.
    """
    from dstream.sql.expressions.coercion import type_sql  # noqa: PLC0415 - the analyzer's type names, on use
    from dstream.sql.types import ArrayType, MapType, StringType, StructType, VariantType  # noqa: PLC0415 - as above

    wanted = {n.lower() for n in partition_by}
    data = [f for f in schema.fields if f.name.lower() not in wanted]
    if partition_by and not data:
        raise AnalysisException(
            f"Cannot use all columns for partition columns: partitionBy({', '.join(partition_by)}) leaves no "
            "column for the files. Keep at least one column out of partitionBy.", "ALL_PARTITION_COLUMNS_NOT_ALLOWED",
            {})
    name = fmt.lower()
    label = {"csv": "CSV", "text": "Text", "orc": "ORC"}.get(name)
    for fld in data:
        if (name == "csv" and isinstance(fld.dataType, ArrayType | MapType | StructType | VariantType)) or (
                name == "orc" and isinstance(fld.dataType, VariantType)) or (
                name == "text" and not isinstance(fld.dataType, StringType)):
            fix = ("write it as JSON or Parquet, or turn it into a string first (to_json, concat_ws)"
                   if name in ("csv", "orc") else "select one string column (e.g. with concat_ws) before writing text")
            raise AnalysisException(
                f"The {label} datasource doesn't support the column `{fld.name}` of the type "
                f'"{type_sql(fld.dataType)}": {fix}.', "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
                {"columnName": f"`{fld.name}`", "columnType": f'"{type_sql(fld.dataType)}"', "format": label or name})


def _escape_partition(value: Any) -> str:
    if value is None:
        return HIVE_DEFAULT_PARTITION
    text = value if isinstance(value, str) else (("true" if value else "false") if isinstance(value, bool)
                                                 else str(value))
    if text == "":
        return HIVE_DEFAULT_PARTITION
    return quote(text, safe=" !$&'()*+,;<>@`|~-._")


def _arrow_schema(schema: Any) -> pa.Schema:
    if isinstance(schema, pa.Schema):
        return schema
    from dstream.sql.arrow_convert import to_arrow_schema
    return to_arrow_schema(schema)


def _conform(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """``batch`` under ``schema``: same columns by position, cast where a type differs."""
    columns = [c if c.type == f.type else c.cast(f.type) for c, f in zip(batch.columns, schema)]
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def _format(fmt: FileFormat | str) -> FileFormat:
    if isinstance(fmt, FileFormat):
        return fmt
    return get_format(fmt)


def _file_bytes(table: pa.Table, fmt: FileFormat, options: Mapping[str, Any]) -> bytes | None:
    """The text-format content of a part file (``None`` for Parquet, written by pyarrow)."""
    zone = time_zone_option(options)
    own = getattr(fmt, "file_bytes", None)  # a text format with its own writer (XML)
    if own is not None:
        return bytes(own(table, options))
    if fmt.name == "text":
        if table.num_columns != 1 or not pa.types.is_string(table.schema.field(0).type):
            raise AnalysisException(
                f"Text data source supports only a single column of type string, and you have {table.num_columns} "
                f"columns ({table.schema}). Select one string column (e.g. with concat_ws) before writing text.",
                "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE", {"format": "Text"})
        sep = option(options, "lineSep") or "\n"
        return "".join((v or "") + sep for v in table.column(0).to_pylist()).encode("utf-8")
    if fmt.name == "json":
        sep = option(options, "lineSep") or "\n"
        table = format_temporal_columns(table, options, zone)
        keep_nulls = not option_bool(options, "ignoreNullFields", True)
        return "".join(json_text(row, table.schema, zone, not keep_nulls) + sep
                       for row in table.to_pylist()).encode("utf-8")
    if fmt.name == "csv":
        lines = csv_lines(table, options)
        if option_bool(options, "header"):
            dialect = CsvDialect.of(options)
            lines.insert(0, dialect.sep.join(csv_field(n, dialect) for n in table.schema.names))
        return "".join(line + "\n" for line in lines).encode(option(options, "encoding") or "utf-8")
    return None


def csv_lines(table: pa.Table, options: Mapping[str, Any]) -> list[str]:
    """Each row of ``table`` as one CSV line, as the CSV writer writes it (no header, no newline)."""
    zone = time_zone_option(options)
    dialect = CsvDialect.of(options)
    table = format_temporal_columns(table, options, zone)
    columns = []
    for fld, column in zip(table.schema, table.columns):
        encode = value_encoder(fld.type, zone)
        columns.append([csv_field(None if v is None else encode(v), dialect) for v in column.to_pylist()])
    return [dialect.sep.join(row) for row in zip(*columns)] if columns else [""] * table.num_rows


#: The ``compression`` (or ``codec``) options of the text formats: Hadoop's short names and
#: the file name ending each gives; the reader decompresses them by that ending.
_TEXT_CODECS = {"none": "", "uncompressed": "", "gzip": ".gz", "bzip2": ".bz2", "deflate": ".deflate"}


def file_extension(fmt: FileFormat | str, options: Mapping[str, Any]) -> str:
    """A part file's ending: the format's, then the text codec's (``csv.gz``)."""
    fmt = _format(fmt)
    own = getattr(fmt, "part_extension", None)  # a binary format that names its own codec (ORC)
    if own is not None:
        return str(own(options))
    return fmt.extension + ("" if fmt.name == "parquet" else _TEXT_CODECS[_text_codec(options)])


def _text_codec(options: Mapping[str, Any]) -> str:
    codec = (option(options, "compression") or option(options, "codec") or "none").lower()
    if codec not in _TEXT_CODECS:
        raise IllegalArgumentException(
            f"Codec [{codec}] is not available for text, CSV and JSON files here. Known codecs are "
            f"{', '.join(sorted(_TEXT_CODECS))} (lz4, snappy and zstd need Hadoop's native codecs).")
    return codec


def _compressed(content: bytes, codec: str) -> bytes:
    if codec == "gzip":
        return gzip.compress(content, mtime=0)
    if codec == "bzip2":
        return bz2.compress(content)
    if codec == "deflate":
        return zlib.compress(content)
    return content


def _write_file(table: pa.Table, fmt: FileFormat, options: Mapping[str, Any], target: str) -> None:
    os.makedirs(os.path.dirname(target), exist_ok=True)
    write_table = getattr(fmt, "write_table", None)  # a format with its own file writer (ORC)
    if write_table is not None:
        write_table(table, target, options)
        return
    content = _file_bytes(table, fmt, options)
    if content is None:
        compression = (option(options, "compression") or "snappy").lower()
        pq.write_table(parquet_layout(table), target,
                       compression=None if compression in ("none", "uncompressed") else compression,
                       coerce_timestamps="us", allow_truncated_timestamps=True)
        return
    with open(target, "wb") as handle:
        handle.write(_compressed(content, _text_codec(options)))


def write_task(batches: Iterator[pa.RecordBatch], schema: StructType | pa.Schema, fmt: FileFormat | str,
               options: Mapping[str, Any], path: str, task_id: int, job_id: str,
               partition_by: Sequence[str] = ()) -> list[str]:
    """Write one task's rows under ``path/_temporary/<job_id>``; return the written paths relative to it.

    Parameters
    ----------
    batches : iterator of pyarrow.RecordBatch
        The task's rows, their columns in the schema's order (names are taken from the schema).
    schema : StructType or pyarrow.Schema
        The rows' schema.
    fmt : FileFormat or str
        The output format (``"csv"``, ``"json"``, ``"text"``, ``"parquet"``).
    options : mapping
        The writer's options (``header``, ``sep``, ``compression``, ``timeZone``...).
    path : str
        The output directory.
    task_id, job_id : int, str
        Name the part file ``part-<task_id:05d>-<job_id>.<ext>``.
    partition_by : sequence of str
        Columns whose values become ``k=v`` directories.
    """
    name = f"part-{task_id:05d}-{job_id}.{file_extension(fmt, options)}"
    # Task 0 writes a file even without rows, so that an empty result still has a schema on disk.
    return write_files(batches, schema, fmt, options, os.path.join(_local(path), "_temporary", job_id), name,
                       partition_by, empty_file=task_id == 0)


def write_files(batches: Iterator[pa.RecordBatch], schema: StructType | pa.Schema, fmt: FileFormat | str,
                options: Mapping[str, Any], directory: str, name: str, partition_by: Sequence[str] = (),
                empty_file: bool = False) -> list[str]:
    """Write one task's rows as ``directory/[k=v/]name``; return the written paths relative to ``directory``.

    Parameters
    ----------
    batches : iterator of pyarrow.RecordBatch
        The task's rows, their columns in the schema's order (names are taken from the schema).
    schema : StructType or pyarrow.Schema
        The rows' schema.
    fmt : FileFormat or str
        The output format.
    options : mapping
        The writer's options.
    directory : str
        Where the files go (the job's temporary directory, or a streaming sink's output).
    name : str
        The file name, the same in every partition directory.
    partition_by : sequence of str
        Columns whose values become ``k=v`` directories.
    empty_file : bool
        Whether a task without rows writes an (empty) unpartitioned file.
    """
    # Files carry every column as nullable (as Spark writes them); a batch's own nullability
    # flags (spark.range's id is not null) must not make it a different schema.
    arrow_schema = pa.schema([f.with_nullable(True) for f in _arrow_schema(schema)])
    fmt = _format(fmt)
    if fmt.name == "parquet" and not isinstance(schema, pa.Schema) and any(
            f.metadata or has_variant(arrow_schema.field(f.name).type) for f in schema.fields):
        # Column metadata and variant columns travel as Spark writes them: the schema's JSON in the
        # file's footer (Spark reads a struct of two binaries as a variant when the footer says so).
        arrow_schema = arrow_schema.with_metadata({SPARK_ROW_METADATA_KEY: schema.json()})
    table = pa.Table.from_batches([_conform(b, arrow_schema) for b in batches], schema=arrow_schema)
    if fmt.name in ("csv", "json") and not isinstance(schema, pa.Schema):
        table = _intervals_as_text(table, schema)
    if not partition_by:
        if table.num_rows == 0 and not empty_file:
            return []
        _write_file(table, fmt, options, os.path.join(directory, name))
        return [name]
    data_names = [n for n in arrow_schema.names if n not in partition_by]
    keys = table.select(list(partition_by))
    written: list[str] = []
    if table.num_rows == 0:
        return written
    groups = keys.group_by(list(partition_by), use_threads=False).aggregate([])
    for combo in groups.to_pylist():
        mask = None
        for column, value in combo.items():
            test = pc.is_null(table.column(column)) if value is None else pc.equal(table.column(column), value)
            mask = test if mask is None else pc.and_(mask, test)
        part = table.filter(mask).select(data_names)
        partition_dir = "/".join(f"{quote(k, safe='')}={_escape_partition(combo[k])}" for k in partition_by)
        relative = f"{partition_dir}/{name}"
        _write_file(part, fmt, options, os.path.join(directory, relative))
        written.append(relative)
    return written


def _intervals_as_text(table: pa.Table, schema: StructType) -> pa.Table:
    """The columns holding intervals as Spark's text (``INTERVAL '1-2' YEAR TO MONTH``), as CSV and JSON
    files hold them: Arrow keeps no interval fields (a year-month interval is an int of months)."""
    for i, field in enumerate(schema.fields):
        if holds_interval(field.dataType):
            text, _ = intervals_as_text(table.column(i), field.dataType)
            table = table.set_column(i, pa.field(field.name, text.type), text)
    return table


def commit_output(path: str, job_id: str, written: Sequence[str], replace_partitions: bool = False) -> None:
    """Move the job's part files into ``path``, write ``_SUCCESS`` and remove ``_temporary``.

    With ``replace_partitions`` (dynamic partition overwrite) each ``k=v`` directory the
    job wrote is emptied first; the partitions it did not write keep their files.
    """
    root = _local(path)
    temp = os.path.join(root, "_temporary", job_id)
    if replace_partitions:
        for directory in sorted({os.path.dirname(relative) for relative in written} - {""}):
            shutil.rmtree(os.path.join(root, directory), ignore_errors=True)
    for relative in written:
        target = os.path.join(root, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(os.path.join(temp, relative), target)
    with open(os.path.join(root, "_SUCCESS"), "wb"):
        pass
    shutil.rmtree(os.path.join(root, "_temporary"), ignore_errors=True)


def abort_output(path: str, job_id: str) -> None:
    """Remove what a failed job wrote (its temporary directory)."""
    root = _local(path)
    shutil.rmtree(os.path.join(root, "_temporary", job_id), ignore_errors=True)
    temp = os.path.join(root, "_temporary")
    if os.path.isdir(temp) and not os.listdir(temp):
        os.rmdir(temp)
