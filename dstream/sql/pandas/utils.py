"""The version checks of ``pyspark.sql.pandas.utils``: fail early when pandas, PyArrow or NumPy is
missing or older than PySpark 4.0 supports.

Invariants
----------
* Each check is silent when the package is installed at (or above) PySpark's minimum
  version; otherwise it raises ``PySparkImportError`` with PySpark's error class,
  ``PACKAGE_NOT_INSTALLED`` or ``UNSUPPORTED_PACKAGE_VERSION``, and its message.
"""

from __future__ import annotations

import importlib
import os
import re
from types import ModuleType

from ..errors import PySparkImportError, PySparkRuntimeError

__all__ = ["require_minimum_numpy_version", "require_minimum_pandas_version", "require_minimum_pyarrow_version"]

# PySpark 4.0's minimum versions (its setup's extras and pandas/utils.py).
MINIMUM_PANDAS_VERSION = "2.0.0"
MINIMUM_PYARROW_VERSION = "11.0.0"
MINIMUM_NUMPY_VERSION = "1.21"


def _version_key(version: str) -> tuple[int, ...]:
    """The leading numbers of a version (``"2.2.3rc1"`` -> ``(2, 2, 3)``), compared as PySpark's LooseVersion does
    for release versions."""
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0])[:3])


def _require(module_name: str, package_name: str, minimum: str) -> ModuleType:
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise PySparkImportError(
            f"{package_name} >= {minimum} must be installed; however, it was not found.", "PACKAGE_NOT_INSTALLED",
            {"package_name": package_name, "minimum_version": minimum}) from error
    version = getattr(module, "__version__", None)
    if version is None:  # a stub package (pandas-stubs) imports without being pandas
        raise PySparkImportError(
            f"{package_name} >= {minimum} must be installed; however, it was not found.", "PACKAGE_NOT_INSTALLED",
            {"package_name": package_name, "minimum_version": minimum})
    if _version_key(str(version)) < _version_key(minimum):
        raise PySparkImportError(
            f"{package_name} >= {minimum} must be installed; however, your version is {version}.",
            "UNSUPPORTED_PACKAGE_VERSION",
            {"package_name": package_name, "minimum_version": minimum, "current_version": str(version)})
    return module


def require_minimum_pandas_version() -> None:
    """Raise ``PySparkImportError`` unless pandas >= 2.0.0 is installed."""
    _require("pandas", "Pandas", MINIMUM_PANDAS_VERSION)


def require_minimum_pyarrow_version() -> None:
    """Raise ``PySparkImportError`` unless PyArrow >= 11.0.0 is installed.

    Also refuses ``ARROW_PRE_0_15_IPC_FORMAT=1`` (``ARROW_LEGACY_IPC_FORMAT``), as PySpark does:
    the legacy IPC format is gone from Arrow.
    """
    _require("pyarrow", "PyArrow", MINIMUM_PYARROW_VERSION)
    if os.environ.get("ARROW_PRE_0_15_IPC_FORMAT", "0") == "1":
        raise PySparkRuntimeError(
            "Arrow legacy IPC format is not supported in PySpark, please unset ARROW_PRE_0_15_IPC_FORMAT.",
            "ARROW_LEGACY_IPC_FORMAT", {})


def require_minimum_numpy_version() -> None:
    """Raise ``PySparkImportError`` unless NumPy >= 1.21 is installed."""
    _require("numpy", "NumPy", MINIMUM_NUMPY_VERSION)
