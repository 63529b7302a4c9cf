"""Properties of dstream.sql.kernels.strings against plain-Python statements of Spark's rules."""

from __future__ import annotations

import re

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql.kernels import strings as sf

texts = st.lists(st.one_of(st.none(), st.text(alphabet="ab é😀,-1 ", max_size=8)), max_size=15)


def spark_substring(s: str, pos: int, n: int) -> str:
    size = len(s)
    start = pos - 1 if pos > 0 else size + pos if pos < 0 else 0
    end = start + n
    start = max(start, 0)
    return "" if start >= end else s[start:end]


@given(xs=texts, pos=st.integers(-12, 12), n=st.integers(-3, 12))
def test_substring(xs: list, pos: int, n: int) -> None:
    got = sf.substring(pa.array(xs, pa.string()), pos, n).to_pylist()
    assert got == [None if x is None else spark_substring(x, pos, n) for x in xs]
    arr = sf.substring(pa.array(xs, pa.string()), pa.array([pos] * len(xs)), pa.array([n] * len(xs))).to_pylist()
    assert arr == got


@given(xs=texts, sub=st.sampled_from(["a", "é", "😀", "ab", ",", ""]), pos=st.integers(-1, 6))
def test_instr_locate(xs: list, sub: str, pos: int) -> None:
    a = pa.array(xs, pa.string())
    assert sf.instr(a, sub).to_pylist() == [None if x is None else x.find(sub) + 1 for x in xs]
    want = [None if x is None else 0 if pos < 1 else (1 if sub == "" else x.find(sub, pos - 1) + 1) for x in xs]
    assert sf.locate(sub, a, pos).to_pylist() == want


@given(cols=st.lists(texts, min_size=1, max_size=3))
def test_concat_and_concat_ws(cols: list) -> None:
    n = min(len(c) for c in cols)
    cols = [c[:n] for c in cols]
    arrays = [pa.array(c, pa.string()) for c in cols]
    rows = list(zip(*cols))
    assert sf.concat(arrays).to_pylist() == [None if None in r else "".join(r) for r in rows]
    assert sf.concat_ws("|", arrays).to_pylist() == ["|".join(v for v in r if v is not None) for r in rows]


@given(xs=texts, n=st.integers(-2, 10), pad=st.sampled_from([" ", "*", "xy", "é😀", ""]))
def test_pads(xs: list, n: int, pad: str) -> None:
    def model(s: str, left: bool) -> str:
        if n <= 0:
            return ""
        if len(s) >= n or pad == "":
            return s[:n]
        fill = (pad * n)[: n - len(s)]
        return fill + s if left else s + fill

    a = pa.array(xs, pa.string())
    assert sf.lpad(a, n, pad).to_pylist() == [None if x is None else model(x, True) for x in xs]
    assert sf.rpad(a, n, pad).to_pylist() == [None if x is None else model(x, False) for x in xs]


@given(xs=texts)
def test_split_keeps_trailing_empties(xs: list) -> None:
    got = sf.split(pa.array(xs, pa.string()), ",").to_pylist()
    assert got == [None if x is None else x.split(",") for x in xs]


@given(xs=texts)
def test_initcap_reverse_length_trim(xs: list) -> None:
    a = pa.array(xs, pa.string())
    assert sf.initcap(a).to_pylist() == [None if x is None else " ".join(w[:1].upper() + w[1:].lower()
                                                                         for w in x.split(" ")) for x in xs]
    assert sf.reverse(a).to_pylist() == [None if x is None else x[::-1] for x in xs]
    assert sf.length(a).to_pylist() == [None if x is None else len(x) for x in xs]
    assert sf.trim(a).to_pylist() == [None if x is None else x.strip(" ") for x in xs]


@given(xs=texts, pattern=st.sampled_from(["a%", "%b_", "_", "%", "a\\%", "%é%"]))
def test_like(xs: list, pattern: str) -> None:
    def model(s: str) -> bool:
        rx = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c)
                     for c in re.split(r"(\\.|%|_)", pattern) if c for c in ([c[1]] if c.startswith("\\") else [c]))
        return re.fullmatch(rx, s, re.S) is not None

    assert sf.like(pa.array(xs, pa.string()), pattern).to_pylist() == [None if x is None else model(x) for x in xs]


def test_regex_functions() -> None:
    a = pa.array(["100-200", "x", None])
    assert sf.regexp_extract(a, r"(\d+)-(\d+)", 2).to_pylist() == ["200", "", None]
    assert sf.regexp_extract(a, r"(\d+)-(\d+)", 0).to_pylist() == ["100-200", "", None]
    assert sf.regexp_replace(a, r"(\d+)", "<$1>").to_pylist() == ["<100>-<200>", "x", None]
    assert sf.rlike(a, r"\d-\d").to_pylist() == [True, False, None]
    # Look-ahead is Java syntax RE2 rejects: the `re` fallback runs it.
    assert sf.regexp_extract(pa.array(["ab", "ac"]), r"a(?=b)", 0).to_pylist() == ["a", ""]
    assert sf.translate(pa.array(["abcabc"]), "abc", "x").to_pylist() == ["xx"]
    assert sf.repeat(pa.array(["ab", None]), 3).to_pylist() == ["ababab", None]
