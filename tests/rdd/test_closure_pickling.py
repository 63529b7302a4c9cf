"""The closure pickler: cloudpickle's payloads, with its by-reference decisions remembered.

``rdd.serialization.pickler.dumps`` remembers which classes and functions cloudpickle
pickled by reference, so later closures skip that decision. These tests check the bytes
stay cloudpickle's, that the memory is dropped when the decision can change, that a
closure is traversed once, and load payloads in a fresh interpreter as a worker does.
"""

from __future__ import annotations

import functools
import operator
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


def test_importable_closures_pickle_as_cloudpickle_does_every_time() -> None:
    closure = functools.partial(operator.mul, 3)
    first, again = pickler.dumps(closure), pickler.dumps(closure)  # the second one uses the memory
    assert first == again == cloudpickle.dumps(closure, protocol=5)
    assert _load_in_fresh_interpreter(again, 7) == "21"


class _Counted:
    pickled = 0

    def __getstate__(self) -> dict[str, int]:
        _Counted.pickled += 1
        return {}


def test_a_closure_is_traversed_once() -> None:
    # A lambda beside an object whose pickling has a side effect (a warning, a count).
    before = _Counted.pickled
    pickler.dumps((_Counted(), lambda x: x))
    assert _Counted.pickled == before + 1


def test_lambdas_and_nested_functions_go_to_cloudpickle() -> None:
    offset = 5

    def add(x: int) -> int:
        return x + offset

    for fn in (add, lambda x: x * offset):
        payload = pickler.dumps(fn)
        assert payload == cloudpickle.dumps(fn, protocol=5) or b"_code_with_filename" in payload
        assert _load_in_fresh_interpreter(payload, 2) in ("7", "10")


def test_registering_a_module_by_value_after_it_was_remembered_ships_it_by_value() -> None:
    module = types.ModuleType("dstreams_runtime_module")
    exec("def triple(x):\n    return 3 * x\n", module.__dict__)  # noqa: S102 - the point of the test
    sys.modules[module.__name__] = module
    try:
        closure = functools.partial(module.triple)
        assert b"dstreams_runtime_module" in pickler.dumps(closure)  # by reference, and remembered
        cloudpickle.register_pickle_by_value(module)
        try:
            payload = pickler.dumps(closure)
            assert payload == cloudpickle.dumps(closure, protocol=5) or b"_code_with_filename" in payload
            del sys.modules[module.__name__]  # a worker cannot import it: only by value loads
            assert _load_in_fresh_interpreter(payload, 4) == "12"
        finally:
            cloudpickle.unregister_pickle_by_value(module)
    finally:
        sys.modules.pop(module.__name__, None)


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
