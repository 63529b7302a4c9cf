"""A small English-looking corpus for the examples, so they run without input files.

This module owns the examples' sample text (the benchmarks have their own, larger
generator in ``bench/``; examples do not import it). Words are drawn from a fixed list of
common English words with Zipf weights (the word at rank r is drawn with probability
proportional to 1 / r), so a word count shows a realistic long tail.
"""

from __future__ import annotations

import random
from itertools import accumulate
from pathlib import Path

WORDS = """
the of and to a in is it you that he was for on are with as I his they be at one have
this from or had by hot word but what some we can out other were all there when up use
your how said an each she which do their time if will way about many then them write
would like so these her long make thing see him two has look more day could go come did
number sound no most people my over know water than call first who may down side been
now find any new work part take get place made live where after back little only round
man year came show every good me give our under name very through just form sentence
great think say help low line differ turn cause much mean before move right boy old too
same tell does set three want air well also play small end put home read hand port large
spell add even land here must big high such follow act why ask men change went light
kind off need house picture try us again animal point mother world near build self earth
father head stand own page should country found answer school grow study still learn
plant cover food sun four between state keep eye never last let thought city tree cross
farm hard start might story saw far sea draw left late run while press close night real
life few north open seem together next white children begin got walk example ease paper
group always music those both mark often letter until mile river car feet care second
book carry took science eat room friend began idea fish mountain stop once base hear
horse cut sure watch color face wood main enough plain girl usual young ready above ever
red list though feel talk bird soon body dog family direct pose leave song measure door
""".split()


def write_corpus(path: Path, lines: int, seed: int = 7) -> Path:
    """Write ``lines`` lines of 4 to 16 words each to ``path`` and return ``path``.

    Parameters
    ----------
    path : Path
        File to create (UTF-8, one ``\\n``-terminated line per line).
    lines : int
        Number of lines.
    seed : int
        Seed of the ``random.Random`` that draws the words; the same seed gives the same
        text.

    Returns
    -------
    Path
        ``path``, for chaining.
    """
    rng = random.Random(seed)
    cumulative = list(accumulate(1.0 / rank for rank in range(1, len(WORDS) + 1)))
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for _ in range(lines):
            words = rng.choices(WORDS, cum_weights=cumulative, k=rng.randint(4, 16))
            out.write(" ".join(words) + "\n")
    return path
