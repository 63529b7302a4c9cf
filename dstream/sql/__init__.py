"""dstreams' DataFrames: PySpark's ``pyspark.sql`` on Apache Arrow and the RDD engine.

Change ``from pyspark.sql import SparkSession, Row`` to ``from dstream.sql import
SparkSession, Row``, ``from pyspark.sql import functions as F`` to ``from dstream.sql
import functions as F`` and ``pyspark.sql.types`` to ``dstream.sql.types``.

Every partition of a DataFrame is an Arrow record batch; expressions run as Arrow
compute kernels with Spark 4's semantics (ANSI mode on), on the same scheduler,
shuffle and executors as RDDs. The public names are imported on first use (PEP 562),
so ``import dstream.sql.types`` stays light.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from .column import Column
    from .conf import RuntimeConfig
    from .context import HiveContext, SQLContext
    from .dataframe import DataFrame
    from .dataframe_stat import DataFrameStatFunctions
    from .errors import (
        AnalysisException,
        ArithmeticException,
        DateTimeException,
        IllegalArgumentException,
        NumberFormatException,
        ParseException,
        PySparkException,
        PythonException,
        SparkRuntimeException,
        StreamingQueryException,
    )
    from .group import GroupedData
    from .group_pandas import PandasCogroupedOps
    from .merge import MergeIntoWriter
    from .na import DataFrameNaFunctions
    from .readwriter import DataFrameReader, DataFrameWriter
    from .row import Row
    from .session import Catalog, SparkSession
    from .session_artifacts import is_remote
    from .udf_registration import UDFRegistration
    from .udtf import UDTFRegistration
    from .variant.value import VariantVal
    from .window import Window, WindowSpec
    from .writer_v2 import DataFrameWriterV2

_WHERE = {
    "AnalysisException": ".errors",
    "ArithmeticException": ".errors",
    "Catalog": ".session",
    "Column": ".column",
    "DataFrame": ".dataframe",
    "DataFrameNaFunctions": ".na",
    "DataFrameStatFunctions": ".dataframe_stat",
    "DataFrameReader": ".readwriter",
    "DataFrameWriter": ".readwriter",
    "DataFrameWriterV2": ".writer_v2",
    "DateTimeException": ".errors",
    "GroupedData": ".group",
    "HiveContext": ".context",
    "MergeIntoWriter": ".merge",
    "IllegalArgumentException": ".errors",
    "NumberFormatException": ".errors",
    "Observation": ".observation",
    "PandasCogroupedOps": ".group_pandas",
    "ParseException": ".errors",
    "PySparkException": ".errors",
    "PythonException": ".errors",
    "Row": ".row",
    "RuntimeConfig": ".conf",
    "SQLContext": ".context",
    "SparkRuntimeException": ".errors",
    "SparkSession": ".session",
    "StreamingQueryException": ".errors",
    "UDFRegistration": ".udf_registration",
    "UDTFRegistration": ".udtf",
    "VariantVal": ".variant.value",
    "Window": ".window",
    "WindowSpec": ".window",
    "is_remote": ".session_artifacts",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> _typing.Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'dstream.sql' has no attribute {name!r}")
    value = getattr(_importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
