"""Imports every built-in sink module so that each registers its formats."""

from __future__ import annotations

from . import console, files, kafka, memory  # noqa: F401
