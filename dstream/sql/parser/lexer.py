"""The tokenizer of Spark SQL text: words, quoted names, literals and operators.

What this module owns
---------------------
Turning SQL text into a list of :class:`Token`, with Spark's lexical rules: keywords are
case-insensitive words (the parser decides which words are keywords where), backquoted
identifiers (`` `a b` ``, a doubled backquote is one backquote), string literals in
single or double quotes with Spark's backslash escapes (a doubled quote is no escape:
``'it''s'`` is two adjacent literals, ``its``), adjacent string literals concatenated,
``r'...'`` raw strings, numeric literals with Spark's suffixes (``L`` bigint, ``S``
smallint, ``Y`` tinyint, ``D`` double, ``F`` float, ``BD`` decimal), ``--`` and nested
``/* */`` comments, and the operators of Spark's grammar.

Invariants
----------
* The token list always ends with one ``EOF`` token.
* A number token keeps its source text (``1.50``, ``1e3``); the parser types it.
* Errors are :class:`~dstream.sql.errors.ParseException` with Spark's
  ``PARSE_SYNTAX_ERROR`` condition and message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dstream.sql.errors import AnalysisException, ParseException

__all__ = ["Token", "tokenize", "syntax_error"]

# Longest first: the lexer takes the longest operator that matches.
_OPERATORS = (
    "<=>", ">>>", "<>", "!=", "<=", ">=", "==", "=>", "||", "<<", ">>", "::", "->",
    "(", ")", "[", "]", ",", ".", "*", "+", "-", "/", "%", "=", "<", ">", "!", "~", "&", "|", "^", ":", ";",
)

# Digits, an optional fraction, an optional exponent, then an optional type suffix.
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?:BD|bd|Bd|bD|[LlSsYyDdFf])?")

# Spark's unescaping of string literals (spark.sql.parser.escapedStringLiterals=false).
_SIMPLE_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a",
                   "%": "\\%", "_": "\\_"}


@dataclass(frozen=True)
class Token:
    """One lexical token.

    ``kind`` is ``WORD`` (an unquoted identifier or keyword), ``QUOTED`` (a backquoted
    identifier), ``STRING``, ``NUMBER``, ``OP`` or ``EOF``; ``value`` the identifier, the
    unescaped string, the number's text or the operator; ``pos`` the offset in the text.
    """

    kind: str
    value: str
    pos: int

    def is_word(self, *words: str) -> bool:
        """Whether this is an unquoted word equal (case-insensitively) to one of ``words``."""
        return self.kind == "WORD" and self.value.upper() in words

    def is_op(self, *ops: str) -> bool:
        """Whether this is one of the operators ``ops``."""
        return self.kind == "OP" and self.value in ops

    def describe(self) -> str:
        """The token as Spark's syntax errors quote it: ``'FROM'`` or ``end of input``."""
        if self.kind == "EOF":
            return "end of input"
        if self.kind == "STRING":
            return "'" + self.value.replace("'", "\\'") + "'"
        if self.kind == "QUOTED":
            return "'`" + self.value.replace("`", "``") + "`'"
        return f"'{self.value}'"


def unsupported_in_sql(what: str) -> AnalysisException:
    """Spark's ``UNSUPPORTED_FEATURE`` for a construct the SQL text uses and dstreams does not build."""
    return AnalysisException(f"{what} is not supported in SQL text.", "UNSUPPORTED_FEATURE", {"feature": what})


def syntax_error(token: Token, hint: str = "") -> ParseException:
    """Spark's ``PARSE_SYNTAX_ERROR`` at ``token`` (``hint`` like ``": extra input 'x'"``)."""
    near = token.describe()
    return ParseException(f"Syntax error at or near {near}{hint}.", "PARSE_SYNTAX_ERROR",
                          {"error": near, "hint": hint})


