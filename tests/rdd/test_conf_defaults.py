"""spark-defaults.conf: SparkConf(loadDefaults=True) starts from the file, program settings win."""

from __future__ import annotations

from pathlib import Path

import pytest

from rdd import SparkConf, SparkContext
from rdd.conf_defaults import parse_properties


def test_the_file_format_is_javas_properties_as_spark_writes_them() -> None:
    text = """
    # a comment
    ! another comment
    spark.ui.enabled            false
    spark.local.dir=/scratch/spark
    spark.app.name: from the file
    spark.driver.extraJavaOptions -Da=b -Dc=d
    not.spark.key value
    spark.empty
    """
    assert parse_properties(text) == {
        "spark.ui.enabled": "false",
        "spark.local.dir": "/scratch/spark",
        "spark.app.name": "from the file",
        "spark.driver.extraJavaOptions": "-Da=b -Dc=d",
        "spark.empty": "",
    }


def test_spark_conf_dir_then_spark_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf_dir, home = tmp_path / "conf-dir", tmp_path / "home"
    (home / "conf").mkdir(parents=True)
    conf_dir.mkdir()
    (home / "conf" / "spark-defaults.conf").write_text("spark.from.home yes\n")
    (conf_dir / "spark-defaults.conf").write_text("spark.from.dir yes\n")
    monkeypatch.delenv("SPARK_CONF_DIR", raising=False)
    monkeypatch.setenv("SPARK_HOME", str(home))
    assert SparkConf().get("spark.from.home") == "yes"
    monkeypatch.setenv("SPARK_CONF_DIR", str(conf_dir))
    conf = SparkConf()
    assert conf.get("spark.from.dir") == "yes" and conf.get("spark.from.home") is None
    assert SparkConf(loadDefaults=False).getAll() == []
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path / "missing"))
    assert SparkConf().get("spark.from.dir") is None  # no file: no defaults


def test_program_settings_win_over_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            no_active_context: None) -> None:
    (tmp_path / "spark-defaults.conf").write_text("spark.ui.enabled false\nspark.app.name file-name\n"
                                                  "spark.default.parallelism 3\n")
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    sc = SparkContext("local", "program-name", conf=SparkConf().set("spark.default.parallelism", "5"))
    try:
        assert sc.appName == "program-name"  # the constructor's argument
        assert sc.defaultParallelism == 5  # the program's SparkConf
        assert sc.uiWebUrl is None  # the file
    finally:
        sc.stop()
