"""Imports every built-in sink module so that each registers its formats."""

from __future__ import annotations

import importlib

for _name in ("memory", "console", "foreach", "files", "kafka"):
    try:
        importlib.import_module(f"{__package__}.{_name}")
    except ModuleNotFoundError as exc:  # a sink module not written yet
        if exc.name != f"{__package__}.{_name}":
            raise
