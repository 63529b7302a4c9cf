"""Benchmarks of dstreams against plain Python: ``python -m bench`` (``make bench``).

The package owns the benchmark programs and ``RESULTS.md``. ``corpus`` generates and
caches the input text, ``harness`` times callables and renders results, and every
``bench_<name>`` module measures one part of the project through its public API and
exposes ``TITLE`` and ``run(options) -> list[Benchmark]``. ``__main__`` finds those
modules, runs them and merges their sections into ``RESULTS.md``.
"""
