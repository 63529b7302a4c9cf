"""Command line of the benchmarks: ``python -m bench [--quick] [MODULE ...]``.

This module owns module discovery and where the report goes. Every ``bench/bench_<name>.py``
is a module named ``<name>``; with no names given, all of them run. A full run merges each
module's section into ``bench/RESULTS.md`` (the sections of modules that did not run are
kept). A ``--quick`` run is a smoke test on small inputs: its report goes to
``bench/_data/RESULTS-quick.md`` so that it never replaces real figures, unless
``--output`` says otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import shlex
import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import bench
from bench.harness import QUICK_RESULTS_PATH, RESULTS_PATH, Machine, Options, render_section, write_report

PREFIX = "bench_"
QUICK = Options(quick=True, lines=100_000, repeat=3, latency_samples=100)
FULL = Options()


def available_modules() -> list[str]:
    """Return the names of the benchmark modules, sorted (``rdd`` for ``bench_rdd``)."""
    return sorted(info.name[len(PREFIX):] for info in pkgutil.iter_modules(bench.__path__)
                  if info.name.startswith(PREFIX))


def load(name: str) -> ModuleType:
    """Import the benchmark module called ``name``."""
    return importlib.import_module(f"bench.{PREFIX}{name}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line (see ``python -m bench --help``)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Run the benchmarks and merge their results into bench/RESULTS.md.")
    parser.add_argument("modules", nargs="*", metavar="MODULE",
                        help=f"modules to run (default: all of {', '.join(available_modules())})")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run on a {QUICK.lines:,}-line corpus; report to "
                             "bench/_data/RESULTS-quick.md")
    parser.add_argument("--lines", type=int, help="corpus lines (default 1,000,000)")
    parser.add_argument("--repeat", type=int, help="timed runs per throughput case (default 5)")
    parser.add_argument("--output", type=Path, help="report file to merge the results into")
    parser.add_argument("--list", action="store_true", help="list the modules and exit")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the selected benchmark modules and write the report; return the exit status."""
    args = parse_args(argv)
    known = available_modules()
    if args.list:
        for name in known:
            print(f"{name}: {load(name).TITLE}")
        return 0
    unknown = [name for name in args.modules if name not in known]
    if unknown:
        print(f"unknown benchmark module(s) {', '.join(unknown)}; "
              f"choose from {', '.join(known)}", file=sys.stderr)
        return 2
    options = QUICK if args.quick else FULL
    if args.lines is not None:
        options = replace(options, lines=args.lines)
    if args.repeat is not None:
        options = replace(options, repeat=args.repeat)
    output = args.output or (QUICK_RESULTS_PATH if args.quick else RESULTS_PATH)
    command = shlex.join(["python", "-m", "bench", *(sys.argv[1:] if argv is None else argv)])

    sections: dict[str, str] = {}
    failed: list[str] = []
    for name in args.modules or known:
        machine = Machine.current()
        started = time.perf_counter()
        print(f"bench {name}: running ({'quick' if options.quick else 'full'})", flush=True)
        try:
            module = load(name)
            benchmarks = module.run(options)
        except Exception:
            traceback.print_exc()
            print(f"bench {name}: FAILED; its section in {output} is left as it was",
                  file=sys.stderr)
            failed.append(name)
            continue
        sections[name] = render_section(name, module.TITLE, machine, options, command,
                                        benchmarks)
        print(sections[name])
        print(f"bench {name}: done in {time.perf_counter() - started:.1f} s", flush=True)

    if sections:
        write_report(output, sections)
        print(f"wrote {output}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
