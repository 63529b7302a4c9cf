"""The Avro source and sink: ``format("avro")``, Avro container files as Spark reads and writes them.

What this module owns
---------------------
:class:`AvroFormat`: the schema of the first file's header (or of the option
``avroSchema``), mapped to Spark's types as ``from_avro`` maps them; one split per file;
reads that decode each block's records (with ``avroSchema``, read as that schema by
Avro's resolution rules); writes with the schema Spark derives from the rows' types (the
record named by ``recordName``, default ``topLevelRecord``, in ``recordNamespace``) or a
given ``avroSchema`` that fits them, compressed with ``compression`` (default snappy, as
Spark's ``spark.sql.avro.compression.codec``; ``uncompressed``, ``deflate``, ``zstandard``,
``bzip2``, ``xz``), the part files named ``*.snappy.avro`` as Spark names them.

Invariants
----------
* The top level of a file's schema is a record (its fields are the columns); another
  schema is refused with the reason.
* A file that is not an Avro container, or a record the schema cannot read, fails the
  read naming the file: nothing is skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa

from dstream.sql.avro.codec import MalformedAvroError, Reader, encode, read_value
from dstream.sql.avro.container import CODECS, read_records, write_container
from dstream.sql.avro.resolve import read_as
from dstream.sql.avro.schema import Node, from_spark_type, parse, to_spark_type
from dstream.sql.errors import AnalysisException, IllegalArgumentException, SparkRuntimeException
from dstream.sql.io.base import FileFormat, Filter, conform_batch
from dstream.sql.io.files import FileSplit, option
from dstream.sql.types import StructType

__all__ = ["AvroFormat"]

_BATCH_ROWS = 65_536


def _codec(options: Mapping[str, Any]) -> str:
    name = (option(options, "compression") or option(options, "spark.sql.avro.compression.codec")
            or "snappy").lower()
    if name not in CODECS:
        raise IllegalArgumentException(
            f"Codec [{name}] is not available for Avro. Available codecs are "
            f"{', '.join(sorted(c for c in CODECS if c not in ('none', 'null')))}.")
    return CODECS[name]


def _record_schema(node: Node, where: str) -> Node:
    if node.kind != "record":
        raise AnalysisException(
            f"The Avro schema of {where} is a {node.kind}, not a record: Spark reads the fields of a top-level "
            "record as columns. Give a record schema (the option avroSchema), or read the values with from_avro.",
            "AVRO_NOT_A_RECORD", {"where": where})
    return node


class AvroFormat(FileFormat):
    """Apache Avro container files (``spark.read.format("avro")``)."""

    name = "avro"
    title = "Avro"
    extension = "avro"

    def _infer_data_schema(self, files: Sequence[str], options: Mapping[str, Any]) -> pa.Schema:
        from dstream.sql.arrow_convert import to_arrow_type  # noqa: PLC0415 - arrow_convert imports the io package

        given = option(options, "avroSchema")
        if given:
            node = _record_schema(parse(given), "the option avroSchema")
        else:
            header, _ = read_records(files[0])
            node = _record_schema(parse(header.schema), files[0])
        struct, _ = to_spark_type(node)
        assert isinstance(struct, StructType)  # a record's type
        return pa.schema([pa.field(f.name, to_arrow_type(f.dataType), True) for f in struct.fields])

    def splittable_with(self, options: Mapping[str, Any]) -> bool:
        """One split per file (a file's blocks are not split among tasks)."""
        return False

    def _read_data(self, split: FileSplit, schema: pa.Schema, columns: Sequence[str], options: Mapping[str, Any],
                   filters: Sequence[Filter] | None) -> Iterator[pa.RecordBatch]:
        wanted = pa.schema([schema.field(n) for n in columns])
        try:
            header, data_blocks = read_records(split.path)
            writer = _record_schema(parse(header.schema), split.path)
            given = option(options, "avroSchema")
            reader = _record_schema(parse(given), "the option avroSchema") if given else None
            rows: list[dict[str, Any]] = []
            for count, data in data_blocks:
                r = Reader(data)
                for _ in range(count):
                    rows.append(read_value(r, writer) if reader is None else read_as(r, writer, reader))
                if len(rows) >= _BATCH_ROWS:
                    yield _batch(rows, wanted)
                    rows = []
        except MalformedAvroError as exc:
            raise SparkRuntimeException(f"Could not read the Avro file {split.path}: {exc}.",
                                        "AVRO_CORRUPT_FILE", {"path": split.path}) from None
        if rows:
            yield _batch(rows, wanted)

    def part_extension(self, options: Mapping[str, Any]) -> str:
        """A part file's ending, the codec's name first (``snappy.avro``) as Spark names them."""
        codec = _codec(options)
        return self.extension if codec == "null" else f"{codec}.{self.extension}"

    def write_table(self, table: pa.Table, target: str, options: Mapping[str, Any]) -> None:
        """Write ``table`` as one Avro container file at ``target``."""
        from dstream.sql.arrow_convert import from_arrow_schema  # noqa: PLC0415
        from dstream.sql.avro.expressions import check_fits  # noqa: PLC0415 - the expressions' own rule

        struct = from_arrow_schema(table.schema)
        given = option(options, "avroSchema")
        if given:
            node = parse(given)
            check_fits(struct, node)
        else:
            node = from_spark_type(struct, False, option(options, "recordName") or "topLevelRecord",
                                   option(options, "recordNamespace") or "")
        level = int(option(options, "spark.sql.avro.deflate.level") or -1)
        try:
            records = [encode(row, node) for row in table.to_pylist()]
        except MalformedAvroError as exc:
            raise SparkRuntimeException(f"Cannot write the rows to Avro with the schema "
                                        f"{node.to_json_text()}: {exc}.",
                                        "AVRO_INCOMPATIBLE_VALUE", {"path": target}) from None
        write_container(target, node.to_json_text(), _codec(options), records, level)


def _batch(rows: list[dict[str, Any]], wanted: pa.Schema) -> pa.RecordBatch:
    arrays = [pa.array([row.get(f.name) for row in rows], f.type) for f in wanted]
    return conform_batch(pa.RecordBatch.from_arrays(arrays, schema=wanted), wanted)
