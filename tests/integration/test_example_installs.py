"""Every example runs against an installed dstreams, editable or not, from outside the repo.

``make venv`` installs in setuptools' compat editable mode, which puts the repository
root on ``sys.path``; the standard modes do not, and there a folder beside an example
named like a package (``examples/rdd/`` once) replaced the real package:
``ImportError: cannot import name 'StorageLevel' from 'rdd' (unknown location)``.

Each install goes into a fresh virtual environment without pip, made by ``pip --python``
from a copy of the project's sources (the repository stays untouched); the dependencies
come from this interpreter's environment through a ``.pth`` line, which adds that
folder to ``sys.path`` without running its own ``.pth`` files (so not the compat
install's repository path). The examples run from a temporary working directory with
no ``PYTHONPATH``. pip builds the project in an isolated environment: it needs the
package index, as ``make venv`` does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cloudpickle
import pytest

from tests.integration.examples_runner import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]

EXAMPLES = ROOT / "examples"
STREAMING_ARGS = ["--batches", "1", "--batch-interval", "0.2", "--master", "local"]
#: How each example runs here. The Kafka examples need a broker and the Kinesis one an
#: endpoint: here only that they import and parse their options (tests/kafka/test_example.py,
#: tests/kinesis/test_example.py and tests/sql/test_examples_structured.py run them).
#: Of the Structured Streaming examples one runs (it loads the whole engine from the
#: installed package); the others share its code paths and only parse their options here
#: (tests/sql/test_examples_structured.py runs them all).
RUNS = {
    "batch/wordcount.py": ["--lines", "200", "--top", "3", "--master", "local"],
    "kafka_wordcount.py": ["--help"],
    "kinesis_wordcount.py": ["--help"],
    "sql/wordcount.py": ["--lines", "200", "--top", "3", "--master", "local"],
    "sql/csv_join.py": ["--customers", "20", "--orders", "100", "--master", "local"],
    "sql/json_aggregate.py": ["--records", "100", "--master", "local"],
    "sql/python_data_source.py": ["--rows", "100", "--master", "local"],
    "sql/streaming/structured_kafka_wordcount.py": ["--help"],
    "sql/streaming/structured_network_wordcount.py": ["--batches", "1", "--master", "local"],
    "sql/streaming/structured_network_wordcount_windowed.py": ["--help"],
    "sql/streaming/structured_sessionization.py": ["--help"],
}
INSTALL_TIMEOUT_S = 300  # pip fetches setuptools for the isolated build


def scripts() -> list[str]:
    return sorted(str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*.py")
                  if not p.name.startswith("_"))


def copy_sources(into: Path) -> Path:
    src = into / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.cfg", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for package in ("rdd", "dstream"):
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    return src


def install(tmp: Path, editable: bool) -> Path:
    """A virtual environment with dstreams installed from a copy of the sources."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run([str(python), "-c", purelib], check=True, capture_output=True,
                          text=True).stdout.strip()
    dependencies = Path(cloudpickle.__file__).resolve().parents[1]
    assert dependencies == Path(sysconfig.get_paths()["purelib"]).resolve()
    Path(site, "dstreams-test-dependencies.pth").write_text(f"{dependencies}\n")
    src = copy_sources(tmp)
    command = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
               "--no-deps", *(["-e"] if editable else []), str(src)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return python


@pytest.mark.parametrize("editable", [True, False], ids=["editable", "non-editable"])
def test_every_example_runs_against_an_installed_dstreams(tmp_path: Path, editable: bool) -> None:
    python = install(tmp_path, editable)
    where = subprocess.run([str(python), "-c", "import rdd; print(rdd.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(tmp_path), f"rdd was imported from {where}, not the install"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def failure(script: str) -> str | None:
        args = RUNS.get(script, STREAMING_ARGS)
        run = subprocess.run([str(python), str(EXAMPLES / script), *args], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)
        if run.returncode != 0 or "Traceback" in run.stderr:
            return f"{script} {' '.join(args)}: exit {run.returncode}\n{run.stderr[-2000:]}"
        return None

    # Two at a time: an example is mostly its interpreter starting and importing.
    with ThreadPoolExecutor(2) as pool:
        failures = [f for f in pool.map(failure, scripts()) if f is not None]
    assert not failures, "\n\n".join(failures)
