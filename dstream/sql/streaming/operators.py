"""Imports the stateful operators of micro-batches so that each registers its planner."""

from __future__ import annotations

import importlib

for _name in ("state.aggregate", "state.dedup", "state.join", "state.group_state_exec", "state.limit"):
    try:
        importlib.import_module(f"{__package__}.{_name}")
    except ModuleNotFoundError as exc:  # an operator module not written yet
        if exc.name != f"{__package__}.{_name}":
            raise
