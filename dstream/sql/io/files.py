"""Input files of the file sources: listing, ``k=v`` partition discovery, splits and byte ranges.

What this module owns
---------------------
* Which files a read sees (:func:`list_input_files`): plain files, directories (their
  visible files, and the files of their ``k=v`` partition directories, or of every
  subdirectory with ``recursiveFileLookup``), globs, kept only when their name matches
  ``pathGlobFilter`` if given. Names starting with ``_`` or ``.`` are hidden, as Spark's
  file index hides them (``_SUCCESS``, ``_temporary``, ``.crc`` files). A directory
  written by a streaming file sink (it has ``_spark_metadata``) contributes only the
  files of its manifest.
* Partition discovery (:func:`partition_values`, :func:`partition_schema`): the trailing
  ``k=v`` directories of each file, value types inferred int -> bigint -> double -> date ->
  string and widened across files; ``__HIVE_DEFAULT_PARTITION__`` is null.
* :class:`FileSplit`, the unit of work shipped to a task, and byte ranges aligned to line
  starts (:func:`read_line_range`), so a text file splits into several partitions. A
  file named ``.gz``, ``.bz2`` or ``.deflate`` is read decompressed, as one split.

Invariants
----------
* Splits of one file cover it exactly once: a byte range ``[start, end)`` owns the lines
  that *start* inside it, so the lines read by all ranges of a file are its lines, each once,
  in order.
* Everything here is picklable plain data; nothing holds an open file between calls.
"""

from __future__ import annotations

import datetime
import glob
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

import pyarrow as pa

from rdd.engine_api import codec_of, parse_boolean, parse_size, read_compressed

from dstream.sql.errors import AnalysisException, IllegalArgumentException
from dstream.sql.io.manifest import has_manifest, manifest_files

__all__ = [
    "FileSplit",
    "DEFAULT_MAX_PARTITION_BYTES",
    "HIVE_DEFAULT_PARTITION",
    "discovers_partitions",
    "list_input_files",
    "partition_values",
    "partition_schema",
    "partition_columns",
    "max_partition_bytes",
    "option_bool",
    "byte_ranges",
    "read_line_range",
]

#: Spark's ``spark.sql.files.maxPartitionBytes`` default: the largest byte range one task reads.
DEFAULT_MAX_PARTITION_BYTES = 128 * 1024 * 1024
#: The directory value of a null partition value.
HIVE_DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"

_GLOB_CHARS = re.compile(r"[*?\[{]")
_PARTITION_DIR = re.compile(r"^([^=/]+)=(.*)$")


@dataclass(frozen=True)
class FileSplit:
    """One task's share of the input: a file, a byte range or a range of Parquet row groups.

    Parameters
    ----------
    path : str
        The file.
    start : int
        First byte of the range (text formats).
    length : int
        Bytes in the range; ``-1`` means to the end of the file.
    row_groups : tuple of int, optional
        The Parquet row groups of this split, ``None`` for all.
    partition : tuple of (str, str | None)
        The raw ``k=v`` values of the file's partition directories.
    """

    path: str
    start: int = 0
    length: int = -1
    row_groups: tuple[int, ...] | None = None
    partition: tuple[tuple[str, str | None], ...] = field(default_factory=tuple)

    @property
    def whole_file(self) -> bool:
        """Whether the split reads the whole file."""
        return self.start == 0 and self.length < 0 and self.row_groups is None


def _not_found(path: str) -> AnalysisException:
    return AnalysisException(f"Path does not exist: file:{os.path.abspath(path)}.", "PATH_NOT_FOUND",
                             {"path": f"file:{os.path.abspath(path)}"})


def _hidden(name: str) -> bool:
    return name.startswith(("_", ".")) and "=" not in name or name.startswith(".")


def _expand_glob(pattern: str) -> list[str]:
    # Spark's globs accept {a,b} alternatives, which the glob module lacks.
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match:
        out: list[str] = []
        for alt in match.group(1).split(","):
            out.extend(_expand_glob(pattern[:match.start()] + alt + pattern[match.end():]))
        return out
    return glob.glob(pattern)


def _list_dir(directory: str, out: list[str], recursive: bool = False) -> None:
    for name in sorted(os.listdir(directory)):
        if _hidden(name):
            continue
        full = os.path.join(directory, name)
        if os.path.isdir(full):
            # Only partition directories are entered, unless the lookup is recursive.
            if recursive or _PARTITION_DIR.match(name):
                _list_dir(full, out, recursive)
        else:
            out.append(full)


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Hadoop's ``GlobFilter`` syntax (``*``, ``?``, ``[a-z]``, ``[^a]``, ``{a,b}``, ``\\x``) as a regex."""
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("^", "!") else i + 1)
            if end < 0:
                raise IllegalArgumentException(f"Invalid pathGlobFilter '{pattern}': unclosed character class "
                                               f"at position {i}.")
            body = pattern[i + 1:end]
            out.append("[" + ("^" + body[1:] if body[:1] in ("^", "!") else body) + "]")
            i = end
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(c))
        i += 1
    if depth:
        raise IllegalArgumentException(f"Invalid pathGlobFilter '{pattern}': unclosed group.")
    return re.compile("".join(out), re.DOTALL)


