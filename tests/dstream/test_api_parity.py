"""The streaming facade accepts PySpark's calls: names, parameter names, order, defaults.

The manifest below lists PySpark 4.x's ``pyspark.streaming`` methods.
Every facade method must start with PySpark's parameters, in order, with the same plain
defaults; extra parameters must come after them and have defaults. Methods deliberately
not here yet are listed in ``LATER`` with the issue that brings them.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from rdd import StorageLevel
from rdd.partitioner import portable_hash

from dstream import DStream, StreamingContext, StreamingListener

_ = inspect.Parameter.empty

CONTEXT: dict[str, list[tuple[str, Any]]] = {
    "__init__": [("sparkContext", _), ("batchDuration", None), ("jssc", None)],
    "start": [],
    "stop": [("stopSparkContext", True), ("stopGraceFully", False)],
    "awaitTermination": [("timeout", None)],
    "awaitTerminationOrTimeout": [("timeout", _)],
    "remember": [("duration", _)],
    "checkpoint": [("directory", _)],
    "queueStream": [("rdds", _), ("oneAtATime", True), ("default", None)],
    "transform": [("dstreams", _), ("transformFunc", _)],
    "union": [("dstreams", _)],
    "addStreamingListener": [("streamingListener", _)],
    "getActive": [],
    "socketTextStream": [("hostname", _), ("port", _), ("storageLevel", StorageLevel.MEMORY_AND_DISK_2)],
    "textFileStream": [("directory", _)],
    "binaryRecordsStream": [("directory", _), ("recordLength", _)],
    "getOrCreate": [("checkpointPath", _), ("setupFunc", _)],
    "getActiveOrCreate": [("checkpointPath", _), ("setupFunc", _)],
}

DSTREAM: dict[str, list[tuple[str, Any]]] = {
    "context": [],
    "count": [],
    "filter": [("f", _)],
    "flatMap": [("f", _), ("preservesPartitioning", False)],
    "map": [("f", _), ("preservesPartitioning", False)],
    "mapPartitions": [("f", _), ("preservesPartitioning", False)],
    "mapPartitionsWithIndex": [("f", _), ("preservesPartitioning", False)],
    "reduce": [("func", _)],
    "reduceByKey": [("func", _), ("numPartitions", None)],
    "combineByKey": [("createCombiner", _), ("mergeValue", _), ("mergeCombiners", _), ("numPartitions", None)],
    "partitionBy": [("numPartitions", _), ("partitionFunc", portable_hash)],
    "foreachRDD": [("func", _)],
    "pprint": [("num", 10)],
    "mapValues": [("f", _)],
    "flatMapValues": [("f", _)],
    "glom": [],
    "cache": [],
    "persist": [("storageLevel", _)],
    "checkpoint": [("interval", _)],
    "groupByKey": [("numPartitions", None)],
    "countByValue": [],
    "saveAsTextFiles": [("prefix", _), ("suffix", None)],
    "transform": [("func", _)],
    "transformWith": [("func", _), ("other", _), ("keepSerializer", False)],
    "repartition": [("numPartitions", _)],
    "union": [("other", _)],
    "cogroup": [("other", _), ("numPartitions", None)],
    "join": [("other", _), ("numPartitions", None)],
    "leftOuterJoin": [("other", _), ("numPartitions", None)],
    "rightOuterJoin": [("other", _), ("numPartitions", None)],
    "fullOuterJoin": [("other", _), ("numPartitions", None)],
    "slice": [("begin", _), ("end", _)],
    "window": [("windowDuration", _), ("slideDuration", None)],
    "reduceByWindow": [("reduceFunc", _), ("invReduceFunc", _), ("windowDuration", _), ("slideDuration", _)],
    "countByWindow": [("windowDuration", _), ("slideDuration", _)],
    "countByValueAndWindow": [("windowDuration", _), ("slideDuration", _), ("numPartitions", None)],
    "groupByKeyAndWindow": [("windowDuration", _), ("slideDuration", _), ("numPartitions", None)],
    "reduceByKeyAndWindow": [
        ("func", _), ("invFunc", _), ("windowDuration", _), ("slideDuration", None),
        ("numPartitions", None), ("filterFunc", None),
    ],
    "updateStateByKey": [("updateFunc", _), ("numPartitions", None), ("initialRDD", None)],
}

LISTENER: dict[str, list[tuple[str, Any]]] = {
    "onStreamingStarted": [("streamingStarted", _)],
    "onReceiverStarted": [("receiverStarted", _)],
    "onReceiverError": [("receiverError", _)],
    "onReceiverStopped": [("receiverStopped", _)],
    "onBatchSubmitted": [("batchSubmitted", _)],
    "onBatchStarted": [("batchSubmitted", _)],  # sic, PySpark's parameter name
    "onBatchCompleted": [("batchCompleted", _)],
    "onOutputOperationStarted": [("outputOperationStarted", _)],
    "onOutputOperationCompleted": [("outputOperationCompleted", _)],
}

#: PySpark names that later issues bring (not part of the DStream core).
LATER = {
    StreamingContext: set(),
    DStream: set(),
}

ROWS = [
    pytest.param(cls, name, params, id=f"{cls.__name__}.{name}")
    for cls, manifest in ((StreamingContext, CONTEXT), (DStream, DSTREAM), (StreamingListener, LISTENER))
    for name, params in manifest.items()
]


@pytest.mark.parametrize(("cls", "name", "expected"), ROWS)
def test_signature_accepts_pysparks_calls(cls: type, name: str, expected: list[tuple[str, Any]]) -> None:
    method = inspect.getattr_static(cls, name)
    if isinstance(method, (classmethod, staticmethod)):
        method = method.__func__
    params = list(inspect.signature(method).parameters.values())
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    if name == "union" and cls is StreamingContext:
        assert params[0].kind is inspect.Parameter.VAR_POSITIONAL and params[0].name == "dstreams"
        return
    got = [(p.name, p.default) for p in params[: len(expected)]]
    assert got == expected
    for extra in params[len(expected):]:
        assert extra.default is not inspect.Parameter.empty or extra.kind in (
            inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD
        ), f"{cls.__name__}.{name}: extra parameter {extra.name} needs a default"


def test_get_active_is_a_classmethod() -> None:
    assert isinstance(inspect.getattr_static(StreamingContext, "getActive"), classmethod)


def test_spark_context_is_a_property() -> None:
    assert isinstance(inspect.getattr_static(StreamingContext, "sparkContext"), property)


@pytest.mark.parametrize("cls", [StreamingContext, DStream])
def test_later_names_are_really_missing(cls: type) -> None:
    # When a later issue adds one of these, move it into the manifest above.
    assert not {name for name in LATER[cls] if hasattr(cls, name)}
