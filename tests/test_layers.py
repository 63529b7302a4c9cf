"""The import graph of ``rdd``: one-way layers, no cycles, and never ``dstream``.

Every import of every module is read with :mod:`ast` (module level, inside functions and
under ``if TYPE_CHECKING:``), resolved to the module it names, and checked against the
rules below. A failure names the file, the line and the import.

Type-only imports count: they are where a layer starts to know about a higher one (the
annotation today is the call tomorrow), and moving the type down is always possible.
The one grouping is the facade (``SparkContext``, ``RDD`` and the mixins ``RDD`` is
assembled from): ``RDD.context`` returns the ``SparkContext`` that creates RDDs, and each
mixin's methods take and return ``RDD``, so these modules are one public surface, and
they form one unit of the graph.

Imports made with ``importlib`` by name (the lazy exports of ``rdd/__init__.py``) are
not seen; ``rdd/__init__.py`` is the top of the table anyway.

The machinery (:func:`import_graph`, :func:`unit_graph`, :func:`find_cycles`,
:func:`layer_violations`) takes a package directory and a unit function, so rules for
``dstream`` can be added here the same way.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: ``rdd``'s layers, bottom first. A unit (a subpackage, or a top-level module) may import
#: units of its own layer or of a lower one; cycles are refused separately.
RDD_LAYERS: list[set[str]] = [
    # Leaves: no import of rdd but errors.
    {"errors", "logs", "conf", "conf_parsing", "conf_defaults", "master", "version", "local_dir", "exit_signals",
     "statcounter", "resultiterable", "partitioner", "aggregator", "runtime", "task_functions", "user_files"},
    # Application status: listener events, their bus, the status store and its REST form.
    {"status"},
    # Bytes: closures, records and data to bytes and back.
    {"serialization"},
    # Where data lives in a process: blocks, shuffle outputs.
    {"storage", "shuffle"},
    # Lineage: how to compute a partition.
    {"nodes"},
    # Driver-side services the facade and the env use.
    {"accumulators", "broadcast", "checkpoint", "cleaner"},
    # Stages, tasks, events; the executors depend on it, never the reverse.
    {"scheduler"},
    {"executor"},
    # The engine object of a context: builds the backend, the runner, the stores.
    {"env"},
    # The web UI: a server and pages over the status layer, created by the facade.
    {"ui"},
    # The PySpark surface.
    {"facade"},
    # The public exports, and the engine API declared for the layers above the facade
    # (``dstream``): both sit on top of everything they name.
    {"__init__", "engine_api"},
]

#: Top-level modules of ``rdd`` that make up the facade (see the module docstring).
RDD_FACADE = {"context", "context_files", "context_jobs", "rdd", "actions", "approximate", "derived", "output",
              "pair", "join", "numeric", "ordered", "piped", "threads", "profiler"}


@dataclass(frozen=True)
class Import:
    """One imported module, where it was imported and how."""

    source: str       # the importing module, dotted
    target: str       # the imported module, dotted (a package if no submodule matches)
    path: Path
    lineno: int
    statement: str    # the import as written
    type_only: bool   # under ``if TYPE_CHECKING:``

    def where(self) -> str:
        kind = " (type-only)" if self.type_only else ""
        shown = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{shown}:{self.lineno} `{self.statement}`{kind}"


def package_modules(package_dir: Path) -> dict[str, tuple[Path, bool]]:
    """Every module of the package: dotted name -> (file, is a package ``__init__``)."""
    modules: dict[str, tuple[Path, bool]] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        modules[".".join(parts)] = (path, is_package)
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(node: ast.AST, type_only: bool = False) -> Iterable[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        yield child, type_only
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for sub in child.body:
                yield sub, True
                yield from _walk(sub, True)
            for sub in child.orelse:
                yield sub, type_only
                yield from _walk(sub, type_only)
        else:
            yield from _walk(child, type_only)


def module_imports(name: str, path: Path, is_package: bool, known: Iterable[str]) -> list[Import]:
    """The imports of one module, relative ones resolved; ``known`` names the modules
    that ``from package import name`` may mean (a submodule rather than a name)."""
    known = set(known)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node, type_only in _walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                targets.append(sub if sub in known else module)
        else:
            continue
        for target in dict.fromkeys(targets):
            found.append(Import(name, target, path, node.lineno, ast.unparse(node), type_only))
    return found


def import_graph(package_dir: Path) -> list[Import]:
    """Every import made by every module of the package at ``package_dir``."""
    modules = package_modules(package_dir)
    imports = []
    for name, (path, is_package) in modules.items():
        imports.extend(module_imports(name, path, is_package, modules))
    return imports


def unit_graph(imports: Iterable[Import], package: str,
               unit_of: Callable[[str], str]) -> dict[tuple[str, str], list[Import]]:
    """Edges between units of ``package`` (imports inside one unit left out), each with
    the imports that make it."""
    edges: dict[tuple[str, str], list[Import]] = {}
    for imp in imports:
        if imp.target != package and not imp.target.startswith(package + "."):
            continue
        source, target = unit_of(imp.source), unit_of(imp.target)
        if source != target:
            edges.setdefault((source, target), []).append(imp)
    return edges


def find_cycles(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """One cycle (``[a, b, ..., a]``) per strongly connected component that has one."""
    successors: dict[str, list[str]] = {}
    for a, b in edges:
        successors.setdefault(a, []).append(b)
        successors.setdefault(b, [])
    for targets in successors.values():
        targets.sort()
    # Tarjan's algorithm, iterative (a deep package must not hit the recursion limit).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(successors):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(successors[node]):
                work.append((node, i + 1))
                nxt = successors[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    cycles = []
    for component in components:
        members = set(component)
        start = min(component)
        if len(component) == 1 and start not in successors[start]:
            continue
        # The shortest way back to ``start`` inside the component.
        paths = {start: [start]}
        frontier = [start]
        cycle = None
        while frontier and cycle is None:
            nxt_frontier = []
            for node in frontier:
                for nxt in successors[node]:
                    if nxt == start:
                        cycle = paths[node] + [start]
                        break
                    if nxt in members and nxt not in paths:
                        paths[nxt] = paths[node] + [nxt]
                        nxt_frontier.append(nxt)
                if cycle is not None:
                    break
            frontier = nxt_frontier
        assert cycle is not None
        cycles.append(cycle)
    return cycles


def layer_violations(edges: dict[tuple[str, str], list[Import]],
                     layers: list[set[str]]) -> list[str]:
    """Messages for every import of a unit from a higher layer, or of a unit not in the table."""
    layer_of = {unit: i for i, units in enumerate(layers) for unit in units}
    problems = []
    for (source, target), imports in sorted(edges.items()):
        for unit in (source, target):
            if unit not in layer_of:
                problems.append(f"{unit!r} is in no layer of the table: add it to the layer "
                                f"table of tests/test_layers.py ({imports[0].where()})")
        if source in layer_of and target in layer_of and layer_of[target] > layer_of[source]:
            for imp in imports:
                problems.append(f"{imp.where()}: {source} (layer {layer_of[source]}) imports "
                                f"{target} (layer {layer_of[target]}), a higher layer")
    return problems


def cycle_report(cycles: list[list[str]], edges: dict[tuple[str, str], list[Import]]) -> list[str]:
    reports = []
    for cycle in cycles:
        steps = [f"  {a} -> {b}: {edges[(a, b)][0].where()}" for a, b in zip(cycle, cycle[1:])]
        reports.append("import cycle " + " -> ".join(cycle) + "\n" + "\n".join(steps))
    return reports


def rdd_unit(module: str) -> str:
    parts = module.split(".")
    unit = parts[1] if len(parts) > 1 else "__init__"
    return "facade" if unit in RDD_FACADE else unit


@pytest.fixture(scope="module")
def rdd_imports() -> list[Import]:
    return import_graph(ROOT / "rdd")


def test_rdd_never_imports_dstream(rdd_imports: list[Import]) -> None:
    bad = [imp.where() for imp in rdd_imports
           if imp.target == "dstream" or imp.target.startswith("dstream.")]
    assert not bad, "rdd must not import dstream (dstream is built on rdd):\n" + "\n".join(bad)


def test_rdd_layers_import_only_downwards(rdd_imports: list[Import]) -> None:
    problems = layer_violations(unit_graph(rdd_imports, "rdd", rdd_unit), RDD_LAYERS)
    assert not problems, "\n".join(problems)


def test_rdd_units_have_no_import_cycle(rdd_imports: list[Import]) -> None:
    edges = unit_graph(rdd_imports, "rdd", rdd_unit)
    cycles = find_cycles(edges)
    assert not cycles, "\n".join(cycle_report(cycles, edges))


def test_every_rdd_unit_is_in_the_table(rdd_imports: list[Import]) -> None:
    tabled = set().union(*RDD_LAYERS)
    units = {rdd_unit(name) for name in package_modules(ROOT / "rdd")}
    assert units <= tabled, f"add {sorted(units - tabled)} to RDD_LAYERS"
    assert tabled <= units, f"RDD_LAYERS names units that do not exist: {sorted(tabled - units)}"


# --- the machinery catches what it must, on a package made for the purpose ---------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "pkg"


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_machinery_finds_cycles_through_function_and_type_only_imports(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "",
        "low/__init__.py": "",
        "low/a.py": "def f():\n    from ..high import b\n",
        "high/__init__.py": "",
        "high/b.py": ("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from ..mid import c\n"),
        "mid.py": "from .low import a\n",
        "leaf.py": "import os\n",
    })
    imports = import_graph(root)
    edges = unit_graph(imports, "pkg", _unit)
    assert find_cycles(edges) == [["high", "mid", "low", "high"]]
    type_only = [imp for imp in imports if imp.type_only]
    assert [(imp.source, imp.target) for imp in type_only] == [("pkg.high.b", "pkg.mid")]
    report = cycle_report(find_cycles(edges), edges)[0]
    assert "pkg/low/a.py:2 `from ..high import b`" in report.replace(str(tmp_path) + "/", "")


def test_machinery_names_the_import_that_breaks_a_layer(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "",
        "base.py": "import pkg.top\n",
        "top.py": "from . import base\n",
        "other.py": "",
    })
    edges = unit_graph(import_graph(root), "pkg", _unit)
    problems = layer_violations(edges, [{"base"}, {"top"}])
    assert len(problems) == 1
    assert "base.py:1 `import pkg.top`: base (layer 0) imports top (layer 1)" in problems[0]
    assert layer_violations(edges, [{"base", "top"}]) == []
    assert "'top' is in no layer" in layer_violations(edges, [{"base"}])[0]
    assert find_cycles([("a", "a")]) == [["a", "a"]]
    assert find_cycles([("a", "b"), ("b", "c")]) == []
