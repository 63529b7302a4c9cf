"""``examples/queue_stream.py`` runs and prints PySpark's pprint blocks."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "queue_stream.py"


def test_queue_stream_example(no_active_context: None, capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("queue_stream_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module: Any = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(EXAMPLE.parent))  # as when Python runs the script: for _live
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    args = ["--batches", "2", "--batch-interval", "0.05", "--master", "local", "--timeout", "30"]
    assert module.main(args) == 0
    out = capsys.readouterr().out
    assert out.count("-" * 43 + "\nTime: ") == 2
    blocks = [block for block in out.split("\n\n") if block.strip()]
    assert len(blocks) == 2
    for block in blocks:
        records = block.splitlines()[3:]
        assert sorted(records) == sorted(f"({digit}, 100)" for digit in range(10))
