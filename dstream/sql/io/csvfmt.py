"""The CSV source: Spark's reader options, modes and inference over pyarrow's tokenizer.

What this module owns
---------------------
:class:`CsvFormat`: ``header``, ``sep``/``delimiter``, ``quote``, ``escape``, ``nullValue``,
``emptyValue``, ``comment``, ``encoding``, ``multiLine``, ``lineSep``, ``mode`` (PERMISSIVE,
DROPMALFORMED, FAILFAST), ``columnNameOfCorruptRecord``, ``nanValue``/``positiveInf``/``negativeInf``,
``timestampFormat``/``dateFormat``, ``ignoreLeadingWhiteSpace``/``ignoreTrailingWhiteSpace``,
``inferSchema``; names ``_c0``, ``_c1``... without a header.

Invariants
----------
* A record is malformed when its token count differs from the schema's or a field does not
  parse. PERMISSIVE keeps it (missing fields and bad fields null, extra tokens dropped,
  the line in the corrupt-record column when the schema has one); DROPMALFORMED drops it;
  FAILFAST raises ``MALFORMED_RECORD_IN_PARSING``.
* An unquoted empty field is null; a quoted empty one (``""``) is ``emptyValue`` (default
  empty); then a field equal to ``nullValue`` (default: empty) is null, whatever the type.
  (Where :mod:`csv` tokenizes, with ``multiLine`` or without an escape character, quoted
  and unquoted empty fields are not told apart: both are null.) A UTF-8 byte order mark
  at the start of a file is skipped.
* Without ``multiLine`` every line is a record, even inside quotes (Spark's two broken
  records for a quoted line break); ``lineSep`` (one character, or ``\r\n``) replaces the
  line breaks and makes each file one split; with ``multiLine`` it is not supported.
* Clean input is tokenized by pyarrow; a split with a malformed line is tokenized again
  line by line with :mod:`csv`, so records keep their order and their text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from rdd.engine_api import codec_of

from dstream.sql.errors import SparkRuntimeException
from dstream.sql.io.base import FileFormat, Filter, time_zone_option
from dstream.sql.io.files import FileSplit, option, option_bool, read_line_range
from dstream.sql.io.strconv import ParseOptions, infer_column, merge_types, parse_column

__all__ = ["CsvFormat", "CsvOptions", "malformed_error"]


@dataclass(frozen=True)
class CsvOptions:
    """The CSV reader options, parsed once per call."""

    header: bool
    sep: str
    quote: str
    escape: str
    null_value: str
    empty_value: str
    trim_leading: bool
    trim_trailing: bool
    line_sep: str | None  # None: any of \n, \r\n, \r
    comment: str | None
    encoding: str
    multi_line: bool
    mode: str
    corrupt_column: str
    parse: ParseOptions

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> CsvOptions:
        """The options of a read, with Spark's defaults."""
        sep = option(options, "sep") or option(options, "delimiter") or ","
        sep = {"\\t": "\t", "\\n": "\n"}.get(sep, sep)
        mode = (option(options, "mode") or "PERMISSIVE").upper()
        if mode not in ("PERMISSIVE", "DROPMALFORMED", "FAILFAST"):
            mode = "PERMISSIVE"
        parse = ParseOptions(option(options, "nanValue", "NaN") or "NaN",
                             option(options, "positiveInf", "Inf") or "Inf",
                             option(options, "negativeInf", "-Inf") or "-Inf",
                             time_zone_option(options), option(options, "timestampFormat"),
                             option(options, "dateFormat"))
        line_sep = option(options, "lineSep") or None
        return cls(option_bool(options, "header"), sep, option(options, "quote", '"') or "\0",
                   option(options, "escape", "\\") or "\0", option(options, "nullValue", "") or "",
                   option(options, "emptyValue", "") or "", option_bool(options, "ignoreLeadingWhiteSpace"),
                   option_bool(options, "ignoreTrailingWhiteSpace"),
                   None if line_sep in ("\n", "\r\n", "\r") else line_sep, option(options, "comment") or None,
                   option(options, "encoding") or option(options, "charset")
                   or "utf-8", option_bool(options, "multiLine"), mode,
                   option(options, "columnNameOfCorruptRecord", "_corrupt_record") or "_corrupt_record", parse)


def malformed_error(record: str) -> SparkRuntimeException:
    """FAILFAST's error for one malformed record."""
    return SparkRuntimeException(
        f"Malformed records are detected in record parsing: {record!r}. Parse Mode: FAILFAST. "
        "To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.",
        "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION", {"badRecord": record, "failFastMode": "FAILFAST"})


@dataclass
class _Tokens:
    """A split's records as string columns (null where ``nullValue``)."""

    columns: list[pa.Array]
    mismatch: pa.Array | None  # True where a record had another token count
    lines: list[str] | None  # each record's text, when tokenized line by line


