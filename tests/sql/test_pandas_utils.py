"""``dstream.sql.pandas.utils``: PySpark's version checks (``require_minimum_pandas_version``...).

Spark's examples (``sql/arrow.py``, ``sql/udtf.py``) import and call them first; the
messages are PySpark 4.0.1's ``PACKAGE_NOT_INSTALLED`` / ``UNSUPPORTED_PACKAGE_VERSION``.
"""

from __future__ import annotations

import pytest

from dstream.sql.errors import PySparkImportError
from dstream.sql.pandas.functions import PandasUDFType, pandas_udf
from dstream.sql.pandas.utils import (
    _require,
    require_minimum_numpy_version,
    require_minimum_pandas_version,
    require_minimum_pyarrow_version,
)


def test_version_checks_pass_silently_with_the_installed_packages() -> None:
    assert require_minimum_pandas_version() is None
    assert require_minimum_pyarrow_version() is None
    assert require_minimum_numpy_version() is None


def test_a_missing_package_is_package_not_installed() -> None:
    with pytest.raises(PySparkImportError) as missing:
        _require("no_such_package_here", "Pandas", "2.0.0")
    assert missing.value.getCondition() == "PACKAGE_NOT_INSTALLED"
    assert missing.value.getMessageParameters() == {"package_name": "Pandas", "minimum_version": "2.0.0"}
    assert str(missing.value) == "[PACKAGE_NOT_INSTALLED] Pandas >= 2.0.0 must be installed; however, it was not found."
    assert isinstance(missing.value, ImportError)


def test_an_old_package_is_unsupported_package_version() -> None:
    import pyarrow

    with pytest.raises(PySparkImportError) as old:
        _require("pyarrow", "PyArrow", "999.0.0")
    assert old.value.getCondition() == "UNSUPPORTED_PACKAGE_VERSION"
    assert str(old.value) == ("[UNSUPPORTED_PACKAGE_VERSION] PyArrow >= 999.0.0 must be installed; however, your "
                              f"version is {pyarrow.__version__}.")


def test_pandas_functions_module_offers_pandas_udf() -> None:
    assert callable(pandas_udf)
    assert PandasUDFType.SCALAR == 200
