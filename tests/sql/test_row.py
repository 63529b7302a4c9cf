"""dstream.sql.row: Row behaves as PySpark's Row (construction, access, equality, repr, pickling)."""

from __future__ import annotations

import pickle

import cloudpickle
import pytest

from dstream.sql.errors import PySparkValueError
from dstream.sql.row import Row, rows_from_columns


def test_keyword_row_keeps_order_and_reads_every_way() -> None:
    r = Row(b=1, a="x")
    assert r.__fields__ == ["b", "a"]
    assert (r.b, r.a, r["a"], r[0], r[-1], r[:1]) == (1, "x", "x", 1, "x", (1,))
    assert repr(r) == "Row(b=1, a='x')"
    assert r.asDict() == {"b": 1, "a": "x"}
    assert list(r.asDict()) == ["b", "a"]


def test_row_equality_is_the_tuples() -> None:
    assert Row(a=1) == (1,)
    assert Row(a=1, b=2) == Row(x=1, y=2)
    assert Row(a=1) != Row(a=2)
    assert hash(Row(a=1, b="x")) == hash((1, "x"))
    assert sorted([Row(a=2), Row(a=1)]) == [(1,), (2,)]


def test_row_class_makes_rows() -> None:
    person = Row("name", "age")
    assert repr(person) == "<Row('name', 'age')>"
    alice = person("Alice", 11)
    assert repr(alice) == "Row(name='Alice', age=11)" and alice.age == 11
    assert "name" in person and "name" in alice and "Alice" not in alice
    with pytest.raises(PySparkValueError):
        person(1, 2, 3)
    with pytest.raises(TypeError):
        person.asDict()


def test_unknown_field_errors() -> None:
    r = Row(a=1)
    with pytest.raises(AttributeError):
        _ = r.b
    with pytest.raises(ValueError):
        r["b"]
    with pytest.raises(IndexError):
        r[1]
    with pytest.raises(RuntimeError):
        r.a = 2
    with pytest.raises(PySparkValueError):
        Row(1, a=2)
    assert not hasattr(Row(1, 2), "__fields__")


def test_as_dict_recursive() -> None:
    r = Row(a=Row(b=1, c=[Row(d=2)]), e={"k": Row(f=3)})
    assert r.asDict() == {"a": Row(b=1, c=[Row(d=2)]), "e": {"k": Row(f=3)}}
    assert r.asDict(True) == {"a": {"b": 1, "c": [{"d": 2}]}, "e": {"k": {"f": 3}}}
    assert isinstance(r.asDict(True)["a"], dict)


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps])
def test_rows_pickle(dumps: object) -> None:
    for row in [Row(a=1, b=[Row(c="x")]), Row("a", "b"), Row(), rows_from_columns(["x", "y"], [[1], [2]], 1)[0]]:
        back = pickle.loads(dumps(row))  # type: ignore[operator]
        assert back == row and repr(back) == repr(row) and type(back) is Row


def test_rows_from_columns_make_ordinary_rows() -> None:
    rows = rows_from_columns(["a", "b"], [[1, 2, 3], ["x", None, "z"]], 3)
    assert rows == [(1, "x"), (2, None), (3, "z")]
    assert all(isinstance(r, Row) for r in rows)
    assert [r.b for r in rows] == ["x", None, "z"] and rows[1]["a"] == 2
    assert repr(rows[0]) == "Row(a=1, b='x')" and rows[0].asDict() == {"a": 1, "b": "x"}
    assert "a" in rows[0] and "x" not in rows[0]
    with pytest.raises(RuntimeError):
        rows[0].a = 5  # type: ignore[misc]
    empty = rows_from_columns([], [], 2)
    assert empty == [(), ()] and repr(empty[0]) == "Row()"
