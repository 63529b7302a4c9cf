"""SparkContext lifecycle and configuration, and SparkConf.

Covers: the accepted masters (``local``, ``local[N]``, ``local[*]``) and the error
listing them for anything else; ``SparkContext()`` defaulting to ``local[*]``; the
one-active-context-per-process rule; ``getOrCreate``; the context manager;
``stop()`` (idempotent, and the context refuses work afterwards);
``defaultParallelism`` and ``spark.default.parallelism``; conf precedence between
constructor arguments and ``SparkConf``; SparkConf's methods.

Every test here creates its own contexts, so the module uses ``no_active_context``.
"""

from __future__ import annotations

import os

import pytest

from rdd import SparkConf, SparkContext

pytestmark = pytest.mark.usefixtures("no_active_context")


# ------------------------------------------------------------------ masters


@pytest.mark.parametrize(
    ("master", "parallelism"),
    [("local", 1), ("local[1]", 1), ("local[2]", 2), ("local[*]", os.cpu_count())],
)
def test_accepted_masters(master: str, parallelism: int) -> None:
    with SparkContext(master, "masters") as sc:
        assert sc.master == master
        assert sc.defaultParallelism == parallelism
        assert sc.parallelize(range(10)).getNumPartitions() == parallelism
        assert sc.parallelize(range(10)).map(lambda x: x * 2).sum() == 90


def test_no_master_means_local_star() -> None:
    with SparkContext() as sc:
        assert sc.master == "local[*]"
        assert sc.defaultParallelism == os.cpu_count()


@pytest.mark.parametrize("master", ["yarn", "spark://host:7077", "local[0]", "local[-1]", "local[x]", "local[2",
                                    "", "LOCAL", "local[]"])
def test_bad_master_is_a_value_error_listing_accepted_forms(master: str) -> None:
    with pytest.raises(ValueError) as excinfo:
        SparkContext(master, "bad")
    message = str(excinfo.value)
    assert repr(master) in message or master in message
    for form in ("'local'", "local[N]", "local[*]"):
        assert form in message
    # the failed constructor did not take the one-context slot
    with SparkContext("local", "after-bad") as sc:
        assert sc.parallelize([1]).collect() == [1]


# ------------------------------------------------------------------ one active context


def test_second_active_context_is_refused() -> None:
    with SparkContext("local", "first") as first:
        with pytest.raises(ValueError, match="(?i)multiple SparkContexts|already|active"):
            SparkContext("local", "second")
        assert first.parallelize([1, 2]).count() == 2, "the first context still works"


def test_a_new_context_can_start_after_stop() -> None:
    first = SparkContext("local", "first")
    first.stop()
    second = SparkContext("local", "second")
    try:
        assert second.parallelize([3]).collect() == [3]
    finally:
        second.stop()


def test_stop_is_idempotent_and_the_context_refuses_work_afterwards() -> None:
    sc = SparkContext("local", "stopped")
    rdd = sc.parallelize([1, 2, 3])
    sc.stop()
    sc.stop()
    with pytest.raises(Exception, match="(?i)stop"):
        sc.parallelize([1]).collect()
    with pytest.raises(Exception, match="(?i)stop"):
        rdd.collect()


def test_get_or_create_returns_the_active_context() -> None:
    with SparkContext("local", "active") as sc:
        assert SparkContext.getOrCreate() is sc
        assert SparkContext.getOrCreate(SparkConf().setMaster("local[2]")) is sc


def test_get_or_create_creates_from_conf() -> None:
    sc = SparkContext.getOrCreate(SparkConf().setMaster("local").setAppName("made"))
    try:
        assert sc.master == "local"
        assert sc.appName == "made"
        assert SparkContext.getOrCreate() is sc
    finally:
        sc.stop()


def test_context_manager_stops_the_context() -> None:
    with SparkContext("local[2]", "managed") as sc:
        assert sc.parallelize(range(4), 2).sum() == 6
    with pytest.raises(Exception, match="(?i)stop"):
        sc.parallelize([1]).collect()
    with SparkContext("local", "next") as other:
        assert other.parallelize([1]).count() == 1


