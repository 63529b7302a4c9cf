"""String functions of the registry that work character by character or on URLs: ``position``,
``chr`` (``char``), ``luhn_check``, ``mask``, ``url_encode``, ``url_decode``, ``try_url_decode``
and ``parse_url``.

What this module owns
---------------------
Their specs (Spark's names and types) and their evaluation, per row over Python values.

Invariants
----------
* ``position(substr, str[, start])`` is ``locate`` with columns for every argument: 1-based,
  0 when absent or when ``start`` is below 1 or null; an empty ``substr`` is found at 1.
* ``chr(n)`` is the character of code ``n mod 256``; a negative ``n`` gives ``""``.
* ``luhn_check`` is true only for a non-empty string of digits whose Luhn sum is a
  multiple of 10.
* ``mask`` replaces upper-case letters, lower-case letters and digits by the given
  characters (a null replacement keeps that class as it is) and other characters only
  when ``otherChar`` is given.
* ``url_encode``/``url_decode`` follow ``application/x-www-form-urlencoded`` as Java's
  ``URLEncoder``/``URLDecoder`` with UTF-8: letters, digits and ``.-*_`` stay, a space is
  ``+``, every other byte is ``%XX``. A malformed escape makes ``url_decode`` raise
  ``CANNOT_DECODE_URL`` and ``try_url_decode`` return null.
* ``parse_url(url, part[, key])`` takes ``HOST``, ``PATH``, ``QUERY``, ``REF``, ``PROTOCOL``,
  ``FILE``, ``AUTHORITY`` or ``USERINFO`` (``QUERY`` with a key: that parameter's value);
  a part the URL lacks or an unknown part gives null. URLs are read as ``java.net.URI``
  reads them: a relative one (``abc``) has a path, an opaque one (``mailto:a@b``) only a
  protocol and a fragment; one it refuses (a space, ``|``, a bad ``%`` escape, a bad scheme)
  is ``INVALID_URL`` under ANSI (null otherwise, and always from ``try_parse_url``).
"""

from __future__ import annotations

import re
import unicodedata
import urllib.parse
from typing import Any

import pyarrow as pa

from ..errors import IllegalArgumentException, SparkRuntimeException
from ..types import BooleanType, DataType, IntegerType, LongType, StringType
from .base import EvalContext
from .function_registry import FunctionSpec, null_safe, per_row, register

__all__: list[str] = []


def _strings(types: list[DataType]) -> list[DataType | None]:
    return [StringType()] * len(types)


def _position(substr: Any, text: Any, start: Any = 1) -> int | None:
    if start is None or start < 1:
        return 0
    if substr is None or text is None:
        return None
    if substr == "":
        return 1
    return text.find(substr, start - 1) + 1


def _position_types(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [StringType(), StringType(), IntegerType()]
    return wanted[: len(types)]


register(FunctionSpec("position", 2, 3, _position_types,
                      lambda ts: IntegerType(), per_row(_position), null_intolerant=False,
                      display=lambda shown: f"position({shown[0]}, {shown[1]}, {shown[2] if len(shown) > 2 else 1})"))


def _chr(code: int) -> str:
    return "" if code < 0 else chr(code % 256)


register(FunctionSpec("chr", 1, 1, lambda ts: [LongType()], lambda ts: StringType(),
                      per_row(null_safe(_chr))), "char")


def _luhn(text: str) -> bool:
    if not text or not text.isascii() or not text.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(text)):
        digit = ord(ch) - 48
        if i % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


register(FunctionSpec("luhn_check", 1, 1, _strings, lambda ts: BooleanType(),
                      per_row(null_safe(_luhn))))


def _mask(text: Any, upper: Any = "X", lower: Any = "x", digit: Any = "n", other: Any = None) -> str | None:
    if text is None:
        return None
    out = []
    for ch in text:
        # Java's Character.isUpperCase/isLowerCase/isDigit: Unicode letters and digits, not
        # only ASCII ones ('ü' is masked as 'x', an Arabic-Indic three as 'n').
        kind = unicodedata.category(ch)
        if kind == "Lu":
            out.append(ch if upper is None else upper)
        elif kind == "Ll":
            out.append(ch if lower is None else lower)
        elif kind == "Nd":
            out.append(ch if digit is None else digit)
        else:
            out.append(ch if other is None else other)
    return "".join(out)


def _mask_chars(values: list[Any]) -> None:
    for name, value in zip(("upperChar", "lowerChar", "digitChar", "otherChar"), values[1:]):
        if value is not None and len(value) != 1:
            raise SparkRuntimeException(
                f"[INVALID_PARAMETER_VALUE.CHAR] The value of parameter `{name}` in `mask` must be a single "
                f"character, got {value!r}.", "INVALID_PARAMETER_VALUE.CHAR", {"parameter": name})


