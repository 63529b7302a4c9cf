"""The public surface: ``__all__`` of ``rdd`` and ``dstream``, and PySpark parity.

- ``__all__`` is sorted, every name in it exists, and it equals the package's public
  names (no public name is missing from it, none is exported by accident).
- A manifest of PySpark methods (``pyspark`` 3.x/4.x ``SparkContext``, ``SparkConf``
  and ``RDD``) lists each method with PySpark's parameter names, in order, and their
  defaults where PySpark has a plain default. The facade must accept the same calls:
  the parameters must start with PySpark's, in PySpark's order, with the same
  defaults; any extra parameter must come after them and have a default.
"""

from __future__ import annotations

import inspect
import types
from typing import Any

import pytest

import rdd
from rdd import RDD, SparkConf, SparkContext, StorageLevel
from rdd.partitioner import portable_hash

import dstream

# ------------------------------------------------------------------ __all__

PACKAGES = [rdd, dstream]


def public_names(module: types.ModuleType) -> set[str]:
    """Public, non-module names of ``module`` (``dir`` + ``getattr``: ``rdd`` loads them lazily)."""
    return {
        name for name in dir(module)
        if not name.startswith("_") and name != "annotations"
        and not isinstance(getattr(module, name), types.ModuleType)
    }


@pytest.mark.parametrize("package", PACKAGES, ids=lambda m: m.__name__)
def test_all_is_sorted_and_every_name_exists(package: types.ModuleType) -> None:
    exported = list(package.__all__)
    assert exported == sorted(exported)
    assert len(exported) == len(set(exported))
    missing = [name for name in exported if not hasattr(package, name)]
    assert not missing


@pytest.mark.parametrize("package", PACKAGES, ids=lambda m: m.__name__)
def test_all_equals_the_public_names(package: types.ModuleType) -> None:
    assert set(package.__all__) == public_names(package)


def test_rdd_exports_pyspark_core_names() -> None:
    assert {"Accumulator", "AccumulatorParam", "Broadcast", "RDD", "SparkConf", "SparkContext", "StatCounter",
            "StorageLevel"} <= set(rdd.__all__)


def test_dstream_exports_pyspark_streaming_names() -> None:
    assert {"DStream", "StreamingContext", "StreamingListener"} <= set(dstream.__all__)


# ------------------------------------------------------------------ PySpark parity manifest

REQUIRED = inspect.Parameter.empty


class Any_:  # noqa: N801 - a marker: PySpark's default is not a plain value (a lambda)
    pass


ANY_DEFAULT = Any_()

#: method -> PySpark's parameters (after self/cls) as (name, default); REQUIRED = no default.
SPARK_CONTEXT: dict[str, list[tuple[str, Any]]] = {
    "parallelize": [("c", REQUIRED), ("numSlices", None)],
    "range": [("start", REQUIRED), ("end", None), ("step", 1), ("numSlices", None)],
    "emptyRDD": [],
    "textFile": [("name", REQUIRED), ("minPartitions", None), ("use_unicode", True)],
    "wholeTextFiles": [("path", REQUIRED), ("minPartitions", None), ("use_unicode", True)],
    "pickleFile": [("name", REQUIRED), ("minPartitions", None)],
    "binaryFiles": [("path", REQUIRED), ("minPartitions", None)],
    "binaryRecords": [("path", REQUIRED), ("recordLength", REQUIRED)],
    "addFile": [("path", REQUIRED), ("recursive", False)],
    "addPyFile": [("path", REQUIRED)],
    "addArchive": [("path", REQUIRED)],
    "sparkUser": [],
    "addJobTag": [("tag", REQUIRED)],
    "removeJobTag": [("tag", REQUIRED)],
    "getJobTags": [],
    "clearJobTags": [],
    "cancelJobsWithTag": [("tag", REQUIRED)],
    "setInterruptOnCancel": [("interruptOnCancel", REQUIRED)],
    "statusTracker": [],
    "union": [("rdds", REQUIRED)],
    "broadcast": [("value", REQUIRED)],
    "accumulator": [("value", REQUIRED), ("accum_param", None)],
    "setCheckpointDir": [("dirName", REQUIRED)],
    "getCheckpointDir": [],
    "runJob": [("rdd", REQUIRED), ("partitionFunc", REQUIRED), ("partitions", None), ("allowLocal", False)],
    "stop": [],
    "getConf": [],
    "getOrCreate": [("conf", None)],
    "setLogLevel": [("logLevel", REQUIRED)],
}

