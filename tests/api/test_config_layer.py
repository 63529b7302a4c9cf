"""One configuration layer: no module of ``rdd`` or ``dstream`` parses a setting itself.

Settings are read with ``SparkConf``'s typed getters (``getInt``, ``getBoolean``,
``getTimeAsMs``, ``getSizeAsBytes``, ...), whose rules live in ``rdd/conf_parsing.py``;
the master URL is parsed by ``rdd/master.py``. The test walks the syntax tree of every
other module and fails on the shapes that hand-written parsing takes:

* ``boolean``: a comparison with ``"true"``/``"false"``/``"yes"``/``"no"`` (``x.lower()
  == "true"``, ``text in ("true", "1", "yes")``);
* ``unit``: a time or size unit used as a literal key, comparison or suffix (``{"ms":
  1.0}``, ``text.endswith("min")``, ``removesuffix("b")``);
* ``helper``: a function named like a private setting parser (``_parse_bool``,
  ``_conf_float``, ``conf_value``, ``_seconds``, ``parse_time_ms``);
* ``private conf`` (``dstream`` only): the context's private ``_conf`` instead of the
  public ``getConf()``;
* ``master``: a master URL compared or matched outside ``rdd/master.py`` (``"local["``,
  ``startswith("local")``).

"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The configuration layer itself.
OWNERS = {"rdd/conf.py", "rdd/conf_parsing.py", "rdd/master.py"}
#: Modules that read or write SQL text and data, not settings: the SQL parser (its
#: ``TRUE``/``FALSE`` literals and ``INTERVAL`` units), Spark's datetime patterns (the
#: letters ``s``, ``m``, ``h``, ``d`` are pattern fields), Java's format conversions
#: (``%s``, ``%d``, ``%b`` in ``format_string``) and JSON's ``true``/``false``.
SQL_TEXT = ("dstream/sql/parser/", "dstream/sql/kernels/datetime_", "dstream/sql/kernels/json_write.py",
            "dstream/sql/kernels/interval_text.py",
            "dstream/sql/expressions/java_format.py")

_BOOLEAN_WORDS = {"true", "false", "yes", "no"}
_UNITS = {"us", "ms", "s", "m", "min", "h", "d", "b", "k", "kb", "mb", "g", "gb", "t", "tb",
          "p", "pb"}
_SUFFIX_METHODS = {"endswith", "removesuffix", "rstrip"}
_HELPER = re.compile(
    r"_?(parse_(bool|boolean|time|size|duration|seconds|bytes)\w*|conf_(get|value|float|int|bool)\w*"
    r"|seconds|bool|int|float|to_bool|as_bool|time_ms|size_bytes)"
)
_MASTER_LITERAL = re.compile(r"^\^?local(\[|\\\[|\$?$)")


def _strings(node: ast.AST) -> list[str]:
    """The string literals of ``node`` itself or of a tuple/list/set literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for elt in node.elts for s in _strings(elt)]
    return []


def _is_number(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _is_number(node.left) and _is_number(node.right)
    return isinstance(node, ast.UnaryOp) and _is_number(node.operand)


def _is_unit_table(node: ast.Dict) -> bool:
    """A literal table of unit factors: ``{"ms": 1.0, "s": 1000.0}``, ``{"k": 1 << 10}``."""
    keys = [s for key in node.keys if key is not None for s in _strings(key)]
    return (len(keys) >= 2 and all(k.lower() in _UNITS for k in keys)
            and all(_is_number(value) for value in node.values))


def findings(path: Path, source: str) -> list[tuple[int, str]]:
    """``(line, rule)`` of every hand-written parsing shape in ``source``."""
    found: list[tuple[int, str]] = []
    in_dstream = path.parts[0] == "dstream"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            literals = [s for operand in (node.left, *node.comparators) for s in _strings(operand)]
            if any(s.strip().lower() in _BOOLEAN_WORDS for s in literals):
                found.append((node.lineno, "boolean"))
            if any(s.lower() in _UNITS for s in literals):
                found.append((node.lineno, "unit"))
            if any(_MASTER_LITERAL.match(s) for s in literals):
                found.append((node.lineno, "master"))
        elif isinstance(node, ast.Dict) and _is_unit_table(node):
            found.append((node.lineno, "unit"))
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            literals = [s for arg in node.args for s in _strings(arg)]
            if name in _SUFFIX_METHODS and any(s.lower() in _UNITS for s in literals):
                found.append((node.lineno, "unit"))
            if name in {"startswith", "match", "fullmatch", "compile"} and any(
                    _MASTER_LITERAL.match(s) for s in literals):
                found.append((node.lineno, "master"))
            if in_dstream and name == "getattr" and "_conf" in literals:
                found.append((node.lineno, "private conf"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if _HELPER.fullmatch(node.name):
                found.append((node.lineno, "helper"))
        elif isinstance(node, ast.Attribute) and in_dstream and node.attr == "_conf":
            found.append((node.lineno, "private conf"))
    return sorted(set(found))


def modules() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for package in ("rdd", "dstream")
                  for p in (ROOT / package).rglob("*.py"))


def test_no_module_parses_settings_by_hand() -> None:
    bad = []
    for module in modules():
        if module in OWNERS or module.startswith(SQL_TEXT):
            continue
        for line, rule in findings(Path(module), (ROOT / module).read_text()):
            bad.append(f"{module}:{line}: {rule}")
    assert not bad, ("read settings with SparkConf's typed getters (sc.getConf().getInt, "
                     "getBoolean, getTimeAsMs, getSizeAsBytes, ...) and the master with "
                     "rdd.master.Master:\n" + "\n".join(bad))


@pytest.mark.parametrize(("source", "rule"), [
    ('def f(v):\n    return v.strip().lower() == "true"\n', "boolean"),
    ('def f(v):\n    return v in ("true", "1", "yes")\n', "boolean"),
    ('UNITS = {"ms": 1.0, "s": 1000.0}\n', "unit"),
    ('UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}\n', "unit"),
    ('def f(v):\n    return v.endswith("min")\n', "unit"),
    ('def f(v):\n    return v.lower().removesuffix("b")\n', "unit"),
    ("def _parse_bool(v):\n    return v\n", "helper"),
    ("def _conf_float(conf, key, default):\n    return default\n", "helper"),
    ('def f(sc):\n    return getattr(sc, "_conf", None)\n', "private conf"),
    ("def f(sc):\n    return sc._conf.get('k')\n", "private conf"),
    ('def f(m):\n    return m.startswith("local[")\n', "master"),
    ('import re\nR = re.compile(r"^local\\[(\\d+)\\]$")\n', "master"),
    ('def f(m):\n    return m == "local"\n', "master"),
])
def test_the_walk_finds_each_shape(source: str, rule: str) -> None:
    assert rule in {r for _, r in findings(Path("dstream/x.py"), source)}


def test_the_walk_leaves_messages_and_getter_calls_alone() -> None:
    source = (
        'def f(conf, ms):\n'
        '    """A docstring naming "true", \'200ms\' and local[2]."""\n'
        '    if conf.getBoolean("spark.streaming.unpersist", True):\n'
        '        raise ValueError(f"{ms} ms is not local[2]: use \'200ms\' or \'true\'")\n'
        '    record = {"b": conf, "d": ms, "min": min(ms, 1)}\n'
        '    return conf.getTimeAsMs("spark.streaming.blockInterval", "200ms"), record\n'
    )
    assert findings(Path("dstream/x.py"), source) == []
