"""Imports the stateful operators of micro-batches so that each registers its planner."""

from __future__ import annotations

from .state import aggregate, dedup, group_state_exec, join, limit, transform_with_state_exec  # noqa: F401
