"""``to_char`` / ``to_varchar`` against PySpark 4.0.1: number formats, dates, binary, errors.

The expected values are what PySpark 4.0.1 returned for the same SQL (``to_char`` of each
value with each format), copied from its output.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException

#: The values of the matrix: integers as written, the others as DECIMAL(12,5).
_VALUES = ["0", "5", "-5", "12.5", "-12.5", "454", "12454.8", "-12454.8", "0.5", "-0.05", "123456", "99.999",
           "1234.5678", "0.004", "-0.004"]

#: What PySpark 4.0.1 wrote for each format (key) and each of _VALUES.
_MATRIX = {
    "999": ["   ", "  5", "  5", "###", "###", "454", "###", "###", "###", "###", "###", "###", "###", "###",
        "###"],
    "000": ["000", "005", "005", "###", "###", "454", "###", "###", "###", "###", "###", "###", "###", "###",
        "###"],
    "99.99": [" 0.00", " 5.00", " 5.00", "12.50", "12.50", "##.##", "##.##", "##.##", " 0.50", " 0.05", "##.##",
        "##.##", "##.##", "##.##", "##.##"],
    "999.99": ["  0.00", "  5.00", "  5.00", " 12.50", " 12.50", "454.00", "###.##", "###.##", "  0.50", "  0.05",
        "###.##", "###.##", "###.##", "###.##", "###.##"],
    "000D00": ["000.00", "005.00", "005.00", "012.50", "012.50", "454.00", "###.##", "###.##", "000.50", "000.05",
        "###.##", "###.##", "###.##", "###.##", "###.##"],
    "99G999": ["      ", "     5", "     5", "## ###", "## ###", "   454", "## ###", "## ###", "## ###", "## ###",
        "## ###", "## ###", "## ###", "## ###", "## ###"],
    "9,999": ["     ", "    5", "    5", "# ###", "# ###", "  454", "# ###", "# ###", "# ###", "# ###", "# ###",
        "# ###", "# ###", "# ###", "# ###"],
    "99,999.9": ["     0.0", "     5.0", "     5.0", "    12.5", "    12.5", "   454.0", "12,454.8", "12,454.8",
        "     0.5", "## ###.#", "## ###.#", "## ###.#", "## ###.#", "## ###.#", "## ###.#"],
    "$99.99": ["$ 0.00", "$ 5.00", "$ 5.00", "$12.50", "$12.50", "$##.##", "$##.##", "$##.##", "$ 0.50", "$ 0.05",
        "$##.##", "$##.##", "$##.##", "$##.##", "$##.##"],
    "$999": ["$   ", "$  5", "$  5", "$###", "$###", "$454", "$###", "$###", "$###", "$###", "$###", "$###", "$###",
        "$###", "$###"],
    "99G999D9S": ["     0.0+", "     5.0+", "     5.0-", "    12.5+", "    12.5-", "   454.0+", "12,454.8+",
        "12,454.8-", "     0.5+", "## ###.#-", "## ###.#+", "## ###.#+", "## ###.#+", "## ###.#+", "## ###.#-"],
    "S999.99": ["   +.00", "  +5.00", "  -5.00", " +12.50", " -12.50", "+454.00", "+###.##", "-###.##", "   +.50",
        "   -.05", "+###.##", "+###.##", "+###.##", "+###.##", "-###.##"],
    "MI999": ["    ", "   5", "  -5", " ###", "-###", " 454", " ###", "-###", " ###", "-###", " ###", " ###",
        " ###", " ###", "-###"],
    "999MI": ["    ", "  5 ", "  5-", "### ", "###-", "454 ", "### ", "###-", "### ", "###-", "### ", "### ",
        "### ", "### ", "###-"],
    "999PR": ["     ", "  5  ", "  <5>", "###  ", "<###>", "454  ", "###  ", "<###>", "###  ", "<###>", "###  ",
        "###  ", "###  ", "###  ", "<###>"],
    "9.9": ["0.0", "5.0", "5.0", "#.#", "#.#", "#.#", "#.#", "#.#", "0.5", "#.#", "#.#", "#.#", "#.#", "#.#",
        "#.#"],
    ".99": [".00", ".##", ".##", ".##", ".##", ".##", ".##", ".##", ".50", ".05", ".##", ".##", ".##", ".##",
        ".##"],
    "0.00": ["0.00", "5.00", "5.00", "#.##", "#.##", "#.##", "#.##", "#.##", "0.50", "0.05", "#.##", "#.##", "#.##",
        "#.##", "#.##"],
    "99999999": ["        ", "       5", "       5", "########", "########", "     454", "########", "########",
        "########", "########", "  123456", "########", "########", "########", "########"],
    "$9,999.99PR": ["$    0.00  ", "$    5.00  ", "<$    5.00>", "$   12.50  ", "<$   12.50>", "$  454.00  ",
        "$# ###.##  ", "<$# ###.##>", "$    0.50  ", "<$    0.05>", "$# ###.##  ", "$# ###.##  ", "$# ###.##  ",
        "$# ###.##  ", "<$# ###.##>"],
    "999S": ["+   ", "  5+", "  5-", "###+", "###-", "454+", "###+", "###-", "###+", "###-", "###+", "###+", "###+",
        "###+", "###-"],
    "0999": ["0000", "0005", "0005", "####", "####", "0454", "####", "####", "####", "####", "####", "####", "####",
        "####", "####"],
    "9990.00": ["   0.00", "   5.00", "   5.00", "  12.50", "  12.50", " 454.00", "####.##", "####.##", "   0.50",
        "   0.05", "####.##", "####.##", "####.##", "####.##", "####.##"],
    "S$999": ["+$   ", "+$  5", "-$  5", "+$###", "-$###", "+$454", "+$###", "-$###", "+$###", "-$###", "+$###",
        "+$###", "+$###", "+$###", "-$###"],
    "0,000.00": ["0,000.00", "0,005.00", "0,005.00", "0,012.50", "0,012.50", "0,454.00", "# ###.##", "# ###.##",
        "0,000.50", "0,000.05", "# ###.##", "# ###.##", "# ###.##", "# ###.##", "# ###.##"],
}

_MORE_VALUES = ["0", "5", "-5", "1234", "-0.5"]
_MORE = {
    "999.S": ["  0+ ", "  5+ ", "  5- ", "###+ ", "###- "],
    "999.": ["  0 ", "  5 ", "  5 ", "### ", "### "],
    "9,999S": ["+     ", "    5+", "    5-", "1,234+", "# ###-"],
    "S9,999": ["     +", "    +5", "    -5", "+1,234", "-# ###"],
    "9,000": ["  000", "  005", "  005", "1,234", "# ###"],
    "MI9.99": [" 0.00", " 5.00", "-5.00", " #.##", " -.50"],
    "$9.99MI": ["$0.00 ", "$5.00 ", "$5.00-", "$#.## ", "$0.50-"],
    "S0999": ["+0000", "+0005", "-0005", "+1234", "-####"],
    "999.PR": ["  0   ", "  5   ", "  <5> ", "###   ", "<###> "],
    "9G999MI": ["      ", "    5 ", "    5-", "1,234 ", "# ###-"],
    "0.9": ["0.0", "5.0", "5.0", "#.#", "0.5"],
    "9.0": ["0.0", "5.0", "5.0", "#.#", "0.5"],
}


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local[1]").appName("parity-to-char")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    yield session
    session.stop()


def _row(spark: SparkSession, fmt: str, values: list[str]) -> list[str]:
    exprs = ", ".join(f"to_char(CAST({v} AS DECIMAL(12,5)), '{fmt}')" if "." in v else f"to_char({v}, '{fmt}')"
                      for v in values)
    return list(spark.sql(f"SELECT {exprs}").first())


@pytest.mark.parametrize("fmt", list(_MATRIX))
def test_to_char_number_formats(spark: SparkSession, fmt: str) -> None:
    # Was: UNRESOLVED_ROUTINE to_char.
    assert _row(spark, fmt, _VALUES) == _MATRIX[fmt]


@pytest.mark.parametrize("fmt", list(_MORE))
def test_to_char_pads_signs_and_lone_points(spark: SparkSession, fmt: str) -> None:
    assert _row(spark, fmt, _MORE_VALUES) == _MORE[fmt]


def test_to_char_and_to_varchar_names_types_and_inputs(spark: SparkSession) -> None:
    df = spark.sql("SELECT to_char(12454.8, '99,999.9'), to_varchar(12.5, '999.99')")
    assert df.columns == ["to_char(12454.8, 99,999.9)", "to_char(12.5, 999.99)"]
    assert df.first() == ("12,454.8", " 12.50")
    assert df.schema.simpleString() == "struct<to_char(12454.8, 99,999.9):string,to_char(12.5, 999.99):string>"
    row = spark.sql("SELECT to_char(CAST(12.5 AS DOUBLE), '999.99'), to_char(CAST(1.0E10 AS DOUBLE), "
                    "'99999999999.99'), to_char(CAST(0.1 AS FLOAT), '9.999999999'), to_char(CAST(7 AS TINYINT), "
                    "'999'), to_char(CAST(-7 AS SMALLINT), 'S999'), to_char(123456789012, '999,999,999,999'), "
                    "to_char('12', '99'), to_char(CAST(NULL AS INT), '999'), to_char(1, NULL)").first()
    assert list(row) == [" 12.50", "10000000000.00", "0.100000000", "  7", "  -7", "123,456,789,012", "12", None, None]
    pdf = spark.createDataFrame([(12454.8, 3)], "d double, i int")
    got = pdf.select(F.to_char(F.col("d"), F.lit("99,999.9")), F.to_varchar(F.col("i"), F.lit("000")))
    assert got.columns == ["to_char(d, 99,999.9)", "to_char(i, 000)"]
    assert got.first() == Row(**{"to_char(d, 99,999.9)": "12,454.8", "to_char(i, 000)": "003"})


def test_to_char_of_dates_is_date_format_and_of_binary_an_encoding(spark: SparkSession) -> None:
    row = spark.sql("SELECT to_char(DATE'2024-03-05', 'yyyy-MM-dd') a, to_char(TIMESTAMP'2024-03-05 10:11:12', "
                    "'dd/MM/yyyy HH:mm') b, to_varchar(DATE'2024-03-05', 'MMM d') c, to_char(X'41424344', 'hex') d, "
                    "to_char(X'41424344', 'base64') e, to_char(X'41424344', 'utf-8') f, "
                    "to_varchar(X'4142', 'HEX') g").first()
    assert row == Row(a="2024-03-05", b="05/03/2024 10:11", c="Mar 5", d="41424344", e="QUJDRA==", f="ABCD", g="4142")
    named = spark.range(1).select(F.to_char(F.lit(datetime.date(2024, 3, 5)), F.lit("yyyy")))
    assert named.columns[0].startswith("date_format(")
    # to_varchar names the binary cases after itself (the format only for utf-8); to_char after the encoding.
    shown = spark.createDataFrame([(b"AB",)], "b binary").selectExpr(
        "to_varchar(b, 'base64')", "to_varchar(b, 'utf-8')", "to_varchar(b, 'hex')", "to_char(b, 'HEX')")
    assert shown.columns == ["to_varchar(b)", "to_varchar(b, utf-8)", "to_varchar(b)", "hex(b)"]
    assert shown.first() == ("QUI=", "AB", "4142", "4142")


@pytest.mark.parametrize(("sql", "condition", "text"), [
    ("to_char(X'41424344', 'xyz')", "INVALID_PARAMETER_VALUE.BINARY_FORMAT",
     "expects one of binary formats 'base64', 'hex', 'utf-8', but got 'xyz'"),
    ("to_char(12, '9x9')", "INVALID_FORMAT.UNEXPECTED_TOKEN", "Found the unexpected character 'X''"),
    ("to_char(12, '')", "INVALID_FORMAT.EMPTY", "The number format string cannot be empty"),
    ("to_char(1, '99$')", "INVALID_FORMAT.CUR_MUST_BEFORE_DIGIT", "Currency characters must appear before digits"),
    ("to_char(1, '$$9')", "INVALID_FORMAT.WRONG_NUM_TOKEN", "At most one $ is allowed"),
    ("to_char(1, '9S9')", "INVALID_FORMAT.UNEXPECTED_TOKEN", "Found the unexpected digit sequence"),
    ("to_char(1, '99.9.9')", "INVALID_FORMAT.WRONG_NUM_TOKEN", "At most one . or D is allowed"),
    ("to_char(1, '9,.9')", "INVALID_FORMAT.CONT_THOUSANDS_SEPS", "must have digits in between them"),
    ("to_char(1, '9.9,9')", "INVALID_FORMAT.THOUSANDS_SEPS_MUST_BEFORE_DEC", "may not appear after the decimal"),
    ("to_char(1, 'MI')", "INVALID_FORMAT.WRONG_NUM_DIGIT", "requires at least one number digit"),
    ("to_char(true, '9')", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
     'The first parameter requires the "DECIMAL" type, however "true" has the type "BOOLEAN"'),
    ("to_char(12, f) FROM VALUES ('99') AS t(f)", "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", "foldable"),
])
def test_to_char_errors(spark: SparkSession, sql: str, condition: str, text: str) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql(f"SELECT {sql}").collect()
    assert info.value.getCondition() == condition
    assert text in str(info.value)


def test_random_is_rand(spark: SparkSession) -> None:
    # Was: UNRESOLVED_ROUTINE random.
    df = spark.range(1).selectExpr("random(1)", "random(1) = rand(1)", "random() < 1")
    assert df.columns[:2] == ["rand(1)", "(rand(1) = rand(1))"]
    assert list(df.first())[1:] == [True, True]
