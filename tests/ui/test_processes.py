"""Two applications in two processes get two UI ports; creating a context does not import tornado.

Both start a child interpreter (which is why they are apart from test_server.py: ``make
test-fast`` skips the tests of modules that start processes).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable

from rdd import SparkContext

from tests.ui.ports import free_port_run, http


def test_two_applications_get_different_ports(ui_context: Callable[..., SparkContext]) -> None:
    port = free_port_run(3)
    sc = ui_context(spark_ui_port=str(port))
    child = textwrap.dedent(f"""
        import sys
        from rdd import SparkConf, SparkContext
        sc = SparkContext("local", "second", conf=SparkConf().set("spark.ui.port", "{port}"))
        print(sc.uiWebUrl, flush=True)
        sys.stdin.read()  # keep the UI up until the parent has looked at it
        sc.stop()
    """)
    proc = subprocess.Popen([sys.executable, "-c", child], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        other = proc.stdout.readline().strip()
        assert sc.uiWebUrl == f"http://127.0.0.1:{port}"
        assert other == f"http://127.0.0.1:{port + 1}"
        assert http(f"{other}/api/v1/applications")[0] == 200
    finally:
        proc.communicate("", timeout=30)
    assert proc.returncode == 0


def test_creating_a_context_does_not_import_tornado() -> None:
    code = "import sys, rdd.context, rdd.ui.web_ui; print(any(m.startswith('tornado') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"