def list_input_files(paths: Iterable[str], options: Mapping[str, object] | None = None) -> list[str]:
    """The data files a read of ``paths`` sees, in a stable order.

    Parameters
    ----------
    paths : iterable of str
        Files, directories or glob patterns (``*``, ``?``, ``[..]``, ``{a,b}``); a ``file:``
        prefix is accepted.
    options : mapping, optional
        The reader's options: ``pathGlobFilter`` keeps only the files whose name matches
        that glob; ``recursiveFileLookup`` lists every subdirectory (and turns partition
        discovery off, see :func:`discovers_partitions`).

    Returns
    -------
    list of str
        Absolute file paths; a directory contributes its visible files and those of its
        ``k=v`` subdirectories, or, when a streaming file sink writes it, the files its
        ``_spark_metadata`` manifest lists (a part file of a failed attempt is not there).

    Raises
    ------
    AnalysisException
        ``PATH_NOT_FOUND`` for a path (or a glob) that matches nothing.
    """
    options = options or {}
    recursive = option_bool(options, "recursiveFileLookup", False)
    name_filter = option(options, "pathGlobFilter")
    keep = _glob_regex(name_filter).fullmatch if name_filter else None
    out: list[str] = []
    for raw in paths:
        path = raw[len("file:"):] if raw.startswith("file:") else raw
        path = os.path.expanduser(path)
        globbed = bool(_GLOB_CHARS.search(path))
        matches = sorted(_expand_glob(path)) if globbed else [path]
        matches = [m for m in matches if os.path.exists(m)]
        if not matches:
            raise _not_found(path)
        for match in matches:
            if not globbed and has_manifest(match):
                # As Spark, only a directory named literally is read through its manifest.
                out.extend(manifest_files(match))
            elif os.path.isdir(match):
                _list_dir(match, out, recursive)
            else:
                out.append(match)
    if keep is not None:
        out = [p for p in out if keep(os.path.basename(p))]
    return [os.path.abspath(p) for p in out]


def discovers_partitions(options: Mapping[str, object]) -> bool:
    """Whether ``k=v`` directories become partition columns: not with ``recursiveFileLookup`` (as Spark)."""
    return not option_bool(options, "recursiveFileLookup", False)


def partition_values(path: str, base_path: str | None = None) -> tuple[tuple[str, str | None], ...]:
    """The raw ``k=v`` values of a file's partition directories, outermost first.

    Parameters
    ----------
    path : str
        A data file.
    base_path : str, optional
        The table's root (Spark's ``basePath`` option); directories at or above it are not
        partitions. Without it the trailing run of ``k=v`` directories counts.

    Returns
    -------
    tuple of (name, value)
        ``value`` is unescaped (``%2F`` -> ``/``); ``None`` for ``__HIVE_DEFAULT_PARTITION__``.
    """
    parent = os.path.dirname(os.path.abspath(path))
    stop = os.path.abspath(base_path) if base_path else None
    found: list[tuple[str, str | None]] = []
    while parent and parent != os.path.dirname(parent) and parent != stop:
        match = _PARTITION_DIR.match(os.path.basename(parent))
        if not match:
            break
        value = unquote(match.group(2))
        found.append((unquote(match.group(1)), None if value == HIVE_DEFAULT_PARTITION else value))
        parent = os.path.dirname(parent)
    return tuple(reversed(found))


_INT_RE = re.compile(r"^[+-]?[0-9]+$")
_DOUBLE_RE = re.compile(r"^[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)[fFdD]?$")
_DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
# The widening order of partition value types; anything else meets at string.
_PARTITION_ORDER = [pa.int32(), pa.int64(), pa.float64()]


def _infer_partition_type(value: str | None) -> pa.DataType:
    if value is None:
        return pa.null()
    if _INT_RE.match(value):
        number = int(value)
        if -2**31 <= number < 2**31:
            return pa.int32()
        if -2**63 <= number < 2**63:
            return pa.int64()
        return pa.float64()
    if _DOUBLE_RE.match(value):
        return pa.float64()
    if _DATE_RE.match(value):
        try:
            datetime.date.fromisoformat(value)
            return pa.date32()
        except ValueError:
            return pa.string()
    return pa.string()


