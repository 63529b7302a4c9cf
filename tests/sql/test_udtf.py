"""Python UDTFs (``udtf``, ``spark.udtf.register``, SQL calls, lateral calls, TABLE arguments).

Expected values are what PySpark 4.0.1 printed for the same code (Spark's own
``examples/src/main/python/sql/udtf.py`` and further calls run on both engines).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from dstream.sql import Row, SparkSession
from dstream.sql.errors import AnalysisException, PySparkAttributeError, PySparkTypeError, PythonException
from dstream.sql.functions import lit, udtf
from dstream.sql.types import IntegerType, StringType, StructType
from dstream.sql.udtf import (
    AnalyzeArgument,
    AnalyzeResult,
    OrderingColumn,
    PartitioningColumn,
    SelectedColumn,
    SkipRestOfInputTableException,
)


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[2]").appName("udtf-tests").getOrCreate()
    session.createDataFrame([("abc", 2), ("abc", 4), ("def", 6), ("def", 8)], "a string, b int") \
        .createOrReplaceTempView("values_table")
    session.udtf.register("split_words", WordSplitter)
    session.udtf.register("count_udtf", CountUDTF)
    session.udtf.register("pair", Pair)
    session.udtf.register("filter_udtf", FilterUDTF)
    session.udtf.register("max_udtf", MaxUDTF)
    yield session
    session.stop()


def rows(spark: SparkSession, query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    df = spark.sql(query)
    return df.columns, [tuple(r) for r in df.collect()]


class SquareNumbers:
    def eval(self, start: int, end: int) -> Iterator[tuple[int, int]]:
        for num in range(start, end + 1):
            yield (num, num * num)


@udtf(returnType="word: string")
class WordSplitter:
    def eval(self, text: str) -> Iterator[tuple[str]]:
        for word in text.split(" "):
            yield (word.strip(),)


@udtf(returnType="cnt: int")
class CountUDTF:
    def __init__(self) -> None:
        self.count = 0

    def eval(self, x: Any) -> None:
        self.count += 1

    def terminate(self) -> Iterator[tuple[int]]:
        yield self.count,


@udtf(returnType="x: int, y: int")
class Pair:
    def eval(self, a: int) -> Iterator[tuple[int, int | None]]:
        yield a, a * 10
        yield a + 1, None


@udtf(returnType="id: int")
class FilterUDTF:
    def eval(self, row: Row) -> Iterator[tuple[int]]:
        if row["id"] > 5:
            yield row["id"],


@udtf(returnType="a: string, b: int")
class MaxUDTF:
    def __init__(self) -> None:
        self.key = ""
        self.max = 0

    def eval(self, row: Row) -> None:
        self.key = row["a"]
        self.max = max(self.max, row["b"])

    def terminate(self) -> Iterator[tuple[str, int]]:
        yield self.key, self.max


# -- the DataFrame API -----------------------------------------------------------------

def test_udtf_called_on_columns_is_a_dataframe(spark: SparkSession) -> None:
    square_num = udtf(SquareNumbers, returnType="num: int, squared: int")
    df = square_num(lit(1), lit(3))
    assert df.columns == ["num", "squared"]
    assert df.collect() == [Row(num=1, squared=1), Row(num=2, squared=4), Row(num=3, squared=9)]


def test_udtf_decorator_and_show(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    @udtf(returnType="num: int, squared: int")
    class Squares(SquareNumbers):
        pass

    Squares(lit(1), lit(3)).show()
    assert capsys.readouterr().out == (
        "+---+-------+\n|num|squared|\n+---+-------+\n|  1|      1|\n|  2|      4|\n|  3|      9|\n+---+-------+\n\n")


def test_rows_convert_as_pyspark_does(spark: SparkSession) -> None:
    @udtf(returnType="a: string, b: int")
    class Conv:
        def eval(self, x: int) -> Iterator[Any]:
            yield 1, "2"
            yield "s", 2.5
            yield Row(b=3, a="r")  # by position, not by name
            yield {"a": "d", "b": 4}
            yield None

    assert Conv(lit(1)).collect() == [Row(a="1", b=None), Row(a="s", b=None), Row(a="3", b=None), Row(a="d", b=4),
                                      Row(a=None, b=None)]


def test_table_argument_from_a_dataframe(spark: SparkSession) -> None:
    assert CountUDTF(spark.range(0, 2, 1, 2).asTable()).collect() == [Row(cnt=1), Row(cnt=1)]
    table = spark.range(0, 7, 1, 2).selectExpr("id % 3 AS k").asTable().partitionBy("k")
    assert [r.cnt for r in CountUDTF(table).orderBy("cnt").collect()] == [2, 2, 3]


# -- SQL -------------------------------------------------------------------------------

def test_registered_udtf_in_from(spark: SparkSession) -> None:
    assert rows(spark, "SELECT * FROM split_words('hello world')") == (["word"], [("hello",), ("world",)])
    assert rows(spark, "SELECT * FROM pair(5) AS p(u, v)") == (["u", "v"], [(5, 50), (6, None)])


def test_lateral_udtf_keeps_the_left_columns(spark: SparkSession) -> None:
    assert rows(spark, "SELECT * FROM VALUES ('Hello World'), ('Apache Spark') t(text), LATERAL split_words(text)") \
        == (["text", "word"], [("Hello World", "Hello"), ("Hello World", "World"), ("Apache Spark", "Apache"),
                               ("Apache Spark", "Spark")])
    expected = [(0, 0, 0), (0, 1, None), (1, 1, 10), (1, 2, None)]
    assert rows(spark, "SELECT * FROM range(0, 2, 1, 1) t, LATERAL pair(t.id) AS p(u, v)") == (["id", "u", "v"],
                                                                                                 expected)
    assert rows(spark, "SELECT t.id, p.* FROM range(0, 2, 1, 1) t, LATERAL pair(t.id) p") == (["id", "x", "y"],
                                                                                                expected)
    assert rows(spark, "SELECT p.x FROM range(0, 2, 1, 1) t, LATERAL pair(t.id) p") == (["x"], [(0,), (1,), (1,),
                                                                                                 (2,)])
    assert rows(spark, "SELECT * FROM range(0, 2, 1, 1) t JOIN LATERAL pair(t.id)") == (["id", "x", "y"], expected)


def test_lateral_generator(spark: SparkSession) -> None:
    assert rows(spark, "SELECT * FROM range(0, 2, 1, 1) t, LATERAL explode(array(t.id, 7))") == (
        ["id", "col"], [(0, 0), (0, 7), (1, 1), (1, 7)])


def test_terminate_runs_once_per_partition_after_its_last_row(spark: SparkSession) -> None:
    assert rows(spark, "SELECT * FROM range(0, 10, 1, 1), LATERAL count_udtf(id)") == (["id", "cnt"], [(9, 10)])
    assert rows(spark, "SELECT * FROM range(0, 10, 1, 2), LATERAL count_udtf(id)") == (["id", "cnt"],
                                                                                          [(4, 5), (9, 5)])


def test_table_arguments(spark: SparkSession) -> None:
    assert rows(spark, "SELECT * FROM filter_udtf(TABLE(SELECT * FROM range(10)))") == (["id"], [(6,), (7,), (8,),
                                                                                                  (9,)])
    assert rows(spark, "SELECT * FROM max_udtf(TABLE(values_table) PARTITION BY a ORDER BY b) ORDER BY 1") == (
        ["a", "b"], [("abc", 4), ("def", 8)])
    assert rows(spark, "SELECT * FROM max_udtf(TABLE(values_table) PARTITION BY LENGTH(a) ORDER BY b) ORDER BY 1") \
        == (["a", "b"], [("def", 8)])
    assert rows(spark, "SELECT * FROM max_udtf(TABLE(values_table) WITH SINGLE PARTITION ORDER BY b) ORDER BY 1") \
        == (["a", "b"], [("def", 8)])
    assert rows(spark, "SELECT * FROM count_udtf(TABLE(SELECT id % 3 AS k FROM range(0, 7, 1, 2)) PARTITION BY k) "
                       "ORDER BY 1") == (["cnt"], [(2,), (2,), (3,)])


# -- errors ----------------------------------------------------------------------------

def test_invalid_classes_are_refused_as_pyspark_does(spark: SparkSession) -> None:
    class NoEval:
        pass

    with pytest.raises(PySparkAttributeError, match=r"^\[INVALID_UDTF_NO_EVAL\] The UDTF 'NoEval' is invalid"):
        udtf(NoEval, returnType="a: int")
    with pytest.raises(PySparkAttributeError, match=r"^\[INVALID_UDTF_RETURN_TYPE\] The UDTF 'SquareNumbers'"):
        udtf(SquareNumbers)
    not_a_struct = udtf(SquareNumbers, returnType="int")  # checked when called, as in PySpark
    with pytest.raises(PySparkTypeError, match=r"^\[UDTF_RETURN_TYPE_MISMATCH\] Mismatch in return type for the "
                                               r"UDTF 'SquareNumbers'. Expected a 'StructType', but got "
                                               r"'IntegerType\(\)'"):
        not_a_struct(lit(1), lit(2))
    with pytest.raises(PySparkTypeError, match=r"^\[CANNOT_REGISTER_UDTF\] Cannot register the UDTF 'p2'"):
        spark.udtf.register("p2", SquareNumbers)  # type: ignore[arg-type]

    class Analyzed:
        @staticmethod
        def analyze(x: Any) -> Any:
            return None

        def eval(self, x: int) -> Iterator[tuple[int]]:
            yield x,

    with pytest.raises(PySparkAttributeError, match=r"^\[INVALID_UDTF_BOTH_RETURN_TYPE_AND_ANALYZE\] The UDTF "
                                                    r"'Analyzed' is invalid. It has both its return type and an "
                                                    r"'analyze' attribute."):
        udtf(Analyzed, returnType="x: int")


@pytest.mark.parametrize(("body", "message"), [
    ("raise ValueError('boom')",
     "[UDTF_EXEC_ERROR] User defined table function encountered an error in the 'eval' method: boom"),
    ("yield 1", "[UDTF_INVALID_OUTPUT_ROW_TYPE] The type of an individual output row in the 'eval' method of the "
                "UDTF is invalid. Each row should be a tuple, list, or dict, but got 'int'."),
    ("yield 1, 2, 3", "[UDTF_RETURN_SCHEMA_MISMATCH] The number of columns in the result does not match the "
                      "specified schema. Expected column count: 2, Actual column count: 3."),
])
def test_failures_in_eval_are_python_exceptions(spark: SparkSession, body: str, message: str) -> None:
    namespace: dict[str, Any] = {}
    exec(f"class Bad:\n    def eval(self, x):\n        {body}\n", namespace)  # noqa: S102 - a class per case
    bad = udtf(namespace["Bad"], returnType="a: string, b: int")
    with pytest.raises(PythonException) as failure:
        bad(lit(1)).collect()
    assert "An exception was thrown from the Python worker" in str(failure.value)
    assert message in str(failure.value)


def test_arguments_not_matching_eval_fail(spark: SparkSession) -> None:
    with pytest.raises(PythonException, match=r"\[UDTF_EVAL_METHOD_ARGUMENTS_DO_NOT_MATCH_SIGNATURE\] Failed to "
                                              r"evaluate the user-defined table function 'Pair' because the function "
                                              r"arguments did not match the expected signature of the 'eval' method "
                                              r"\(too many positional arguments\)"):
        Pair(lit(1), lit(2)).collect()


# -- analyze ---------------------------------------------------------------------------

@udtf
class Describe:
    """One string column per argument, named after what ``analyze`` was told of it."""

    @staticmethod
    def analyze(*args: AnalyzeArgument) -> AnalyzeResult:
        schema = StructType()
        for i, a in enumerate(args):
            schema = schema.add(f"{i}{a.dataType.simpleString()}|{a.value}|{a.isTable}|{a.isConstantExpression}",
                                StringType())
        return AnalyzeResult(schema)

    def eval(self, *args: Any) -> Iterator[tuple[str, ...]]:
        yield tuple(repr(a) for a in args)


def test_analyze_sees_types_and_constant_values(spark: SparkSession) -> None:
    assert Describe.returnType is None
    df = Describe(lit(1), lit("x"), lit(None))
    assert df.columns == ["0int|1|False|True", "1string|x|False|True", "2void|None|False|True"]
    assert [tuple(r) for r in df.collect()] == [("1", "'x'", "None")]
    spark.udtf.register("describe", Describe)
    assert rows(spark, "SELECT * FROM describe(1 + 1, 'y')") == (["0int|2|False|True", "1string|y|False|True"],
                                                                  [("2", "'y'")])
    assert rows(spark, "SELECT d.* FROM VALUES (5, 'v') t(a, b), LATERAL describe(a, b, upper(b)) d") == (
        ["0int|None|False|False", "1string|None|False|False", "2string|None|False|False"], [("5", "'v'", "'V'")])
    assert rows(spark, "SELECT * FROM describe(TABLE(SELECT 1 AS z, 'q' AS w))") == (
        ["0struct<z:int,w:string>|None|True|False"], [("Row(z=1, w='q')",)])


@dataclasses.dataclass
class LabelledResult(AnalyzeResult):
    label: str = ""


@udtf
class Summ:
    """Totals of ``v * 2`` per ``k``: analyze partitions, orders and selects the table's columns."""

    def __init__(self, analyze_result: LabelledResult) -> None:
        self.label = analyze_result.label
        self.total = 0
        self.key = None
        self.fields: list[str] = []

    @staticmethod
    def analyze(table: AnalyzeArgument, label: AnalyzeArgument) -> AnalyzeResult:
        return LabelledResult(
            schema=StructType().add("name", StringType()).add("k", IntegerType()).add("total", IntegerType()),
            partitionBy=[PartitioningColumn("k")], orderBy=[OrderingColumn("v", ascending=False)],
            select=[SelectedColumn("k"), SelectedColumn("v * 2", alias="v2")], label=label.value)

    def eval(self, row: Row, label: str) -> None:
        self.key = row["k"]
        self.total += row["v2"]
        self.fields = sorted(row.asDict())

    def terminate(self) -> Iterator[tuple[str, Any, int]]:
        yield self.label + str(self.fields), self.key, self.total


