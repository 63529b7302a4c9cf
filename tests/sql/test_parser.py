"""The SQL parser to syntax trees: precedence, literal types, special forms, queries, errors."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql.errors import AnalysisException, ParseException
from dstream.sql.parser import parse_expression_ast, parse_query
from dstream.sql.parser.lexer import tokenize
from dstream.sql.parser.nodes import (
    Alias,
    Between,
    Binary,
    Call,
    Case,
    Cast,
    DistinctFrom,
    Field,
    In,
    IsBool,
    IsNull,
    Join,
    Lambda,
    Like,
    Literal,
    Name,
    Select,
    SetOp,
    SortItem,
    Star,
    SubqueryRef,
    Subscript,
    Table,
    Unary,
)

a, b, c = Name(("a",)), Name(("b",)), Name(("c",))


def lit(value: object, type_name: str) -> Literal:
    return Literal(value, type_name)


def one(value: int) -> Literal:
    return Literal(value, "int")


p = parse_expression_ast


# -- precedence ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, tree", [
    ("a + b * c", Binary("+", a, Binary("*", b, c))),
    ("a * b + c", Binary("+", Binary("*", a, b), c)),
    ("a - b - c", Binary("-", Binary("-", a, b), c)),
    ("a / b % c", Binary("%", Binary("/", a, b), c)),
    ("a div b + c", Binary("+", Binary("DIV", a, b), c)),
    ("NOT a = b AND c", Binary("AND", Unary("NOT", Binary("=", a, b)), c)),
    ("a OR b AND c", Binary("OR", a, Binary("AND", b, c))),
    ("a AND b OR c", Binary("OR", Binary("AND", a, b), c)),
    ("NOT a OR b", Binary("OR", Unary("NOT", a), b)),
    ("NOT NOT a", Unary("NOT", Unary("NOT", a))),
    ("!a", Unary("NOT", a)),
    ("a = b = c", Binary("=", Binary("=", a, b), c)),
    ("a == b", Binary("=", a, b)),
    ("a <> b", Binary("!=", a, b)),
    ("a != b", Binary("!=", a, b)),
    ("a <=> b", Binary("<=>", a, b)),
    ("a < b + 1", Binary("<", a, Binary("+", b, one(1)))),
    ("a = b IS NULL", IsNull(Binary("=", a, b))),
    ("-a * b", Binary("*", Unary("-", a), b)),
    ("- a", Unary("-", a)),
    ("~a & b", Binary("&", Unary("~", a), b)),
    ("a | b ^ c", Binary("|", a, Binary("^", b, c))),
    ("a ^ b & c", Binary("^", a, Binary("&", b, c))),
    ("a & b << c", Binary("&", a, Binary("<<", b, c))),
    ("a << b + c", Binary("<<", a, Binary("+", b, c))),
    ("a | b = c", Binary("=", Binary("|", a, b), c)),
    ("a || b + c", Binary("+", Binary("||", a, b), c)),
    ("(a + b) * c", Binary("*", Binary("+", a, b), c)),
    ("a - -1", Binary("-", a, one(-1))),
    ("a -1", Binary("-", a, one(1))),
])
def test_precedence_and_associativity(text: str, tree: object) -> None:
    assert p(text) == tree


def test_keywords_are_case_insensitive_and_names_keep_case() -> None:
    assert p("Col1 and not B or c") == Binary("OR", Binary("AND", Name(("Col1",)), Unary("NOT", Name(("B",)))), c)


# -- literals ------------------------------------------------------------------------------

@pytest.mark.parametrize("text, value, type_name", [
    ("1", 1, "int"),
    ("2147483647", 2147483647, "int"),
    ("-2147483648", -2147483648, "int"),
    ("2147483648", 2147483648, "bigint"),
    ("3000000000", 3000000000, "bigint"),
    ("-9223372036854775808", -9223372036854775808, "bigint"),
    ("9223372036854775808", Decimal("9223372036854775808"), "decimal(19,0)"),
    ("1L", 1, "bigint"),
    ("1l", 1, "bigint"),
    ("10S", 10, "smallint"),
    ("10Y", 10, "tinyint"),
    ("1.5", Decimal("1.5"), "decimal(2,1)"),
    ("100.25", Decimal("100.25"), "decimal(5,2)"),
    ("0.05", Decimal("0.05"), "decimal(2,2)"),
    (".5", Decimal("0.5"), "decimal(1,1)"),
    ("1.", Decimal("1"), "decimal(1,0)"),
    ("-1.5", Decimal("-1.5"), "decimal(2,1)"),
    ("1.5BD", Decimal("1.5"), "decimal(2,1)"),
    ("1.5D", 1.5, "double"),
    ("2d", 2.0, "double"),
    ("1e3", 1000.0, "double"),
    ("1.5E-2", 0.015, "double"),
    ("1.5F", 1.5, "float"),
    ("'it''s'", "its", "string"),  # two adjacent literals, as PySpark 4.0.1 reads it
    ("'it\\'s'", "it's", "string"),
    ('"x"', "x", "string"),
    ("'a' 'b'", "ab", "string"),
    (r"'a\nb'", "a\nb", "string"),
    (r"'tab\there'", "tab\there", "string"),
    (r"'q\'q'", "q'q", "string"),
    (r"'back\\slash'", "back\\slash", "string"),
    (r"'\u0041\101'", "AA", "string"),
    (r"'50\%'", "50\\%", "string"),
    (r"r'a\nb'", "a\\nb", "string"),
    ('"say ""hi"""', "say hi", "string"),  # three adjacent literals, as in Spark
    ("TRUE", True, "boolean"),
    ("false", False, "boolean"),
    ("NULL", None, "void"),
    ("X'0AFF'", b"\n\xff", "binary"),
    ("DATE '2025-01-31'", "2025-01-31", "date"),
    ("TIMESTAMP '2025-01-31 12:00:00'", "2025-01-31 12:00:00", "timestamp"),
])
def test_literal_types(text: str, value: object, type_name: str) -> None:
    tree = p(text)
    assert tree == Literal(value, type_name)
    assert type(tree.value) is type(value)  # type: ignore[union-attr]


