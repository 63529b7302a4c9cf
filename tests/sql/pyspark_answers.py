"""PySpark's recorded answers to SQL queries, and the check of dstreams against one.

A data file (``data/<name>.json``) is a list of cases: ``query``, an optional session
``time_zone``, and PySpark 4.0.1's answer, either ``schema`` and ``rows`` (every column cast
to a string, as ``show()`` prints it) or ``error``, the first part of the error's condition
(empty: any error, for PySpark errors without a condition).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import CapturedException


def load_cases(name: str) -> list[dict[str, Any]]:
    """The cases of ``data/<name>.json``."""
    return json.loads((Path(__file__).parent / "data" / f"{name}.json").read_text("utf-8"))


def as_shown(spark: SparkSession, query: str) -> tuple[str, list[list[str]]]:
    """The query's schema and its rows with every column cast to a string."""
    df = spark.sql(query)
    text = df.selectExpr(*[f"cast(`{c}` as string)" for c in df.columns])
    return df.schema.simpleString(), [[str(v) for v in row] for row in text.collect()]


def check_case(spark: SparkSession, case: dict[str, Any]) -> None:
    """Run ``case`` in its session time zone and compare with PySpark's answer."""
    spark.conf.set("spark.sql.session.timeZone", case.get("time_zone", "UTC"))
    try:
        if "error" in case:
            with pytest.raises(CapturedException) as caught:
                as_shown(spark, case["query"])
            if case["error"]:
                assert (caught.value.getCondition() or "").split(".")[0] == case["error"], str(caught.value)
        else:
            assert as_shown(spark, case["query"]) == (case["schema"], case["rows"])
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
