"""The versions, written once.

``__version__`` is dstreams' own: packaging, ``rdd.__version__``, ``dstream.__version__``
and ``dstreams --version`` read it here. ``SPARK_VERSION`` is the Apache Spark release
whose semantics dstreams follows: ``SparkContext.version``, ``SparkSession.version`` and
SQL's ``version()`` answer it, as PySpark's do, so that programs gating features on
``spark.version`` take their Spark 4 paths.
"""

__version__ = "0.1.0"

#: The PySpark release whose behaviour dstreams reproduces (and answers as ``sc.version``).
SPARK_VERSION = "4.0.1"
