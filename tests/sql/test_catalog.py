"""spark.catalog: PySpark's Catalog API over views, global views, managed tables and functions."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException


def test_tables_columns_databases_and_catalogs(spark: SparkSession, tmp_path: Path) -> None:
    spark.conf.set("spark.sql.warehouse.dir", str(tmp_path / "wh"))
    table = f"t_{uuid.uuid4().hex[:8]}"
    spark.createDataFrame([(1, "a", "x")], "n long, s string, part string").write.partitionBy("part") \
        .saveAsTable(table)
    spark.range(2).createOrReplaceTempView("view_one")
    spark.range(2).createOrReplaceGlobalTempView("shared_one")
    try:
        tables = {t.name: t for t in spark.catalog.listTables()}
        assert tables["view_one"].isTemporary and tables["view_one"].tableType == "TEMPORARY"
        assert tables[table] == (table, "spark_catalog", ["default"], None, "MANAGED", False)
        assert tables[table].database == "default"
        assert [t.name for t in spark.catalog.listTables(pattern="view_*")] == ["view_one"]
        assert [t.name for t in spark.catalog.listTables("global_temp")] == ["shared_one"]
        assert spark.catalog.getTable(table).tableType == "MANAGED"
        assert spark.catalog.tableExists(table) and spark.catalog.tableExists("shared_one", "global_temp")
        assert not spark.catalog.tableExists("no_such_table")
        columns = spark.catalog.listColumns(table)
        assert [(c.name, c.dataType, c.isPartition) for c in columns] == [
            ("n", "bigint", False), ("s", "string", False), ("part", "string", True)]
        assert spark.catalog.currentDatabase() == "default" and spark.catalog.databaseExists("default")
        assert [d.name for d in spark.catalog.listDatabases()] == ["default"]
        assert spark.catalog.getDatabase("default").locationUri.endswith("/wh")
        assert spark.catalog.currentCatalog() == "spark_catalog"
        assert [c.name for c in spark.catalog.listCatalogs()] == ["spark_catalog"]
        with pytest.raises(AnalysisException, match="SCHEMA_NOT_FOUND"):
            spark.catalog.setCurrentDatabase("sales")
        with pytest.raises(AnalysisException, match="CATALOG_NOT_FOUND"):
            spark.catalog.setCurrentCatalog("hive")
        # Partitions are listed at each read: recovering them has nothing to do (PySpark 4.0.1's errors).
        assert spark.catalog.recoverPartitions(table) is None
        with pytest.raises(AnalysisException, match="RECOVER PARTITIONS is not allowed for "
                                                    "`spark_catalog`.`default`.`view_one` because it is not a "
                                                    "partitioned table"):
            spark.catalog.recoverPartitions("view_one")
        with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
            spark.catalog.recoverPartitions("no_such_table")
    finally:
        spark.sql(f"DROP TABLE {table}")
        spark.catalog.dropGlobalTempView("shared_one")


def test_functions_and_caching(spark: SparkSession) -> None:
    spark.udf.register("plus_two", lambda x: x + 2, "long")
    assert spark.catalog.functionExists("upper") and spark.catalog.functionExists("plus_two")
    assert not spark.catalog.functionExists("no_such_function")
    registered = [f for f in spark.catalog.listFunctions(pattern="plus_*")]
    assert [(f.name, f.isTemporary) for f in registered] == [("plus_two", True)]
    spark.range(3).createOrReplaceTempView("cached_view")
    assert not spark.catalog.isCached("cached_view")
    spark.catalog.cacheTable("cached_view")
    assert spark.catalog.isCached("cached_view") and spark.table("cached_view").count() == 3
    spark.catalog.uncacheTable("cached_view")
    assert not spark.catalog.isCached("cached_view")
    spark.catalog.cacheTable("cached_view")
    spark.catalog.clearCache()
    assert not spark.catalog.isCached("cached_view")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.catalog.isCached("missing_view")