@pytest.mark.parametrize("text, bad_type", [("2147483648S", "smallint"), ("128Y", "tinyint"),
                                            ("9223372036854775808L", "bigint")])
def test_suffixed_literals_out_of_range(text: str, bad_type: str) -> None:
    with pytest.raises(ParseException, match=f"for type {bad_type}") as info:
        p(text)
    assert info.value.getCondition() == "INVALID_NUMERIC_LITERAL_RANGE"


@given(st.integers(min_value=-(1 << 70), max_value=1 << 70))
def test_integer_literals_take_the_narrowest_spark_type(n: int) -> None:
    tree = p(str(n))
    assert isinstance(tree, Literal) and tree.value == n
    if -(1 << 31) <= n < 1 << 31:
        assert tree.type_name == "int"
    elif -(1 << 63) <= n < 1 << 63:
        assert tree.type_name == "bigint"
    else:
        assert tree.type_name == f"decimal({len(str(abs(n)))},0)"


@given(st.decimals(allow_nan=False, allow_infinity=False, places=4, min_value=-10 ** 6, max_value=10 ** 6))
def test_decimal_literals_keep_value_precision_and_scale(d: Decimal) -> None:
    text = format(d, "f")
    if "." not in text:
        text += ".0"
    tree = p(text)
    assert isinstance(tree, Literal) and tree.value == d
    digits = text.lstrip("-").replace(".", "").lstrip("0") or "0"
    scale = len(text.split(".")[1])
    assert tree.type_name == f"decimal({max(len(digits), scale)},{scale})"


# -- special forms -------------------------------------------------------------------------

