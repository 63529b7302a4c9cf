"""Run an example in a subprocess (through :mod:`tests.integration.run_example`) and watch it."""

from __future__ import annotations

from tests.integration.watched import DEADLINE, ROOT, WatchedProcess, alive

__all__ = ["DEADLINE", "ROOT", "Example", "alive"]


class Example(WatchedProcess):
    """A running example: its stdout lines as they come, its children, its exit."""

    def __init__(self, script: str, *args: str, env: dict[str, str] | None = None,
                 own_group: bool = False) -> None:
        super().__init__("tests.integration.run_example", [str(ROOT / "examples" / script), *args],
                         {"PYTHONUNBUFFERED": "1", **(env or {})}, "the example", own_group)