def test_analyze_result_lays_out_the_table_and_reaches_init(spark: SparkSession) -> None:
    spark.createDataFrame([(1, 10, "x"), (1, 20, "y"), (2, 5, "z")], "k int, v int, o string") \
        .createOrReplaceTempView("kv")
    spark.udtf.register("summ", Summ)
    assert rows(spark, "SELECT * FROM summ(TABLE(kv), 'L') ORDER BY k") == (
        ["name", "k", "total"], [("L['k', 'v2']", 1, 60), ("L['k', 'v2']", 2, 10)])


@pytest.mark.parametrize(("result", "message"), [
    ("raise ValueError('nope')", "Failed to analyze the Python user defined table function: Traceback (most recent "
                                 "call last):"),
    ("return 42", "Failed to analyze the Python user defined table function: Failed to evaluate the user-defined "
                  "table function 'Bad' because the static 'analyze' method expects a result of type "
                  "pyspark.sql.udtf.AnalyzeResult, but instead this method returned a value of type: <class 'int'> "
                  "SQLSTATE: 38000"),
])
def test_analyze_failures(spark: SparkSession, result: str, message: str) -> None:
    namespace: dict[str, Any] = {}
    exec(f"class Bad:\n    @staticmethod\n    def analyze(x):\n        {result}\n"  # noqa: S102 - a class per case
         "    def eval(self, x):\n        yield x,\n", namespace)
    with pytest.raises(AnalysisException) as failure:
        udtf(namespace["Bad"])(lit(1))
    assert failure.value.getCondition() == "TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON"
    assert message in str(failure.value)