@pytest.mark.parametrize("text, tree", [
    ("CASE WHEN a > 1 THEN 'x' WHEN b THEN 'y' ELSE 'z' END",
     Case(None, ((Binary(">", a, one(1)), lit("x", "string")), (b, lit("y", "string"))), lit("z", "string"))),
    ("case a when 1 then b end", Case(a, ((one(1), b),), None)),
    ("CAST(a AS INT)", Cast(a, "int")),
    ("cast(a as Long)", Cast(a, "bigint")),
    ("CAST(a AS DECIMAL(10, 2))", Cast(a, "decimal(10,2)")),
    ("CAST(a AS decimal)", Cast(a, "decimal(10,0)")),
    ("CAST(a AS decimal(5))", Cast(a, "decimal(5,0)")),
    ("CAST(a AS varchar(3))", Cast(a, "string")),
    ("CAST(a AS array<map<string, array<int>>>)", Cast(a, "array<map<string,array<int>>>")),
    ("CAST(a AS struct<x: int, `y z`: string>)", Cast(a, "struct<x:int,`y z`:string>")),
    ("TRY_CAST(a AS date)", Cast(a, "date", safe=True)),
    ("a::double + 1", Binary("+", Cast(a, "double"), one(1))),
    ("a IN (1, 2)", In(a, (one(1), one(2)))),
    ("a NOT IN (b, c + 1)", In(a, (b, Binary("+", c, one(1))), negated=True)),
    ("a BETWEEN 1 AND 3", Between(a, one(1), one(3))),
    ("a NOT BETWEEN b AND c AND a", Binary("AND", Between(a, b, c, negated=True), a)),
    ("a LIKE 'x%'", Like("LIKE", a, lit("x%", "string"))),
    ("a NOT LIKE 'x!%' ESCAPE '!'", Like("LIKE", a, lit("x!%", "string"), negated=True, escape="!")),
    ("a ILIKE b", Like("ILIKE", a, b)),
    ("a RLIKE '^x'", Like("RLIKE", a, lit("^x", "string"))),
    ("a regexp '^x'", Like("RLIKE", a, lit("^x", "string"))),
    ("a NOT RLIKE 'y'", Like("RLIKE", a, lit("y", "string"), negated=True)),
    ("a IS NULL", IsNull(a)),
    ("a IS NOT NULL AND b", Binary("AND", IsNull(a, negated=True), b)),
    ("a IS TRUE", IsBool(a, True)),
    ("a IS NOT FALSE", IsBool(a, False, negated=True)),
    ("a IS UNKNOWN", IsBool(a, None)),
    ("a IS DISTINCT FROM b", DistinctFrom(a, b)),
    ("a IS NOT DISTINCT FROM b + 1", DistinctFrom(a, Binary("+", b, one(1)), negated=True)),
])
def test_special_forms(text: str, tree: object) -> None:
    assert p(text) == tree


@pytest.mark.parametrize("text, tree", [
    ("count(*)", Call("count", (Star(),))),
    ("COUNT(DISTINCT a, b)", Call("count", (a, b), distinct=True)),
    ("Sum(ALL a)", Call("sum", (a,))),
    ("now()", Call("now")),
    ("substring(a, 1, 3)", Call("substring", (a, one(1), one(3)))),
    ("coalesce(a, b, 'x')", Call("coalesce", (a, b, lit("x", "string")))),
    ("current_date", Call("current_date")),
    ("EXTRACT(YEAR FROM a)", Call("extract", (lit("YEAR", "string"), a))),
    ("position('x' IN a)", Call("locate", (lit("x", "string"), a))),  # Spark's name: locate(x, a, 1)
    ("transform(a, x -> x + 1)", Call("transform", (a, Lambda(("x",), Binary("+", Name(("x",)), one(1)))))),
    ("zip_with(a, b, (x, y) -> x * y)",
     Call("zip_with", (a, b, Lambda(("x", "y"), Binary("*", Name(("x",)), Name(("y",))))))),
    ("f((a), b)", Call("f", (a, b))),
    ("struct(a AS x, b)", Call("struct", (Alias(a, ("x",)), b))),
])
def test_function_calls(text: str, tree: object) -> None:
    assert p(text) == tree


