"""Every example takes the same options, documents each of them, and ``--batches N`` runs
exactly N batches; no file or folder beside an example shadows a module it imports.

The examples are found by listing ``examples/``, so a new example is checked too.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import sys
from types import ModuleType

import pytest

from tests.integration.examples_runner import ROOT, Example

pytestmark = [pytest.mark.integration, pytest.mark.slow]

EXAMPLES = ROOT / "examples"
#: Every runnable example, relative to examples/ (helpers start with "_").
SCRIPTS = sorted(str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*.py")
                 if not p.name.startswith("_"))
#: The streaming examples, which take --batches; the Kafka one needs a broker and the
#: Kinesis one an endpoint (tests/kafka/test_example.py and tests/kinesis/test_example.py
#: run them the same way).
NEEDS_A_SERVICE = {"kafka_wordcount.py": ["host:1", "topic"],
                   "kinesis_wordcount.py": ["app", "stream", "http://127.0.0.1:1", "us-east-1"]}
STREAMING = [s for s in SCRIPTS if "/" not in s and s not in NEEDS_A_SERVICE]
#: The Structured Streaming examples, which take --batches N (micro-batches) and --master;
#: tests/sql/test_examples_structured.py checks that exactly N are printed.
QUERIES = [s for s in SCRIPTS if s.startswith("sql/streaming/")]
#: What the pprint of every batch prints first (recoverable_network_wordcount.py and
#: sql_network_wordcount.py print their own line per batch instead).
PPRINT_HEADER = "-" * 43 + "\nTime: "


def load(script: str) -> ModuleType:
    """Import an example as Python runs it: its own folder first on sys.path."""
    path = EXAMPLES / script
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def test_the_examples_are_found() -> None:
    assert "network_wordcount.py" in STREAMING and "batch/wordcount.py" in SCRIPTS
    assert len(STREAMING) >= 6
    assert "sql/streaming/structured_network_wordcount.py" in QUERIES and len(QUERIES) >= 4


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_option_has_help_text(script: str) -> None:
    parser = load(script).build_parser()
    assert parser.description
    for action in parser._actions:
        if action.help == argparse.SUPPRESS:
            continue  # a hidden alias (--batch-duration)
        name = action.option_strings or action.dest
        assert action.help and action.help.strip(), f"{script}: {name} has no help"


@pytest.mark.parametrize("script", STREAMING + sorted(NEEDS_A_SERVICE))
def test_the_streaming_examples_share_their_run_options(script: str) -> None:
    parser = load(script).build_parser()
    options = {option for action in parser._actions for option in action.option_strings}
    assert {"--batches", "--batch-interval", "--master"} <= options
    args = parser.parse_args([*NEEDS_A_SERVICE.get(script, []), "--batch-duration", "0.3"])
    assert args.batch_interval == 0.3  # the old name of queue_stream.py still works
    with pytest.raises(SystemExit):
        parser.parse_args(["--batches", "0"])


@pytest.mark.parametrize("script", QUERIES)
def test_the_structured_streaming_examples_share_their_query_options(script: str) -> None:
    parser = load(script).build_parser()
    options = {option for action in parser._actions for option in action.option_strings}
    assert {"--batches", "--master"} <= options
    with pytest.raises(SystemExit):
        parser.parse_args(["--batches", "0"])


@pytest.mark.parametrize("script", STREAMING)
def test_batches_n_runs_exactly_n_batches(script: str) -> None:
    example = Example(script, "--batches", "2", "--batch-interval", "0.3", "--master", "local")
    assert example.wait() == 0, example.stderr
    if script == "recoverable_network_wordcount.py":
        assert example.stdout.count("Counts at time ") == 2, example.stdout
    elif script == "sql_network_wordcount.py":
        assert example.stdout.count("========= ") == 2, example.stdout  # Spark's example's header per batch
    else:
        assert example.stdout.count(PPRINT_HEADER) == 2, example.stdout
    assert "Traceback" not in example.stderr


def importable_names() -> set[str]:
    """Top-level names an example may import: ours, our dependencies', the standard library's."""
    dependencies = importlib.metadata.packages_distributions()
    return {"rdd", "dstream", *sys.stdlib_module_names, *dependencies}


def test_nothing_beside_an_example_shadows_a_module() -> None:
    # Python puts the script's folder first on sys.path: a folder or file there named
    # like a package (examples/rdd/ was one) replaces it for the example.
    folders = sorted({(EXAMPLES / script).parent for script in SCRIPTS})
    names = importable_names()
    clashes = [str(entry.relative_to(ROOT)) for folder in folders for entry in folder.iterdir()
               if (entry.is_dir() and entry.name in names and entry.name != "__pycache__")
               or (entry.suffix == ".py" and entry.stem in names)]
    assert not clashes, f"these shadow a module of the same name when an example runs: {clashes}"