def _widen(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    if a == b or pa.types.is_null(b):
        return a
    if pa.types.is_null(a):
        return b
    if a in _PARTITION_ORDER and b in _PARTITION_ORDER:
        return max(a, b, key=_PARTITION_ORDER.index)
    return pa.string()


def partition_columns(files: Iterable[str], base_path: str | None = None) -> list[str]:
    """The partition column names shared by ``files`` (empty when there are none).

    Raises
    ------
    AnalysisException
        When files sit under different partition column names (``a=1/x`` and ``b=2/y``).
    """
    names: list[str] | None = None
    for path in files:
        these = [k for k, _ in partition_values(path, base_path)]
        if names is None:
            names = these
        elif these != names:
            raise AnalysisException(
                f"Conflicting partition column names detected: {names} and {these} (file {path}). "
                "Partition directories of one table must have the same column names in the same order; "
                "read the directories separately or set the option basePath.",
                "CONFLICTING_PARTITION_COLUMN_NAMES", {"names": f"{names}, {these}"})
    return names or []


def partition_schema(files: Iterable[str], base_path: str | None = None) -> pa.Schema:
    """The Arrow schema of the partition columns of ``files``, types widened across files.

    A column null in every file is a string column, as Spark types it.
    """
    files = list(files)
    names = partition_columns(files, base_path)
    types: list[pa.DataType] = [pa.null()] * len(names)
    for path in files:
        for i, (_, value) in enumerate(partition_values(path, base_path)):
            types[i] = _widen(types[i], _infer_partition_type(value))
    return pa.schema([pa.field(n, pa.string() if pa.types.is_null(t) else t) for n, t in zip(names, types)])


def option_bool(options: Mapping[str, object], name: str, default: bool = False) -> bool:
    """A boolean reader option (``"true"``/``"false"`` in any case, or a bool), by case-insensitive name."""
    for key, value in options.items():
        if key.lower() == name.lower():
            if value is None:
                return default
            # The same rule as boolean settings: true/false in any case, else a ConfigError
            # naming the option.
            return parse_boolean(name, value if isinstance(value, bool) else str(value).strip(), default)
    return default


def option(options: Mapping[str, object], name: str, default: str | None = None) -> str | None:
    """A reader option's text by case-insensitive name (Spark's options are case-insensitive)."""
    for key, value in options.items():
        if key.lower() == name.lower():
            return None if value is None else str(value)
    return default


def max_partition_bytes(options: Mapping[str, object]) -> int:
    """The split size: option ``maxPartitionBytes`` or ``spark.sql.files.maxPartitionBytes``, else 128 MB."""
    text = option(options, "maxPartitionBytes") or option(options, "spark.sql.files.maxPartitionBytes")
    if text is None:
        return DEFAULT_MAX_PARTITION_BYTES
    # The same size rule as the spark.sql.files.maxPartitionBytes setting (a bare number is bytes).
    size = parse_size("maxPartitionBytes", text, "b")
    if size <= 0:
        raise AnalysisException(f"maxPartitionBytes must be a positive size such as 134217728 or 128m, got {text!r}.",
                                "INVALID_PARAMETER_VALUE", {"option": "maxPartitionBytes", "value": text})
    return size


def byte_ranges(path: str, split_bytes: int, partition: tuple[tuple[str, str | None], ...] = ()) -> list[FileSplit]:
    """The byte-range splits of one file, each at most ``split_bytes`` (one split for an empty
    or a compressed file)."""
    size = os.path.getsize(path)
    if size <= split_bytes or codec_of(path):
        return [FileSplit(path, 0, -1, None, partition)]
    return [FileSplit(path, start, min(split_bytes, size - start), None, partition)
            for start in range(0, size, split_bytes)]


_CHUNK = 1 << 16


def _line_start_at_or_after(handle: object, offset: int, size: int) -> int:
    """The first line start ``>= offset``: 0, or one past the first ``\\n`` at ``offset - 1`` or later."""
    if offset <= 0:
        return 0
    if offset >= size:
        return size
    pos = offset - 1
    handle.seek(pos)  # type: ignore[attr-defined]
    while True:
        chunk: bytes = handle.read(_CHUNK)  # type: ignore[attr-defined]
        if not chunk:
            return size
        found = chunk.find(b"\n")
        if found >= 0:
            return pos + found + 1
        pos += len(chunk)


def read_line_range(split: FileSplit) -> bytes:
    """The bytes of the whole lines that start inside the split's byte range.

    A whole-file split returns the file. Line boundaries are ``\\n`` (which also ends
    ``\\r\\n``), so a range never cuts a line in two.
    """
    codec = codec_of(split.path)
    if codec:  # .gz, .bz2, .deflate: one split, decompressed whole (as Hadoop's codecs)
        return read_compressed(split.path, codec)
    with open(split.path, "rb") as handle:
        if split.start == 0 and split.length < 0:
            return handle.read()
        size = os.fstat(handle.fileno()).st_size
        end = size if split.length < 0 else split.start + split.length
        begin = _line_start_at_or_after(handle, split.start, size)
        stop = _line_start_at_or_after(handle, end, size)
        if stop <= begin:
            return b""
        handle.seek(begin)
        return handle.read(stop - begin)
