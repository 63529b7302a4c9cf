"""The token cursor under the SQL parsers: position, look-ahead, identifiers and data types.

What this module owns
---------------------
:class:`TokenCursor`, the moves every grammar rule is made of (``accept``/``expect`` of
keywords and operators, identifiers, Spark's ``extra input`` check at the end) and the
data-type rule of ``CAST(x AS type)`` and ``x::type``, which it returns as normalised DDL
text (``decimal(10,2)``, ``array<string>``) for ``Column.cast``. Also the keyword sets that
decide where a word is a name and where it ends an expression.

Invariants
----------
* The cursor never moves past the final ``EOF`` token.
* Type names are Spark's, aliases folded (``long`` -> ``bigint``, ``varchar(n)`` -> ``string``).
"""

from __future__ import annotations

import re

from dstream.sql.errors import ParseException
from dstream.sql.parser.lexer import Token, syntax_error, tokenize

__all__ = ["TokenCursor", "EXPRESSION_RESERVED", "ALIAS_RESERVED", "STRICT_NON_RESERVED", "ENDS_OPERAND"]

#: Words that end an expression: after an operand, a clause or an operator starts with them.
#: Any word can still be a column name where an operand starts (Spark's default keeps no
#: keyword reserved, spark.sql.ansi.enforceReservedKeywords=false): ``SELECT order FROM t``.
EXPRESSION_RESERVED = frozenset({
    "AND", "OR", "NOT", "IS", "IN", "BETWEEN", "LIKE", "ILIKE", "RLIKE", "REGEXP", "CASE", "WHEN", "THEN",
    "ELSE", "END", "FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "SELECT", "AS", "ON", "JOIN",
    "UNION", "DISTINCT", "ESCAPE", "ALL",
})

#: Words that end an expression rather than name it (``SELECT a FROM t``: FROM is no alias).
ALIAS_RESERVED = EXPRESSION_RESERVED | frozenset({
    "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "SEMI", "ANTI", "OUTER", "NATURAL", "USING", "ASC", "DESC",
    "NULLS", "LATERAL", "WINDOW", "OFFSET", "EXCEPT", "INTERSECT", "MINUS", "SORT", "CLUSTER", "DISTRIBUTE",
    "QUALIFY", "OVER", "FILTER", "TABLESAMPLE", "PIVOT", "UNPIVOT",
})

#: Keywords Spark never takes as a table alias (``FROM t left`` would read as a join); they
#: still name columns and tables (Spark's strictNonReserved).
STRICT_NON_RESERVED = frozenset({
    "ANTI", "CROSS", "EXCEPT", "FULL", "INNER", "INTERSECT", "JOIN", "LATERAL", "LEFT", "MINUS", "NATURAL",
    "ON", "RIGHT", "SEMI", "UNION", "USING",
})

#: Tokens after which a keyword stands alone: ``SELECT 1 order`` names the column ``order``.
ENDS_OPERAND = frozenset({",", ")", ";"})

