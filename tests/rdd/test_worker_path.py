"""Where an ``exec`` worker imports from: the driver's ``sys.path``, and nothing before it.

Each test starts a real driver process in a directory of its own, as a user runs a
script, and runs a ``local[2]`` job in real worker processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

DEADLINE_S = 120

_JOB = textwrap.dedent("""
    from rdd import SparkContext
    sc = SparkContext("local[2]", "worker-path")
    try:
        print(sc.parallelize(range(10), 2).map(lambda x: x * 2).sum())
    finally:
        sc.stop()
""")


def _repo_root() -> str:
    import rdd

    return os.path.dirname(os.path.dirname(os.path.abspath(rdd.__file__)))


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    # The engine comes from the repository (as an installed package would), not from cwd.
    env["PYTHONPATH"] = _repo_root()
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=DEADLINE_S)


def test_a_module_named_like_the_engine_in_the_current_directory_does_not_replace_it(tmp_path: Path) -> None:
    """``python -m`` would put the directory first: the workers would import this ``rdd.py``."""
    (tmp_path / "rdd.py").write_text("raise ImportError('the user\\'s rdd.py was imported')\n")
    (tmp_path / "dstream").mkdir()
    (tmp_path / "dstream" / "__init__.py").write_text("raise ImportError('the user\\'s dstream was imported')\n")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "job.py").write_text(_JOB)
    done = _run([sys.executable, str(scripts / "job.py")], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["90"]
    assert "imported" not in done.stderr


def test_a_driver_that_imports_from_the_current_directory_gives_it_to_its_workers(tmp_path: Path) -> None:
    """``python -c`` (or a REPL) puts the current directory on the driver's path as ``''``:
    the workers get it as an absolute path, so a function of a module there resolves."""
    (tmp_path / "helper_mod.py").write_text("def triple(x):\n    return 3 * x\n")
    program = ("import helper_mod\n"
               "from rdd import SparkContext\n"
               "sc = SparkContext('local[2]', 'worker-path')\n"
               "try:\n"
               "    print(sc.parallelize(range(10), 2).map(helper_mod.triple).sum())\n"
               "finally:\n"
               "    sc.stop()\n")
    done = _run([sys.executable, "-c", program], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["135"]
