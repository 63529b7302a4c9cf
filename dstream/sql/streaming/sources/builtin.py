"""Imports every built-in source module so that each registers its formats."""

from __future__ import annotations

from . import files, kafka, rate, socket  # noqa: F401
