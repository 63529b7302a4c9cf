"""Whether a plan reads a stream: the question the optimizer and Structured Streaming ask.

What this module owns
---------------------
:func:`reads_stream`, answered from the nodes' ``stream_input`` marker (an unstarted
streaming relation, or the rows a micro-batch read from its source). The optimizer
applies its stream-only rules (not-null inference, outer join elimination) by it; the
streaming checks and planners decide what is stateful by it.
"""

from __future__ import annotations

from .logical import LogicalPlan

__all__ = ["reads_stream"]


def reads_stream(plan: LogicalPlan) -> bool:
    """Whether ``plan`` reads a stream (an unstarted relation, or a micro-batch's source rows)."""
    return any(node.stream_input for node in plan.walk())