def _decode(data: bytes, opts: CsvOptions) -> str:
    return data.decode(opts.encoding, errors="replace")


def _fast_tokens(data: bytes, width: int | None, skip_header: bool, opts: CsvOptions) -> _Tokens | None:
    """pyarrow's tokenization, or ``None`` when a record has another token count or the dialect needs Python."""
    if opts.comment or opts.line_sep or len(opts.sep) != 1 or len(opts.quote) != 1 or len(opts.escape) != 1:
        return None
    if opts.escape not in ("\0", opts.quote) and opts.escape.encode() in data:
        return None  # pyarrow honours the escape outside quotes too: Spark only inside them
    bad: list[int] = []

    def on_invalid(row: Any) -> str:
        bad.append(1)
        return "skip"

    names = None if width is None else [f"c{i}" for i in range(width)]
    read = pacsv.ReadOptions(column_names=names, autogenerate_column_names=names is None,
                             skip_rows=1 if skip_header else 0, use_threads=False, block_size=1 << 24)
    parse = pacsv.ParseOptions(delimiter=opts.sep, quote_char=False if opts.quote == "\0" else opts.quote,
                               double_quote=True,
                               escape_char=False if opts.escape in ("\0", opts.quote) else opts.escape,
                               newlines_in_values=opts.multi_line, ignore_empty_lines=True,
                               invalid_row_handler=on_invalid)
    if opts.encoding.lower().replace("-", "") not in ("utf8",):
        data = _decode(data, opts).encode("utf-8")
    try:
        table = pacsv.read_csv(io.BytesIO(data), read, parse, pacsv.ConvertOptions(
            column_types={n: pa.string() for n in names} if names else None, null_values=[""],
            # A quoted "" stays a string: it is emptyValue, not null (see _cleaned).
            strings_can_be_null=True, quoted_strings_can_be_null=False, check_utf8=False,
            auto_dict_encode=False, include_columns=None))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if bad or (width is not None and table.num_columns != width):
        return None
    columns = [c.combine_chunks().cast(pa.string()) for c in table.columns]
    if not opts.multi_line and opts.quote.encode() in data and any(
            pc.any(pc.match_substring_regex(c, "[\r\n]")).as_py() for c in columns):
        return None  # pyarrow read a quoted line break as part of the field: Spark ends the record there
    return _Tokens(_cleaned([_valid_utf8(c) for c in columns], opts), None, None)


def _cleaned(columns: list[pa.Array], opts: CsvOptions) -> list[pa.Array]:
    """Tokens as Spark's converters see them: trimmed if asked, ``""`` (a quoted empty field)
    as ``emptyValue``, then ``nullValue`` as null. Unquoted empty fields come in as null."""
    out = []
    for column in columns:
        if opts.trim_leading:
            column = pc.utf8_ltrim_whitespace(column)
        if opts.trim_trailing:
            column = pc.utf8_rtrim_whitespace(column)
        if opts.empty_value:
            column = pc.if_else(pc.equal(column, ""), pa.scalar(opts.empty_value, pa.string()), column)
        column = pc.if_else(pc.equal(column, opts.null_value), pa.scalar(None, pa.string()), column)
        out.append(column)
    return out


def _valid_utf8(column: pa.Array) -> pa.Array:
    try:
        column.validate(full=True)
        return column
    except pa.ArrowInvalid:
        values = [None if v is None else v.decode("utf-8", "replace") for v in column.cast(pa.binary()).to_pylist()]
        return pa.array(values, pa.string())


def _record_lines(text: str, opts: CsvOptions) -> list[str]:
    if opts.multi_line:
        lines = [text]
    else:
        lines = text.split(opts.line_sep) if opts.line_sep else text.splitlines()
    skip = opts.comment
    return [ln for ln in lines if ln.strip() and not (skip and ln.startswith(skip))]


def split_record(line: str, opts: CsvOptions) -> list[str | None]:
    """One record's fields as Spark's CSV parser splits them: the escape character escapes only
    inside a quoted field (``"a\\"b"`` is ``a"b``); outside quotes it is an ordinary character
    (``C:\\dir`` stays as written), and a doubled quote inside quotes is one quote. An unquoted
    empty field is ``None``, a quoted one ``""``."""
    sep, quote, escape = opts.sep, opts.quote, opts.escape
    fields: list[str | None] = []
    i, n = 0, len(line)
    while True:
        if i < n and line[i] == quote:
            i += 1
            chars: list[str] = []
            while i < n:
                ch = line[i]
                if ch == escape and i + 1 < n and line[i + 1] in (quote, escape):
                    chars.append(line[i + 1])
                    i += 2
                elif ch == quote and i + 1 < n and line[i + 1] == quote:
                    chars.append(quote)
                    i += 2
                elif ch == quote:
                    i += 1
                    break
                else:
                    chars.append(ch)
                    i += 1
            end = line.find(sep, i)
            end = n if end < 0 else end
            chars.append(line[i:end])  # text after the closing quote is kept, as Spark keeps it
            fields.append("".join(chars))
        else:
            end = line.find(sep, i)
            end = n if end < 0 else end
            fields.append(line[i:end] if end > i else None)
        if end >= n:
            return fields
        i = end + len(sep)


