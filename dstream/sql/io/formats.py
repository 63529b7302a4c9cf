"""The registry of file formats: one stateless, picklable instance per name.

Invariants
----------
* ``get_format(name)`` returns the same object for the same name (case-insensitive).
"""

from __future__ import annotations

from dstream.sql.errors import AnalysisException
from dstream.sql.io.avrofmt import AvroFormat
from dstream.sql.io.base import FileFormat
from dstream.sql.io.csvfmt import CsvFormat
from dstream.sql.io.jsonfmt import JsonFormat
from dstream.sql.io.orc import OrcFormat
from dstream.sql.io.parquet import ParquetFormat
from dstream.sql.io.text import TextFormat
from dstream.sql.io.xmlfmt import XmlFormat

__all__ = ["FORMAT_NAMES", "get_format"]

_FORMATS: dict[str, FileFormat] = {f.name: f for f in (TextFormat(), CsvFormat(), JsonFormat(), ParquetFormat(),
                                                        OrcFormat(), XmlFormat(), AvroFormat())}
#: The file formats' names, as the readers, the writers and the streaming file source and sink take them.
FORMAT_NAMES: tuple[str, ...] = tuple(_FORMATS)


def get_format(name: str) -> FileFormat:
    """The format of ``name`` (``"text"``, ``"csv"``, ``"json"``, ``"parquet"``, ``"orc"``, ``"xml"``,
    ``"avro"``; case-insensitive).

    Raises
    ------
    AnalysisException
        For another name.
    """
    fmt = _FORMATS.get(name.lower())
    if fmt is None:
        raise AnalysisException(f"Failed to find the data source: {name}. Use one of text, csv, json, parquet, orc, "
                                "xml, avro.",
                                "DATA_SOURCE_NOT_FOUND", {"provider": name})
    return fmt
