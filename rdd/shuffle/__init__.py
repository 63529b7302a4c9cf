"""Shuffle: map tasks write one bucketed output each; reduce tasks read their bucket.

See ``store.py`` for where outputs live (files for ``local[N]``, memory for
``local``), ``writer.py`` for map-side combine, bucketing and the map side's spec
(``ShuffleWriteSpec``), ``reader.py`` for the reduce side. The fused count of the
``(x, c)``-and-sum idiom reads lineage nodes, so it lives with them (``rdd.nodes.fusion``).
"""