def _python_tokens(data: bytes, width: int | None, skip_header: bool, opts: CsvOptions) -> _Tokens:
    """Line-by-line tokenization with :mod:`csv` (each physical line one record unless multiLine)."""
    text = _decode(data, opts)
    dialect: dict[str, Any] = {"delimiter": opts.sep, "quotechar": opts.quote if opts.quote != "\0" else None,
               "escapechar": opts.escape if opts.escape not in ("\0", opts.quote) else None, "doublequote": True,
               "quoting": csv.QUOTE_MINIMAL if opts.quote != "\0" else csv.QUOTE_NONE, "strict": False}
    records: list[list[str | None]]
    lines: list[str]
    if opts.multi_line:
        source = [ln for ln in io.StringIO(text, newline="")]
        parsed = [r for r in csv.reader(source, **dialect) if r and any(x.strip() for x in r)]
        if opts.comment:
            parsed = [r for r in parsed if not r[0].startswith(opts.comment)]
        lines = [opts.sep.join(r) for r in parsed]
        records = [[x or None for x in r] for r in parsed]
    else:
        lines = _record_lines(text, opts)
        if opts.escape not in ("\0", opts.quote) and opts.quote != "\0":
            records = [split_record(ln, opts) for ln in lines]
        else:
            # csv does not tell a quoted empty field from an unquoted one: both null.
            records = [[x or None for x in next(csv.reader([ln], **dialect), [])] for ln in lines]
    if skip_header and records:
        records, lines = records[1:], lines[1:]
    if width is None:
        width = len(records[0]) if records else 0
    cols: list[list[str | None]] = [[] for _ in range(width)]
    mismatch = []
    for record in records:
        mismatch.append(len(record) != width)
        for i in range(width):
            cols[i].append(record[i] if i < len(record) else None)
    mask = pa.array(mismatch, pa.bool_())
    return _Tokens(_cleaned([pa.array(c, pa.string()) for c in cols], opts), mask if any(mismatch) else None, lines)


def _without_bom(data: bytes) -> bytes:
    # A UTF-8 byte order mark opens some files (Excel's); it is not part of the first field.
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _tokens(data: bytes, width: int | None, skip_header: bool, opts: CsvOptions) -> _Tokens:
    data = _without_bom(data)
    fast = _fast_tokens(data, width, skip_header, opts)
    return fast if fast is not None else _python_tokens(data, width, skip_header, opts)


def _chunks(batch: pa.RecordBatch, size: int = 1 << 16) -> Iterator[pa.RecordBatch]:
    if batch.num_rows <= size:
        yield batch
        return
    for start in range(0, batch.num_rows, size):
        yield batch.slice(start, size)


def _safe_header(names: Sequence[str | None]) -> list[str]:
    """Spark's header names: empty ones ``_c<i>``, duplicates (case-insensitively) suffixed with their index."""
    lowered = [(n or "").lower() for n in names]
    out = []
    for i, name in enumerate(names):
        if not name:
            out.append(f"_c{i}")
        elif lowered.count(name.lower()) > 1:
            out.append(f"{name}{i}")
        else:
            out.append(name)
    return out


