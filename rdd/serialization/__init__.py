"""Serialisation: the bottom layer every other part of ``rdd`` may use.

``serializer.py`` turns closures, records and data into bytes and back (and names the
culprit when something cannot be pickled); ``pickler.py`` is the closure pickler it uses.
Invariant: this package imports nothing of ``rdd`` but ``rdd.errors``, so storage,
shuffle, lineage nodes, the scheduler and the executors can all depend on it.
"""
