"""input_file_name(), input_file_block_start() and input_file_block_length() on real files.

The model: each row names the file it was read from (its content says which), and the
blocks of one file tile it: starts from 0, each ending where the next begins, the last at
the file's size.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rdd import SparkContext

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException


@pytest.fixture(params=["local", "local[2]"])
def session(request: pytest.FixtureRequest) -> Iterator[SparkSession]:
    """The scans run in the driver (``local``) and in worker processes (``local[2]``)."""
    if request.param == "local":
        yield request.getfixturevalue("spark")
        return
    sc2: SparkContext = request.getfixturevalue("sc2")  # (one context at a time: asked for only here)
    workers = SparkSession(sc2, [("spark.sql.session.timeZone", "UTC")])
    try:
        yield workers
    finally:
        workers.stop()


def _files(directory: Path, count: int, lines: int) -> dict[str, Path]:
    directory.mkdir()
    out = {}
    for i in range(count):
        path = directory / f"part-{i}.txt"
        path.write_text("".join(f"{i}:{j:04d}\n" for j in range(lines)))
        out[str(i)] = path
    return out


@pytest.mark.parametrize("split_bytes", [None, "100"])
def test_each_row_names_its_file_and_the_blocks_tile_each_file(session: SparkSession, tmp_path: Path,
                                                               split_bytes: str | None) -> None:
    files = _files(tmp_path / "in", 3, 60)
    reader = session.read if split_bytes is None else session.read.option("maxPartitionBytes", split_bytes)
    rows = reader.text(str(tmp_path / "in")).select(
        "value", F.input_file_name().alias("f"), F.input_file_block_start().alias("s"),
        F.input_file_block_length().alias("n")).collect()
    assert len(rows) == 180
    blocks: dict[str, set[tuple[int, int]]] = {}
    for row in rows:
        source = files[row.value.split(":")[0]]
        assert row.f == source.as_uri()
        blocks.setdefault(row.f, set()).add((row.s, row.n))
    for uri, found in blocks.items():
        size = Path(uri.removeprefix("file://")).stat().st_size
        edges = sorted(found)
        assert edges[0][0] == 0 and sum(n for _, n in edges) == size
        assert all(a[0] + a[1] == b[0] for a, b in zip(edges, edges[1:]))
    if split_bytes is not None:
        assert max(len(found) for found in blocks.values()) > 1  # the files were split


def test_no_file_after_a_shuffle_or_without_files(session: SparkSession, tmp_path: Path) -> None:
    spark = session
    _files(tmp_path / "in", 2, 3)
    df = spark.read.text(str(tmp_path / "in"))
    empty = ("", -1, -1)
    shuffled = df.repartition(3).select(F.input_file_name(), F.input_file_block_start(), F.input_file_block_length())
    assert {tuple(r) for r in shuffled.collect()} == {empty}
    assert {tuple(r) for r in spark.range(3).select(
        F.input_file_name(), F.input_file_block_start(), F.input_file_block_length()).collect()} == {empty}
    kept = df.withColumn("f", F.input_file_name()).repartition(2).select("f").distinct().collect()
    assert len(kept) == 2 and all(r.f.startswith("file:///") for r in kept)
    df.createOrReplaceTempView("input_files")
    # As an aggregate's argument it is refused (non-deterministic, as in Spark 4); from a subquery it counts.
    with pytest.raises(AnalysisException, match="AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION"):
        spark.sql("SELECT count(DISTINCT input_file_name()) AS n FROM input_files")
    assert spark.sql("SELECT count(DISTINCT f) AS n FROM (SELECT input_file_name() f FROM input_files)").first().n == 2
    per_file = df.groupBy(F.input_file_name().alias("f")).count().collect()  # the rows counted per file
    assert sorted(r["count"] for r in per_file) == [3, 3] and all(r.f.startswith("file:///") for r in per_file)