class CsvFormat(FileFormat):
    """Comma-separated values (``spark.read.csv``)."""

    name = "csv"
    text_intervals = True
    title = "CSV"
    extension = "csv"

    def splittable_with(self, options: Mapping[str, Any]) -> bool:
        """CSV splits by byte ranges unless ``multiLine`` (quoted newlines cross any boundary) or
        ``lineSep`` (splits end at line breaks)."""
        return not option_bool(options, "multiLine") and CsvOptions.of(options).line_sep is None

    def _header(self, path: str, opts: CsvOptions) -> list[str]:
        if codec_of(path):
            data = read_line_range(FileSplit(path))
        else:
            with open(path, "rb") as handle:
                data = handle.read(1 << 20) if not opts.multi_line else handle.read()
        tokens = _python_tokens(_without_bom(data), None, False, opts)
        if not tokens.columns or len(tokens.columns[0]) == 0:
            return []
        return [c[0].as_py() for c in tokens.columns]

    def _infer_data_schema(self, files: Sequence[str], options: Mapping[str, Any]) -> pa.Schema:
        opts = CsvOptions.of(options)
        infer = option_bool(options, "inferSchema")
        first = next((f for f in files if self._header(f, opts)), None)
        if first is None:
            return pa.schema([])
        head = self._header(first, opts)
        names = _safe_header(head) if opts.header else [f"_c{i}" for i in range(len(head))]
        if not infer:
            return pa.schema([pa.field(n, pa.string()) for n in names])
        types: list[pa.DataType] = [pa.null()] * len(names)
        for path in files:
            found = self.infer_types(read_line_range(FileSplit(path)), len(names), opts.header, options)
            types = [merge_types(t, u) for t, u in zip(types, found)]
        return self.inferred_schema(names, types)

    def infer_types(self, data: bytes, width: int, skip_header: bool, options: Mapping[str, Any]) -> list[pa.DataType]:
        """The type each of the ``width`` columns of ``data``'s records infers (``null`` when all are
        null); merge results with :func:`~dstream.sql.io.strconv.merge_types`."""
        opts = CsvOptions.of(options)
        tokens = _tokens(data, width, skip_header, opts)
        types: list[pa.DataType] = [pa.null()] * width
        for i, column in enumerate(tokens.columns):
            types[i] = infer_column(column, opts.parse)
        return types

    @staticmethod
    def inferred_schema(names: Sequence[str], types: Sequence[pa.DataType]) -> pa.Schema:
        """The schema inference ends with: columns no value typed are strings."""
        return pa.schema([pa.field(n, pa.string() if pa.types.is_null(t) else t) for n, t in zip(names, types)])

    @staticmethod
    def header_names(line: str, options: Mapping[str, Any]) -> list[str]:
        """The column names a first record gives: its fields with ``header``, else ``_c0``, ``_c1``..."""
        opts = CsvOptions.of(options)
        head = _python_tokens(line.encode(opts.encoding, errors="replace"), None, False, opts).columns
        fields = [c[0].as_py() if len(c) else None for c in head]
        return _safe_header(fields) if opts.header else [f"_c{i}" for i in range(len(fields))]

    def _read_data(self, split: FileSplit, schema: pa.Schema, columns: Sequence[str], options: Mapping[str, Any],
                   filters: Sequence[Filter] | None) -> Iterator[pa.RecordBatch]:
        header = CsvOptions.of(options).header and split.start == 0
        yield from self.read_bytes(read_line_range(split), schema, options, header)

    def read_bytes(self, data: bytes, schema: pa.Schema, options: Mapping[str, Any],
                   skip_header: bool) -> Iterator[pa.RecordBatch]:
        """The records of ``data`` as batches of ``schema`` (the first one skipped if ``skip_header``)."""
        opts = CsvOptions.of(options)
        corrupt = opts.corrupt_column if opts.corrupt_column in schema.names else None
        data_fields = [f for f in schema if f.name != corrupt]
        tokens = _tokens(data, len(data_fields), skip_header, opts)
        batch = self._convert(tokens, data_fields, schema, corrupt, opts)
        if batch is None:
            # A malformed record whose text is needed: tokenize again line by line.
            tokens = _python_tokens(data, len(data_fields), skip_header, opts)
            batch = self._convert(tokens, data_fields, schema, corrupt, opts)
        assert batch is not None
        yield from _chunks(batch)

    def _convert(self, tokens: _Tokens, data_fields: list[pa.Field], schema: pa.Schema, corrupt: str | None,
                 opts: CsvOptions) -> pa.RecordBatch | None:
        arrays: list[pa.Array] = []
        bad = tokens.mismatch
        for fld, strings in zip(data_fields, tokens.columns):
            array, failed = parse_column(strings, fld.type, opts.parse)
            arrays.append(array)
            if failed is not None:
                bad = failed if bad is None else pc.or_(bad, failed)
        rows = len(tokens.columns[0]) if tokens.columns else (len(tokens.lines) if tokens.lines is not None else 0)
        by_name = {f.name: a for f, a in zip(data_fields, arrays)}
        if bad is not None and opts.mode != "PERMISSIVE" or (bad is not None and corrupt):
            if tokens.lines is None:
                return None
        if bad is not None and opts.mode == "FAILFAST":
            first = pc.index(bad, True).as_py()
            raise malformed_error(tokens.lines[first] if tokens.lines is not None else "")
        if corrupt:
            texts = pa.array(tokens.lines if tokens.lines is not None else [None] * rows, pa.string())
            by_name[corrupt] = pc.if_else(bad, texts, pa.scalar(None, pa.string())) if bad is not None \
                else pa.nulls(rows, pa.string())
        batch = pa.RecordBatch.from_arrays([by_name[f.name].cast(f.type) for f in schema], schema=schema)
        if bad is not None and opts.mode == "DROPMALFORMED":
            batch = batch.filter(pc.invert(bad))
        return batch
