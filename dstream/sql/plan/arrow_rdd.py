"""A leaf over an RDD of Arrow record batches.

What this module owns
---------------------
:class:`ArrowRDDRelation`: rows an RDD already computes as Arrow record batches whose
columns are named by the output attributes' ids (``#<id>``). What hands batches over
makes one: a streaming source that reads in tasks (Kafka, rate), a micro-batch's result,
``mapInArrow``/``mapInPandas`` and ``checkpoint``. Its physical scan is the RDD itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..expressions.base import AttributeReference
from .logical import LeafPlan

__all__ = ["ArrowRDDRelation"]


class ArrowRDDRelation(LeafPlan):
    """Rows computed by an RDD of Arrow record batches (columns named by the output's ids)."""

    def __init__(self, output: Sequence[AttributeReference], rdd: Any, name: str) -> None:
        super().__init__(output)
        self.rdd = rdd
        self.name = name

    def describe(self) -> str:
        cols = ", ".join(repr(a) for a in self._output)
        return f"{self.name} [{cols}]"
