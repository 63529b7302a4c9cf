"""Lineage nodes: the snake_case engine objects behind every RDD.

A node knows its partitions, its dependencies and how to compute one partition from
its parents' iterators. Nodes never import the facade (``rdd.rdd``); the facade holds
a node. Nodes are pickled into tasks: what a node must not carry into a worker (the
driver-side data of ``parallelize``, the parents beyond a shuffle or a checkpoint) is
left out by its ``__getstate__``/``__reduce__``.
"""