SPARK_CONF: dict[str, list[tuple[str, Any]]] = {
    "__init__": [("loadDefaults", True), ("_jvm", None), ("_jconf", None)],
    "set": [("key", REQUIRED), ("value", REQUIRED)],
    "setIfMissing": [("key", REQUIRED), ("value", REQUIRED)],
    "setMaster": [("value", REQUIRED)],
    "setAppName": [("value", REQUIRED)],
    "setAll": [("pairs", REQUIRED)],
    "get": [("key", REQUIRED), ("defaultValue", None)],
    "getAll": [],
    "contains": [("key", REQUIRED)],
}

RDD_METHODS: dict[str, list[tuple[str, Any]]] = {
    # creation-independent basics
    "id": [],
    "name": [],
    "setName": [("name", REQUIRED)],
    "getNumPartitions": [],
    "toDebugString": [],
    "cache": [],
    "persist": [("storageLevel", StorageLevel.MEMORY_ONLY)],
    "unpersist": [("blocking", False)],
    "getStorageLevel": [],
    "checkpoint": [],
    "isCheckpointed": [],
    "getCheckpointFile": [],
    # transformations
    "map": [("f", REQUIRED), ("preservesPartitioning", False)],
    "flatMap": [("f", REQUIRED), ("preservesPartitioning", False)],
    "filter": [("f", REQUIRED)],
    "mapPartitions": [("f", REQUIRED), ("preservesPartitioning", False)],
    "mapPartitionsWithIndex": [("f", REQUIRED), ("preservesPartitioning", False)],
    "glom": [],
    "distinct": [("numPartitions", None)],
    "union": [("other", REQUIRED)],
    "intersection": [("other", REQUIRED)],
    "subtract": [("other", REQUIRED), ("numPartitions", None)],
    "cartesian": [("other", REQUIRED)],
    "sample": [("withReplacement", REQUIRED), ("fraction", REQUIRED), ("seed", None)],
    "sortBy": [("keyfunc", REQUIRED), ("ascending", True), ("numPartitions", None)],
    "sortByKey": [("ascending", True), ("numPartitions", None), ("keyfunc", ANY_DEFAULT)],
    "groupBy": [("f", REQUIRED), ("numPartitions", None), ("partitionFunc", portable_hash)],
    "keyBy": [("f", REQUIRED)],
    "zip": [("other", REQUIRED)],
    "zipWithIndex": [],
    "coalesce": [("numPartitions", REQUIRED), ("shuffle", False)],
    "repartition": [("numPartitions", REQUIRED)],
    "partitionBy": [("numPartitions", REQUIRED), ("partitionFunc", portable_hash)],
    "reduceByKey": [("func", REQUIRED), ("numPartitions", None), ("partitionFunc", portable_hash)],
    "combineByKey": [("createCombiner", REQUIRED), ("mergeValue", REQUIRED), ("mergeCombiners", REQUIRED),
                     ("numPartitions", None), ("partitionFunc", portable_hash)],
    "aggregateByKey": [("zeroValue", REQUIRED), ("seqFunc", REQUIRED), ("combFunc", REQUIRED),
                       ("numPartitions", None), ("partitionFunc", portable_hash)],
    "foldByKey": [("zeroValue", REQUIRED), ("func", REQUIRED), ("numPartitions", None),
                  ("partitionFunc", portable_hash)],
    "groupByKey": [("numPartitions", None), ("partitionFunc", portable_hash)],
    "mapValues": [("f", REQUIRED)],
    "flatMapValues": [("f", REQUIRED)],
    "keys": [],
    "values": [],
    "join": [("other", REQUIRED), ("numPartitions", None)],
    "leftOuterJoin": [("other", REQUIRED), ("numPartitions", None)],
    "rightOuterJoin": [("other", REQUIRED), ("numPartitions", None)],
    "fullOuterJoin": [("other", REQUIRED), ("numPartitions", None)],
    "cogroup": [("other", REQUIRED), ("numPartitions", None)],
    # actions
    "collect": [],
    "collectAsMap": [],
    "count": [],
    "countByKey": [],
    "countByValue": [],
    "reduce": [("f", REQUIRED)],
    "fold": [("zeroValue", REQUIRED), ("op", REQUIRED)],
    "aggregate": [("zeroValue", REQUIRED), ("seqOp", REQUIRED), ("combOp", REQUIRED)],
    "sum": [],
    "mean": [],
    "max": [("key", None)],
    "min": [("key", None)],
    "stats": [],
    "variance": [],
    "stdev": [],
    "sampleVariance": [],
    "sampleStdev": [],
    "take": [("num", REQUIRED)],
    "first": [],
    "top": [("num", REQUIRED), ("key", None)],
    "takeOrdered": [("num", REQUIRED), ("key", None)],
    "isEmpty": [],
    "foreach": [("f", REQUIRED)],
    "foreachPartition": [("f", REQUIRED)],
    "saveAsTextFile": [("path", REQUIRED), ("compressionCodecClass", None)],
    "saveAsPickleFile": [("path", REQUIRED), ("batchSize", 10)],
    "toLocalIterator": [("prefetchPartitions", False)],
    "randomSplit": [("weights", REQUIRED), ("seed", None)],
    "sampleByKey": [("withReplacement", REQUIRED), ("fractions", REQUIRED), ("seed", None)],
    "countApprox": [("timeout", REQUIRED), ("confidence", 0.95)],
    "sumApprox": [("timeout", REQUIRED), ("confidence", 0.95)],
    "meanApprox": [("timeout", REQUIRED), ("confidence", 0.95)],
    "countApproxDistinct": [("relativeSD", 0.05)],
    "pipe": [("command", REQUIRED), ("env", None), ("checkCode", False)],
}