def _unescape(body: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2:i + 6]):
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        elif re.fullmatch(r"[0-3][0-7][0-7]", body[i + 1:i + 4]):
            out.append(chr(int(body[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(_SIMPLE_ESCAPES.get(nxt, nxt))
            i += 2
    return "".join(out)


def _read_quoted(text: str, start: int, quote: str, raw: bool) -> tuple[str, int]:
    """The body of the literal opening at ``start`` and the offset after its closing quote."""
    i = start + 1
    parts: list[str] = []
    while i < len(text):
        ch = text[i]
        if ch == "\\" and not raw and i + 1 < len(text):
            parts.append(text[i:i + 2])
            i += 2
        elif ch == "\\" and raw and i + 1 < len(text) and text[i + 1] == quote:
            parts.append(text[i:i + 2])  # r'\'' keeps both characters, as Spark's lexer
            i += 2
        elif ch == quote:
            # 'it''s' is two literals, 'it' and 's', concatenated ("its"), as in Spark: a doubled
            # quote is no escape there (a backslash is).
            body = "".join(parts)
            return (body if raw else _unescape(body)), i + 1
        else:
            parts.append(ch)
            i += 1
    raise syntax_error(Token("OP", text[start], start), ": unclosed string literal")


def _skip_space(text: str, i: int) -> int:
    """The offset of the next character that is neither white space nor in a comment."""
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while depth and i < len(text):  # Spark's bracketed comments nest
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            if depth:
                raise syntax_error(Token("EOF", "", len(text)), ": unclosed comment")
        else:
            break
    return i


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def tokenize(text: str) -> list[Token]:
    """Split SQL ``text`` into tokens ending with ``EOF``.

    Parameters
    ----------
    text : str
        An expression or a query in Spark SQL syntax.

    Returns
    -------
    list of Token
        The tokens; adjacent string literals are merged into one.

    Raises
    ------
    ParseException
        On an unclosed string, backquote or comment, or a character no token starts with.
    """
    tokens: list[Token] = []
    i = _skip_space(text, 0)
    while i < len(text):
        ch = text[i]
        start = i
        if ch in "'\"" or (ch in "rR" and i + 1 < len(text) and text[i + 1] in "'\""):
            raw = ch in "rR"
            value, i = _read_quoted(text, i + 1 if raw else i, text[i + 1] if raw else ch, raw)
            if tokens and tokens[-1].kind == "STRING":  # 'a' 'b' is 'ab', as in Spark
                tokens[-1] = Token("STRING", tokens[-1].value + value, tokens[-1].pos)
            else:
                tokens.append(Token("STRING", value, start))
        elif ch == "`":
            parts: list[str] = []
            i += 1
            while True:
                end = text.find("`", i)
                if end < 0:
                    raise syntax_error(Token("OP", "`", start), ": unclosed quoted identifier")
                parts.append(text[i:end])
                if text.startswith("``", end):
                    parts.append("`")
                    i = end + 2
                    continue
                i = end + 1
                break
            tokens.append(Token("QUOTED", "".join(parts), start))
        elif ch.isdigit() or (ch == "." and i + 1 < len(text) and text[i + 1].isdigit()
                              and not (tokens and tokens[-1].kind in ("WORD", "QUOTED")
                                       or tokens and tokens[-1].is_op(")", "]"))):
            match = _NUMBER.match(text, i)
            assert match is not None  # a digit, or a dot and a digit, always match
            end = match.end()
            if end < len(text) and _is_word_char(text[end]):
                # 1a, 2x: Spark reads these as identifiers; a word that starts with a digit
                while end < len(text) and _is_word_char(text[end]):
                    end += 1
                tokens.append(Token("WORD", text[i:end], start))
            else:
                tokens.append(Token("NUMBER", match.group(), start))
            i = end
        elif _is_word_char(ch):
            while i < len(text) and _is_word_char(text[i]):
                i += 1
            tokens.append(Token("WORD", text[start:i], start))
        else:
            op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
            if op is None:
                raise syntax_error(Token("OP", ch, start))
            tokens.append(Token("OP", op, start))
            i += len(op)
        i = _skip_space(text, i)
    tokens.append(Token("EOF", "", len(text)))
    return tokens
