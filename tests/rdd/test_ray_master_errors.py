"""Master ``ray`` without Ray installed fails at once and names the extra to install."""

from __future__ import annotations

import sys

import pytest

from rdd import SparkContext


def test_master_ray_without_the_ray_package_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                                           no_active_context: None) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(ImportError, match=r"master 'ray' needs the Ray package.*pip install 'dstreams\[ray\]'"):
        SparkContext("ray", "no-ray")
    assert getattr(SparkContext, "_active_spark_context", None) is None