MANIFEST = [
    *[(SparkContext, name, params) for name, params in SPARK_CONTEXT.items()],
    *[(SparkConf, name, params) for name, params in SPARK_CONF.items()],
    *[(RDD, name, params) for name, params in RDD_METHODS.items()],
]


def check_parameters(owner: type, name: str, expected: list[tuple[str, Any]]) -> None:
    member = inspect.getattr_static(owner, name)
    function = getattr(owner, name)
    assert callable(function), f"{owner.__name__}.{name} is not callable"
    params = list(inspect.signature(function).parameters.values())
    if not isinstance(member, (classmethod, staticmethod)) and params and params[0].name == "self":
        params = params[1:]
    actual_names = [p.name for p in params]
    expected_names = [n for n, _ in expected]
    assert actual_names[:len(expected_names)] == expected_names, (
        f"{owner.__name__}.{name}{inspect.signature(function)}: PySpark's parameters are {expected_names}")
    for param, (pname, default) in zip(params, expected):
        if default is ANY_DEFAULT:
            assert param.default is not REQUIRED, f"{owner.__name__}.{name}: {pname} needs a default"
        elif default is REQUIRED:
            assert param.default is REQUIRED, f"{owner.__name__}.{name}: {pname} must be required"
        elif callable(default):
            assert param.default is default or getattr(param.default, "__name__", None) == default.__name__, (
                f"{owner.__name__}.{name}: {pname} defaults to {param.default!r}, PySpark's to {default.__name__}")
        else:
            assert param.default == default and type(param.default) is type(default), (
                f"{owner.__name__}.{name}: {pname} defaults to {param.default!r}, PySpark's to {default!r}")
    for extra in params[len(expected):]:
        assert extra.default is not REQUIRED or extra.kind in (extra.VAR_POSITIONAL, extra.VAR_KEYWORD), (
            f"{owner.__name__}.{name}: extra parameter {extra.name} must have a default")


@pytest.mark.parametrize(("owner", "name", "expected"), MANIFEST,
                         ids=[f"{owner.__name__}.{name}" for owner, name, _ in MANIFEST])
def test_pyspark_parameter_names(owner: type, name: str, expected: list[tuple[str, Any]]) -> None:
    check_parameters(owner, name, expected)


def test_spark_context_constructor_accepts_pyspark_calls() -> None:
    params = inspect.signature(SparkContext.__init__).parameters
    assert list(params)[1:3] == ["master", "appName"]
    assert params["master"].default is None and params["appName"].default is None
    assert "conf" in params and params["conf"].default is None


def test_get_or_create_is_a_classmethod() -> None:
    assert isinstance(inspect.getattr_static(SparkContext, "getOrCreate"), classmethod)


@pytest.mark.parametrize("name", ["defaultParallelism", "defaultMinPartitions", "master", "appName"])
def test_spark_context_properties(name: str) -> None:
    assert isinstance(inspect.getattr_static(SparkContext, name), property)


def test_rdd_context_is_a_property() -> None:
    assert isinstance(inspect.getattr_static(RDD, "context"), property)


def test_is_cached_is_an_attribute_not_a_method(sc: Any) -> None:
    """PySpark's ``rdd.is_cached`` is a plain boolean attribute."""
    value = sc.parallelize([1]).is_cached
    assert value is False
