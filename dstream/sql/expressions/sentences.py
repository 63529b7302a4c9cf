"""``sentences(str[, language, country])``: a text split into sentences of words, as Spark splits it.

What this module owns
---------------------
The function's spec and its splitting. Spark splits with Java's ``BreakIterator`` (a sentence
instance, then a word instance per sentence) and keeps the words whose first character is a
letter or a digit. The same rules here, as checked against Spark on 128 texts:

* A sentence ends after ``!`` or ``?`` (with any ``.!?`` beside them, closing quotes or
  brackets, then spaces) wherever it is; after ``.`` only when spaces follow and then a
  character that is neither a lower-case letter nor a digit (``Dr. No`` breaks, ``p.m. now``
  and ``Jan. 5`` do not); after the ideographic ``。`` always.
* A word is a run of letters and digits in which ``.`` may join two letters or digits
  (``e.g``, ``U.S.A``, ``3.14``, ``b.com``), ``'``, ``-`` and ``—`` two letters (``don't``,
  ``co-operate``; not ``555-1234``), ``,`` two digits (``2,000``); a number may end in ``%``.
  Runs of Han, Hiragana, Katakana or Hangul characters are words of their script. A
  currency sign or ``#`` before a number makes one token that is dropped (``$3.50``), as
  every token not starting with a letter or digit is.
* ``language`` and ``country`` are accepted and do not change the rules (Java's are the
  same for every locale on these texts). A null text gives null; an empty one no sentence.
"""

from __future__ import annotations

import re
from typing import Any

from ..types import ArrayType, DataType, StringType
from .function_registry import FunctionSpec, per_row, register

__all__ = ["sentences"]

_CJK = "\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_ALNUM = f"[^\\W_{_CJK}]"
_LETTER = f"[^\\W\\d_{_CJK}]"
_TOKEN = re.compile(
    r"[$£€¥#]\d+(?:[.,]\d+)*\w*"  # a currency amount or #1: one token, dropped
    "|[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff]+|[\u3040-\u309f]+|[\u30a0-\u30ff]+|[\uac00-\ud7af]+"
    r"|\d+(?:[.,]\d+)*%"  # a percentage
    f"|{_ALNUM}(?:[^\\W{_CJK}]|\\.(?={_ALNUM})|(?<={_LETTER})['\\-\u2014](?={_LETTER})|(?<=\\d),(?=\\d))*"
    r"|\S")
_STRONG = "!?\uff01\uff1f"
_CLOSING = "\"')]}\u2019\u201d"


def _sentence_ends(text: str) -> list[int]:
    """Where each sentence of ``text`` ends (after its trailing spaces), the last at its end."""
    ends: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\u3002":
            i += 1
            while i < n and text[i].isspace():
                i += 1
            ends.append(i)
        elif c in _STRONG or c == ".":
            j = i
            while j < n and (text[j] in _STRONG or text[j] in ".\u3002"):
                j += 1
            k = j
            while k < n and text[k] in _CLOSING:
                k += 1
            m = k
            while m < n and text[m].isspace():
                m += 1
            if any(ch in _STRONG for ch in text[i:j]) or (
                    m > k and (m == n or not (text[m].islower() or text[m].isdigit()))):
                ends.append(m)
                i = m
            else:
                i = j if m < n else m
        else:
            i += 1
    if not ends or ends[-1] != n:
        ends.append(n)
    return ends


def sentences(text: str) -> list[list[str]]:
    """The words of each sentence of ``text`` (see the module doc)."""
    out: list[list[str]] = []
    start = 0
    for end in _sentence_ends(text) if text else []:
        if end > start:
            out.append([w for w in _TOKEN.findall(text[start:end]) if w[0].isalnum()])
            start = end
    return out


def _row(text: Any, language: Any = None, country: Any = None) -> list[list[str]] | None:
    return None if text is None else sentences(text)


def _types(types: list[DataType]) -> list[DataType | None]:
    return [StringType()] * len(types)


register(FunctionSpec("sentences", 1, 3, _types, lambda ts: ArrayType(ArrayType(StringType())), per_row(_row),
                      null_intolerant=False))
