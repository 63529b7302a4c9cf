"""DStream graph nodes: one snake_case engine class per operator kind.

A :class:`~dstream.nodes.base.StreamNode` turns a batch time into an RDD
(``compute``), memoised per time (``get_or_compute``). The facades in
``dstream.dstream``/``dstream.pair`` build nodes; nodes never import facades.
"""