# -- arguments by name, SkipRestOfInputTableException ---------------------------------

@udtf(returnType="a: int, b: string")
class Kw:
    def eval(self, a: int, b: str = "dflt") -> Iterator[tuple[int, str]]:
        yield a, b


def test_arguments_by_name(spark: SparkSession) -> None:
    assert Kw(a=lit(1)).collect() == [Row(a=1, b="dflt")]
    assert Kw(lit(2), b=lit("x")).collect() == [Row(a=2, b="x")]
    assert Kw(b=lit("y"), a=lit(3)).collect() == [Row(a=3, b="y")]
    spark.udtf.register("kw", Kw)
    assert rows(spark, "SELECT * FROM kw(a => 4)")[1] == [(4, "dflt")]
    assert rows(spark, "SELECT * FROM kw(5, b => 'z')")[1] == [(5, "z")]
    assert rows(spark, "SELECT * FROM kw(b => 'w', a => 6)")[1] == [(6, "w")]
    with pytest.raises(AnalysisException, match=r"^\[UNEXPECTED_POSITIONAL_ARGUMENT\] Cannot invoke routine `kw` "
                                                 r"because it contains positional argument\(s\) following the named "
                                                 r"argument assigned to `b`; please rearrange them"):
        spark.sql("SELECT * FROM kw(b => 'w', 6)")


