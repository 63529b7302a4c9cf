"""The repository stands on its own, and says its version in one place.

- No file the project ships (code, docs, configuration, scripts) points to a file
  outside the repository: no path into the folders beside it, no design notes that live
  elsewhere, no Markdown link that climbs out of the repository.
- ``rdd.version.__version__`` is the one version of dstreams: the installed
  distribution's metadata, ``rdd.__version__``, ``dstream.__version__`` and ``dstreams
  --version`` all say it. ``SparkContext.version`` and ``SparkSession.version`` say, as
  PySpark's do, the Spark release whose semantics dstreams follows
  (``rdd.version.SPARK_VERSION``).
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import rdd
from rdd.version import SPARK_VERSION, __version__

import dstream

ROOT = Path(__file__).resolve().parents[2]
TEXT_SUFFIXES = {".py", ".md", ".rst", ".toml", ".cfg", ".sh", ".txt", ".ini", ".yml", ".yaml", ""}
# Documents that exist only beside the repository, never in it.
# Built from parts, so that this file does not match a plain grep for the same names.
_BESIDE = "shared"
OUTSIDE = re.compile(rf"\.\./{_BESIDE}|{_BESIDE}/docs|SPARK-{'INTERNALS'}|\bDESIGN\.md|\bSTYLE\.md|\bAPI\.md")
MARKDOWN_LINK = re.compile(r"\]\(([^)#\s]+)")


def shipped_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / name for name in listed
            if (ROOT / name).is_file() and Path(name).suffix in TEXT_SUFFIXES]


def test_no_file_points_outside_the_repository() -> None:
    this = Path(__file__).resolve()
    found = []
    for path in shipped_files():
        if path == this:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
        if path.suffix == ".md":
            for target in MARKDOWN_LINK.findall(text):
                if "://" in target or target.startswith("mailto:"):
                    continue
                resolved = (path.parent / target).resolve()
                if not resolved.is_relative_to(ROOT):
                    found.append(f"{path.relative_to(ROOT)}: link to {target} leaves the repository")
    assert not found, ("these lines point to files outside the repository; say what is needed "
                       "in docs/ instead:\n" + "\n".join(found))


def test_one_version_everywhere(sc: Any) -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+|rc\d+)?", __version__)
    assert importlib.metadata.version("dstreams") == __version__
    assert rdd.__version__ == dstream.__version__ == __version__
    assert sc.version == SPARK_VERSION and re.fullmatch(r"4\.\d+\.\d+", SPARK_VERSION)
    printed = subprocess.run([sys.executable, "-m", "dstream", "--version"], capture_output=True,
                             text=True, check=True, timeout=60).stdout.strip()
    assert printed == f"dstreams {__version__}"


def code_lines(path: Path) -> int:
    """Lines of a module that are not docstrings (module, class and function ones)."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstring_lines = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                docstring_lines += body[0].end_lineno - body[0].lineno + 1  # type: ignore[operator]
    return len(source.splitlines()) - docstring_lines


def test_no_module_is_over_500_lines_of_code() -> None:
    too_long = {str(path.relative_to(ROOT)): lines
                for package in ("rdd", "dstream") for path in (ROOT / package).rglob("*.py")
                if (lines := code_lines(path)) > 500}
    assert not too_long, f"split these modules (lines of code, docstrings aside): {too_long}"


def test_the_streaming_context_stays_a_thin_facade() -> None:
    lines = len((ROOT / "dstream" / "context.py").read_text(encoding="utf-8").splitlines())
    assert lines <= 350, f"dstream/context.py has {lines} lines: move engine work to dstream/engine.py"
