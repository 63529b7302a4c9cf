"""The ``xpath`` functions: values of an XML string selected by an XPath expression.

What this module owns
---------------------
:class:`XPath`, one expression for ``xpath``, ``xpath_string``, ``xpath_boolean``,
``xpath_int``, ``xpath_long``, ``xpath_short``, ``xpath_float``, ``xpath_double`` and
``xpath_number``. Each XML value is parsed (the standard library's parser: internal
entities expanded, nothing fetched) and the path evaluated with the *document* as its
context node, as Spark's ``javax.xml.xpath`` does (so ``a/b`` starts at the root element
``a``), by ``elementpath`` in XPath 1.0 compatibility mode:

* ``xpath``: the selected nodes' values, an ``array<string>``: a text node's text, an
  attribute's value, ``null`` for an element (Java's ``Node.getNodeValue``);
* ``xpath_string`` / ``xpath_boolean``: XPath's ``string(path)`` / ``boolean(path)``;
* the numeric ones: XPath 1.0's ``number()`` of the result (a number as it is; the first
  node's string value read as XPath 1.0 reads numbers, no exponent, else NaN), narrowed as
  Java narrows a double: NaN is 0, values past the type's range saturate (``short`` goes
  through ``int``), the fraction is cut; ``xpath_float`` rounds to a float,
  ``xpath_double``/``xpath_number`` keep the double.

A null XML value, or a null or empty path, gives null. The path must be a constant
(``NON_FOLDABLE_INPUT`` otherwise); one that is no XPath raises ``Invalid XPath '...'``, XML
that does not parse (or a path whose result is no node-set, for ``xpath``) raises
``Error loading expression '...'``, as Spark's messages say.

Invariants
----------
* One compiled path per expression; no state kept between rows.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..errors import SparkRuntimeException
from ..types import (
    ArrayType,
    BooleanType,
    DataType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    NullType,
    ShortType,
    StringType,
)
from .base import EvalContext, Expression, Literal
from .cast import cast_to
from .checks import require_foldable_path

__all__ = ["XPath", "XPATH_KINDS"]

#: Function name -> (result type, XPath function applied to the path, or None for node values).
XPATH_KINDS: dict[str, tuple[DataType, str | None]] = {
    "xpath": (ArrayType(StringType()), None),
    "xpath_string": (StringType(), "string"),
    "xpath_boolean": (BooleanType(), "boolean"),
    "xpath_int": (IntegerType(), None),
    "xpath_long": (LongType(), None),
    "xpath_short": (ShortType(), None),
    "xpath_float": (FloatType(), None),
    "xpath_double": (DoubleType(), None),
    "xpath_number": (DoubleType(), None),
}
#: XPath 1.0's number syntax (no exponent: "1e10" is NaN there).
_NUMBER = re.compile(r"\s*-?(\d+(\.\d*)?|\.\d+)\s*")
_BITS = {"xpath_int": 32, "xpath_long": 64, "xpath_short": 32}


def _java_integral(value: float, bits: int) -> int:
    """Java's narrowing of a double to an integer of ``bits``: NaN 0, saturation, truncation."""
    if value != value:
        return 0
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if value >= high:
        return high
    if value <= low:
        return low
    return int(value)


def _xpath1_number(value: Any) -> float:
    """XPath 1.0's ``number()`` of an evaluation result (the first node's string value for nodes)."""
    if isinstance(value, list):
        if not value:
            return math.nan
        value = value[0] if isinstance(value[0], str) else "".join(value[0].itertext())
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, str):
        return float(value) if _NUMBER.fullmatch(value) else math.nan
    return float(value)


def _narrow(kind: str, value: Any) -> Any:
    if kind in ("xpath_string", "xpath_boolean"):
        return value
    number = _xpath1_number(value)
    if kind in _BITS:
        whole = _java_integral(number, _BITS[kind])
        return ((whole + (1 << 15)) % (1 << 16)) - (1 << 15) if kind == "xpath_short" else whole
    if kind == "xpath_float":
        try:
            return float(struct.unpack("<f", struct.pack("<f", number))[0])
        except OverflowError:
            return float("inf") if number > 0 else float("-inf")
    return number


class XPath(Expression):
    """``xpath_<kind>(xml, path)`` (see the module doc).

    Parameters
    ----------
    kind : str
        A key of :data:`XPATH_KINDS` (``"xpath"``, ``"xpath_int"``...).
    xml, path : Expression
        The XML strings and the (constant) path.
    """

    def __init__(self, kind: str, xml: Expression, path: Expression) -> None:
        if kind not in XPATH_KINDS:
            raise ValueError(f"unknown xpath function {kind!r}; one of {sorted(XPATH_KINDS)}")
        self.kind = kind
        self.children = (xml, path)
        self._compiled: Any = None

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return XPath(self.kind, children[0], children[1])

    def data_type(self) -> DataType:
        return XPATH_KINDS[self.kind][0]

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        path = self.children[1]
        shown = path.value if isinstance(path, Literal) else path.sql()
        return f"{self.kind}({self.children[0].sql()}, {shown})"

    def check_input_types(self) -> None:
        require_foldable_path(self, self.children[1])

    def coerce(self) -> Expression:
        self.check_input_types()
        xml, path = (c if isinstance(c.data_type(), NullType) else cast_to(c, StringType()) for c in self.children)
        return self if (xml, path) == tuple(self.children) else XPath(self.kind, xml, path)

    def _path(self, text: str) -> Any:
        import elementpath  # noqa: PLC0415 - loaded with the first xpath call

        if self._compiled is None or self._compiled[0] != text:
            wrapped = text if XPATH_KINDS[self.kind][1] is None else f"{XPATH_KINDS[self.kind][1]}({text})"
            try:
                selector = elementpath.Selector(wrapped, parser=elementpath.XPath2Parser, compatibility_mode=True)
            except elementpath.ElementPathError as exc:
                raise SparkRuntimeException(f"Invalid XPath '{text}'{exc}") from None
            self._compiled = (text, selector)
        return self._compiled[1]

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        import xml.etree.ElementTree as ET  # noqa: N817, PLC0415 - the standard library's parser, on use

        import elementpath  # noqa: PLC0415

        texts = self.children[0].eval(batch, ctx)
        paths = self.children[1].eval(batch, ctx)
        path = paths[0].as_py() if len(paths) else None
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        out: list[Any] = []
        for text in (texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts).to_pylist():
            if text is None or not path:
                out.append(None)
                continue
            selector = self._path(path)
            try:
                document = ET.ElementTree(ET.fromstring(text))
                found = selector.select(document)
            except (ET.ParseError, elementpath.ElementPathError, TypeError) as exc:
                raise SparkRuntimeException(f"Error loading expression '{path}'") from exc
            out.append(self._value(found, path))
        return pa.array(out, to_arrow_type(self.data_type()))

    def _value(self, found: Any, path: str) -> Any:
        if self.kind != "xpath":
            return _narrow(self.kind, found)
        if not isinstance(found, list):
            raise SparkRuntimeException(f"Error loading expression '{path}'")
        # A text node or attribute selects its string; an element has no node value (null).
        return [item if isinstance(item, str) else None for item in found]

    def _options(self) -> Any:
        return self.kind
