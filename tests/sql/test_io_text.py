"""The text source's line splitting: Spark's separators (\\n, \\r\\n, \\r) and ``lineSep``."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from dstream.sql.io.text import split_lines

pieces = st.lists(st.sampled_from(["a", "bc", "é", " ", "\n", "\r\n", "\r", ""]), max_size=30)


def model(text: str) -> list[str]:
    """Spark's default split: lines end at \\n, \\r\\n or \\r; no row after a final terminator."""
    if not text:
        return []
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if text.endswith(("\n", "\r")) else lines


@given(pieces)
def test_default_separators_match_the_model(parts: list[str]) -> None:
    text = "".join(parts)
    assert split_lines(text.encode()).to_pylist() == model(text)


def test_custom_separator_splits_only_there() -> None:
    assert split_lines(b"a|b\r\nc|", "|").to_pylist() == ["a", "b\r\nc"]
    assert split_lines(b"", "|").to_pylist() == []


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    assert split_lines(b"ok\n\xff\xfebad\n").to_pylist() == ["ok", "\ufffd\ufffdbad"]
