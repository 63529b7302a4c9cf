"""The ``xpath`` functions against PySpark 4.0.1's answers for the same calls."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import SparkRuntimeException


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("xpath-functions").getOrCreate()
    yield session
    session.stop()


def _one(spark: SparkSession, sql: str) -> tuple[object, ...]:
    return tuple(spark.sql(sql).collect()[0])


def test_xpath_selects_node_values(spark: SparkSession) -> None:
    df = spark.createDataFrame([("<a><b>b1</b><b>b2</b><b>b3</b><c>c1</c><c>c2</c></a>",)], ["x"])
    shown = df.select(F.xpath(df.x, F.lit("a/b/text()")))
    assert shown.columns == ["xpath(x, a/b/text())"]
    assert shown.collect() == [Row(**{"xpath(x, a/b/text())": ["b1", "b2", "b3"]})]
    assert _one(spark, "select xpath('<a><b>b1</b><b>b2</b></a>','a/b'), xpath('<a><b id=\"1\">b1</b>"
                       "<b id=\"2\">b2</b></a>','a/b/@id'), xpath('<a><b>b1</b></a>','a/x/text()'), "
                       "xpath('<a><b>1</b></a>', '')") == ([None, None], ["1", "2"], [], None)
    assert _one(spark, "select xpath('<a xmlns:x=\"u\"><x:b>1</x:b></a>', 'a/*/text()'), "
                       "xpath_string('<!DOCTYPE a [<!ENTITY e \"ee\">]><a>&e;</a>', 'a'), "
                       "xpath_string('<a><![CDATA[x<y]]></a>', 'a'), xpath('<a><b>1</b><b/></a>','a/b/text()')") \
        == (["1"], "ee", "x<y", ["1"])


def test_string_boolean_and_numbers(spark: SparkSession) -> None:
    assert _one(spark, "select xpath_string('<a><b>b</b><c>cc</c></a>','a/c'), xpath_string('<a><b>b</b></a>','a/x'), "
                       "xpath_string('<a><b>b<i>x</i>y</b></a>','a/b')") == ("cc", "", "bxy")
    assert _one(spark, "select xpath_boolean('<a><b>1</b></a>','a/b'), xpath_boolean('<a><b>1</b></a>','a/c'), "
                       "xpath_boolean('<a><b>1</b></a>','a/b = 1')") == (True, False, True)
    assert _one(spark, "select xpath_int('<a><b>1</b><b>2</b></a>', 'sum(a/b)'), "
                       "xpath_long('<a><b>1</b><b>2</b></a>', 'sum(a/b)'), xpath_short('<a><b>1</b></a>', 'a/b'), "
                       "xpath_float('<a><b>1.5</b></a>', 'a/b'), xpath_double('<a><b>1.5</b></a>', 'a/b'), "
                       "xpath_number('<a><b>1</b><b>2</b></a>', 'sum(a/b)')") \
        == (3, 3, 1, 1.5, 1.5, 3.0)
    got = _one(spark, "select xpath_int('<a><b>x</b></a>', 'a/b'), xpath_double('<a><b>x</b></a>', 'a/b'), "
                      "xpath_int('<a></a>', 'a/b'), xpath_double('<a></a>', 'a/b'), "
                      "xpath_int('<a><b>9999999999</b></a>', 'a/b'), xpath_int('<a><b>1.9</b></a>', 'a/b')")
    assert got[0] == 0 and math.isnan(got[1]) and got[2] == 0 and math.isnan(got[3])  # type: ignore[arg-type]
    assert got[4:] == (2147483647, 1)
    assert _one(spark, "select xpath_short('<a>40000</a>', 'a'), xpath_string(null, 'a'), xpath(null, 'a')") == (
        -25536, None, None)
    got = _one(spark, "select xpath_short('<a>1e10</a>', 'a'), xpath_long('<a>1e30</a>', 'a'), "
                      "xpath_float('<a>1e300</a>', 'a')")  # XPath 1.0 reads no exponent: NaN
    assert got[:2] == (0, 0) and math.isnan(got[2])  # type: ignore[arg-type]


def test_errors(spark: SparkSession) -> None:
    with pytest.raises(SparkRuntimeException, match="Error loading expression 'a'"):
        spark.sql("select xpath('<a>', 'a')").collect()
    with pytest.raises(SparkRuntimeException, match="Invalid XPath 'a/b\\['"):
        spark.sql("select xpath('<a><b>1</b></a>', 'a/b[')").collect()
    df = spark.createDataFrame([("<a/>", "a")], ["x", "p"])
    with pytest.raises(Exception, match="NON_FOLDABLE_INPUT"):
        df.select(F.xpath("x", "p")).collect()
