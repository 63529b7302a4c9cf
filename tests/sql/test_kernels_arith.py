"""Properties of dstream.sql.kernels.arith against plain-Python statements of Spark's rules."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql.errors import ArithmeticException
from dstream.sql.kernels import arith as ar

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
ints32 = st.one_of(st.none(), st.integers(*INT32), st.sampled_from([INT32[0], INT32[1], 0, -1, 1]))
ints64 = st.one_of(st.none(), st.integers(*INT64), st.sampled_from([INT64[0], INT64[1], 0, -1]))
doubles = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0]))


def wrap(v: int, bits: int) -> int:
    m = 1 << bits
    v &= m - 1
    return v - m if v >= m // 2 else v


@pytest.mark.parametrize("name,fn", [("add", lambda x, y: x + y), ("subtract", lambda x, y: x - y),
                                     ("multiply", lambda x, y: x * y)])
@given(data=st.lists(st.tuples(ints32, ints32), max_size=30))
def test_int_arith_wraps_or_raises(name: str, fn: object, data: list) -> None:
    xs, ys = [d[0] for d in data], [d[1] for d in data]
    a, b = pa.array(xs, pa.int32()), pa.array(ys, pa.int32())
    exact = [None if x is None or y is None else fn(x, y) for x, y in zip(xs, ys)]  # type: ignore[operator]
    assert getattr(ar, name)(a, b, pa.int32(), False).to_pylist() == [None if e is None else wrap(e, 32) for e in exact]
    overflow = any(e is not None and not INT32[0] <= e <= INT32[1] for e in exact)
    if overflow:
        with pytest.raises(ArithmeticException) as info:
            getattr(ar, name)(a, b, pa.int32(), True)
        assert info.value.getCondition() == "ARITHMETIC_OVERFLOW"
        assert "integer overflow. Use 'try_" in str(info.value) and str(info.value).endswith("SQLSTATE: 22003")
    else:
        assert getattr(ar, name)(a, b, pa.int32(), True).to_pylist() == exact


@given(data=st.lists(st.tuples(ints64, ints64), max_size=30))
def test_long_multiply(data: list) -> None:
    xs, ys = [d[0] for d in data], [d[1] for d in data]
    exact = [None if x is None or y is None else x * y for x, y in zip(xs, ys)]
    got = ar.multiply(pa.array(xs, pa.int64()), pa.array(ys, pa.int64()), pa.int64(), False).to_pylist()
    assert got == [None if e is None else wrap(e, 64) for e in exact]
    if any(e is not None and not INT64[0] <= e <= INT64[1] for e in exact):
        with pytest.raises(ArithmeticException, match="long overflow"):
            ar.multiply(pa.array(xs, pa.int64()), pa.array(ys, pa.int64()), pa.int64(), True)


def test_byte_overflow_message() -> None:
    with pytest.raises(ArithmeticException) as info:
        ar.add(pa.array([127], pa.int8()), pa.array([5], pa.int8()), pa.int8(), True)
    assert str(info.value) == ("[BINARY_ARITHMETIC_OVERFLOW] 127S + 5S caused overflow. Use `try_add` to ignore "
                               "overflow problem and return NULL. SQLSTATE: 22003")
    assert ar.add(pa.array([127], pa.int8()), pa.array([5], pa.int8()), pa.int8(), False).to_pylist() == [-124]


@given(data=st.lists(st.tuples(doubles, doubles), max_size=30), ansi=st.booleans())
def test_divide_doubles(data: list, ansi: bool) -> None:
    xs, ys = [d[0] for d in data], [d[1] for d in data]
    zero_hit = any(x is not None and y == 0 for x, y in zip(xs, ys))
    a, b = pa.array(xs, pa.float64()), pa.array(ys, pa.float64())
    if ansi and zero_hit:
        with pytest.raises(ArithmeticException) as info:
            ar.divide(a, b, True)
        assert str(info.value) == (
            "[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL "
            "instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error. SQLSTATE: 22012")
        return
    got = ar.divide(a, b, ansi).to_pylist()
    for x, y, g in zip(xs, ys, got):
        if x is None or y is None or y == 0:
            assert g is None
        else:
            want = x / y if not (math.isinf(x) and math.isinf(y)) else math.nan
            assert (math.isnan(want) and math.isnan(g)) or g == want


@given(data=st.lists(st.tuples(ints32, ints32), max_size=30))
def test_remainder_and_pmod_ints(data: list) -> None:
    xs, ys = [d[0] for d in data], [d[1] for d in data]
    a, b = pa.array(xs, pa.int32()), pa.array(ys, pa.int32())
    rem = [None if x is None or y is None or y == 0 else int(math.fmod(x, y)) for x, y in zip(xs, ys)]
    assert ar.remainder(a, b, pa.int32(), False).to_pylist() == rem
    pm = [None if r is None else wrap(r + y, 32) % y if r < 0 and y > 0 else
          int(math.fmod(wrap(r + y, 32), y)) if r < 0 else r for r, y in zip(rem, ys)]
    assert ar.pmod(a, b, pa.int32(), False).to_pylist() == pm


@given(data=st.lists(st.tuples(doubles, doubles), max_size=20))
def test_remainder_doubles_is_java_fmod(data: list) -> None:
    xs, ys = [d[0] for d in data], [d[1] for d in data]
    got = ar.remainder(pa.array(xs, pa.float64()), pa.array(ys, pa.float64()), pa.float64(), False).to_pylist()
    for x, y, g in zip(xs, ys, got):
        if x is None or y is None or y == 0:
            assert g is None
        elif math.isnan(x) or math.isnan(y) or math.isinf(x):
            assert math.isnan(g)
        else:
            assert g == math.fmod(x, y) and math.copysign(1, g) == math.copysign(1, x)


@given(xs=st.lists(ints64, max_size=20), ys=st.lists(ints64, min_size=20, max_size=20))
def test_int_divide(xs: list, ys: list) -> None:
    ys = ys[: len(xs)]
    got = ar.int_divide(pa.array(xs, pa.int64()), pa.array(ys, pa.int64()), False).to_pylist()
    want = [None if x is None or y is None or y == 0 else wrap(abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1),
                                                                  64) for x, y in zip(xs, ys)]
    assert got == want


def test_int_divide_overflow_and_zero() -> None:
    with pytest.raises(ArithmeticException, match="Overflow in integral divide"):
        ar.int_divide(pa.array([INT64[0]]), pa.array([-1]), True)
    with pytest.raises(ArithmeticException, match="DIVIDE_BY_ZERO"):
        ar.remainder(pa.array([1]), pa.array([0]), pa.int64(), True)
    assert ar.divide(pa.array([None], pa.int64()), pa.array([0]), True).to_pylist() == [None]


@given(xs=st.lists(ints32, max_size=20))
def test_negate_abs(xs: list) -> None:
    a = pa.array(xs, pa.int32())
    assert ar.negate(a, pa.int32(), False).to_pylist() == [None if x is None else wrap(-x, 32) for x in xs]
    assert ar.abs_(a, pa.int32(), False).to_pylist() == [None if x is None else wrap(abs(x), 32) for x in xs]
    if INT32[0] in xs:
        with pytest.raises(ArithmeticException, match="integer overflow"):
            ar.negate(a, pa.int32(), True)


near_ties = st.integers(-10**6, 10**6).map(lambda i: i / 1000 + 0.0005)


@given(xs=st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6), near_ties), max_size=30), scale=st.integers(0, 4))
def test_round_half_up_rounds_shortest_text(xs: list, scale: int) -> None:
    got = ar.round_half_up(pa.array(xs, pa.float64()), scale).to_pylist()
    q = Decimal(1).scaleb(-scale)
    assert got == [None if x is None else float(Decimal(repr(x)).quantize(q, rounding=ROUND_HALF_UP)) for x in xs]


def test_round_examples() -> None:
    assert ar.round_half_up(pa.array([2.5, -2.5, 2.675]), 0).to_pylist() == [3.0, -3.0, 3.0]
    assert ar.round_half_up(pa.array([2.675]), 2).to_pylist() == [2.68]
    assert ar.round_half_even(pa.array([2.5, -2.5, 3.5]), 0).to_pylist() == [2.0, -2.0, 4.0]
    assert ar.round_half_up(pa.array([125, -125]), -1).to_pylist() == [130, -130]


decimals = st.one_of(st.none(), st.decimals(-10**6, 10**6, places=3, allow_nan=False))


@given(data=st.lists(st.tuples(decimals, decimals), max_size=20), ansi=st.booleans())
def test_decimal_add_fits_result_type(data: list, ansi: bool) -> None:
    t = pa.decimal128(8, 2)  # narrower than the exact sum: rounding and overflow both happen
    xs, ys = [d[0] for d in data], [d[1] for d in data]
    exact = [None if x is None or y is None else (x + y).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
             for x, y in zip(xs, ys)]
    fits = [None if e is None else e if abs(e) < 10**6 else "overflow" for e in exact]
    a, b = pa.array(xs, pa.decimal128(10, 3)), pa.array(ys, pa.decimal128(10, 3))
    if ansi and "overflow" in fits:
        with pytest.raises(ArithmeticException, match="NUMERIC_VALUE_OUT_OF_RANGE"):
            ar.add(a, b, t, True)
    else:
        assert ar.add(a, b, t, ansi).to_pylist() == [None if f == "overflow" else f for f in fits]


def test_million_rows_is_fast() -> None:
    import time
    a = pa.array(range(1_000_000), pa.int64())
    start = time.perf_counter()
    ar.add(a, a, pa.int64(), True)
    ar.divide(a, a, False)
    ar.remainder(a, pa.array(range(1, 1_000_001)), pa.int64(), True)
    assert time.perf_counter() - start < 2.0
