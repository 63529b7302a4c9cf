"""Spark's ``XORShiftRandom``: the generator of ``rand(seed)`` and ``randn(seed)``.

What this module owns
---------------------
:class:`XORShiftRandom`, bit for bit Spark's: the seed is scrambled with Scala's
``MurmurHash3.bytesHash`` of its 8 big-endian bytes (low word seeded with ``arraySeed``,
high word with the low word), each step is the xorshift ``x ^= x << 21; x ^= x >>> 35;
x ^= x << 4`` on 64 bits, and ``next_double``/``next_gaussian`` are ``java.util.Random``'s
``nextDouble`` (26 + 27 bits) and ``nextGaussian`` (the polar method, the second value
kept for the next call) over those steps.

Invariants
----------
* The same seed gives Spark's sequence: ``XORShiftRandom(42 + 0).next_double()`` is the first
  ``rand(42)`` of partition 0.
"""

from __future__ import annotations

import math
import struct

__all__ = ["XORShiftRandom"]

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF
#: Scala's ``MurmurHash3.arraySeed``.
_ARRAY_SEED = 0x3C074A61


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _MASK32


def _mix_last(h: int, k: int) -> int:
    k = (k * 0xCC9E2D51) & _MASK32
    k = _rotl(k, 15)
    k = (k * 0x1B873593) & _MASK32
    return h ^ k


def _bytes_hash(data: bytes, seed: int) -> int:
    """Scala's ``MurmurHash3.bytesHash`` (32-bit, unsigned here)."""
    h = seed & _MASK32
    body = len(data) - len(data) % 4
    for i in range(0, body, 4):
        h = _mix_last(h, int.from_bytes(data[i:i + 4], "little"))
        h = (_rotl(h, 13) * 5 + 0xE6546B64) & _MASK32
    tail = data[body:]
    if tail:
        h = _mix_last(h, int.from_bytes(tail, "little"))
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK32
    return h ^ (h >> 16)


def _hash_seed(seed: int) -> int:
    data = struct.pack(">q", seed)
    low = _bytes_hash(data, _ARRAY_SEED)
    high = _bytes_hash(data, low)
    return ((high << 32) | low) & _MASK64


class XORShiftRandom:
    """Spark's generator for one seed (``seed + partition index`` for ``rand``/``randn``)."""

    def __init__(self, seed: int) -> None:
        # A Long in Spark: seeds wrap to 64 bits.
        self._state = _hash_seed(((seed + (1 << 63)) & _MASK64) - (1 << 63))
        self._next_gaussian: float | None = None

    def _next(self, bits: int) -> int:
        x = self._state
        x ^= (x << 21) & _MASK64
        x ^= x >> 35
        x ^= (x << 4) & _MASK64
        self._state = x
        return x & ((1 << bits) - 1)

    def next_int(self) -> int:
        """A signed 32-bit int (``java.util.Random.nextInt()``)."""
        value = self._next(32)
        return value - (1 << 32) if value >= 1 << 31 else value

    def next_double(self) -> float:
        """A uniform double in [0, 1) (``java.util.Random.nextDouble``)."""
        return ((self._next(26) << 27) + self._next(27)) * 2.0 ** -53

    def doubles(self, count: int) -> list[float]:
        """The next ``count`` :meth:`next_double` values (one loop, no call per value: rows draw in bulk)."""
        x, mask, unit = self._state, _MASK64, 2.0 ** -53
        out: list[float] = []
        append = out.append
        for _ in range(count):
            x ^= (x << 21) & mask
            x ^= x >> 35
            x ^= (x << 4) & mask
            high = x & 0x3FFFFFF
            x ^= (x << 21) & mask
            x ^= x >> 35
            x ^= (x << 4) & mask
            append(((high << 27) + (x & 0x7FFFFFF)) * unit)
        self._state = x
        return out

    def next_gaussian(self) -> float:
        """A standard normal double (``java.util.Random.nextGaussian``)."""
        if self._next_gaussian is not None:
            value, self._next_gaussian = self._next_gaussian, None
            return value
        while True:
            v1 = 2 * self.next_double() - 1
            v2 = 2 * self.next_double() - 1
            s = v1 * v1 + v2 * v2
            if 0 < s < 1:
                break
        multiplier = math.sqrt(-2 * math.log(s) / s)
        self._next_gaussian = v2 * multiplier
        return v1 * multiplier