@udtf(returnType="total: int, n: int")
class Skip:
    def __init__(self) -> None:
        self.total = 0
        self.n = 0

    def eval(self, row: Row) -> Iterator[tuple[int, int]]:
        self.n += 1
        if row["id"] >= 3:
            raise SkipRestOfInputTableException("enough")
        self.total += row["id"]
        yield -1, row["id"]

    def terminate(self) -> Iterator[tuple[int, int]]:
        yield self.total, self.n


def test_skip_rest_of_input_table(spark: SparkSession) -> None:
    spark.udtf.register("skip_udtf", Skip)
    assert rows(spark, "SELECT * FROM skip_udtf(TABLE(SELECT * FROM range(0, 8, 1, 1)))")[1] == [
        (-1, 0), (-1, 1), (-1, 2), (3, 4)]
    assert rows(spark, "SELECT * FROM skip_udtf(TABLE(SELECT id % 2 AS g, id FROM range(0, 8, 1, 1)) PARTITION BY g "
                       "ORDER BY id) ORDER BY 1, 2")[1] == [(-1, 0), (-1, 1), (-1, 2), (1, 2), (2, 3)]


@udtf(returnType="pid: bigint, n: int")
class WhereAmI:
    def __init__(self) -> None:
        self.n = 0

    def eval(self, x: int) -> None:
        self.n += 1

    def terminate(self) -> Iterator[tuple[int, int]]:
        import os

        yield os.getpid(), self.n