@pytest.mark.parametrize("text, tree", [
    ("`a b`", Name(("a b",))),
    ("`we``ird`", Name(("we`ird",))),
    ("t.a", Name(("t", "a"))),
    ("t.`a.b`.c", Name(("t", "a.b", "c"))),
    ("*", Star()),
    ("t.*", Star(("t",))),
    ("a[0]", Subscript(a, one(0))),
    ("a['k'].f", Field(Subscript(a, lit("k", "string")), "f")),
    ("f(a).x", Field(Call("f", (a,)), "x")),
    ("date", Name(("date",))),
    ("year + 1", Binary("+", Name(("year",)), one(1))),
    ("a AS x", Alias(a, ("x",))),
    ("a x", Alias(a, ("x",))),
    ("a + 1 AS `my col`", Alias(Binary("+", a, one(1)), ("my col",))),
    ("explode(m) AS (k, v)", Alias(Call("explode", (Name(("m",)),)), ("k", "v"))),
    ("a -- a comment\n + /* nested /* comment */ */ b", Binary("+", a, b)),
])
def test_names_aliases_and_comments(text: str, tree: object) -> None:
    assert p(text) == tree


# -- errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, near", [
    ("a +", "end of input"),
    ("a FROM t", "'FROM'"),
    ("(a", "end of input"),
    ("a b c", "'c'"),
    ("CASE WHEN a THEN 1", "end of input"),
    ("a IN 1", "'1'"),
    ("a NOT b", "'NOT'"),
    ("f(a,)", "')'"),
    ("a ? b", "'?'"),
    ("", "end of input"),
    ("CAST(a AS)", "')'"),
])
def test_syntax_errors_name_the_token_as_spark(text: str, near: str) -> None:
    with pytest.raises(ParseException) as info:
        p(text)
    message = str(info.value)
    assert message.startswith(f"[PARSE_SYNTAX_ERROR] Syntax error at or near {near}")
    assert message.endswith("SQLSTATE: 42601")
    assert info.value.getCondition() == "PARSE_SYNTAX_ERROR"
    assert info.value.getMessageParameters()["error"] == near


def test_a_trailing_comma_before_from_is_spark_s_error() -> None:
    # Spark reads `FROM t` as a column FROM named t, then reports the slip.
    with pytest.raises(AnalysisException) as info:
        parse_query("SELECT a, FROM t")
    assert str(info.value) == ("[TRAILING_COMMA_IN_SELECT] Trailing comma detected in SELECT clause. Remove the "
                               "trailing comma before the FROM clause. SQLSTATE: 42601")


def test_a_keyword_that_ends_the_text_is_an_alias() -> None:
    # PySpark: SELECT a FROM -> column a named FROM; SELECT a FROM t WHERE -> t aliased WHERE.
    assert parse_query("SELECT a FROM") == Select((Alias(Name(("a",)), ("FROM",)),))
    q = parse_query("SELECT a FROM t WHERE")
    assert isinstance(q, Select) and q.relation == Table(("t",), "WHERE") and q.where is None
    assert p("CASE END") == Alias(Name(("CASE",)), ("END",))


def test_extra_input_hint() -> None:
    with pytest.raises(ParseException) as info:
        parse_query("SELECT a FROM t t2 t3")
    assert str(info.value) == ("[PARSE_SYNTAX_ERROR] Syntax error at or near 't3': extra input 't3'. "
                               "SQLSTATE: 42601")


@pytest.mark.parametrize("text", ["'open", "`open", "/* open", "CAST(a AS foo)"])
def test_unclosed_and_unknown_things_are_parse_errors(text: str) -> None:
    with pytest.raises(ParseException):
        p(text)


def test_tokens_end_with_eof_and_keep_positions() -> None:
    tokens = tokenize("a >= 'x'")
    assert [(t.kind, t.value, t.pos) for t in tokens] == [
        ("WORD", "a", 0), ("OP", ">=", 2), ("STRING", "x", 5), ("EOF", "", 8)]


# -- queries -------------------------------------------------------------------------------

