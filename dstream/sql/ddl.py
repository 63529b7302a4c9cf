"""The grammar of Spark's DDL type strings: text to a small syntax tree of plain tuples.

What this module owns
---------------------
Tokenizing and parsing ``"a int, b string"`` (a table schema), ``"array<map<string,int>>"``
(one data type) and ``struct<a: int>`` fields, as Spark's SQL parser accepts them: keywords
and type names case-insensitive, backquoted names, ``NOT NULL`` and ``COMMENT '...'`` on
fields, ``decimal(p,s)``. :mod:`dstream.sql.types` turns the tree into DataType objects;
this module knows no DataType class, so the two modules import in one direction only.

Invariants
----------
* Trees are tuples: ``("atomic", name)`` with ``name`` a canonical simpleString (``int``,
  ``bigint``...), ``("decimal", precision, scale)``, ``("array", tree)``,
  ``("map", key_tree, value_tree)``, ``("struct", [(name, tree, nullable, comment), ...])``.
* Every failure is a ParseException whose message quotes the text and marks the position.
"""

from __future__ import annotations

import re
from typing import Any

from dstream.sql.errors import ParseException

__all__ = ["parse_table_schema", "parse_data_type", "parse_schema_or_type", "Field"]

Field = tuple[str, Any, bool, "str | None"]

# Each alias Spark's parser accepts, by the canonical simpleString it means.
_ATOMIC_ALIASES: dict[str, str] = {
    "boolean": "boolean", "tinyint": "tinyint", "byte": "tinyint", "smallint": "smallint", "short": "smallint",
    "int": "int", "integer": "int", "bigint": "bigint", "long": "bigint", "float": "float", "real": "float",
    "double": "double", "date": "date", "timestamp": "timestamp", "timestamp_ltz": "timestamp",
    "timestamp_ntz": "timestamp_ntz", "string": "string", "binary": "binary", "void": "void",
    "variant": "variant",
}
_DECIMAL_NAMES = frozenset({"decimal", "dec", "numeric"})
# char(n)/varchar(n): their own types, which data holds as strings.
_CHAR_NAMES = {"char": "char", "character": "char", "varchar": "varchar"}

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<quoted>`(?:[^`]|``)*`)
  | (?P<number>\d+)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<punct>[<>(),:])
""", re.VERBOSE)


class _Parser:
    """A recursive-descent parser over one text; positions are kept for error messages."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                self.tokens.append(("bad", text[pos], pos))
                break
            kind = m.lastgroup or ""
            if kind != "ws":
                self.tokens.append((kind, m.group(), pos))
            pos = m.end()
        self.i = 0

    def peek(self) -> tuple[str, str, int]:
        if self.i < len(self.tokens):
            return self.tokens[self.i]
        return ("eof", "", len(self.text))

    def next(self) -> tuple[str, str, int]:
        tok = self.peek()
        self.i += 1
        return tok

    def fail(self, tok: tuple[str, str, int] | None = None) -> ParseException:
        kind, value, pos = tok if tok is not None else self.peek()
        near = "end of input" if kind == "eof" else f"'{value}'"
        return ParseException(f"Syntax error at or near {near}.{self._where(pos)}", "PARSE_SYNTAX_ERROR",
                              {"error": near, "hint": ""})

    def _where(self, pos: int) -> str:
        # Spark's parser errors quote the text and point at the offending position.
        return f"(line 1, pos {pos})\n\n== SQL ==\n{self.text}\n{'-' * pos}^^^\n"

    def expect(self, value: str) -> None:
        tok = self.next()
        if tok[1] != value or tok[0] not in ("punct", "ident"):
            raise self.fail(tok)

    def keyword(self, word: str) -> bool:
        kind, value, _ = self.peek()
        if kind == "ident" and value.lower() == word:
            self.i += 1
            return True
        return False

    def at_end(self) -> None:
        if self.peek()[0] != "eof":
            raise self.fail()

    def identifier(self) -> str:
        kind, value, _ = tok = self.next()
        if kind == "ident":
            return value
        if kind == "quoted":
            return value[1:-1].replace("``", "`")
        raise self.fail(tok)

    def integer(self) -> int:
        tok = self.next()
        if tok[0] != "number":
            raise self.fail(tok)
        return int(tok[1])

    def data_type(self) -> Any:
        kind, value, pos = tok = self.next()
        if kind != "ident":
            raise self.fail(tok)
        name = value.lower()
        if name in _ATOMIC_ALIASES:
            return ("atomic", _ATOMIC_ALIASES[name])
        if name in _DECIMAL_NAMES:
            return self._decimal()
        if name in _CHAR_NAMES:
            self.expect("(")
            length = self.integer()
            self.expect(")")
            return (_CHAR_NAMES[name], length)
        if name == "array":
            self.expect("<")
            element = self.data_type()
            self.expect(">")
            return ("array", element)
        if name == "map":
            self.expect("<")
            key = self.data_type()
            self.expect(",")
            value_type = self.data_type()
            self.expect(">")
            return ("map", key, value_type)
        if name == "struct":
            return self._struct()
        if name == "interval":
            return self._interval(pos)
        raise ParseException(f'Unsupported data type "{value.upper()}".{self._where(pos)}', "UNSUPPORTED_DATATYPE",
                             {"typeName": f'"{value.upper()}"'})

    def _interval(self, pos: int) -> Any:
        # ANSI intervals: "interval day to second", "interval hour", "interval year to month",
        # "interval month"; the bare "interval" is the calendar interval.
        start = self.peek()[1].lower()
        if start not in ("year", "month", "day", "hour", "minute", "second"):
            return ("atomic", "interval")  # the calendar interval (make_interval's)
        kind, fields = ("ym_interval", ("year", "month")) if start in ("year", "month") \
            else ("interval", ("day", "hour", "minute", "second"))
        self.next()
        end = start
        if self.peek()[1].lower() == "to":
            self.next()
            _, value, at = self.next()
            end = value.lower()
            if end not in fields or fields.index(end) < fields.index(start):
                raise ParseException(f"Invalid interval type INTERVAL {start.upper()} TO {value.upper()}: the end "
                                     f"field must be one of {', '.join(f.upper() for f in fields)}, no wider than "
                                     f"the start.{self._where(at)}", "UNSUPPORTED_DATATYPE",
                                     {"typeName": '"INTERVAL"'})
        return (kind, fields.index(start), fields.index(end))

    def _decimal(self) -> Any:
        if self.peek()[1] != "(":
            return ("decimal", 10, 0)
        self.next()
        precision = self.integer()
        scale = 0
        if self.peek()[1] == ",":
            self.next()
            scale = self.integer()
        self.expect(")")
        return ("decimal", precision, scale)

    def _struct(self) -> Any:
        self.expect("<")
        fields: list[Field] = []
        if self.peek()[1] == ">":
            self.next()
            return ("struct", fields)
        while True:
            fields.append(self.field(colon_allowed=True))
            tok = self.next()
            if tok[1] == ">" and tok[0] == "punct":
                return ("struct", fields)
            if tok[1] != "," or tok[0] != "punct":
                raise self.fail(tok)

    def field(self, colon_allowed: bool) -> Field:
        name = self.identifier()
        if colon_allowed and self.peek()[1] == ":" and self.peek()[0] == "punct":
            self.next()
        tree = self.data_type()
        nullable = True
        comment = None
        if self.keyword("not"):
            if not self.keyword("null"):
                raise self.fail()
            nullable = False
        if self.keyword("comment"):
            tok = self.next()
            if tok[0] != "string":
                raise self.fail(tok)
            comment = re.sub(r"\\(.)", r"\1", tok[1][1:-1])
        return (name, tree, nullable, comment)


