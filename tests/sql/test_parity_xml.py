"""``spark.read.xml`` / ``df.write.xml`` (Spark 4's built-in XML format): compared with PySpark 4.0.1.

Every expected schema, row and written file below is what PySpark 4.0.1 printed or wrote for
the same documents and calls (run beside dstreams and diffed).
"""

from __future__ import annotations

import datetime
import glob
from collections.abc import Iterator
from pathlib import Path

import pytest

from dstream.sql import Row, SparkSession
from dstream.sql.errors import AnalysisException, SparkRuntimeException

BOOKS = """<?xml version="1.0"?>
<catalog>
   <book id="bk101">
      <author>Gambardella, Matthew</author>
      <title>XML Developer's Guide</title>
      <genre>Computer</genre>
      <price>44.95</price>
      <publish_date>2000-10-01</publish_date>
      <description>An in-depth look.</description>
   </book>
   <book id="bk102">
      <author>Ralls, Kim</author>
      <title>Midnight Rain</title>
      <genre>Fantasy</genre>
      <price>5</price>
      <publish_date>2000-12-16</publish_date>
      <tags><tag>a</tag><tag>b</tag></tags>
   </book>
   <book id="bk103" lang="en">
      <author>Corets, Eva</author>
      <title>Maeve Ascendant</title>
      <price currency="USD">5.95</price>
      <count>3</count>
      <flag>true</flag>
      <when>2021-01-01T10:00:00</when>
      <empty></empty>
      <tags><tag>c</tag></tags>
   </book>
</catalog>
"""

EDGE = """<root xmlns:ns="http://x">
  <!-- a comment -->
  <row a="1">text one<child>c</child></row>
  <row>
    <n>12345678901234567890</n>
    <d>1.0E5</d>
    <b>True</b>
    <nan>NaN</nan>
    <sp>   padded   </sp>
    <amp>a &amp; b &lt;c&gt;</amp>
    <cd><![CDATA[x < y]]></cd>
    <ns:q>qualified</ns:q>
    <self/>
    <attronly k="v"/>
    <mixed>lead<i>in</i>tail</mixed>
    <nested><deep><x>1</x><x>2</x></deep></nested>
    <objs><o><p>1</p></o><o><p>2</p><r>z</r></o></objs>
  </row>
  <row><n>5</n><d>7</d><ts>2021-01-01 10:00:00</ts><ts2>2021-01-01T10:00:00Z</ts2><dt>2021-1-5</dt></row>
  <other><row><n>9</n></row></other>
</root>
"""

BAD = """<root>
<row><a>1</a></row>
<row><a>2</a><b></row>
<row><a>x</a></row>
</root>
"""

MIXED_TYPES = """<root>
<r><x>1</x><n> +5 </n><e>1e3</e><h>0x10</h><f>1.5d</f><z>0.1</z><m>1</m><s>2021-01-01</s></r>
<r><x><y>2</y></x><n>6</n><m>true</m><s>2021-01-01 00:00:00</s><arr>1</arr></r>
<r><arr>2</arr><arr>3.5</arr><st a="q">v</st></r>
<r><st>w</st></r>
</root>
"""

BOOKS_SCHEMA = ("struct<_id:string,_lang:string,author:string,count:bigint,description:string,empty:string,"
                "flag:boolean,genre:string,price:struct<_VALUE:double,_currency:string>,publish_date:date,"
                "tags:struct<tag:array<string>>,title:string,when:timestamp>")
BOOKS_ROWS = [
    Row(_id="bk101", _lang=None, author="Gambardella, Matthew", count=None, description="An in-depth look.",
        empty=None, flag=None, genre="Computer", price=Row(_VALUE=44.95, _currency=None),
        publish_date=datetime.date(2000, 10, 1), tags=None, title="XML Developer's Guide", when=None),
    Row(_id="bk102", _lang=None, author="Ralls, Kim", count=None, description=None, empty=None, flag=None,
        genre="Fantasy", price=Row(_VALUE=5.0, _currency=None), publish_date=datetime.date(2000, 12, 16),
        tags=Row(tag=["a", "b"]), title="Midnight Rain", when=None),
    Row(_id="bk103", _lang="en", author="Corets, Eva", count=3, description=None, empty="", flag=True, genre=None,
        price=Row(_VALUE=5.95, _currency="USD"), publish_date=None, tags=Row(tag=["c"]), title="Maeve Ascendant",
        when=datetime.datetime(2021, 1, 1, 10, 0)),
]


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local[1]").appName("parity-xml")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    yield session
    session.stop()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, text in (("books", BOOKS), ("edge", EDGE), ("bad", BAD), ("mixed", MIXED_TYPES)):
        (tmp_path / f"{name}.xml").write_text(text, encoding="utf-8")
        out[name] = str(tmp_path / f"{name}.xml")
    return out


