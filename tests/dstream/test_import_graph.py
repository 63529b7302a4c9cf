"""dstream's import graph has no cycle: the facade sits on the engine, never the reverse.

The graph is read from the source with :mod:`ast`: every ``import`` and ``from ...
import`` of a ``dstream`` module, at module level *and* inside functions (a lazy
import hides a cycle from the interpreter, not from the design). Imports under
``if TYPE_CHECKING:`` are exempt: they never run, and annotations may name any type.
Implicit imports of parent packages (``dstream/__init__.py`` runs before any
``dstream.x``) are not edges: every module would otherwise sit on a cycle through its
package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import dstream

ROOT = Path(dstream.__file__).resolve().parent

#: Modules the acceptance names: the facade, the DStream classes, checkpoints, Kafka.
FACADE = ("dstream.context", "dstream.context_inputs", "dstream.dstream", "dstream.pair")
FACADE_PACKAGES = ("dstream.checkpoint", "dstream.kafka")


def module_names(root: Path) -> dict[str, Path]:
    """``dotted name -> file`` of every module of the package at ``root``."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, skipping the bodies of ``if TYPE_CHECKING:``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root: Path) -> dict[str, set[str]]:
    """``module -> modules of the same package it imports`` (see the module docstring)."""
    modules = module_names(root)
    top = root.name
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _resolve(name, path.name == "__init__.py", node)
                # ``from pkg import sub`` imports the submodule ``pkg.sub``.
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]  # ``import a.b.c`` where c is a name
                if target.split(".")[0] == top and target != name:
                    graph[name].add(target)
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (``a -> b -> ... -> a``) per strongly connected component that has one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm; the graphs are small
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_cycle_in(graph, component) for component in components]


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:  # breadth first: the shortest way back to start
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w == start:
                    return paths[v] + [start]
                if w not in paths:
                    paths[w] = paths[v] + [w]
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no cycle through {start} in {sorted(component)}")


def _describe(cycles: list[list[str]]) -> str:
    return "; ".join(" -> ".join(cycle) for cycle in cycles)


def test_the_facade_modules_are_in_the_graph() -> None:
    graph = import_graph(ROOT)
    assert set(FACADE) <= set(graph)
    assert "dstream.engine" in graph["dstream.context"]
    for package in FACADE_PACKAGES:
        assert any(name.startswith(package + ".") for name in graph)


def test_no_import_cycle_among_the_facade_modules() -> None:
    cycles = find_cycles(import_graph(ROOT))
    facade = [c for c in cycles
              if any(m in FACADE or m.startswith(FACADE_PACKAGES) for m in c)]
    assert not facade, f"import cycles through the facade modules: {_describe(facade)}"


def test_no_import_cycle_anywhere_in_dstream() -> None:
    cycles = find_cycles(import_graph(ROOT))
    assert not cycles, f"import cycles in dstream: {_describe(cycles)}"


def test_the_walker_finds_lazy_cycles_and_exempts_type_checking(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from pkg.a import A\n")
    (pkg / "a.py").write_text("from pkg.sub import b\nclass A: ...\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..c import C\n    return C\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\n")
    assert find_cycles(import_graph(pkg)) == []

    (pkg / "c.py").write_text("import pkg.a\nC = 1\n")
    assert find_cycles(import_graph(pkg)) == [["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]]
