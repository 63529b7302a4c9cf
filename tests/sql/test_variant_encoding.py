"""The variant binary encoding against Spark 4.0.1's bytes, and against a plain-Python model.

The byte strings below are what PySpark 4.0.1 (the JVM's ``parse_json``) returned for the
same texts. The property tests state what a variant means in a few lines of Python: the
value ``json.loads`` reads (numbers as written), its keys, its JSON text.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql.errors import SparkRuntimeException
from dstream.sql.variant import format as vf
from dstream.sql.variant.parse import MalformedJsonError, parse_json
from dstream.sql.variant.paths import extract, follow, parse_path
from dstream.sql.variant.python_view import python_json, to_python
from dstream.sql.variant.render import spark_json, variant_text
from dstream.sql.variant.schema import merge, schema_of, type_text

#: text -> (value hex, metadata hex), from PySpark 4.0.1's parse_json.
SPARK_BYTES = {
    "1": ("0c01", "010000"),
    "-1": ("0cff", "010000"),
    "128": ("108000", "010000"),
    "32768": ("1400800000", "010000"),
    "2147483648": ("180000008000000000", "010000"),
    "9223372036854775808": ("280000000000000000800000000000000000", "010000"),
    "123456789012345678901234567890123456789": ("1c800558693a38d747", "010000"),
    "1.0": ("20010a000000", "010000"),
    "1.50": ("200296000000", "010000"),
    "1e3": ("1c0000000000408f40", "010000"),
    "3.14159265358979323846264338327950288": ("2823d0532a376a5b59f284d936663f813c00", "010000"),
    "12345678901234567890.123456789012345678": ("28124ef338de509049c4133302f0f6b04909", "010000"),
    "-0.0": ("200100000000", "010000"),
    "true": ("04", "010000"),
    "null": ("00", "010000"),
    '"a"': ("0561", "010000"),
    '"' + "y" * 64 + '"': ("4040000000" + "79" * 64, "010000"),
    '"é"': ("09c3a9", "010000"),
    '{"b":1,"a":2}': ("020201000200040c010c02", "01020001026261"),
    '{"a":{"c":[1,2,{"d":null}]},"b":"s"}': ("02020003001517020101001003030002040a0c010c020201020001000573",
                                               "0104000102030461636462"),
    "[]": ("030000", "010000"),
    "{}": ("020000", "010000"),
    '[1,"a",null,true,1.5]': ("030500020405060c0c010561000420010f000000", "010000"),
    " 1 ": ("0c01", "010000"),
    "[1,2]x": ("03020002040c010c02", "010000"),
}


@pytest.mark.parametrize("text", sorted(SPARK_BYTES))
def test_parse_json_writes_sparks_bytes(text: str) -> None:
    value, metadata = parse_json(text)
    assert (value.hex(), metadata.hex()) == SPARK_BYTES[text]


@pytest.mark.parametrize("text", ["{", "", "   ", '{"a":1, "a":2}', "01", "NaN", "1x", "truex", "[1,]", '"\x01"'])
def test_parse_json_refuses_what_spark_refuses(text: str) -> None:
    with pytest.raises(MalformedJsonError):
        parse_json(text)


def test_large_objects_and_wide_offsets() -> None:
    doc = {f"k{i:03d}": "v" * (i % 70) for i in range(300)}
    value, metadata = parse_json(json.dumps(doc))
    assert vf.type_info(value, 0) == (vf.OBJECT, (1 << 4) | (1 << 2) | 1)  # large, 2-byte ids and offsets
    assert to_python(value, metadata) == doc
    assert vf.metadata_keys(metadata) == list(doc)


# -- a model: what a variant means ---------------------------------------------------------

_KEYS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
    st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-10**12, max_value=10**12),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=70),
)
_DOCS = st.recursive(_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                       st.dictionaries(_KEYS, inner, max_size=5)), max_leaves=25)


def _text(doc: Any) -> str:
    """JSON text with decimals written as their digits (so they stay decimals)."""
    if isinstance(doc, dict):
        return "{" + ",".join(json.dumps(k) + ":" + _text(v) for k, v in doc.items()) + "}"
    if isinstance(doc, list):
        return "[" + ",".join(_text(v) for v in doc) + "]"
    if isinstance(doc, Decimal):
        return format(doc, "f")
    return json.dumps(doc)


def _keys_in_order(doc: Any, out: list[str]) -> list[str]:
    if isinstance(doc, dict):
        for key, item in doc.items():
            if key not in out:
                out.append(key)
            _keys_in_order(item, out)
    elif isinstance(doc, list):
        for item in doc:
            _keys_in_order(item, out)
    return out


@settings(max_examples=200, deadline=None)
@given(_DOCS)
def test_a_variant_holds_the_document(doc: Any) -> None:
    value, metadata = parse_json(_text(doc))
    assert to_python(value, metadata) == doc  # Decimal('1.50') == Decimal('1.5'): values, not spellings
    assert vf.metadata_keys(metadata) == _keys_in_order(doc, [])
    assert json.loads(spark_json(value, metadata), parse_float=Decimal) == json.loads(_text(doc), parse_float=Decimal)
    assert json.loads(python_json(value, metadata), parse_float=Decimal) == json.loads(_text(doc), parse_float=Decimal)
    if isinstance(doc, dict):  # fields are stored in Java's string order
        stored = list(to_python(value, metadata))
        assert stored == sorted(doc, key=lambda k: k.encode("utf-16-be", "surrogatepass"))


@settings(max_examples=100, deadline=None)
@given(_DOCS)
def test_extracted_parts_are_the_documents_parts(doc: Any) -> None:
    value, metadata = parse_json(_text(doc))
    keys = vf.metadata_keys(metadata)
    if isinstance(doc, dict):
        for key, item in doc.items():
            at = follow(value, keys, (key,))
            assert at is not None
            part = extract(value, keys, at)
            assert to_python(*part) == item
            # A copy renumbers its keys in the (sorted) order it meets them: as its JSON text parses.
            assert part == parse_json(python_json(*part))
        assert follow(value, keys, ("no such key" + "!" * 7,)) is None
    if isinstance(doc, list):
        for i, item in enumerate(doc):
            at = follow(value, keys, (i,))
            assert at is not None and to_python(value, metadata, at) == item
        assert follow(value, keys, (len(doc),)) is None


def test_paths() -> None:
    assert parse_path("$") == ()
    assert parse_path("$.a[0]['b c'][\"d\"].e f") == ("a", 0, "b c", "d", "e f")
    assert parse_path("$[01]") == (1,)
    for bad in ["a", "$.", "$..a", "$ .a", "$[-1]", "$[a]", "$['a]"]:
        with pytest.raises(SparkRuntimeException, match="INVALID_VARIANT_GET_PATH"):
            parse_path(bad)


def test_rendering_as_spark_and_as_pyspark() -> None:
    value, metadata = parse_json('{"x":[1.50,1e3,1.5e300,"é\\t/"],"b":-0.0}')
    assert spark_json(value, metadata) == '{"b":0,"x":[1.5,1000.0,1.5E300,"é\\t/"]}'
    assert python_json(value, metadata) == '{"b":0.0,"x":[1.50,1000.0,1.5e+300,"\\u00e9\\t/"]}'
    inf = parse_json("1e400")
    assert spark_json(*inf) == '"Infinity"' and variant_text(*inf) == "Infinity"
    assert variant_text(*parse_json('"s"')) == "s" and variant_text(*parse_json("null")) is None


#: (JSON text, schema_of_variant) from PySpark 4.0.1.
SPARK_SCHEMAS = {
    "1.50": "DECIMAL(2,1)", "100.0": "DECIMAL(3,0)", "0.10": "DECIMAL(1,1)", "0.0010": "DECIMAL(3,3)",
    "-0.0": "DECIMAL(1,0)", "9223372036854775808": "DECIMAL(19,0)", "1e3": "DOUBLE",
    "[1, null, 2.5]": "ARRAY<DECIMAL(21,1)>", "[100.0, 1]": "ARRAY<DECIMAL(20,0)>", "[1.0, 1e1]": "ARRAY<DOUBLE>",
    "[99999999999999999999999999999999999999, 0.5]": "ARRAY<DOUBLE>",
    "[99999999999999999999999999999999999999, 1]": "ARRAY<DECIMAL(38,0)>",
    "[0.1, 0.12345678901234567890123456789012345678]": "ARRAY<DECIMAL(38,38)>",
    "[true, 1]": "ARRAY<VARIANT>", "[]": "ARRAY<VOID>", "{}": "OBJECT<>", "null": "VOID",
    '[{"a":1},{"b":2}]': "ARRAY<OBJECT<a: BIGINT, b: BIGINT>>",
    '{"1":1, "a_b":2, "A":3, "a-b":4, "x`y":5}': "OBJECT<`1`: BIGINT, A: BIGINT, `a-b`: BIGINT, a_b: BIGINT, "
                                                  "`x``y`: BIGINT>",
    '{"b":{"z":1,"y":[true]},"a":null}': "OBJECT<a: VOID, b: OBJECT<y: ARRAY<BOOLEAN>, z: BIGINT>>",
}


@pytest.mark.parametrize("text", sorted(SPARK_SCHEMAS))
def test_schema_of_variant_as_spark(text: str) -> None:
    assert type_text(schema_of(*parse_json(text))) == SPARK_SCHEMAS[text]


def test_schema_merges_as_spark() -> None:
    def merged(*texts: str) -> str:
        out: Any = ("VOID",)
        for text in texts:
            out = merge(out, schema_of(*parse_json(text)))
        return type_text(out)

    assert merged("1", '"a"', '{"x":1}', "1.5") == "VARIANT"
    assert merged("1", "2.5", "1e3") == "DOUBLE"
    assert merged('{"a":1}', '{"a":"s","b":[1]}') == "OBJECT<a: VARIANT, b: ARRAY<BIGINT>>"
    assert merged('{"a":1}', "null") == "OBJECT<a: BIGINT>"
    assert merged("[1]", "[]") == "ARRAY<BIGINT>"
    assert merge(("DATE",), ("TIMESTAMP",)) == ("TIMESTAMP",) and merge(("BIGINT",), ("FLOAT",)) == ("FLOAT",)