def test_books_infer_attributes_values_arrays_dates(spark: SparkSession, files: dict[str, str]) -> None:
    # Was: DATA_SOURCE_NOT_FOUND (no xml format).
    df = spark.read.option("rowTag", "book").xml(files["books"])
    assert df.schema.simpleString() == BOOKS_SCHEMA
    assert df.collect() == BOOKS_ROWS
    strings = spark.read.option("rowTag", "book").option("inferSchema", "false").xml(files["books"])
    assert strings.schema.simpleString() == (
        "struct<_id:string,_lang:string,author:string,count:string,description:string,empty:string,flag:string,"
        "genre:string,price:struct<_VALUE:string,_currency:string>,publish_date:string,"
        "tags:struct<tag:array<string>>,title:string,when:string>")
    renamed = spark.read.xml(files["books"], rowTag="book", attributePrefix="@", valueTag="#text")
    assert [r.price for r in renamed.select("price").collect()] == [
        Row(**{"#text": 44.95, "@currency": None}), Row(**{"#text": 5.0, "@currency": None}),
        Row(**{"#text": 5.95, "@currency": "USD"})]


def test_edge_cases_of_text_names_and_structure(spark: SparkSession, files: dict[str, str]) -> None:
    df = spark.read.option("rowTag", "row").xml(files["edge"])
    assert df.schema.simpleString() == (
        "struct<_VALUE:string,_a:bigint,amp:string,attronly:struct<_k:string>,b:boolean,cd:string,child:string,"
        "d:double,dt:timestamp,mixed:struct<_VALUE:array<string>,i:string>,n:double,nan:string,"
        "nested:struct<deep:struct<x:array<bigint>>>,ns:q:string,objs:struct<o:array<struct<p:bigint,r:string>>>,"
        "self:string,sp:string,ts:timestamp,ts2:timestamp>")
    rows = [r.asDict(recursive=True) for r in df.collect()]
    assert len(rows) == 4  # the row inside <other> is a row too
    assert {k: v for k, v in rows[0].items() if v is not None} == {"_VALUE": "text one", "_a": 1, "child": "c"}
    assert {k: v for k, v in rows[1].items() if v is not None} == {
        "amp": "a & b <c>", "attronly": {"_k": "v"}, "b": True, "cd": "x < y", "d": 100000.0,
        "mixed": {"_VALUE": ["lead", "tail"], "i": "in"}, "n": 1.2345678901234567e+19, "nan": "NaN",
        "nested": {"deep": {"x": [1, 2]}}, "ns:q": "qualified",
        "objs": {"o": [{"p": 1, "r": None}, {"p": 2, "r": "z"}]},
        "self": "", "sp": "padded"}
    assert {k: v for k, v in rows[2].items() if v is not None} == {
        "d": 7.0, "dt": datetime.datetime(2021, 1, 5), "n": 5.0, "ts": datetime.datetime(2021, 1, 1, 10),
        "ts2": datetime.datetime(2021, 1, 1, 10)}
    assert {k: v for k, v in rows[3].items() if v is not None} == {"n": 9.0}
    kept = spark.read.option("rowTag", "row").option("ignoreSurroundingSpaces", "false").xml(files["edge"])
    assert kept.collect()[1].sp == "   padded   "


