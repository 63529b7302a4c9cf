"""File sources and sinks of ``dstream.sql``: text, CSV, JSON, Parquet and ORC.

What this package owns
----------------------
:func:`get_format` (the picklable :class:`~dstream.sql.io.base.FileFormat` of a name),
the file listing (:func:`list_input_files`) and the write protocol (:func:`prepare_output`,
:func:`write_task`, :func:`commit_output`, :func:`abort_output`; :func:`write_files` for a
streaming sink's tasks).

Invariants
----------
* Format objects hold no state: one instance per name serves every read and write.
"""

from __future__ import annotations

from dstream.sql.io.base import FileFormat, Filter
from dstream.sql.io.csvfmt import CsvFormat
from dstream.sql.io.files import FileSplit, list_input_files
from dstream.sql.io.formats import FORMAT_NAMES, get_format
from dstream.sql.io.jsonfmt import JsonFormat
from dstream.sql.io.orc import OrcFormat
from dstream.sql.io.parquet import ParquetFormat
from dstream.sql.io.text import TextFormat
from dstream.sql.io.writer import abort_output, commit_output, prepare_output, write_files, write_task

__all__ = ["FORMAT_NAMES", "get_format", "FileFormat", "FileSplit", "Filter", "list_input_files", "prepare_output",
           "write_task", "write_files", "commit_output", "abort_output", "CsvFormat", "JsonFormat", "OrcFormat",
           "ParquetFormat", "TextFormat"]
