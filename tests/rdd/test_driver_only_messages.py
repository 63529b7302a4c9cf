"""The exact text of the error for a driver-only object captured by a task's function.

It starts with PySpark's own sentence (a user searching for it finds SPARK-5063), then
says once where the object was captured: which function, which variable. It is never
repeated, and ends with one period.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from rdd.errors import DriverOnlyError

from dstream.testing import run_batches

SPARK_CONTEXT = (
    "It appears that you are attempting to reference SparkContext from a broadcast variable, "
    "action, or transformation. SparkContext can only be used on the driver, not in code that it "
    "run on workers. For more information, see SPARK-5063."
)
RDD = (
    "It appears that you are attempting to broadcast an RDD or reference an RDD from an action or "
    "transformation. RDD transformations and actions can only be invoked by the driver, not inside "
    "of other transformations; for example, rdd1.map(lambda x: rdd2.values.count() * x) is invalid "
    "because the values transformation and count action cannot be performed inside of the rdd1.map "
    "transformation. For more information, see SPARK-5063."
)
HERE = re.escape(__file__)


def message_of(action: Any) -> str:
    with pytest.raises(DriverOnlyError) as excinfo:
        action()
    return str(excinfo.value)


def test_spark_context_in_a_closure(sc: Any) -> None:
    context = sc
    text = message_of(
        lambda: sc.parallelize([1]).map(lambda x: context.defaultParallelism).collect())
    assert text.startswith(SPARK_CONTEXT + " Found where function ")
    assert re.fullmatch(re.escape(SPARK_CONTEXT) + r" Found where function "
                        r"test_spark_context_in_a_closure\.<locals>\.<lambda>\.<locals>\.<lambda> "
                        rf"\({HERE}:\d+\) captures 'context' = "
                        r"<rdd\.context\.SparkContext object at "
                        r"0x[0-9a-f]+> \(type rdd\.context\.SparkContext\)\.", text), text


def test_rdd_in_a_closure(sc: Any) -> None:
    other = sc.parallelize([1, 2])
    text = message_of(lambda: sc.parallelize([1]).map(lambda x: other.count() * x).collect())
    assert re.fullmatch(re.escape(RDD) + r" Found where function .*<lambda> "
                        rf"\({HERE}:\d+\) captures 'other' = ParallelCollectionRDD\[\d+\] at RDD "
                        r"\(type rdd\.rdd\.RDD\)\.", text), text


def test_streaming_context_in_a_dstream_function(sc: Any) -> None:
    def op(stream: Any) -> Any:
        ssc = stream.context()
        return stream.map(lambda x: (x, ssc))

    text = message_of(lambda: run_batches(sc, [[1]], op))
    assert text.count("can only be used on the driver") == 1, text
    assert text.startswith("A StreamingContext can only be used on the driver. It appears that it "
                           "is referenced inside a function that runs on RDD data"), text
    assert re.search(r"Found where function .*<lambda> \(.*:\d+\) captures 'ssc' = "
                     r"<StreamingContext .*> \(type dstream\.context\.StreamingContext\)\.$",
                     text), text
    assert ".." not in text.replace("...", "")
