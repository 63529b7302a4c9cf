"""Methods PySpark 4.0.1 has and dstreams lacked: ``Column.isNaN``, ``Catalog.getFunction``,
``Catalog.registerFunction``, ``Catalog.createTable``/``createExternalTable`` and ``spark.tvf``.

The expected values are what PySpark 4.0.1 returned for the same calls.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException, PySparkTypeError, PySparkValueError
from dstream.sql.types import IntegerType, StringType, StructField, StructType


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("parity-api-gaps").getOrCreate()
    yield session
    session.stop()


def test_column_is_nan(spark: SparkSession) -> None:
    # Was: df.x.isNaN read as the struct field "isNaN" ('Column' object is not callable).
    df = spark.createDataFrame([(1.0, "a"), (float("nan"), "b"), (None, "a")], "x double, k string")
    got = df.select(df.x.isNaN(), F.col("x").isNaN().alias("n"))
    assert got.columns == ["isnan(x)", "n"]
    assert got.collect() == [Row(False, False), Row(True, True), Row(False, False)]


def test_catalog_register_and_get_function(spark: SparkSession) -> None:
    with pytest.warns(FutureWarning, match="Use spark.udf.register instead"):
        spark.catalog.registerFunction("twice", lambda v: v * 2, "int")
    assert spark.sql("SELECT twice(3) t").collect() == [Row(t=6)]
    udf = spark.catalog.getFunction("twice")
    assert (udf.name, udf.catalog, udf.namespace, udf.description, udf.isTemporary) == (
        "twice", None, None, "N/A.", True)
    builtin = spark.catalog.getFunction("abs")
    assert (builtin.name, builtin.catalog, builtin.namespace, builtin.isTemporary) == ("abs", None, None, True)
    with pytest.raises(AnalysisException) as info:
        spark.catalog.getFunction("nope_fn")
    assert info.value.getCondition() == "UNRESOLVED_ROUTINE" and "`nope_fn`" in str(info.value)
    assert (spark.catalog.functionExists("abs"), spark.catalog.functionExists("twice"),
            spark.catalog.functionExists("nope")) == (True, True, False)


def test_table_valued_functions(spark: SparkSession) -> None:
    tvf = spark.tvf
    assert tvf.range(3).collect() == [Row(id=0), Row(id=1), Row(id=2)]
    assert tvf.range(1, 7, 2).collect() == [Row(id=1), Row(id=3), Row(id=5)]
    assert tvf.explode(F.array(F.lit(1), F.lit(2))).collect() == [Row(col=1), Row(col=2)]
    assert tvf.explode(F.create_map(F.lit("a"), F.lit(1))).collect() == [Row(key="a", value=1)]
    assert tvf.explode_outer(F.array().cast("array<int>")).collect() == [Row(col=None)]
    assert tvf.posexplode(F.array(F.lit("x"), F.lit("y"))).collect() == [Row(pos=0, col="x"), Row(pos=1, col="y")]
    inline = tvf.inline(F.array(F.struct(F.lit(1).alias("a"), F.lit("b").alias("b"))))
    assert inline.collect() == [Row(a=1, b="b")]
    assert tvf.json_tuple(F.lit('{"a": 1, "b": "x"}'), F.lit("a"), F.lit("b")).collect() == [Row(c0="1", c1="x")]
    assert tvf.stack(F.lit(2), F.lit(1), F.lit(2), F.lit(3), F.lit(4)).collect() == [
        Row(col0=1, col1=2), Row(col0=3, col1=4)]
    with pytest.raises(PySparkValueError, match="At least one field must be specified"):
        tvf.json_tuple(F.lit('{"a": 1}'))


def test_catalog_create_table_managed_and_external(spark: SparkSession, tmp_path: Path) -> None:
    # Was: AttributeError ('Catalog' object has no attribute 'createTable').
    spark.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    schema = StructType([StructField("a", IntegerType()), StructField("b", StringType())])
    managed = spark.catalog.createTable("ct_t1", schema=schema)
    assert (managed.columns, managed.collect(), managed.schema.simpleString()) == (
        ["a", "b"], [], "struct<a:int,b:string>")
    spark.sql("INSERT INTO ct_t1 VALUES (1, 'x')")
    assert spark.table("ct_t1").collect() == [Row(a=1, b="x")]
    assert os.listdir(tmp_path / "warehouse") == ["ct_t1"]
    spark.catalog.createTable("ct_t1j", source="json", schema=schema)
    assert spark.catalog.getTable("ct_t1j").tableType == "MANAGED"
    ext = tmp_path / "ext"
    ext.mkdir()
    (ext / "a.csv").write_text("x,y\n1,a\n2,b\n")
    external = spark.catalog.createTable("ct_t2", path=str(ext), source="csv", header="true", inferSchema="true")
    assert (external.columns, external.collect()) == (["x", "y"], [Row(x=1, y="a"), Row(x=2, y="b")])
    assert spark.catalog.getTable("ct_t2").tableType == "EXTERNAL"
    assert spark.sql("SELECT * FROM ct_t2 ORDER BY x").collect() == [Row(x=1, y="a"), Row(x=2, y="b")]
    spark.sql("DROP TABLE ct_t2")
    assert os.listdir(ext) == ["a.csv"]  # an external table's files stay
    with pytest.warns(FutureWarning, match="createExternalTable is deprecated"):
        legacy = spark.catalog.createExternalTable("ct_t5", path=str(ext), source="csv", header="true")
    assert legacy.collect() == [Row(x="1", y="a"), Row(x="2", y="b")]
    with pytest.raises(AnalysisException) as exists:
        spark.catalog.createTable("ct_t1", schema=schema)
    assert exists.value.getCondition() == "TABLE_OR_VIEW_ALREADY_EXISTS"
    with pytest.raises(AnalysisException) as no_schema:
        spark.catalog.createTable("ct_t3")
    assert no_schema.value.getCondition() == "UNABLE_TO_INFER_SCHEMA"
    assert "Unable to infer schema for Parquet. It must be specified manually" in str(no_schema.value)
    with pytest.raises(PySparkTypeError, match="Argument `schema` should be a struct type, got str"):
        spark.catalog.createTable("ct_t4", schema="a int")
    kinds = sorted((t.name, t.tableType) for t in spark.catalog.listTables() if t.name.startswith("ct_"))
    assert kinds == [("ct_t1", "MANAGED"), ("ct_t1j", "MANAGED"), ("ct_t5", "EXTERNAL")]
    for name in ("ct_t1", "ct_t1j", "ct_t5"):
        spark.sql(f"DROP TABLE {name}")


def test_writer_bucket_by_and_sort_by(spark: SparkSession, tmp_path: Path) -> None:
    # Was: AttributeError ('DataFrameWriter' object has no attribute 'bucketBy').
    spark.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    df = spark.createDataFrame([(i, str(i)) for i in range(6)], "id int, s string")
    df.write.bucketBy(2, "id").sortBy("s").saveAsTable("bk_t1")
    assert sorted(spark.table("bk_t1").collect()) == [Row(id=i, s=str(i)) for i in range(6)]
    assert len([f for f in os.listdir(tmp_path / "warehouse" / "bk_t1") if f.endswith(".parquet")]) == 2
    df.write.bucketBy(3, ["id", "s"]).saveAsTable("bk_t2")
    assert spark.table("bk_t2").count() == 6
    df.write.clusterBy("id").saveAsTable("bk_t7")
    assert spark.table("bk_t7").count() == 6
    refused = [
        (lambda: df.write.bucketBy(2, "id").parquet(str(tmp_path / "o")), "_LEGACY_ERROR_TEMP_1312",
         "'save' does not support bucketBy right now."),
        (lambda: df.write.bucketBy(2, "id").sortBy("s").parquet(str(tmp_path / "o")), "_LEGACY_ERROR_TEMP_1313",
         "'save' does not support bucketBy and sortBy right now."),
        (lambda: df.write.bucketBy(2, "id").insertInto("bk_t1"), "_LEGACY_ERROR_TEMP_1312",
         "'insertInto' does not support bucketBy right now."),
        (lambda: df.write.sortBy("id").saveAsTable("bk_t0"), "SORT_BY_WITHOUT_BUCKETING",
         "[SORT_BY_WITHOUT_BUCKETING] sortBy must be used together with bucketBy. SQLSTATE: 42601"),
        (lambda: df.write.bucketBy(0, "id").saveAsTable("bk_t3"), "_LEGACY_ERROR_TEMP_1083",
         "Number of buckets should be greater than 0 but less than or equal to bucketing.maxBuckets (`100000`). "
         "Got `0`."),
        (lambda: df.write.bucketBy(2, "nope").saveAsTable("bk_t4"), "COLUMN_NOT_DEFINED_IN_TABLE",
         "[COLUMN_NOT_DEFINED_IN_TABLE] bucket column `nope` is not defined in table `spark_catalog`.`default`."
         "`bk_t4`, defined table columns are: `id`, `s`. SQLSTATE: 42703"),
        (lambda: df.write.partitionBy("id").bucketBy(2, "id").saveAsTable("bk_t5"), "_LEGACY_ERROR_TEMP_1166",
         "Bucketing column 'id' should not be part of partition columns 'id'."),
    ]
    for call, condition, message in refused:
        with pytest.raises(AnalysisException) as info:
            call()
        assert (info.value.getCondition(), str(info.value)) == (condition, message)
    with pytest.raises(PySparkTypeError, match="Argument `numBuckets` should be an int, got str"):
        df.write.bucketBy("2", "id")  # type: ignore[arg-type]
    for name in ("bk_t1", "bk_t2", "bk_t7"):
        spark.sql(f"DROP TABLE {name}")
