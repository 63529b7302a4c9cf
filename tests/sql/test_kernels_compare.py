"""Properties of dstream.sql.kernels.compare against plain-Python statements of Spark's rules."""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql.kernels import compare as cmp

doubles = st.one_of(st.none(), st.floats(), st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan]))
texts = st.one_of(st.none(), st.text(max_size=4))


def spark_key(x: float) -> tuple[int, float]:
    """Spark's double order: NaN above everything, -0.0 equal to 0.0."""
    return (1, 0.0) if math.isnan(x) else (0, x + 0.0)


def model(op: str, x: Any, y: Any) -> bool | None:
    if x is None or y is None:
        return None
    if isinstance(x, float):
        x, y = spark_key(x), spark_key(y)
    else:
        x, y = [ord(c) for c in x], [ord(c) for c in y]  # code point order
    return {"=": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]


@pytest.mark.parametrize("op", ["=", "!=", "<", "<=", ">", ">="])
@given(data=st.lists(st.tuples(doubles, doubles), max_size=30))
def test_double_comparisons(op: str, data: list) -> None:
    xs, ys = [d[0] for d in data], [d[1] for d in data]
    got = cmp.compare(op, pa.array(xs, pa.float64()), pa.array(ys, pa.float64())).to_pylist()
    assert got == [model(op, x, y) for x, y in data]


@pytest.mark.parametrize("op", ["=", "<", ">="])
@given(data=st.lists(st.tuples(texts, texts), max_size=30))
def test_string_comparisons_by_code_point(op: str, data: list) -> None:
    xs, ys = [d[0] for d in data], [d[1] for d in data]
    got = cmp.compare(op, pa.array(xs, pa.string()), pa.array(ys, pa.string())).to_pylist()
    assert got == [model(op, x, y) for x, y in data]


@given(data=st.lists(st.tuples(doubles, doubles), max_size=30))
def test_eq_null_safe(data: list) -> None:
    xs, ys = [d[0] for d in data], [d[1] for d in data]
    got = cmp.eq_null_safe(pa.array(xs, pa.float64()), pa.array(ys, pa.float64())).to_pylist()
    assert got == [(x is None and y is None) if x is None or y is None else model("=", x, y) for x, y in data]


bools = st.one_of(st.none(), st.booleans())


@given(data=st.lists(st.tuples(bools, bools), max_size=30))
def test_kleene_logic(data: list) -> None:
    xs, ys = [d[0] for d in data], [d[1] for d in data]
    a, b = pa.array(xs, pa.bool_()), pa.array(ys, pa.bool_())

    def k_and(x: bool | None, y: bool | None) -> bool | None:
        return False if x is False or y is False else None if x is None or y is None else True

    def k_or(x: bool | None, y: bool | None) -> bool | None:
        return True if x is True or y is True else None if x is None or y is None else False

    assert cmp.and_(a, b).to_pylist() == [k_and(x, y) for x, y in data]
    assert cmp.or_(a, b).to_pylist() == [k_or(x, y) for x, y in data]
    assert cmp.not_(a).to_pylist() == [None if x is None else not x for x in xs]


@given(xs=st.lists(doubles, max_size=20), values=st.lists(doubles, max_size=5))
def test_isin(xs: list, values: list) -> None:
    got = cmp.isin(pa.array(xs, pa.float64()), values).to_pylist()
    want = []
    for x in xs:
        if x is not None and any(v is not None and model("=", x, v) for v in values):
            want.append(True)
        elif x is None or None in values:
            want.append(None)
        else:
            want.append(False)
    assert got == want


@given(data=st.lists(st.tuples(st.one_of(st.none(), st.integers(-5, 5)), st.integers(-5, 5)), max_size=20))
def test_between(data: list) -> None:
    xs = [d[0] for d in data]
    got = cmp.between(pa.array(xs, pa.int64()), -2, 3).to_pylist()
    assert got == [None if x is None else -2 <= x <= 3 for x in xs]
