"""What a fresh ``local[N]`` worker imports to run a micro-batch's tasks.

A worker is a fresh interpreter: every module it imports before its first task is part
of the time from ``SparkContext(...)`` to the first job. The functions a stage ships by
reference (``map``/``flatMap``/``filter`` adapters, ``count``'s partition function) live
in ``rdd.task_functions``, so running them never imports the driver's facade; the
worker's end of its socket is an ``FdConnection``, so it never imports ``multiprocessing``;
``hashlib`` (digests), ``shutil`` (removing shuffles) and ``rdd.local_dir`` (with
``tempfile``; removing an orphaned directory) are the driver's, or the dying worker's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from operator import add

from rdd import SparkContext

DRIVER_ONLY = ("rdd.rdd", "rdd.context", "rdd.actions", "rdd.pair", "rdd.env", "rdd.ui", "dstream", "tornado",
               "multiprocessing", "rdd.local_dir", "hashlib", "tempfile", "shutil")


def test_a_word_count_batch_does_not_import_the_facade_in_workers(make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("local[2]")
    words = sc.parallelize(["a b", "b c"] * 5, 2).flatMap(str.split).filter(bool)
    assert words.map(lambda w: (w, 1)).reduceByKey(add).count() == 3
    assert words.mapPartitions(lambda it: [sum(1 for _ in it)]).collect() == [10, 10]
    # A lambda ships by value: a function of this module would make workers import it.
    listed = sc.parallelize(range(2), 2).mapPartitions(lambda _: [sorted(sys.modules)]).collect()
    for modules in listed:
        loaded = [m for m in modules
                  if m.split(".")[0] in {"dstream", "tornado", "multiprocessing"} or m in DRIVER_ONLY]
        assert loaded == [], f"a worker imported driver-only modules: {loaded}"
