"""Every module that registers scalar functions is imported by ``scalar_functions``.

A function registers when its module is imported. The driver may have imported a module
by another path (``calendar_interval`` through the arithmetic operators), a worker only
imports what unpickling a plan brings in: a module missing from ``scalar_functions``'
imports made ``make_interval`` unknown (``KeyError``) in a fresh worker.
"""

from __future__ import annotations

from pathlib import Path

from dstream.sql.expressions import scalar_functions


def test_every_registering_module_is_imported_with_the_scalar_functions() -> None:
    root = Path(scalar_functions.__file__).parent
    registering = {path.stem for path in root.glob("*.py") if "FunctionSpec(" in path.read_text(encoding="utf-8")
                   and path.stem not in ("function_registry", "scalar_functions")}
    imported = {module.__name__.rsplit(".", 1)[1] for module in scalar_functions._REGISTERED_MODULES}
    assert registering, "no registering module found: the scan is wrong"
    assert registering - imported == set(), "import these in scalar_functions"
