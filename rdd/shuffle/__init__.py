"""Shuffle: map tasks write one bucketed output each; reduce tasks read their bucket.

See ``store.py`` for where outputs live (files for ``local[N]``, memory for
``local``), ``writer.py`` for map-side combine and bucketing, ``fusion.py`` for the
fused count of the ``(x, c)``-and-sum idiom.
"""
