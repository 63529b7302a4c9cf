"""Stream-stream joins (symmetric hash join with state) and stream-static joins over MemoryStreams."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException
from dstream.sql.streaming import MemoryStream

from .helpers import DEADLINE, collecting, operator, run, ts


def operators(query: Any) -> list[dict[str, Any]]:
    return [operator(p) for p in query.recentProgress if p["stateOperators"]]


def ids(rows: list[tuple[Any, ...]], left: int, right: int) -> list[tuple[Any, Any]]:
    """The (left id, right id) of joined rows, ids at the given positions."""
    return sorted(((r[left], r[right]) for r in rows), key=repr)


def sides(spark: SparkSession, left_delay: str | None = None, right_delay: str | None = None
          ) -> tuple[MemoryStream, Any, Any]:
    """One stream feeding both sides (``side`` L or R), so that one batch can bring rows to both."""
    stream = MemoryStream("side string, k string, t timestamp, id int", spark)
    df = stream.toDF()
    left = df.where("side = 'L'").select(F.col("k").alias("lk"), F.col("t").alias("lt"), F.col("id").alias("lid"))
    right = df.where("side = 'R'").select(F.col("k").alias("rk"), F.col("t").alias("rt"), F.col("id").alias("rid"))
    if left_delay is not None:
        left = left.withWatermark("lt", left_delay)
    if right_delay is not None:
        right = right.withWatermark("rt", right_delay)
    return stream, left, right


@pytest.fixture
def no_data_batches_off(spark: SparkSession) -> Iterator[None]:
    spark.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", "false")
    try:
        yield
    finally:
        spark.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", "true")


def test_inner_join_without_watermark_emits_each_pair_once(spark: SparkSession) -> None:
    stream, left, right = sides(spark)
    query, out = collecting(left.join(right, F.col("lk") == F.col("rk")))
    run(query, stream, [("L", "a", ts(1), 1), ("R", "a", ts(1), 2), ("L", "a", ts(2), 3), ("L", "b", ts(1), 4)])
    run(query, stream, [("R", "a", ts(5), 5), ("R", "b", ts(5), 6)])
    run(query, stream, [("L", "b", ts(9), 7), ("R", "c", ts(9), 8)])
    query.stop()
    assert [ids(rows, 2, 5) for rows in out] == [[(1, 2), (3, 2)], [(1, 5), (3, 5), (4, 6)], [(7, 6)]]
    ops = operators(query)
    assert {op["operatorName"] for op in ops} == {"symmetricHashJoin"}
    assert [op["numRowsTotal"] for op in ops] == [4, 6, 8]  # no watermark: every row stays
    assert [op["numRowsUpdated"] for op in ops] == [4, 2, 2]
    assert all(op["numStateStoreInstances"] == 4 * op["numShufflePartitions"] for op in ops)


def test_two_streams_joined_on_a_column_name(spark: SparkSession) -> None:
    ls, rs = MemoryStream("k string, a int", spark), MemoryStream("k string, b int", spark)
    query, out = collecting(ls.toDF().join(rs.toDF(), "k"))
    run(query, ls, [("x", 1), ("y", 2)])
    run(query, rs, [("x", 10), ("z", 30)])
    run(query, ls, [("x", 3), ("z", 4)])
    query.stop()
    assert [sorted(rows) for rows in out] == [[], [("x", 1, 10)], [("x", 3, 10), ("z", 4, 30)]]


def test_equal_windows_evict_both_sides_and_late_rows_are_dropped(spark: SparkSession) -> None:
    ls, rs = MemoryStream("k string, t timestamp, a int", spark), MemoryStream("k string, t timestamp, b int", spark)
    left = ls.toDF().withWatermark("t", "5 seconds").select("k", F.window("t", "10 seconds").alias("w"), "a")
    right = rs.toDF().withWatermark("t", "5 seconds").select("k", F.window("t", "10 seconds").alias("w"), "b")
    query, out = collecting(left.join(right, ["k", "w"]).select("k", "a", "b"))
    run(query, ls, [("x", ts(1), 1), ("x", ts(12), 2)])
    run(query, rs, [("x", ts(3), 10), ("x", ts(18), 20)])  # watermark 0 s (the right side had no data)
    assert sorted(r for rows in out for r in rows) == [("x", 1, 10), ("x", 2, 20)]
    assert operator(query.lastProgress)["numRowsTotal"] == 4
    run(query, ls, [("x", ts(40), 3)])  # watermark 13 s, then 35 s... the right side holds it at 13 s
    # watermark 13 s: the windows [0, 10) are gone from both sides
    assert operator(query.lastProgress)["numRowsTotal"] == 3
    run(query, rs, [("x", ts(9), 30), ("x", ts(45), 40)])  # 9 s is late (<= 13 s)
    query.stop()
    assert sorted(r for rows in out for r in rows) == [("x", 1, 10), ("x", 2, 20), ("x", 3, 40)]
    ops = operators(query)
    assert sum(op["numRowsDroppedByWatermark"] for op in ops) == 1
    assert ops[-1]["numRowsTotal"] == 2  # watermark 35 s: only the windows [40, 50) remain


@pytest.mark.parametrize("upper", ["cast(lt as long) <= cast(rt as long) + 10", "lt <= rt + INTERVAL 10 SECONDS",
                                   "lt - INTERVAL '00:10' MINUTE TO SECOND <= rt"])
def test_left_outer_join_emits_unmatched_rows_after_the_watermark_passes_their_bound(spark: SparkSession,
                                                                                     upper: str) -> None:
    # The bound is the same whether the condition counts seconds or says INTERVAL (Spark's own example).
    stream, left, right = sides(spark, "5 seconds", "5 seconds")
    cond = F.expr(f"lk = rk AND lt >= rt AND {upper}")
    query, out = collecting(left.join(right, cond, "left_outer"))
    run(query, stream, [("L", "a", ts(5), 1), ("R", "a", ts(1), 2), ("R", "a", ts(4), 3), ("L", "b", ts(6), 4)])
    assert ids(out[0], 2, 5) == [(1, 2), (1, 3)]
    run(query, stream, [("R", "z", ts(40), 5), ("L", "z", ts(45), 6)])
    # watermark 35 s: a (matched) and b (never matched) leave the left state; only b comes out, with nulls
    assert [ids(rows, 2, 5) for rows in out[1:]] == [[(6, 5)], [(4, None)]]
    assert out[-1] == [("b", ts(6), 4, None, None, None)]
    assert query.lastProgress["numInputRows"] == 0
    assert operator(query.lastProgress)["numRowsRemoved"] == 4 and operator(query.lastProgress)["numRowsTotal"] == 2
    query.stop()


def test_outer_rows_come_after_the_matched_rows_of_their_batch(spark: SparkSession,
                                                               no_data_batches_off: None) -> None:
    stream, left, right = sides(spark, "0 seconds", "0 seconds")
    cond = F.expr("lk = rk AND lt >= rt AND cast(lt as long) <= cast(rt as long) + 10")
    # One state partition: the order holds within a partition (the shared context may be local[2]).
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    try:
        query, out = collecting(left.join(right, cond, "left_outer"))
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", "200")
    run(query, stream, [("L", "a", ts(1), 1), ("L", "b", ts(2), 2), ("L", "d", ts(25), 6), ("R", "x", ts(20), 3)])
    # no batch without data: the watermark (20 s, the smaller side's) is used by the next data batch only
    run(query, stream, [("L", "c", ts(30), 4), ("R", "c", ts(25), 5)])
    query.stop()
    assert len(out) == 2
    matched, lonely = out[1][:1], out[1][1:]
    assert [(r[2], r[5]) for r in matched] == [(4, 5)]
    assert sorted((r[2], r[5]) for r in lonely) == [(1, None), (2, None)]


def test_right_and_full_outer_joins(spark: SparkSession) -> None:
    for how, expected in (("right_outer", {(1, 2), (None, 4)}), ("full_outer", {(1, 2), (None, 4), (3, None)})):
        stream, left, right = sides(spark, "0 seconds", "0 seconds")
        cond = F.expr("lk = rk AND cast(lt as long) >= cast(rt as long) - 5 AND cast(lt as long) <= "
                      "cast(rt as long) + 5")
        query, out = collecting(left.join(right, cond, how))
        run(query, stream, [("L", "a", ts(1), 1), ("R", "a", ts(3), 2), ("L", "b", ts(2), 3), ("R", "c", ts(2), 4)])
        run(query, stream, [("L", "z", ts(60), 5), ("R", "z", ts(70), 6)])
        query.stop()
        got = {(r[2], r[5]) for rows in out for r in rows}
        assert got == expected, how


def test_left_semi_join_emits_each_left_row_once(spark: SparkSession) -> None:
    stream, left, right = sides(spark, "5 seconds", "5 seconds")
    cond = F.expr("lk = rk AND cast(lt as long) >= cast(rt as long) - 5 AND cast(lt as long) <= cast(rt as long) + 5")
    query, out = collecting(left.join(right, cond, "left_semi"))
    run(query, stream, [("L", "a", ts(10), 1), ("L", "a", ts(11), 2), ("R", "a", ts(12), 3), ("R", "a", ts(13), 4)])
    run(query, stream, [("R", "a", ts(14), 5), ("L", "a", ts(15), 6), ("L", "b", ts(15), 7)])
    query.stop()
    assert [sorted(r[2] for r in rows) for rows in out if rows] == [[1, 2], [6]]
    assert all(len(r) == 3 for rows in out for r in rows)


def test_stream_static_inner_and_left_outer_joins(spark: SparkSession) -> None:
    static = spark.createDataFrame([("a", "apple"), ("b", "banana")], "k string, name string")
    for how, expected in (("inner", [[("a", 1, "apple")], [("b", 3, "banana")]]),
                          ("left_outer", [[("a", 1, "apple"), ("z", 2, None)], [("b", 3, "banana")]])):
        stream = MemoryStream("k string, v int", spark)
        query, out = collecting(stream.toDF().join(static, "k", how))
        run(query, stream, [("a", 1), ("z", 2)])
        run(query, stream, [("b", 3)])
        query.stop()
        assert [sorted(rows, key=repr) for rows in out] == expected, how
        assert all(not p["stateOperators"] for p in query.recentProgress)  # no state: each batch joins alone


def test_refused_stream_stream_joins_name_sparks_reason(spark: SparkSession) -> None:
    stream, left, right = sides(spark)
    with pytest.raises(AnalysisException, match="Stream-stream LeftOuter join between two streaming DataFrame/"
                                                "Datasets is not supported without a watermark in the join keys"):
        left.join(right, F.col("lk") == F.col("rk"), "left_outer").writeStream.format("memory").queryName("x").start()
    _, left, right = sides(spark, "5 seconds", None)  # the nullable side (right) has no watermark
    cond = F.expr("lk = rk AND lt >= rt")
    with pytest.raises(AnalysisException, match="Stream-stream LeftOuter join"):
        left.join(right, cond, "left_outer").writeStream.format("memory").queryName("x").start()
    with pytest.raises(AnalysisException, match="LeftAnti joins with a streaming DataFrame/Dataset on the right"):
        left.join(right, F.col("lk") == F.col("rk"), "left_anti").writeStream.format("memory").queryName("x").start()
    with pytest.raises(AnalysisException, match="Stream-stream join without equality predicate is not supported"):
        left.join(right, F.expr("lt >= rt")).writeStream.format("memory").queryName("x").start()
    with pytest.raises(AnalysisException, match="only in Append output mode"):
        (left.join(right, F.col("lk") == F.col("rk")).writeStream.outputMode("update").format("memory")
         .queryName("x").start())
    assert not spark.streams.active


@pytest.mark.parametrize(("how", "stream_left", "text"), [
    # PySpark 4.0.1's texts, its "DataFrame/DataSet" capitals included.
    ("full", True, "FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset "
                   "on the right is not supported;"),
    ("full", False, "FullOuter joins with streaming DataFrames/Datasets on the right and a static DataFrame/Dataset "
                    "on the left is not supported;"),
    ("left", False, "LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset "
                    "on the left is not supported;"),
    ("left_semi", False, "LeftSemi join with a streaming DataFrame/Dataset on the right and a static "
                         "DataFrame/Dataset on the left is not supported;"),
    ("left_anti", False, "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported;"),
    ("right", True, "RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet "
                    "on the right not supported;"),
])
def test_refused_stream_static_joins_in_sparks_words(spark: SparkSession, how: str, stream_left: bool,
                                                     text: str) -> None:
    stream = MemoryStream("k string, v int", spark).toDF()
    static = spark.createDataFrame([("a", 1)], "k string, n int")
    joined = stream.join(static, "k", how) if stream_left else static.join(stream, "k", how)
    with pytest.raises(AnalysisException) as caught:
        joined.writeStream.format("memory").queryName("refused").start()
    assert str(caught.value) == text and caught.value.getCondition() == "_LEGACY_ERROR_TEMP_3102"


def test_restart_from_the_checkpoint_joins_new_rows_with_the_stored_ones(spark: SparkSession,
                                                                        tmp_path: Path) -> None:
    ls, rs = MemoryStream("k string, a int", spark), MemoryStream("k string, b int", spark)
    ckpt = str(tmp_path / "ckpt")
    joined = ls.toDF().join(rs.toDF(), "k")
    first, out1 = collecting(joined, ckpt)
    run(first, ls, [("x", 1), ("y", 2)])
    first.stop()
    partition = tmp_path / "ckpt" / "state" / "0" / "0"
    assert sorted(os.listdir(partition)) == ["left", "left-index", "right", "right-index"]
    assert os.listdir(partition / "left") == ["1.delta"]
    rs.addData([("x", 10), ("y", 20)])
    second, out2 = collecting(joined, ckpt)
    second.processAllAvailable(timeout=DEADLINE)
    run(second, ls, [("y", 3)])
    second.stop()
    assert [sorted(rows) for rows in out1 + out2] == [[], [("x", 1, 10), ("y", 2, 20)], [("y", 3, 20)]]
    assert operator(second.lastProgress)["numRowsTotal"] == 5



def test_a_batch_run_again_after_a_crash_reads_the_state_version_it_read_before(spark: SparkSession,
                                                                               tmp_path: Path) -> None:
    ls, rs = MemoryStream("k string, a int", spark), MemoryStream("k string, b int", spark)
    ckpt = tmp_path / "ckpt"
    joined = ls.toDF().join(rs.toDF(), "k")
    first, out1 = collecting(joined, str(ckpt))
    run(first, ls, [("x", 1)])
    run(first, rs, [("x", 10)])
    first.stop()
    os.unlink(ckpt / "commits" / "1")  # a crash after the sink, before the commit of batch 1
    second, out2 = collecting(joined, str(ckpt))
    second.processAllAvailable(timeout=DEADLINE)
    run(second, ls, [("x", 2)])
    second.stop()
    assert out1 == [[], [("x", 1, 10)]]
    assert out2 == [[("x", 1, 10)], [("x", 2, 10)]]
    assert operator(second.lastProgress)["numRowsTotal"] == 3  # the re-run stored x/10 once

# -- Spark's rules as a plain-Python model ----------------------------------------------

#: (lower, upper) offsets in seconds: rt + lower <(=) lt <(=) rt + upper.
RANGES = [(-5, 5), (0, 10), (3, 10), (-10, -2)]


def join_model(batches: list[list[tuple[str, str, int, int]]], how: str, lower: int, upper: int, strict: bool,
               delays: tuple[int, int]) -> tuple[Counter[tuple[Any, Any]], int, list[int], int]:
    """Spark's symmetric hash join: output (left id, right id), late rows, state sizes after each data batch
    and at the end.

    Times in seconds, watermarks in ms. Each side's state bound comes from the other side's
    watermark through the range condition (strict: ``>``/``<``; else ``>=``/``<=``, one ms less).
    processAllAvailable runs the batch without data between data batches, so each data batch
    filters late rows and evicts with the watermark the earlier batches left.
    """
    watermark = 0
    per_side: dict[str, int] = {}
    state: dict[str, list[dict[str, Any]]] = {"L": [], "R": []}  # rows: side, k, t (s), id, matched
    out: Counter[tuple[Any, Any]] = Counter()
    late = 0
    sizes: list[int] = []
    preserved = {"L": how in ("left_outer", "full_outer"), "R": how in ("right_outer", "full_outer")}
    gap = 0 if strict else 1

    def bound(side: str) -> int:  # rows of ``side`` at or below it can no longer match
        return watermark + lower * 1000 - gap if side == "L" else watermark - upper * 1000 - gap

    def matches(lt: int, rt: int) -> bool:
        if strict:
            return rt + lower < lt < rt + upper
        return rt + lower <= lt <= rt + upper

    def evict() -> None:
        for side in ("L", "R"):
            keep = []
            for row in state[side]:
                if row["t"] * 1000 <= bound(side):
                    if preserved[side] and not row["matched"]:
                        out[(row["id"], None) if side == "L" else (None, row["id"])] += 1
                else:
                    keep.append(row)
            state[side] = keep

    for rows in batches:
        evict()
        fresh: list[dict[str, Any]] = []
        for side, k, t, n in rows:
            if t * 1000 <= watermark:
                late += 1
            else:
                fresh.append({"side": side, "k": k, "t": t, "id": n, "matched": False})
        for this, other in (("L", "R"), ("R", "L")):
            for row in (r for r in fresh if r["side"] == this):
                for old in state[other]:
                    if old["k"] == row["k"] and matches(*((row["t"], old["t"]) if this == "L" else
                                                          (old["t"], row["t"]))):
                        out[(row["id"], old["id"]) if this == "L" else (old["id"], row["id"])] += 1
                        old["matched"] = row["matched"] = True
                gone_now = this == "R" and row["t"] * 1000 <= bound("R")
                if not gone_now or (preserved["R"] and not row["matched"]):
                    state[this].append(row)
        evict()
        sizes.append(len(state["L"]) + len(state["R"]))
        for side, delay in zip(("L", "R"), delays):
            times = [t for s, _, t, _ in rows if s == side]
            if times:
                per_side[side] = max(per_side.get(side, -(1 << 62)), max(times) * 1000 - delay * 1000)
        watermark = max(watermark, min(per_side.get("L", 0), per_side.get("R", 0)))
    evict()
    return out, late, sizes, len(state["L"]) + len(state["R"])


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["inner", "left_outer", "right_outer", "full_outer"]), st.sampled_from(RANGES), st.booleans(),
       st.tuples(st.sampled_from([0, 3, 5]), st.sampled_from([0, 3, 5])),
       st.lists(st.lists(st.tuples(st.sampled_from("LR"), st.sampled_from("ab"), st.integers(0, 30)), min_size=1,
                         max_size=6),
                min_size=1, max_size=5))
def test_joins_with_watermarks_and_time_ranges_match_sparks_rules(
        spark: SparkSession, how: str, offsets: tuple[int, int], strict: bool, delays: tuple[int, int],
        batches: list[list[tuple[str, str, int]]]) -> None:
    lower, upper = offsets
    stream, left, right = sides(spark, f"{delays[0]} seconds", f"{delays[1]} seconds")
    low, high = (">", "<") if strict else (">=", "<=")
    cond = F.expr(f"lk = rk AND cast(lt as long) {low} cast(rt as long) + ({lower}) AND "
                  f"cast(lt as long) {high} cast(rt as long) + ({upper})")
    query, out = collecting(left.join(right, cond, how))
    numbered: list[list[tuple[str, str, int, int]]] = []
    n = 0
    try:
        for rows in batches:
            batch = []
            for side, k, t in rows:
                n += 1
                batch.append((side, k, t, n))
            numbered.append(batch)
            run(query, stream, [(side, k, ts(t), i) for side, k, t, i in batch])
    finally:
        query.stop()
    expected, late, sizes, size = join_model(numbered, how, lower, upper, strict, delays)
    assert Counter((r[2], r[5]) for rows in out for r in rows) == expected
    ops = operators(query)
    assert sum(op["numRowsDroppedByWatermark"] for op in ops) == late
    assert [operator(p)["numRowsTotal"] for p in query.recentProgress if p["numInputRows"]] == sizes
    assert ops[-1]["numRowsTotal"] == size


# ------------------------------------------------------------------ local[2]: real worker processes


def test_dedup_then_join_in_worker_processes_over_two_state_partitions(spark: SparkSession, tmp_path: Path) -> None:
    # One SparkContext per process: the module's `local` session steps aside (the module's last test).
    spark.stop()
    workers = SparkSession.builder.master("local[2]").appName("test-stream-joins-workers").getOrCreate()
    workers.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        ls, rs = MemoryStream("k string, a int", workers), MemoryStream("k string, b int", workers)
        joined = ls.toDF().dropDuplicates(["k"]).join(rs.toDF(), "k")
        query, out = collecting(joined, str(tmp_path / "ckpt"))
        keys = [f"k{i}" for i in range(12)]
        run(query, ls, [(k, i) for i, k in enumerate(keys)] + [(k, 100) for k in keys])
        run(query, rs, [(k, 1000 + i) for i, k in enumerate(keys)])
        run(query, ls, [(k, 200) for k in keys])  # duplicates: dropped by the dedup, nothing new joins
        run(query, rs, [(k, 2000 + i) for i, k in enumerate(keys[:3])])
        query.stop()
        got = sorted(r for rows in out for r in rows)
        expected = sorted([(k, i, 1000 + i) for i, k in enumerate(keys)] + [(k, i, 2000 + i) for i, k in
                                                                           enumerate(keys[:3])])
        assert got == expected
        ops = query.lastProgress["stateOperators"]
        assert [op["operatorName"] for op in ops] == ["symmetricHashJoin", "dedupe"]  # ids top-down: the join is 0
        assert [op["numShufflePartitions"] for op in ops] == [2, 2]
        state = tmp_path / "ckpt" / "state"
        assert sorted(os.listdir(state)) == ["0", "1"] and sorted(os.listdir(state / "0")) == ["0", "1"]
    finally:
        workers.stop()
