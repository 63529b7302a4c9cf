"""Keyed state of streams: updateStateByKey and mapWithState.

The state of a stream is partitioned by a stable hash; partition i lives in the
worker that computed it (a cached block) and is updated there in place each batch,
so it never crosses a process boundary except when it is checkpointed.
"""