def _run_mask(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    _mask_chars(args)
    replacements = args[1:] + ["X", "x", "n", None][len(args) - 1:]
    return pa.array([_mask(v, *replacements) for v in args[0].to_pylist()], pa.string())


register(FunctionSpec("mask", 1, 5, _strings, lambda ts: StringType(), _run_mask, scalar_positions=(1, 2, 3, 4),
                      null_intolerant=False))

_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _url_encode(text: str) -> str:
    # Java's URLEncoder keeps "*" and encodes "~"; Python's quote_plus does the opposite.
    return urllib.parse.quote_plus(text, safe="*").replace("~", "%7E")


def _url_decode(text: str, strict: bool) -> str | None:
    if _ESCAPE.search(text):
        if not strict:
            return None
        raise SparkRuntimeException(
            f"[CANNOT_DECODE_URL] The provided URL cannot be decoded: {text}. Please ensure that the URL is "
            "properly formatted and try again.", "CANNOT_DECODE_URL", {"url": text})
    try:
        return urllib.parse.unquote_plus(text, errors="strict")
    except UnicodeDecodeError:
        if not strict:
            return None
        raise SparkRuntimeException(
            f"[CANNOT_DECODE_URL] The provided URL cannot be decoded: {text}: its escapes are not UTF-8.",
            "CANNOT_DECODE_URL", {"url": text}) from None


register(FunctionSpec("url_encode", 1, 1, _strings, lambda ts: StringType(),
                      per_row(null_safe(_url_encode))))
register(FunctionSpec("url_decode", 1, 1, _strings, lambda ts: StringType(),
                      per_row(null_safe(lambda t: _url_decode(t, True)))))
register(FunctionSpec("try_url_decode", 1, 1, _strings, lambda ts: StringType(),
                      per_row(null_safe(lambda t: _url_decode(t, False)))))


def _host(netloc: str) -> str | None:
    # As java.net.URI's getHost: no user info, no port, case kept, an IPv6 address in brackets;
    # a port that is not a number makes the authority a registry name, without a host.
    hostport = netloc.rpartition("@")[2]
    if hostport.startswith("["):
        host, _, port = hostport.partition("]")
        return host + "]" if port[1:].isdigit() or port in ("", ":") else None
    host, _, port = hostport.partition(":")
    return host if host and (port.isdigit() or not port) else None


# What java.net.URI refuses: a character no URI component allows, a bad %-escape, a second '#'.
_URI_ILLEGAL = re.compile(r'[\x00-\x20"<>\\^`{|}\x7f]|%(?![0-9A-Fa-f]{2})|#.*#')
_SCHEME_HEAD = re.compile(r"[^/?#]*?:")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")


def _valid_uri(url: str) -> bool:
    """Whether ``java.net.URI`` parses ``url`` (an absolute URI, or a relative one such as ``abc``)."""
    if _URI_ILLEGAL.search(url):
        return False
    head = _SCHEME_HEAD.match(url)
    return head is None or _SCHEME.fullmatch(head.group(0)[:-1]) is not None


def _parse_url(url: Any, part: Any, key: Any = None) -> str | None:
    if url is None or part is None:
        return None
    parts = urllib.parse.urlsplit(url)
    scheme = url[:len(parts.scheme)] if parts.scheme else None  # as written (urlsplit lower-cases it)
    if scheme is not None and not url[len(scheme) + 1:].startswith("/"):
        # An opaque URI (mailto:a@b): a scheme and a fragment, no path, query or authority.
        return {"PROTOCOL": scheme, "REF": parts.fragment or None}.get(part)
    query = parts.query or None
    if part == "QUERY" and key is not None:
        if query is None:
            return None
        found = re.search(r"(?:^|&)" + re.escape(key) + r"=([^&]*)", query)
        return None if found is None else found.group(1)
    netloc = parts.netloc or None
    values = {
        "HOST": None if netloc is None else _host(netloc),
        "PATH": parts.path,
        "QUERY": query,
        "REF": parts.fragment or None,
        "PROTOCOL": scheme,
        "FILE": parts.path + ("?" + query if query else ""),
        "AUTHORITY": netloc,
        "USERINFO": netloc.rpartition("@")[0] or None if netloc and "@" in netloc else None,
    }
    return values.get(part)


def _url_runner(strict: bool) -> Any:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        length = next(len(a) for a in args if isinstance(a, pa.Array))
        columns = [a.to_pylist() if isinstance(a, pa.Array) else [a] * length for a in args]
        out: list[str | None] = []
        for row in zip(*columns):
            url = row[0]
            if url is not None and row[1] is not None and not _valid_uri(url):
                if strict and ctx.ansi:
                    raise IllegalArgumentException(
                        f"The url is invalid: {url}. Use `try_parse_url` to tolerate invalid URL and return NULL "
                        "instead.", "INVALID_URL", {"url": url, "ansiConfig": '"spark.sql.ansi.enabled"'})
                out.append(None)
                continue
            out.append(_parse_url(*row))
        return pa.array(out, pa.string())
    return run


register(FunctionSpec("parse_url", 2, 3, _strings, lambda ts: StringType(), _url_runner(True),
                      null_intolerant=False))
register(FunctionSpec("try_parse_url", 2, 3, _strings, lambda ts: StringType(), _url_runner(False),
                      null_intolerant=False))