def parse_table_schema(text: str) -> list[Field]:
    """The fields of a table schema ``"a int, b string not null comment 'x'"`` (no colons, as Spark's ``fromDDL``).

    Raises
    ------
    ParseException
        When the text is not a comma-separated list of ``name type`` columns.
    """
    parser = _Parser(text)
    fields = [parser.field(colon_allowed=False)]
    while parser.peek()[1] == "," and parser.peek()[0] == "punct":
        parser.next()
        fields.append(parser.field(colon_allowed=False))
    parser.at_end()
    return fields


def parse_schema_or_type(text: str) -> Any:
    """The tree of a table schema, else of one type, else of ``name: type`` pairs (PySpark's order).

    Raises the table schema's ``ParseException`` when none of the three reads the text.
    """
    try:
        return ("struct", parse_table_schema(text))
    except ParseException as schema_error:
        try:
            return parse_data_type(text)
        except ParseException:
            try:
                return parse_data_type(f"struct<{text.strip()}>")
            except ParseException:
                raise schema_error from None


def parse_data_type(text: str) -> Any:
    """The tree of one data type (``"int"``, ``"array<int>"``, ``"struct<a: int, b string>"``).

    Raises
    ------
    ParseException
        When the text is not exactly one data type.
    """
    parser = _Parser(text)
    tree = parser.data_type()
    parser.at_end()
    return tree
