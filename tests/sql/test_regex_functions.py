"""Pattern functions (``regexp_count``, ``regexp_extract_all``, ``regexp_substr``,
``regexp_instr``, ``regexp_like``/``regexp``/``rlike``, ``like``/``ilike``, ``contains``,
``startswith``, ``endswith``) against plain-Python models, in the DataFrame API and in SQL.

The models, per string (null gives null): the number of non-overlapping matches; group
``idx`` of each match (``""`` for a group that took no part); the first match or null;
the 1-based start of the first match or 0; whether the pattern matches somewhere; LIKE
as an anchored match of ``%`` (any run) and ``_`` (one character).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import IllegalArgumentException, SparkRuntimeException

STRINGS = st.one_of(st.none(), st.text(alphabet="ab1 2%_é", max_size=10))
PATTERNS = [r"\d+", r"(a)(b)?", r"[ab]\d", r"é|%"]


def _like(s: str, pattern: str) -> bool:
    body = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(body, s, re.S) is not None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(STRINGS, min_size=1, max_size=10), pattern=st.sampled_from(PATTERNS),
       like=st.text(alphabet="ab%_", max_size=4))
def test_the_functions_match_the_model(spark: SparkSession, values: list[str | None], pattern: str,
                                       like: str) -> None:
    df = spark.createDataFrame([(v,) for v in values], "s string")
    p = F.lit(pattern)
    got = df.select(F.regexp_count("s", p).alias("count"), F.regexp_extract_all("s", p, 0).alias("all"),
                    F.regexp_substr("s", p).alias("substr"), F.regexp_instr("s", p).alias("instr"),
                    F.regexp_like("s", p).alias("like_re"), F.like("s", F.lit(like)).alias("like"),
                    F.contains("s", F.lit("a1")).alias("contains"), F.startswith("s", F.lit("a")).alias("starts"),
                    F.endswith("s", F.lit("2")).alias("ends")).collect()
    compiled = re.compile(pattern)
    for s, row in zip(values, got):
        if s is None:
            assert all(v is None for v in row), row
            continue
        first = compiled.search(s)
        expected: dict[str, Any] = {
            "count": len(list(compiled.finditer(s))), "all": [m.group(0) for m in compiled.finditer(s)],
            "substr": None if first is None else first.group(0), "instr": 0 if first is None else first.start() + 1,
            "like_re": first is not None, "like": _like(s, like), "contains": "a1" in s,
            "starts": s.startswith("a"), "ends": s.endswith("2")}
        assert row.asDict() == expected, (s, pattern, like)


def test_extract_all_takes_a_group_and_gives_empty_for_one_that_took_no_part(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a1 b a2",)], "s string")
    [row] = df.select(F.regexp_extract_all("s", F.lit(r"([ab])(\d)?")).alias("first"),
                      F.regexp_extract_all("s", F.lit(r"([ab])(\d)?"), 2).alias("second"),
                      F.regexp_instr("s", F.lit(r"([ab])(\d)"), 2).alias("at")).collect()
    assert row == (["a", "b", "a"], ["1", "", "2"], 2)


def test_column_names_follow_spark(spark: SparkSession) -> None:
    df = spark.createDataFrame([("x",)], "s string")
    names = df.select(F.regexp_count("s", F.lit("a")), F.regexp_like("s", F.lit("a")), F.regexp("s", F.lit("a")),
                      F.rlike("s", F.lit("a")), F.like("s", F.lit("a%")), F.like("s", F.lit("a/%"), F.lit("/")),
                      F.regexp_extract_all("s", F.lit("(a)"), 1)).columns
    # PySpark 4.0.1: RLIKE(s, a), REGEXP_LIKE(s, a), REGEXP(s, a).
    assert names == ["regexp_count(s, a)", "REGEXP_LIKE(s, a)", "REGEXP(s, a)", "RLIKE(s, a)", "s LIKE a%",
                     "s LIKE a/% ESCAPE '/'", "regexp_extract_all(s, (a), 1)"]


def test_sql_calls(spark: SparkSession) -> None:
    got = spark.sql("SELECT regexp_count('a1b22', '[0-9]+') AS c, regexp_extract_all('k=1,j=2', '(\\\\w)=(\\\\d)', 2) "
                    "AS v, regexp_substr('ab12', '[0-9]+') AS s, regexp_instr('ab12', '[0-9]') AS i, "
                    "regexp_like('ab', '^a') AS l, contains('abc', 'bc') AS x, startswith('abc', 'b') AS y").collect()
    assert [tuple(r) for r in got] == [(2, ["1", "2"], "12", 3, True, True, False)]


def test_bad_patterns_and_groups_are_named(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a",)], "s string")
    with pytest.raises(IllegalArgumentException, match=r"group count is 1, but the specified group index is 2"):
        df.select(F.regexp_extract_all("s", F.lit("(a)"), 2)).collect()
    # Spark names regexp_extract_all: it runs regexp_count as size(regexp_extract_all(...)).
    with pytest.raises(SparkRuntimeException, match=r"`regexp` in `regexp_extract_all` is invalid: '\(a'"):
        df.select(F.regexp_count("s", F.lit("(a"))).collect()
