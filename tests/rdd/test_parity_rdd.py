"""Behaviours of the RDD API found to differ from PySpark 4.0.1.

One test per finding; the expected values are what PySpark 4.0.1 printed for the same
calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rdd import SparkContext
from rdd.statcounter import StatCounter


def test_broadcast_value_on_the_driver_survives_destroy(sc: SparkContext) -> None:
    # The driver's .value raised RuntimeError after destroy(); PySpark's driver keeps its copy.
    table = sc.broadcast([1, 2])
    table.destroy()
    assert table.value == [1, 2]
    # A task still cannot use it, as in Spark (it reads the destroyed file).
    with pytest.raises(Exception, match=f"Broadcast {table.id} was destroyed"):
        sc.parallelize([0], 1).map(lambda _: table.value).collect()


def test_text_file_without_unicode_gives_the_lines_bytes(sc: SparkContext, tmp_path: Path) -> None:
    # use_unicode=False was ignored: the lines were str.
    path = tmp_path / "lines.txt"
    path.write_bytes(b"line000\r\ncaf\xe9\nlast")
    assert sc.textFile(str(path), use_unicode=False).collect() == [b"line000", b"caf\xe9", b"last"]
    assert sc.textFile(str(path)).collect() == ["line000", "caf\ufffd", "last"]


def test_stat_counter_as_dict_reports_sample_statistics_by_default() -> None:
    # PySpark's asDict(sample=False) gives the sample stdev and variance (its flag is inverted).
    stats = StatCounter([1.0, 2.0, 3.0, 4.0]).asDict()
    assert stats["stdev"] == pytest.approx(1.2909944487358056) and stats["variance"] == pytest.approx(5 / 3)
    population = StatCounter([1.0, 2.0, 3.0, 4.0]).asDict(sample=True)
    assert population["stdev"] == pytest.approx(1.118033988749895) and population["variance"] == 1.25


def test_version_is_the_spark_release_followed(sc: SparkContext) -> None:
    # sc.version said dstreams' own "0.1.0", so version gates in PySpark programs took old paths.
    assert sc.version == "4.0.1"


def test_a_jobs_map_stages_are_numbered_before_its_result_stage(sc: SparkContext) -> None:
    # PySpark 4.0.1 (status_api_demo.py): the reduceByKey map stage is stage 0 and runs first,
    # the result stage is 1; here the result stage took the first id. The next job's stages follow.
    from rdd.status.bus import SparkListener

    completed: list[int] = []

    class Stages(SparkListener):
        def onStageCompleted(self, event: object) -> None:  # noqa: N802 - Spark's name
            completed.append(event.stageInfo.stageId)  # type: ignore[attr-defined]

    sc._listener_bus.add_listener(Stages())
    pairs = sc.parallelize(range(10), 2).map(lambda x: (x % 3, 1)).reduceByKey(lambda a, b: a + b)
    assert sorted(pairs.collect()) == [(0, 4), (1, 3), (2, 3)]
    assert sc.parallelize(range(4), 2).groupBy(lambda x: x % 2).mapValues(sorted).sortByKey().collect() == \
        [(0, [0, 2]), (1, [1, 3])]
    assert sc._listener_bus.wait_until_empty(30)
    # sortByKey samples its keys in a job of its own before the sort's shuffle.
    assert completed[:2] == [0, 1] and completed == sorted(completed)
