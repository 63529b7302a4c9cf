"""``python -m dstream`` and the ``dstreams`` command: print the version or run a script.

``dstreams --version`` prints the installed version. ``dstreams SCRIPT [ARGS...]``
runs a PySpark-style program as ``python SCRIPT ARGS...`` would (the counterpart of
``spark-submit`` for one machine: there is nothing to submit to).
"""

from __future__ import annotations

import argparse
import runpy
import sys

from rdd import __version__


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``dstreams`` command; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="dstreams",
        description="Spark's RDD engine and Spark Streaming's DStreams in pure Python.",
    )
    parser.add_argument("--version", action="version", version=f"dstreams {__version__}")
    parser.add_argument("script", nargs="?", help="a Python program to run (as `python SCRIPT`)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to SCRIPT")
    options = parser.parse_args(argv)
    if options.script is None:
        parser.print_help()
        return 0
    sys.argv = [options.script, *options.args]
    runpy.run_path(options.script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