def test_types_meet_as_sparks(spark: SparkSession, files: dict[str, str]) -> None:
    df = spark.read.option("rowTag", "r").xml(files["mixed"])
    assert df.schema.simpleString() == (
        "struct<arr:array<double>,e:double,f:string,h:string,m:string,n:bigint,s:timestamp,"
        "st:struct<_VALUE:string,_a:string>,x:string,z:double>")
    assert df.collect() == [
        Row(arr=None, e=1000.0, f="1.5d", h="0x10", m="1", n=5, s=datetime.datetime(2021, 1, 1), st=None, x="1",
            z=0.1),
        Row(arr=[1.0], e=None, f=None, h=None, m="true", n=6, s=datetime.datetime(2021, 1, 1), st=None,
            x="<y>2</y>", z=None),
        Row(arr=[2.0, 3.5], e=None, f=None, h=None, m=None, n=None, s=None, st=Row(_VALUE="v", _a="q"), x=None,
            z=None),
        Row(arr=None, e=None, f=None, h=None, m=None, n=None, s=None, st=Row(_VALUE="w", _a=None), x=None, z=None)]


def test_malformed_records_by_mode(spark: SparkSession, files: dict[str, str]) -> None:
    reader = spark.read.option("rowTag", "row")
    inferred = reader.xml(files["bad"])
    assert inferred.schema.simpleString() == "struct<_corrupt_record:string,a:string>"
    assert inferred.collect() == [Row(_corrupt_record=None, a="1"),
                                  Row(_corrupt_record="<row><a>2</a><b></row>", a=None),
                                  Row(_corrupt_record=None, a="x")]
    assert reader.schema("a int, b string").xml(files["bad"]).collect() == [
        Row(a=1, b=None), Row(a=None, b=None), Row(a=None, b=None)]
    assert spark.read.option("rowTag", "row").schema("a int, b string, _corrupt_record string").xml(
        files["bad"]).collect() == [Row(a=1, b=None, _corrupt_record=None),
                                    Row(a=None, b=None, _corrupt_record="<row><a>2</a><b></row>"),
                                    Row(a=None, b=None, _corrupt_record="<row><a>x</a></row>")]
    assert spark.read.xml(files["bad"], rowTag="row", mode="DROPMALFORMED", schema="a int").collect() == [Row(a=1)]
    with pytest.raises(SparkRuntimeException, match="MALFORMED_RECORD_IN_PARSING"):
        spark.read.xml(files["bad"], rowTag="row", mode="FAILFAST", schema="a int").collect()
    assert spark.read.xml(files["bad"], rowTag="row", nullValue="x").collect()[2] == Row(_corrupt_record=None, a=None)


def test_row_tag_rules_and_options(spark: SparkSession, files: dict[str, str]) -> None:
    with pytest.raises(AnalysisException, match="XML_ROW_TAG_MISSING"):
        spark.read.xml(files["bad"])
    nothing = spark.read.option("rowTag", "nothere").xml(files["bad"])
    assert nothing.schema.fields == [] and nothing.collect() == []
    plain = spark.read.option("rowTag", "book").option("excludeAttribute", "true").xml(files["books"])
    assert plain.columns == ["author", "count", "description", "empty", "flag", "genre", "price", "publish_date",
                             "tags", "title", "when"]
    assert [r.price for r in plain.collect()] == [44.95, 5.0, 5.95]
    subset = spark.read.option("rowTag", "book").schema(
        "title string, price double, tags struct<tag: array<string>>, _id string").xml(files["books"])
    assert subset.collect() == [Row(title="XML Developer's Guide", price=44.95, tags=None, _id="bk101"),
                                Row(title="Midnight Rain", price=5.0, tags=Row(tag=["a", "b"]), _id="bk102"),
                                Row(title="Maeve Ascendant", price=5.95, tags=Row(tag=["c"]), _id="bk103")]


def _part(path: str) -> str:
    parts = sorted(glob.glob(path + "/part-*"))
    assert len(parts) == 1, parts
    return open(parts[0], encoding="utf-8").read()


