"""State of stateful streaming operators (stores, operators); PySpark's ``pyspark.sql.streaming.state`` names.

``from dstream.sql.streaming.state import GroupState, GroupStateTimeout`` works as the
PySpark import does; the store and the operators are internal modules of this package.
"""

from __future__ import annotations

from ..group_state import GroupState, GroupStateTimeout

__all__ = ["GroupState", "GroupStateTimeout"]
