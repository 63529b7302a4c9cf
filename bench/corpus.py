"""The benchmark corpus: seeded, Zipf-distributed text, cached on disk.

This module owns the text that the word-count benchmarks read. A corpus is a function of
``(lines, seed)`` only, so every run on every machine reads the same bytes, and it is
written once to ``bench/_data/corpus-<lines>.txt`` and reused.

Shape of the text
-----------------
- A vocabulary of ``VOCABULARY_SIZE`` pronounceable words built from consonant-vowel
  syllables (``ba``, ``be``, ... ``zu``). Word ``i`` is ``i`` written in bijective base
  ``len(SYLLABLES)``, one syllable per digit, so the most frequent words are the shortest,
  as in natural language, and no two words are equal.
- Word ranks follow a Zipf law, ``p(rank r) ~ 1 / (r + 1) ** ZIPF_EXPONENT``.
- Lines hold ``MIN_WORDS``..``MAX_WORDS`` words, uniformly, about 10 on average.

Speed
-----
``random.choices`` costs a Python-level bisect per word (about 0.5 us each: 5 s for the
10 million words of the default corpus on the 2-core CI machine). Instead the Zipf law is
quantised into a lookup table of ``2 ** TABLE_BITS`` slots, each holding one word, and a
word is drawn by indexing the table with the top bits of a 32-bit integer taken from
``Random.randbytes`` in bulk. A rank rarer than one slot (2.4e-7) gets zero or one slot,
so the far tail is Zipf-like rather than exact. 1M lines take about 3.5 s.
"""

from __future__ import annotations

import itertools
import os
import random
import sys
import tempfile
from array import array
from collections.abc import Iterator
from itertools import repeat
from operator import itemgetter, rshift
from pathlib import Path

DEFAULT_LINES = 1_000_000
DEFAULT_SEED = 20240611
VOCABULARY_SIZE = 100_000
ZIPF_EXPONENT = 1.0
MIN_WORDS = 6
MAX_WORDS = 14
# 2**22 slots (32 MiB of references) resolve ranks down to p = 2.4e-7; the rarest of
# 100,000 Zipf(1) ranks has p = 8e-7, so nearly every word keeps a slot of its own.
TABLE_BITS = 22
# Lines generated and written per step: bounds memory to a few hundred MB at 1M lines.
CHUNK_LINES = 100_000

CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"
SYLLABLES: tuple[str, ...] = tuple(c + v for c in CONSONANTS for v in VOWELS)

DATA_DIR = Path(__file__).resolve().parent / "_data"


def word(index: int) -> str:
    """Return the vocabulary word with the given rank.

    Parameters
    ----------
    index : int
        Zero-based rank; 0 is the most frequent word.

    Returns
    -------
    str
        ``index`` written in bijective base ``len(SYLLABLES)`` with one syllable per
        digit, e.g. ``word(0) == "ba"``, ``word(70) == "baba"``.
    """
    if index < 0:
        raise ValueError(f"word index must be >= 0, got {index}")
    base = len(SYLLABLES)
    digits: list[str] = []
    n = index + 1
    while n:
        n, digit = divmod(n - 1, base)
        digits.append(SYLLABLES[digit])
    return "".join(reversed(digits))


def vocabulary(size: int = VOCABULARY_SIZE) -> list[str]:
    """Return the first ``size`` words, most frequent first."""
    return [word(i) for i in range(size)]


def zipf_table(words: list[str], exponent: float = ZIPF_EXPONENT,
               bits: int = TABLE_BITS) -> list[str]:
    """Quantise a Zipf law over ``words`` into a table of ``2 ** bits`` words.

    Parameters
    ----------
    words : list of str
        The vocabulary, most frequent first.
    exponent : float
        Zipf exponent ``s`` in ``p(r) ~ 1 / (r + 1) ** s``.
    bits : int
        log2 of the table size.

    Returns
    -------
    list of str
        A table where word ``r`` fills ``round(F(r) * 2**bits) - round(F(r-1) * 2**bits)``
        consecutive slots, ``F`` being the cumulative distribution; a uniform slot index
        therefore draws words with (quantised) Zipf probabilities.
    """
    slots = 1 << bits
    weights = [1.0 / (rank + 1) ** exponent for rank in range(len(words))]
    total = sum(weights)
    table: list[str] = []
    end_prev = 0
    for w, cumulative in zip(words, itertools.accumulate(weights)):
        end = round(cumulative / total * slots)
        table.extend(itertools.repeat(w, end - end_prev))
        end_prev = end
    assert len(table) == slots, (len(table), slots)
    return table


