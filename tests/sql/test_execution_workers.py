"""The physical layer on real worker processes (``local[2]``): shuffles of IPC buffers, broadcasts."""

from __future__ import annotations

from collections import Counter

from rdd import SparkContext

from dstream.sql.expressions.base import Alias
from dstream.sql.plan import logical as L  # noqa: N812
from dstream.sql.types import StringType

from .exec_helpers import Count, EqualTo, relation
from .test_execution import long_relation, run


def test_word_count_and_joins_on_worker_processes() -> None:
    context = SparkContext("local[2]", "t2")
    try:
        words = [f"w{i % 37}" for i in range(5000)]
        rel, (w,) = relation({"w": (StringType(), words)})
        got = run(context, L.Aggregate([w], [w, Alias(Count([w]), "c")], rel), 3)
        assert dict(got) == dict(Counter(words))
        lrel, (lk, lv) = long_relation([(i % 50, i) for i in range(2000)])
        rrel, (rk, rv) = long_relation([(i, -i) for i in range(40)])
        joined = run(context, L.Join(lrel, rrel, "left_outer", EqualTo(lk, rk)), 3)
        assert len(joined) == 2000 and sum(1 for r in joined if r[2] is None) == 400
        broadcast = run(context, L.Join(lrel, rrel, "inner", EqualTo(lk, rk)), 3, 10**9)
        assert len(broadcast) == 1600 and all(r[0] == r[2] for r in broadcast)
    finally:
        context.stop()
