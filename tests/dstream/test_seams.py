"""dstream uses the RDD engine only through its declared seam: ``rdd`` and ``rdd.engine_api``.

Read from the source with :mod:`ast`, every import included (module level, inside
functions, under ``if TYPE_CHECKING:``):

* the only ``rdd`` modules dstream imports are ``rdd`` and ``rdd.engine_api``, and it
  imports no underscore name from them;
* no attribute access ``x._name`` outside ``self``/``cls`` uses a name that is private
  in rdd: the names any rdd class defines or assigns (``self._x = ...``, ``def _x``,
  ``_x: T`` in a class body). dstream's own objects therefore never share such a name
  for what they read off each other;
* a dstream class that subclasses an rdd class neither overrides nor reads (through
  ``self``) one of rdd's private names: the subclass contracts are in ``rdd.engine_api``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import rdd

import dstream

DSTREAM = Path(dstream.__file__).resolve().parent
RDD = Path(rdd.__file__).resolve().parent
ALLOWED_MODULES = {"rdd", "rdd.engine_api"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def rdd_private_names(root: Path = RDD) -> set[str]:
    """Names private to rdd's classes: methods, attributes assigned, class-level names."""
    names: set[str] = set()
    for path in root.rglob("*.py"):
        for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(cls, ast.ClassDef):
                continue
            for node in ast.walk(cls):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(node.name)
                elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                      and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                    names.add(node.attr)
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    names.add(node.target.id)
                elif isinstance(node, ast.Assign):
                    names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {name for name in names if _private(name)}


def _sources(root: Path) -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(root.rglob("*.py")):
        yield str(path.relative_to(root.parent)), ast.parse(path.read_text(encoding="utf-8"))


def import_violations(root: Path = DSTREAM) -> list[str]:
    found = []
    for where, tree in _sources(root):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    if top == "rdd" and alias.name not in ALLOWED_MODULES:
                        found.append(f"{where}:{node.lineno}: import {alias.name}")
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                if node.module.split(".")[0] != "rdd":
                    continue
                if node.module not in ALLOWED_MODULES:
                    found.append(f"{where}:{node.lineno}: from {node.module} import ...")
                found.extend(f"{where}:{node.lineno}: from {node.module} import {a.name}"
                             for a in node.names if _private(a.name))
    return found


def _rdd_bases(tree: ast.Module) -> set[str]:
    """Names this module imported from rdd (the classes it may subclass)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "rdd":
            names.update(a.asname or a.name for a in node.names)
    return names


def private_access_violations(root: Path = DSTREAM, private: set[str] | None = None) -> list[str]:
    private = rdd_private_names() if private is None else private
    found = []
    for where, tree in _sources(root):
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr in private
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        imported = _rdd_bases(tree)
        for cls in ast.walk(tree):
            if not isinstance(cls, ast.ClassDef):
                continue
            if not any(isinstance(b, ast.Name) and b.id in imported for b in cls.bases):
                continue
            for node in ast.walk(cls):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in private:
                    found.append(f"{where}:{node.lineno}: {cls.name} overrides {node.name}")
                elif isinstance(node, ast.Attribute) and node.attr in private:
                    found.append(f"{where}:{node.lineno}: {cls.name} uses {ast.unparse(node)}")
    return found


def test_dstream_imports_only_rdd_and_its_engine_api() -> None:
    found = import_violations()
    assert not found, "dstream imports rdd internals; use rdd or rdd.engine_api:\n" + "\n".join(found)


def test_dstream_touches_no_private_name_of_rdd() -> None:
    private = rdd_private_names()
    assert {"_wrap", "_node", "_conf", "_checkpoint_file", "_make_partitions"} <= private
    found = private_access_violations(private=private)
    assert not found, ("dstream uses private names of rdd objects; add what it needs to "
                       "rdd.engine_api:\n" + "\n".join(found))


def test_the_scans_find_violations(tmp_path: Path) -> None:
    pkg = tmp_path / "layer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ok.py").write_text(
        "from rdd import RDD\nfrom rdd.engine_api import rdd_of, SourceNode\n"
        "class Mine(SourceNode):\n    def make_partitions(self):\n        return self._mine\n"
        "def f(ds):\n    return ds._stream_node\n")
    assert import_violations(pkg) == []
    assert private_access_violations(pkg) == []

    (pkg / "bad.py").write_text(
        "import rdd.storage.block_manager\nfrom rdd.nodes.base import LineageNode\n"
        "from rdd.engine_api import _block_manager\n"
        "def f(sc, node):\n    from rdd.executor.serializer import dumps_closure\n"
        "    return sc._wrap(node)\n"
        "class Node(LineageNode):\n    def _make_partitions(self):\n        return self._partitions\n")
    assert import_violations(pkg) == [
        "layer/bad.py:1: import rdd.storage.block_manager",
        "layer/bad.py:2: from rdd.nodes.base import ...",
        "layer/bad.py:3: from rdd.engine_api import _block_manager",
        "layer/bad.py:5: from rdd.executor.serializer import ...",
    ]
    assert private_access_violations(pkg) == [
        "layer/bad.py:6: sc._wrap",
        "layer/bad.py:8: Node overrides _make_partitions",
        "layer/bad.py:9: Node uses self._partitions",
    ]
