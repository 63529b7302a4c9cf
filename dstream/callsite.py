"""Where in user code an operation was defined: ``file:line`` for descriptions and errors.

Output operations carry it as their ``description`` (shown in ``OutputOperationInfo``),
and the one-active-context error names where the other context was started. Computed
once per registration, never per batch.
"""

from __future__ import annotations

import os
import sys

__all__ = ["user_call_site"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def user_call_site() -> str:
    """Return ``'file.py:123'`` of the innermost frame outside the ``dstream`` package."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_PACKAGE_DIR + os.sep):
            return f"{os.path.basename(filename)}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return "<unknown>"