def test_a_lateral_udtf_runs_in_the_tasks_one_instance_per_partition(spark: SparkSession) -> None:
    import os

    spark.udtf.register("where_am_i", WhereAmI)
    got = spark.sql("SELECT * FROM range(0, 6, 1, 3), LATERAL where_am_i(id)").collect()
    assert [(r.id, r.n) for r in got] == [(1, 2), (3, 2), (5, 2)]  # each partition's last row, its count
    assert os.getpid() not in {r.pid for r in got}  # evaluated in the worker processes, not on the driver


def test_registrations_are_exported_as_in_pyspark_sql(spark: SparkSession) -> None:
    import dstream.sql

    assert isinstance(spark.udtf, dstream.sql.UDTFRegistration)
    assert isinstance(spark.udf, dstream.sql.UDFRegistration)
    assert {"UDFRegistration", "UDTFRegistration"} <= set(dstream.sql.__all__)


# -- useArrow=True ---------------------------------------------------------------------

def _arrow_udtf(return_type: str, produced: list[Any]) -> Any:
    namespace: dict[str, Any] = {"produced": produced}
    exec("class C:\n    def eval(self, x):\n        yield from produced\n", namespace)  # noqa: S102 - a class per case
    return udtf(namespace["C"], returnType=return_type, useArrow=True)


@pytest.mark.parametrize(("return_type", "produced", "expected"), [
    ("a: string, b: int", [(1, "2")], [Row(a="1", b=2)]),
    ("a: int", [(1.7,)], [Row(a=1)]),
    ("a: double", [(1,)], [Row(a=1.0)]),
    ("a: string, b: int", [{"a": "d", "b": 4}], [Row(a="d", b=4)]),
    ("a: string", [(True,)], [Row(a="true")]),
    ("a: array<int>", [([1, 2],)], [Row(a=[1, 2])]),
    ("a: int", [(1,), (None,)], [Row(a=1), Row(a=None)]),
])
def test_arrow_udtf_rows_are_cast_as_arrow_casts(spark: SparkSession, return_type: str, produced: list[Any],
                                                 expected: list[Row]) -> None:
    assert _arrow_udtf(return_type, produced)(lit(1)).collect() == expected


@pytest.mark.parametrize(("return_type", "produced", "message"), [
    ("a: int", [("x",)], "[UDTF_ARROW_TYPE_CAST_ERROR] Cannot convert the output value of the column 'a' with type "
                         "'str' to the specified return type of the column: 'int32'. Please check if the data types "
                         "match and try again\n"),
    ("a: string, b: int", [Row(b=3, a="r")], "[UDTF_ARROW_TYPE_CAST_ERROR] Cannot convert the output value of the "
                                             "column 'b' with type 'str'"),
    ("a: int, b: int", [None], "[UDTF_RETURN_SCHEMA_MISMATCH] The number of columns in the result does not match the "
                               "specified schema. Expected column count: 2, Actual column count: 1."),
])
def test_arrow_udtf_cast_failures(spark: SparkSession, return_type: str, produced: list[Any], message: str) -> None:
    with pytest.raises(PythonException) as failure:
        _arrow_udtf(return_type, produced)(lit(1)).collect()
    assert message in str(failure.value)


def test_arrow_by_default_when_the_session_says_so(spark: SparkSession) -> None:
    spark.conf.set("spark.sql.execution.pythonUDTF.arrow.enabled", "true")
    try:
        arrow = udtf(SquareNumbers, returnType="num: string, squared: double")
    finally:
        spark.conf.unset("spark.sql.execution.pythonUDTF.arrow.enabled")
    pickled = udtf(SquareNumbers, returnType="num: string, squared: double")
    assert arrow.evalType == 301 and pickled.evalType == 300
    assert arrow(lit(1), lit(1)).collect() == [Row(num="1", squared=1.0)]
    assert pickled(lit(1), lit(1)).collect() == [Row(num="1", squared=None)]  # an int is no double unconverted
