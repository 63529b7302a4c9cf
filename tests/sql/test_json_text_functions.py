"""JSON text functions (``get_json_object``, ``json_tuple``, ``schema_of_json``) against
plain-Python models, in the DataFrame API and in SQL.

The model of a path lookup: parse the document (invalid text: null), follow each step
(a name in an object, an index in an array; anything else: null), and render what is
found: a string as itself, anything else as compact JSON, a JSON null as null.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-100, 100), st.text(alphabet="ab é", max_size=3))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from("abc"), inner, max_size=3)),
                      max_leaves=8)


def _path(steps: list[Any]) -> str:
    return "$" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps)


def _lookup(text: str | None, steps: list[Any]) -> str | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    for step in steps:
        if isinstance(step, int) and isinstance(value, list) and step < len(value):
            value = value[step]
        elif isinstance(step, str) and isinstance(value, dict) and step in value:
            value = value[step]
        else:
            return None
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _steps_into(value: Any, data: st.DataObject) -> list[Any]:
    """A path that mostly exists in ``value`` (a random step, sometimes, to leave it)."""
    steps: list[Any] = []
    while isinstance(value, list | dict) and value and data.draw(st.booleans()):
        if data.draw(st.integers(0, 4)) == 0:
            steps.append(data.draw(st.one_of(st.sampled_from("abc"), st.integers(0, 2))))
            break
        key = data.draw(st.sampled_from(range(len(value)) if isinstance(value, list) else sorted(value)))
        steps.append(key)
        value = value[key]
    return steps


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents=st.lists(st.one_of(st.none(), st.just("{not json"), VALUES.map(json.dumps)), min_size=1,
                          max_size=8), data=st.data())
def test_get_json_object_and_json_tuple_match_the_model(spark: SparkSession, documents: list[str | None],
                                                        data: st.DataObject) -> None:
    source = next((json.loads(d) for d in documents if d is not None and d != "{not json"), None)
    steps = _steps_into(source, data)
    df = spark.createDataFrame([(d,) for d in documents], "j string")
    got = df.select(F.get_json_object("j", _path(steps)).alias("v"), F.json_tuple("j", "a", "c")).collect()
    for document, row in zip(documents, got):
        assert row["v"] == _lookup(document, steps), (document, _path(steps))
        assert (row["c0"], row["c1"]) == (_lookup(document, ["a"]), _lookup(document, ["c"])), document


def test_wildcards_quoted_names_and_bad_paths(spark: SparkSession) -> None:
    df = spark.createDataFrame([('{"a": [{"b": 1}, {"b": 2}], "k y": "v"}',)], "j string")
    [row] = df.select(F.get_json_object("j", "$.a[*].b").alias("all"), F.get_json_object("j", "$.a[1].b").alias("one"),
                      F.get_json_object("j", "$['k y']").alias("quoted"), F.get_json_object("j", "a.b").alias("bad"),
                      F.get_json_object("j", "$.a[0]").alias("object")).collect()
    assert row.asDict() == {"all": "[1,2]", "one": "2", "quoted": "v", "bad": None, "object": '{"b":1}'}


def test_json_tuple_names_aliases_and_sql(spark: SparkSession) -> None:
    df = spark.createDataFrame([('{"a": 1, "b": "x"}',)], "j string")
    assert df.select(F.json_tuple("j", "a", "b")).columns == ["c0", "c1"]
    assert df.select(F.json_tuple("j", "a", "b").alias("x", "y")).collect()[0].asDict() == {"x": "1", "y": "x"}
    df.createOrReplaceTempView("json_t")
    got = spark.sql("SELECT json_tuple(j, 'b'), get_json_object(j, '$.a') AS a FROM json_t").collect()
    assert [tuple(r) for r in got] == [("x", "1")]


def test_schema_of_json_writes_spark_ddl(spark: SparkSession) -> None:
    df = spark.range(1)
    [row] = df.select(F.schema_of_json('{"a": 1, "b": [1.5], "c d": {"e": null}, "f": true}').alias("s"),
                      F.schema_of_json(F.lit('[{"a": 1}]'), {"primitivesAsString": "true"}).alias("p")).collect()
    assert row.s == "STRUCT<a: BIGINT, b: ARRAY<DOUBLE>, `c d`: STRUCT<e: STRING>, f: BOOLEAN>"
    assert row.p == "ARRAY<STRUCT<a: STRING>>"
    assert df.select(F.schema_of_json('{"a": 1}')).columns == ['schema_of_json({"a": 1})']
    assert spark.sql("""SELECT schema_of_json('{"k": "v"}') AS s""").collect()[0].s == "STRUCT<k: STRING>"
