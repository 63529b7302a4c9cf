"""``java.util.Random``: the generator some of Spark's functions draw from, bit for bit.

What this module owns
---------------------
:class:`JavaRandom`, the 48-bit linear congruential generator of ``java.util.Random``
(seed scrambling, ``next(bits)``, ``nextInt(bound)``, ``nextDouble()``), so that a
function seeded as Spark seeds it draws the numbers Spark draws: the tie-breaking of
``histogram_numeric``, the hash coefficients of ``count_min_sketch``.

Invariants
----------
* The state is the low 48 bits of the scrambled seed; a seed is any Python int taken as
  a Java ``long`` (its low 64 bits, as Java's constructor sees them).
* ``next_int(bound)`` follows Java's rejection loop in 32-bit ``int`` arithmetic, overflow
  included: the same seed gives the same sequence.
"""

from __future__ import annotations

__all__ = ["JavaRandom", "int32"]

_MULTIPLIER = 0x5DEECE66D
_MASK = (1 << 48) - 1


def int32(value: int) -> int:
    """``value`` wrapped to a Java ``int``."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


class JavaRandom:
    """``new java.util.Random(seed)``."""

    def __init__(self, seed: int) -> None:
        self.seed = (seed ^ _MULTIPLIER) & _MASK

    def next_bits(self, bits: int) -> int:
        """Java's ``next(bits)``: the top ``bits`` of the advanced state (a Java ``int``)."""
        self.seed = (self.seed * _MULTIPLIER + 0xB) & _MASK
        return int32(self.seed >> (48 - bits))

    def next_int(self, bound: int) -> int:
        """Java's ``nextInt(bound)``: uniform in ``[0, bound)`` (``bound`` a positive ``int``)."""
        if not 0 < bound <= 0x7FFFFFFF:
            raise ValueError(f"bound must be a positive Java int, got {bound}")
        r = self.next_bits(31)
        m = bound - 1
        if bound & m == 0:  # a power of two: the high bits
            return int32((bound * r) >> 31)
        u = r
        r = u % bound
        while int32(u - r + m) < 0:  # the last, partial range of 31-bit values is redrawn
            u = self.next_bits(31)
            r = u % bound
        return r

    def next_double(self) -> float:
        """Java's ``nextDouble()``: 53 random bits in ``[0, 1)``."""
        return ((self.next_bits(26) << 27) + self.next_bits(27)) * (1.0 / (1 << 53))