def _uint32s(rng: random.Random, count: int) -> array:
    """Return ``count`` little-endian 32-bit integers drawn from ``rng`` in one call."""
    values = array("I")
    assert values.itemsize == 4, "array('I') must be 32 bits on this platform"
    values.frombytes(rng.randbytes(4 * count))
    if sys.byteorder == "big":
        values.byteswap()
    return values


def generate_lines(lines: int, seed: int = DEFAULT_SEED) -> Iterator[list[str]]:
    """Yield the corpus as chunks of lines (strings without newlines).

    Parameters
    ----------
    lines : int
        Number of lines in the whole corpus.
    seed : int
        Seed of the ``random.Random`` that draws every word and line length.

    Yields
    ------
    list of str
        Up to ``CHUNK_LINES`` lines at a time, in corpus order.
    """
    if lines < 0:
        raise ValueError(f"lines must be >= 0, got {lines}")
    rng = random.Random(seed)
    table = zipf_table(vocabulary())
    shift = 32 - TABLE_BITS
    span = MAX_WORDS - MIN_WORDS + 1
    remaining = lines
    while remaining:
        n = min(remaining, CHUNK_LINES)
        remaining -= n
        # One byte per line length; the modulo bias (256 % span) is irrelevant here.
        lengths = [MIN_WORDS + b % span for b in rng.randbytes(n)]
        # itemgetter indexes the table in C, ~20% faster than a list comprehension.
        drawn = itemgetter(*map(rshift, _uint32s(rng, sum(lengths)), repeat(shift)))(table)
        chunk: list[str] = []
        start = 0
        for length in lengths:
            stop = start + length
            chunk.append(" ".join(drawn[start:stop]))
            start = stop
        yield chunk


def corpus_path(lines: int, seed: int = DEFAULT_SEED, data_dir: Path = DATA_DIR) -> Path:
    """Return where the corpus of ``lines`` lines and ``seed`` is cached."""
    suffix = "" if seed == DEFAULT_SEED else f"-s{seed}"
    return data_dir / f"corpus-{lines}{suffix}.txt"


def ensure_corpus(lines: int = DEFAULT_LINES, seed: int = DEFAULT_SEED,
                  data_dir: Path = DATA_DIR) -> Path:
    """Return the path of the cached corpus, generating it first if it is missing.

    Parameters
    ----------
    lines : int
        Number of lines.
    seed : int
        Generator seed.
    data_dir : Path
        Cache directory (created if needed).

    Returns
    -------
    Path
        A UTF-8 text file, one ``\\n``-terminated line per corpus line. It is written to a
        temporary file and renamed, so an interrupted run never leaves a partial corpus.
    """
    path = corpus_path(lines, seed, data_dir)
    if path.exists():
        return path
    data_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=data_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            for chunk in generate_lines(lines, seed):
                out.write("\n".join(chunk))
                out.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path


def read_lines(path: Path) -> list[str]:
    """Return the lines of a corpus file without their newlines."""
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def main(argv: list[str] | None = None) -> int:
    """Generate (or find) a corpus and print its path: ``python -m bench.corpus [LINES]``."""
    import argparse
    import time

    parser = argparse.ArgumentParser(prog="python -m bench.corpus", description=main.__doc__)
    parser.add_argument("lines", nargs="?", type=int, default=DEFAULT_LINES)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    path = ensure_corpus(args.lines, args.seed)
    elapsed = time.perf_counter() - started
    print(f"{path} ({path.stat().st_size / 1e6:.1f} MB, {elapsed:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