_INTERVAL_FIELDS = ("year", "month", "day", "hour", "minute", "second")
_TYPE_NAMES = {
    "int": "int", "integer": "int", "bigint": "bigint", "long": "bigint", "smallint": "smallint",
    "short": "smallint", "tinyint": "tinyint", "byte": "tinyint", "float": "float", "real": "float",
    "double": "double", "string": "string", "boolean": "boolean", "binary": "binary", "date": "date",
    "timestamp": "timestamp", "timestamp_ltz": "timestamp", "timestamp_ntz": "timestamp_ntz", "void": "void",
    "variant": "variant",
    "decimal": "decimal", "dec": "decimal", "numeric": "decimal", "varchar": "string", "char": "string",
    "character": "string",
}

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class TokenCursor:
    """A cursor over the tokens of one text.

    Parameters
    ----------
    text : str
        The SQL text; tokenized on construction.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0

    # -- the cursor ------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        """The current token."""
        return self.tokens[self.i]

    def peek(self, k: int = 1) -> Token:
        """The token ``k`` places ahead (EOF past the end)."""
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
        """Consume and return the current token."""
        token = self.tokens[self.i]
        if token.kind != "EOF":
            self.i += 1
        return token

    def accept_word(self, *words: str) -> bool:
        """Consume the current token if it is one of the keywords ``words``."""
        if self.tok.is_word(*words):
            self.advance()
            return True
        return False

    def accept_op(self, *ops: str) -> bool:
        """Consume the current token if it is one of the operators ``ops``."""
        if self.tok.is_op(*ops):
            self.advance()
            return True
        return False

    def expect_word(self, *words: str) -> Token:
        """Consume one of the keywords ``words`` or fail at the current token."""
        if not self.tok.is_word(*words):
            raise syntax_error(self.tok)
        return self.advance()

    def expect_op(self, op: str) -> Token:
        """Consume the operator ``op`` or fail at the current token."""
        if not self.tok.is_op(op):
            raise syntax_error(self.tok)
        return self.advance()

    def expect_end(self, semicolons: bool = False) -> None:
        """Fail unless nothing (or, with ``semicolons``, only semicolons) remains: Spark's ``extra input``."""
        while semicolons and self.accept_op(";"):
            pass
        if self.tok.kind != "EOF":
            raise syntax_error(self.tok, f": extra input {self.tok.describe()}")

    def identifier(self) -> str:
        """An identifier: any word (keywords too, as Spark's default allows) or a backquoted name."""
        token = self.tok
        if token.kind in ("QUOTED", "WORD"):
            self.advance()
            return token.value
        raise syntax_error(token)

    def stands_alone(self, k: int = 1) -> bool:
        """Whether the token ``k`` places ahead ends what came before (end of text, ``,``, ``)``, ``;``)."""
        token = self.peek(k)
        return token.kind == "EOF" or (token.kind == "OP" and token.value in ENDS_OPERAND)

    def bare_alias(self, reserved: frozenset[str], before_from: bool = False) -> str | None:
        """An alias without AS here, consumed: a name, or a keyword of ``reserved`` that stands alone.

        ``SELECT a FROM t`` starts a clause at FROM, but ``SELECT 1 from`` names the column
        ``from``: a keyword is an alias only when nothing follows it, or (``before_from``, in a
        select list) FROM does (``SELECT case END FROM t`` names the column ``END``), as
        Spark's parser decides.
        """
        token = self.tok
        keyword_alias = self.stands_alone() or (before_from and self.peek().is_word("FROM")
                                                and not token.is_word("FROM"))
        if token.kind == "QUOTED" or (token.kind == "WORD" and (token.value.upper() not in reserved
                                                                or keyword_alias)):
            self.advance()
            return token.value
        return None

    def multipart_identifier(self) -> tuple[str, ...]:
        """``a.b.c`` as its parts."""
        parts = [self.identifier()]
        while self.tok.is_op(".") and self.peek().kind in ("WORD", "QUOTED"):
            self.advance()
            parts.append(self.identifier())
        return tuple(parts)

    # -- data types ------------------------------------------------------------------
    def _close_angle(self) -> None:
        """Consume one ``>``, splitting ``>>`` (``array<array<int>>``)."""
        token = self.tok
        if token.is_op(">"):
            self.advance()
        elif token.is_op(">>", ">>>"):
            self.tokens[self.i] = Token("OP", token.value[1:], token.pos + 1)
        else:
            raise syntax_error(token)

    def data_type(self) -> str:
        """A type as normalised DDL text: ``int``, ``decimal(10,2)``, ``array<string>``, ``struct<a:int>``."""
        token = self.tok
        if token.kind != "WORD":
            raise syntax_error(token)
        word = self.advance().value.lower()
        if word in ("array", "map", "struct"):
            self.expect_op("<")
            if word == "array":
                inner = self.data_type()
                self._close_angle()
                return f"array<{inner}>"
            if word == "map":
                key = self.data_type()
                self.expect_op(",")
                value = self.data_type()
                self._close_angle()
                return f"map<{key},{value}>"
            fields: list[str] = []
            while not self.tok.is_op(">", ">>", ">>>"):
                if fields:
                    self.expect_op(",")
                name = self.identifier()
                self.accept_op(":")
                quoted = name if _PLAIN_NAME.fullmatch(name) else "`" + name.replace("`", "``") + "`"
                fields.append(f"{quoted}:{self.data_type()}")
            self._close_angle()
            return "struct<" + ",".join(fields) + ">"
        if word == "interval" and self.tok.kind == "WORD" and self.tok.value.lower() in _INTERVAL_FIELDS:
            start = self.advance().value.lower()
            if not self.tok.is_word("TO"):
                return f"interval {start}"
            self.advance()
            return f"interval {start} to {self.advance().value.lower()}"  # the DDL parser checks the span
        if word not in _TYPE_NAMES:
            raise ParseException(f'Unsupported data type "{token.value.upper()}".', "UNSUPPORTED_DATATYPE",
                                 {"typeName": f'"{token.value.upper()}"'})
        params: list[int] = []
        if self.accept_op("("):
            while True:
                if self.tok.kind != "NUMBER" or not self.tok.value.isdigit():
                    raise syntax_error(self.tok)
                params.append(int(self.advance().value))
                if not self.accept_op(","):
                    break
            self.expect_op(")")
        name = _TYPE_NAMES[word]
        if name == "decimal":
            precision, scale = (params + [0])[:2] if params else (10, 0)
            return f"decimal({precision},{scale})"
        return name
