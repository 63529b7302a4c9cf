"""Executor backends: where tasks run (inline in the driver, or worker processes)."""