def test_context_manager_stops_the_context_when_the_body_raises() -> None:
    with pytest.raises(KeyError):
        with SparkContext("local", "raising"):
            raise KeyError("boom")
    with SparkContext("local", "next") as sc:
        assert sc.parallelize([1]).count() == 1


# ------------------------------------------------------------------ configuration


@pytest.mark.parametrize("master", ["local", "local[2]"])
def test_spark_default_parallelism_overrides_the_master(master: str) -> None:
    conf = SparkConf().setMaster(master).setAppName("par").set("spark.default.parallelism", "5")
    with SparkContext(conf=conf) as sc:
        assert sc.defaultParallelism == 5
        assert sc.parallelize(range(20)).getNumPartitions() == 5
        # PySpark: shuffles default to spark.default.parallelism when it is set
        assert sc.parallelize(range(20), 2).map(lambda x: (x, x)).reduceByKey(max).getNumPartitions() == 5


def test_default_min_partitions() -> None:
    with SparkContext("local", "min") as sc:
        assert sc.defaultMinPartitions == 1
    with SparkContext("local[2]", "min") as sc:
        assert sc.defaultMinPartitions == 2


def test_master_and_app_name_come_from_conf() -> None:
    conf = SparkConf().setMaster("local[2]").setAppName("from-conf").set("spark.custom.key", "v")
    with SparkContext(conf=conf) as sc:
        assert sc.master == "local[2]"
        assert sc.appName == "from-conf"
        assert sc.defaultParallelism == 2
        assert sc.getConf().get("spark.custom.key") == "v"


def test_constructor_arguments_take_precedence_over_conf() -> None:
    conf = SparkConf().setMaster("local[2]").setAppName("from-conf")
    with SparkContext("local", "from-args", conf=conf) as sc:
        assert sc.master == "local"
        assert sc.appName == "from-args"


def test_get_conf_is_a_copy() -> None:
    with SparkContext("local", "copy") as sc:
        sc.getConf().set("spark.custom.key", "changed")
        assert sc.getConf().get("spark.custom.key") is None


# ------------------------------------------------------------------ SparkConf


def test_conf_set_and_get() -> None:
    conf = SparkConf()
    assert conf.set("spark.a", "1") is conf, "setters chain"
    assert conf.get("spark.a") == "1"
    assert conf.get("spark.missing") is None
    assert conf.get("spark.missing", "fallback") == "fallback"
    assert conf.get("spark.a", "fallback") == "1"


def test_conf_stores_values_as_strings() -> None:
    conf = SparkConf().set("spark.n", 5)
    assert conf.get("spark.n") == "5"


def test_conf_set_master_and_app_name() -> None:
    conf = SparkConf().setMaster("local[3]").setAppName("name")
    assert conf.get("spark.master") == "local[3]"
    assert conf.get("spark.app.name") == "name"


def test_conf_set_all_get_all_and_contains() -> None:
    pairs = [("spark.a", "1"), ("spark.b", "é"), ("spark.c", "x y")]
    conf = SparkConf(loadDefaults=False).setAll(pairs)
    assert sorted(conf.getAll()) == sorted(pairs)
    assert all(isinstance(item, tuple) for item in conf.getAll())
    assert conf.contains("spark.b")
    assert not conf.contains("spark.z")


def test_conf_set_if_missing() -> None:
    conf = SparkConf().set("spark.a", "1")
    assert conf.setIfMissing("spark.a", "2") is conf
    conf.setIfMissing("spark.b", "3")
    assert conf.get("spark.a") == "1"
    assert conf.get("spark.b") == "3"


def test_conf_set_overwrites() -> None:
    conf = SparkConf(loadDefaults=False).set("spark.a", "1").set("spark.a", "2")
    assert conf.get("spark.a") == "2"
    assert conf.getAll() == [("spark.a", "2")]