def test_write_documents_as_spark(spark: SparkSession, files: dict[str, str], tmp_path: Path) -> None:
    books = spark.read.option("rowTag", "book").xml(files["books"])
    books.coalesce(1).write.option("rowTag", "book").option("rootTag", "catalog").xml(str(tmp_path / "out"))
    assert _part(str(tmp_path / "out")) == (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<catalog>\n'
        '    <book id="bk101">\n        <author>Gambardella, Matthew</author>\n'
        "        <description>An in-depth look.</description>\n        <genre>Computer</genre>\n"
        "        <price>44.95</price>\n        <publish_date>2000-10-01</publish_date>\n"
        "        <title>XML Developer's Guide</title>\n    </book>\n"
        '    <book id="bk102">\n        <author>Ralls, Kim</author>\n        <genre>Fantasy</genre>\n'
        "        <price>5.0</price>\n        <publish_date>2000-12-16</publish_date>\n        <tags>\n"
        "            <tag>a</tag>\n            <tag>b</tag>\n        </tags>\n        <title>Midnight Rain</title>\n"
        '    </book>\n    <book id="bk103" lang="en">\n        <author>Corets, Eva</author>\n'
        "        <count>3</count>\n        <empty></empty>\n        <flag>true</flag>\n"
        '        <price currency="USD">5.95</price>\n        <tags>\n            <tag>c</tag>\n        </tags>\n'
        "        <title>Maeve Ascendant</title>\n        <when>2021-01-01T10:00:00.000Z</when>\n    </book>\n"
        "</catalog>")
    assert spark.read.xml(str(tmp_path / "out"), rowTag="book").collect() == BOOKS_ROWS
    spark.createDataFrame([(1, "a&b", None, [1, 2], {"k": "v"})],
                          "id long, s string, n string, arr array<int>, m map<string,string>").coalesce(1) \
        .write.xml(str(tmp_path / "o2"), rowTag="rec")
    assert _part(str(tmp_path / "o2")) == (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<ROWS>\n    <rec>\n        <id>1</id>\n'
        "        <s>a&amp;b</s>\n        <arr>1</arr>\n        <arr>2</arr>\n        <m>\n            <k>v</k>\n"
        "        </m>\n    </rec>\n</ROWS>")
    spark.createDataFrame([(1, "x")], "id long, s string").coalesce(1).write.option("rowTag", "rec") \
        .option("declaration", "").xml(str(tmp_path / "o3"))
    assert _part(str(tmp_path / "o3")) == "<ROWS>\n    <rec>\n        <id>1</id>\n        <s>x</s>\n    </rec>\n</ROWS>"


