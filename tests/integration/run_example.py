"""Run an example script as ``python <script> args...`` would, with the live inputs available.

``python -m tests.integration.run_example examples/network_wordcount.py --batches 3``

Until ``InputMethods`` is among ``StreamingContext``'s bases, this copies its methods onto
the class first (a no-op afterwards), so the examples can be tested before the wiring
lands. Nothing else differs from running the script directly.
"""

from __future__ import annotations

import os
import runpy
import sys


def install_inputs() -> None:
    from dstream.context import StreamingContext
    from dstream.context_inputs import InputMethods

    if issubclass(StreamingContext, InputMethods):
        return
    for name, value in vars(InputMethods).items():
        if not name.startswith("__") and not hasattr(StreamingContext, name):
            setattr(StreamingContext, name, value)


def main() -> None:
    script = sys.argv[1]
    install_inputs()
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
