"""The public surface of ``dstream.sql``: ``__all__`` and the names PySpark programs import.

- ``__all__`` of ``dstream.sql``, ``dstream.sql.functions`` and ``dstream.sql.types`` is
  sorted, has no duplicates and names only what exists; the package's equals its public
  names, and every public function or class the two modules define is in theirs.
- PySpark's names are there: the classes of ``pyspark.sql``, the functions of
  ``pyspark.sql.functions`` the DataFrame API offers, the types of ``pyspark.sql.types``.
"""

from __future__ import annotations

import types

import pytest

import dstream.sql
import dstream.sql.functions
import dstream.sql.types

from .test_exports import public_names

MODULES = [dstream.sql, dstream.sql.functions, dstream.sql.types]

SQL_CLASSES = {"AnalysisException", "Column", "DataFrame", "DataFrameReader", "DataFrameWriter", "GroupedData", "Row",
               "SparkSession"}

FUNCTIONS = """
col column lit expr when coalesce isnull isnan nullif nvl ifnull broadcast udf
count countDistinct count_distinct sum sum_distinct avg mean min max first last collect_list collect_set
approx_count_distinct stddev stddev_samp variance var_samp
upper lower trim ltrim rtrim length substring concat concat_ws split regexp_extract regexp_replace initcap
lpad rpad repeat reverse instr
explode explode_outer posexplode array struct size array_contains element_at from_json to_json
to_date to_timestamp date_format current_date current_timestamp year month dayofmonth dayofweek dayofyear
weekofyear hour minute second datediff date_add date_sub unix_timestamp from_unixtime window
asc desc round bround abs sqrt floor ceil pow exp log log10 greatest least try_divide try_add md5 sha1 sha2
""".split()

TYPES = """
DataType NullType StringType BinaryType BooleanType DateType TimestampType TimestampNTZType DecimalType
DoubleType FloatType ByteType ShortType IntegerType LongType ArrayType MapType StructField StructType
AtomicType NumericType IntegralType FractionalType
""".split()


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_all_is_sorted_unique_and_every_name_exists(module: types.ModuleType) -> None:
    exported = list(module.__all__)
    assert exported == sorted(exported)
    assert len(exported) == len(set(exported))
    assert [name for name in exported if not hasattr(module, name)] == []


def test_package_all_equals_the_public_names() -> None:
    assert set(dstream.sql.__all__) == public_names(dstream.sql)


@pytest.mark.parametrize("module", [dstream.sql.functions, dstream.sql.types], ids=lambda m: m.__name__)
def test_every_public_definition_is_exported(module: types.ModuleType) -> None:
    # Like PySpark's, these modules also hold names they import (Column, typing...): only their own count.
    own = {name for name in public_names(module)
           if getattr(getattr(module, name), "__module__", "").startswith(module.__name__)}
    assert len(own) > 20 and own - set(module.__all__) == set()


def test_pyspark_sql_classes_are_exported() -> None:
    assert set(dstream.sql.__all__) >= SQL_CLASSES
    from dstream.sql import AnalysisException  # noqa: PLC0415 - PySpark's import path is the test
    from dstream.sql.errors import AnalysisException as Defined  # noqa: PLC0415

    assert AnalysisException is Defined


def test_functions_offers_pysparks_functions() -> None:
    assert sorted(set(FUNCTIONS) - set(dstream.sql.functions.__all__)) == []
    assert all(callable(getattr(dstream.sql.functions, name)) for name in FUNCTIONS)


def test_types_offers_pysparks_type_names() -> None:
    assert sorted(set(TYPES) - set(dstream.sql.types.__all__)) == []
    assert all(isinstance(getattr(dstream.sql.types, name), type) for name in TYPES)


STREAMING_CLASSES = {"DataStreamReader", "DataStreamWriter", "StreamingQuery", "StreamingQueryManager",
                     "StreamingQueryListener", "StreamingQueryProgress", "StreamingQueryStatus", "GroupState",
                     "GroupStateTimeout", "MemoryStream"}


def test_structured_streaming_names_are_where_pyspark_programs_import_them() -> None:
    import dstream.sql.streaming as streaming
    import dstream.sql.streaming.state as state

    assert list(streaming.__all__) == sorted(streaming.__all__)
    assert STREAMING_CLASSES <= set(streaming.__all__)
    assert all(hasattr(streaming, name) for name in streaming.__all__)
    assert {"GroupState", "GroupStateTimeout"} <= set(state.__all__)
    assert hasattr(dstream.sql, "StreamingQueryException")
    assert {"readStream", "streams"} <= set(dir(dstream.sql.SparkSession))
    assert {"writeStream", "withWatermark", "isStreaming", "dropDuplicatesWithinWatermark"} <= set(
        dir(dstream.sql.DataFrame))