def test_write_nested_values_nulls_and_escapes(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame(
        [(1, "a>b\"c'd", None, [[1, 2], [3]], (1.5, None, "z"), [(1, "x"), (2, None)], 1e7, 0.1, True, None)],
        "id long, s string, n string, aa array<array<int>>, st struct<_VALUE: double, _k: string, c: string>, "
        "sa array<struct<_p: int, q: string>>, big double, small double, b boolean, e struct<x: int>")
    df.coalesce(1).write.xml(str(tmp_path / "o1"), rowTag="r")
    head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<ROWS>\n    <r>\n        <id>1</id>\n'
    arrays = ("        <aa>\n            <item>1</item>\n            <item>2</item>\n        </aa>\n"
              "        <aa>\n            <item>3</item>\n        </aa>\n")
    assert _part(str(tmp_path / "o1")) == (
        head + "        <s>a>b\"c'd</s>\n" + arrays + "        <st>1.5\n            <c>z</c>\n        </st>\n"
        '        <sa p="1">\n            <q>x</q>\n        </sa>\n        <sa p="2"/>\n        <big>1.0E7</big>\n'
        "        <small>0.1</small>\n        <b>true</b>\n    </r>\n</ROWS>")
    df.coalesce(1).write.option("nullValue", "NULL").xml(str(tmp_path / "o2"), rowTag="r")
    assert _part(str(tmp_path / "o2")) == (
        head + "        <s>a>b\"c'd</s>\n        <n>NULL</n>\n" + arrays +
        '        <st k="NULL">1.5\n            <c>z</c>\n        </st>\n        <sa p="1">\n            <q>x</q>\n'
        '        </sa>\n        <sa p="2">\n            <q>NULL</q>\n        </sa>\n        <big>1.0E7</big>\n'
        "        <small>0.1</small>\n        <b>true</b>\n        <e>NULL</e>\n    </r>\n</ROWS>")
    back = spark.read.xml(str(tmp_path / "o1"), rowTag="r")
    assert back.schema.simpleString() == (
        "struct<aa:array<struct<item:array<bigint>>>,b:boolean,big:double,id:bigint,s:string,"
        "sa:array<struct<_p:bigint,q:string>>,small:double,st:struct<_VALUE:double,c:string>>")
    assert back.collect() == [Row(aa=[Row(item=[1, 2]), Row(item=[3])], b=True, big=10000000.0, id=1,
                                  s="a>b\"c'd", sa=[Row(_p=1, q="x"), Row(_p=2, q=None)], small=0.1,
                                  st=Row(_VALUE=1.5, c="z"))]


def test_read_xml_of_an_rdd_of_records(spark: SparkSession) -> None:
    rdd = spark.sparkContext.parallelize(["<book><a>1</a></book>",
                                          "<root><book><a>2</a></book><book><a>3</a></book></root>",
                                          "<book><a>x</b></book>"])
    df = spark.read.xml(rdd, rowTag="book")
    assert df.schema.simpleString() == "struct<_corrupt_record:string,a:bigint,book:array<struct<a:bigint>>>"
    assert df.collect() == [Row(_corrupt_record=None, a=1, book=None),
                            Row(_corrupt_record=None, a=None, book=[Row(a=2), Row(a=3)]),
                            Row(_corrupt_record="<book><a>x</b></book>", a=None, book=None)]
    assert spark.read.xml(rdd, rowTag="book", schema="a int").collect() == [Row(a=1), Row(a=None), Row(a=None)]


def test_stream_of_xml_files_to_an_xml_sink(spark: SparkSession, files: dict[str, str], tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    (source / "books.xml").write_text(BOOKS, encoding="utf-8")
    stream = spark.readStream.xml(str(source), rowTag="book", schema="_id string, title string, price double")
    query = (stream.writeStream.format("xml").option("rowTag", "b")
             .option("checkpointLocation", str(tmp_path / "ck")).start(str(tmp_path / "out")))
    try:
        query.processAllAvailable(60.0)
    finally:
        query.stop()
    assert spark.read.xml(str(tmp_path / "out"), rowTag="b").orderBy("_id").collect() == [
        Row(_id="bk101", price=44.95, title="XML Developer's Guide"),
        Row(_id="bk102", price=5.0, title="Midnight Rain"),
        Row(_id="bk103", price=5.95, title="Maeve Ascendant")]


def test_value_that_does_not_fit_keeps_its_record_text(spark: SparkSession, tmp_path: Path) -> None:
    # A well-formed file is parsed in one go; a row whose value does not fit the schema is still
    # malformed, its text cut from the file as written (an empty-element row too).
    path = tmp_path / "fit.xml"
    path.write_text('<?xml version="1.0"?>\n<root>\n  <row><a>1</a></row>\n  <row><a>x</a></row>\n'
                    '  <row a="y" />\n  <row a="2"/>\n</root>\n', encoding="utf-8")
    rows = spark.read.xml(str(path), rowTag="row", schema="a int, _a int, _corrupt_record string").collect()
    assert rows == [Row(a=1, _a=None, _corrupt_record=None),
                    Row(a=None, _a=None, _corrupt_record="<row><a>x</a></row>"),
                    Row(a=None, _a=None, _corrupt_record='<row a="y" />'), Row(a=None, _a=2, _corrupt_record=None)]


@pytest.mark.parametrize("declared", [False, True])
def test_string_fields_read_nested_elements_as_written(spark: SparkSession, tmp_path: Path, declared: bool) -> None:
    # A document without namespace declarations goes through the C parser, which keeps no
    # offsets: the inner text is found by parsing the row again; with them, expat's offsets.
    root = '<root xmlns:p="urn:p">' if declared else "<root>"
    path = tmp_path / "inner.xml"
    path.write_text(f'{root}\n<r><x><y>2</y></x><z><w><v a="1">1</v><v>3</v></w></z></r>\n</root>\n', encoding="utf-8")
    assert spark.read.xml(str(path), rowTag="r", schema="x string, z struct<w: string>").collect() == [
        Row(x="<y>2</y>", z=Row(w='<v a="1">1</v><v>3</v>'))]