def test_full_select() -> None:
    q = parse_query("""
        SELECT DISTINCT t.k, count(*) AS n, sum(v) total
        FROM tbl AS t LEFT OUTER JOIN other o ON t.k = o.k
        WHERE v > 0 GROUP BY t.k HAVING count(*) > 1
        ORDER BY n DESC NULLS FIRST, 1 ASC, total NULLS LAST LIMIT 10;
    """)
    k = Name(("t", "k"))
    assert q == Select(
        items=(k, Alias(Call("count", (Star(),)), ("n",)), Alias(Call("sum", (Name(("v",)),)), ("total",))),
        relation=Join(Table(("tbl",), "t"), Table(("other",), "o"), "left",
                      condition=Binary("=", k, Name(("o", "k")))),
        distinct=True,
        where=Binary(">", Name(("v",)), one(0)),
        group_by=(k,),
        having=Binary(">", Call("count", (Star(),)), one(1)),
        order_by=(SortItem(Name(("n",)), False, True), SortItem(one(1), True, None),
                  SortItem(Name(("total",)), True, False)),
        limit=10)


@pytest.mark.parametrize("join_text, how", [
    ("JOIN", "inner"), ("INNER JOIN", "inner"), ("LEFT JOIN", "left"), ("LEFT OUTER JOIN", "left"),
    ("RIGHT JOIN", "right"), ("RIGHT OUTER JOIN", "right"), ("FULL JOIN", "full"), ("FULL OUTER JOIN", "full"),
    ("LEFT SEMI JOIN", "left_semi"), ("LEFT ANTI JOIN", "left_anti"), ("SEMI JOIN", "left_semi"),
])
def test_join_types(join_text: str, how: str) -> None:
    q = parse_query(f"SELECT * FROM a {join_text} b USING (k, `j`)")
    assert isinstance(q, Select)
    assert q.relation == Join(Table(("a",)), Table(("b",)), how, using=("k", "j"))


def test_cross_joins_comma_joins_and_chains() -> None:
    q = parse_query("SELECT * FROM a CROSS JOIN b, c JOIN d ON c.x = d.x")
    assert isinstance(q, Select)
    assert q.relation == Join(
        Join(Table(("a",)), Table(("b",)), "cross"),
        Join(Table(("c",)), Table(("d",)), "inner", condition=Binary("=", Name(("c", "x")), Name(("d", "x")))),
        "cross")


def test_subquery_in_from_and_select_without_from() -> None:
    q = parse_query("SELECT x FROM (SELECT a AS x FROM t) s WHERE x > 1")
    assert isinstance(q, Select) and q.relation == SubqueryRef(Select((Alias(a, ("x",)),), Table(("t",))), "s")
    assert parse_query("select 1, 'a'") == Select((one(1), lit("a", "string")))


def test_union_applies_order_and_limit_to_the_whole() -> None:
    q = parse_query("SELECT a FROM t UNION ALL SELECT b FROM u UNION SELECT c FROM v ORDER BY a LIMIT 2")
    first, second, third = (Select((n,), Table((t,))) for n, t in ((a, "t"), (b, "u"), (c, "v")))
    assert q == SetOp("union", SetOp("union", first, second, distinct=False), third, True,
                      (SortItem(a),), 2)


def test_table_alias_is_no_clause_keyword() -> None:
    q = parse_query("SELECT * FROM t WHERE a = 1")
    assert isinstance(q, Select) and q.relation == Table(("t",)) and q.where == Binary("=", a, one(1))
    q = parse_query("SELECT * FROM db.t x ORDER BY a")
    assert isinstance(q, Select) and q.relation == Table(("db", "t"), "x")


@pytest.mark.parametrize("text, near", [
    ("SELECT", "end of input"),
    ("SELECT a FROM t GROUP a", "'a'"),
    ("SELECT a FROM t ORDER BY a NULLS", "end of input"),
    ("SELECT a FROM t LIMIT x", "'x'"),
    ("SELECT a FROM t JOIN u ON", "end of input"),
    ("FROM t SELECT a", "'FROM'"),
])
def test_query_syntax_errors(text: str, near: str) -> None:
    with pytest.raises(ParseException, match=r"^\[PARSE_SYNTAX_ERROR\] Syntax error at or near " + near):
        parse_query(text)
