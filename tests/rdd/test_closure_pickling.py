"""The closure pickler's fast path: the C pickler's bytes only where a worker loads them the same.

``rdd.serialization.pickler.dumps`` keeps the C pickler's output for closures that reference
importable modules only, and hands everything else to cloudpickle. These tests load the
payloads in a fresh interpreter, as a worker started by exec does, so a reference the
worker cannot resolve fails here.
"""

from __future__ import annotations

import functools
import operator
import pickle
import subprocess
import sys
import textwrap
import types

import cloudpickle

from rdd.serialization import pickler


def _load_in_fresh_interpreter(payload: bytes, call_with: object) -> str:
    """Unpickle ``payload`` in a new Python process, call it with ``call_with``; its repr."""
    code = textwrap.dedent("""
        import pickle, sys
        fn = pickle.loads(sys.stdin.buffer.read())
        print(repr(fn(%r)))
    """) % (call_with,)
    done = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode().strip()


def test_importable_closures_take_the_c_pickler_path() -> None:
    closure = functools.partial(operator.mul, 3)
    assert pickler.dumps(closure) == pickle.dumps(closure, protocol=5)
    assert _load_in_fresh_interpreter(pickler.dumps(closure), 7) == "21"


def test_lambdas_and_nested_functions_go_to_cloudpickle() -> None:
    offset = 5

    def add(x: int) -> int:
        return x + offset

    for fn in (add, lambda x: x * offset):
        payload = pickler.dumps(fn)
        assert payload == cloudpickle.dumps(fn, protocol=5) or b"_code_with_filename" in payload
        assert _load_in_fresh_interpreter(payload, 2) in ("7", "10")


def test_a_module_registered_by_value_is_shipped_by_value() -> None:
    module = types.ModuleType("dstreams_runtime_module")
    exec("def triple(x):\n    return 3 * x\n", module.__dict__)  # noqa: S102 - the point of the test
    sys.modules[module.__name__] = module
    cloudpickle.register_pickle_by_value(module)
    try:
        closure = functools.partial(module.triple)
        # The C pickler references the module by name, which a worker cannot import.
        assert b"dstreams_runtime_module" in pickle.dumps(closure, protocol=5)
        assert _load_in_fresh_interpreter(pickler.dumps(closure), 4) == "12"
    finally:
        cloudpickle.unregister_pickle_by_value(module)
        del sys.modules[module.__name__]


def test_main_module_functions_are_shipped_by_value(tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent("""
        import functools, pickle, sys
        sys.path.insert(0, sys.argv[1])
        from rdd.serialization import pickler

        def square(x):
            return x * x

        sys.stdout.buffer.write(pickler.dumps(functools.partial(square)))
    """))
    import rdd

    root = str(__import__("pathlib").Path(rdd.__file__).parent.parent)
    made = subprocess.run([sys.executable, str(script), root], capture_output=True, timeout=60, check=True)
    assert _load_in_fresh_interpreter(made.stdout, 9) == "81"
