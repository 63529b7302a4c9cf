"""Numeric literals typed as Spark types them.

What this module owns
---------------------
:func:`number_literal`: the Spark type and Python value of a number token — ``1`` int,
``3000000000`` bigint, ``1L`` bigint, ``1S`` smallint, ``1Y`` tinyint, ``1.5``
``decimal(2,1)``, ``1.5BD`` decimal, ``1e3`` and ``1.5D`` double, ``1.5F`` float.

Invariants
----------
* Decimal literals have Spark's precision and scale: the digits of the unscaled value and
  the digits after the point, precision at least the scale (``0.05`` is ``decimal(2,2)``).
* Out-of-range suffixed integers and decimals over 38 digits are ``ParseException``.
"""

from __future__ import annotations

import re
from decimal import Decimal

from dstream.sql.errors import ParseException
from dstream.sql.parser.lexer import Token, syntax_error
from dstream.sql.parser.nodes import Literal

__all__ = ["number_literal", "typed_literal_name"]

_DATE = re.compile(r"\s*([+-]?\d{4,})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[T ].*)?\s*")
_TIMESTAMP = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?\s*")

_INT_RANGES = {"tinyint": 7, "smallint": 15, "int": 31, "bigint": 63}


def _range_error(text: str, type_name: str) -> ParseException:
    bits = _INT_RANGES[type_name]
    low, high = -(1 << bits), (1 << bits) - 1
    return ParseException(
        f"Numeric literal {text} does not fit in range [{low}, {high}] for type {type_name}.",
        "INVALID_NUMERIC_LITERAL_RANGE",
        {"rawStrippedQualifier": text, "minValue": str(low), "maxValue": str(high), "typeName": type_name})


def _decimal_literal(value: Decimal, text: str) -> Literal:
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite: the lexer only produces digits
    scale = max(-exponent, 0)
    precision = len(digits) + max(exponent, 0)
    precision = max(precision, scale)  # 0.05 is decimal(2,2), as Spark's DecimalType.fromDecimal
    if precision > 38:
        raise ParseException(
            f"Decimal precision {precision} exceeds max precision 38 (literal {text}).",
            "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", {"precision": str(precision), "maxPrecision": "38"})
    if exponent > 0:
        value = value.quantize(Decimal(1))
    return Literal(value, f"decimal({precision},{scale})")


def number_literal(text: str, negative: bool = False) -> Literal:
    """The literal of number ``text`` (``negative`` when a minus sign preceded it), typed as Spark.

    Parameters
    ----------
    text : str
        A number token: digits, a fraction, an exponent and a suffix.
    negative : bool
        Whether the literal is negated (``-2147483648`` is still an ``int``).

    Returns
    -------
    Literal
        ``1`` int (bigint when out of int range, ``decimal(p,0)`` beyond bigint), ``1L`` bigint,
        ``1S`` smallint, ``1Y`` tinyint, ``1.5`` ``decimal(2,1)``, ``1.5BD`` decimal,
        ``1e3``/``1.5D`` double, ``1.5F`` float.

    Raises
    ------
    ParseException
        A suffixed integer out of its type's range, or a decimal over 38 digits.
    """
    sign = "-" if negative else ""
    upper = text.upper()
    if upper.endswith("BD"):
        return _decimal_literal(Decimal(sign + text[:-2]), sign + text)
    suffix = upper[-1] if upper[-1] in "LSYDF" else ""
    body = text[:-1] if suffix else text
    is_integral = body.isdigit()
    if suffix in ("D", "F"):
        return Literal(float(sign + body), "double" if suffix == "D" else "float")
    if suffix:
        type_name = {"L": "bigint", "S": "smallint", "Y": "tinyint"}[suffix]
        if not is_integral:
            raise syntax_error(Token("NUMBER", text, 0))
        value = int(sign + body)
        bits = _INT_RANGES[type_name]
        if not -(1 << bits) <= value < (1 << bits):
            raise _range_error(sign + body, type_name)
        return Literal(value, type_name)
    if is_integral:
        value = int(sign + body)
        for type_name in ("int", "bigint"):
            bits = _INT_RANGES[type_name]
            if -(1 << bits) <= value < (1 << bits):
                return Literal(value, type_name)
        return _decimal_literal(Decimal(value), sign + body)
    if "E" in upper:
        return Literal(float(sign + body), "double")
    return _decimal_literal(Decimal(sign + body), sign + body)


def typed_literal_name(text: str, type_name: str) -> str:
    """Spark's name of ``DATE 'text'``, ``TIMESTAMP 'text'`` or ``TIMESTAMP_NTZ 'text'``.

    Spark names a typed literal by its value, so the text is normalised (``DATE '2024-1-2'``
    is ``DATE '2024-01-02'``, a timestamp gets its seconds); text in another form (with a
    zone) keeps its spelling.
    """
    keyword = "DATE" if type_name == "date" else "TIMESTAMP_NTZ" if type_name == "timestamp_ntz" else "TIMESTAMP"
    if type_name == "date" and (m := _DATE.fullmatch(text)):
        return f"{keyword} '{int(m[1]):04d}-{int(m[2] or 1):02d}-{int(m[3] or 1):02d}'"
    if type_name != "date" and (m := _TIMESTAMP.fullmatch(text)):
        y, mo, d, h, mi, sec, frac = m.groups()
        shown = f"{int(y):04d}-{int(mo):02d}-{int(d):02d} {int(h or 0):02d}:{int(mi or 0):02d}:{int(sec or 0):02d}"
        fraction = (frac or "")[:6].rstrip("0")
        return f"{keyword} '{shown}{'.' + fraction if fraction else ''}'"
    return f"{keyword} '{text}'"
