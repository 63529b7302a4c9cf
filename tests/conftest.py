"""Shared pytest configuration: Hypothesis profiles, SparkContext fixtures, file helpers.

Hypothesis profiles
-------------------
``ci`` (the default) is derandomized, has no deadline (no timings in tests) and no
example database, so a run is reproducible on any machine. ``dev`` draws fresh random
examples, keeps the database and runs fewer examples per property, for quick local
iteration. ``fast`` is ``ci`` with a few examples per property (what ``make test-fast``
uses). Pick one with ``HYPOTHESIS_PROFILE=dev``. The number of examples per property and
per master lives in :data:`tests.strategies.EXAMPLES`.

Contexts: why the fixtures are shaped like this
-----------------------------------------------
PySpark allows one active ``SparkContext`` per process, and so do we. Three fixtures
hand out contexts and all of them go through one session-wide :class:`ContextPool`,
which holds **at most one** shared context at a time:

``sc``
    A fresh ``SparkContext('local')`` for one test, stopped afterwards. Before it is
    created the pool's shared context (if any) is stopped, so ``sc`` and a shared
    context are never alive together.
``make_sc``
    A factory of fresh contexts of any master, all stopped after the test; for tests
    that damage or reconfigure their context (killed workers, checkpoint directories,
    special settings) so that the shared one stays clean.
``sc2``
    The shared ``SparkContext('local[2]')``. It is started lazily, kept across tests
    *and modules* (so the two worker processes are started once, not per test), and
    only stopped when a test asks for something else (``sc``, ``no_active_context`` or
    another master) or at the end of the session. Keep tests that use ``sc2`` together
    in a module: interleaving them with ``sc`` tests is correct but restarts the
    workers each time.
``ctx``
    Module-scoped and parametrized over ``local`` and ``local[2]``; it is what the
    property tests use. Because it is a module-scoped parametrized fixture, pytest
    reorders a module's tests so that all ``local`` runs come first and all
    ``local[2]`` runs after, and the context is switched once per module. While
    ``ctx`` is live the pool is *pinned*: a test of the same module asking for ``sc``
    fails with an explanation instead of silently stopping the context under ``ctx``.

Tests that create contexts themselves (``tests/rdd/test_context.py``,
``tests/rdd/test_failures.py``) use ``no_active_context``: it stops the shared context
first and, afterwards, stops whatever context the test left active, so one failing
test does not make every later test fail with "a SparkContext is already active".

Timeouts
--------
Every test gets a ``pytest-timeout`` deadline (:data:`DEFAULT_TIMEOUT_S`) unless it
has its own ``timeout`` marker or ``--timeout`` is given: a deadlock fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import os
import re
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

from tests.kafka.fixtures import kafka, kafka_bootstrap, report_lines
from tests.ray_cluster import RAY_MASTER, ray_cluster

if TYPE_CHECKING:  # the engine is imported lazily: conftest must load even if it is broken
    from rdd import SparkContext

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# `make test-fast`: as `ci` (derandomized, reproducible) with a few examples per property.
settings.register_profile(
    "fast",
    max_examples=10,
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: The suite's Spark defaults (tests/conf/spark-defaults.conf: the web UI off), read by every
#: SparkConf the tests make, and by the programs they start (the variable is inherited).
TESTS_CONF_DIR = str(Path(__file__).resolve().parent / "conf")
os.environ["SPARK_CONF_DIR"] = TESTS_CONF_DIR
os.environ.pop("SPARK_HOME", None)
#: The machine's zone, pinned: naive Python datetimes are wall times in it (as in PySpark),
#: so the expected values of the tests hold on any contributor's machine. Workers inherit it;
#: a test that needs another zone sets TZ (and calls time.tzset) itself.
os.environ["TZ"] = "UTC"
time.tzset()

#: Deadline of a test that does not set its own ``@pytest.mark.timeout``.
DEFAULT_TIMEOUT_S = 300

LOCAL = "local"
LOCAL2 = "local[2]"

#: Settings for the soak tests that check memory stays flat over thousands of batches. The
#: web UI stays on, as it is by default; its stores grow up to their retention limits and
#: then stay there, and these small limits put that plateau inside the tests' warm-up.
SMALL_UI_RETENTION = {
    "spark.ui.enabled": "true",
    "spark.ui.retainedJobs": "20",
    "spark.ui.retainedStages": "20",
    "spark.ui.retainedTasks": "200",
    "spark.streaming.ui.retainedBatches": "20",
    "spark.sql.streaming.ui.retainedProgressUpdates": "20",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--ray", action="store_true", default=False,
        help="run on Ray (`make test-ray`): the `ctx` and `sc2` contexts use master 'ray' on "
             "the session's local Ray cluster, and the tests marked `ray` run (without this "
             "option they are deselected)",
    )
    parser.addoption(
        "--fast", action="store_true", default=False,
        help="run only the tests that start no process (no worker pool, broker or driver "
             "subprocess) and are not marked slow (the soak tests): what `make test-fast` runs; "
             "a test that starts a process anyway fails",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark tests that start processes; with ``--fast`` drop them; give every test a deadline."""
    for item in items:
        if starts_processes(item):
            item.add_marker(pytest.mark.processes)
    if not config.getoption("ray"):
        on_ray = [item for item in items if item.get_closest_marker("ray") is not None]
        if on_ray:
            config.hook.pytest_deselected(items=on_ray)
            items[:] = [item for item in items if item.get_closest_marker("ray") is None]
    if config.getoption("fast"):
        kept = [item for item in items if item.get_closest_marker("processes") is None
                and item.get_closest_marker("slow") is None]
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = kept
    if config.getoption("timeout", None):
        return
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(DEFAULT_TIMEOUT_S))


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("fast"):
        sys.addaudithook(_refuse_processes)


# --------------------------------------------------------------------------- test-fast
#
# `make test-fast` (pytest --fast) runs every test that starts no process, except the soak
# tests marked `slow` (thousands of batches, for leaks). Which tests start a process is
# decided here, from what a test asks for, never by hand:
#   - its folder: tests/integration and tests/kafka drive real drivers, brokers, servers;
#   - its fixtures and parameters: `sc2`, `kafka*`, `ctx` on local[2], a local[N] master,
#     a parameter object with `processes = True` (an executor backend, say);
#   - its body or the bodies of the fixtures it uses (a local[N] master, subprocess,
#     multiprocessing, sys.executable: a child interpreter, RDD.pipe: a command), or its
#     module's helpers that start child processes.
# The rule is checked while --fast runs: an audit hook fails any test that starts a
# process anyway, naming it, so a test the rule misses cannot slip into the fast run.

_PROCESS_FOLDERS = ("integration", "kafka")
_PROCESS_FIXTURES = frozenset({"sc2", "kafka", "kafka_bootstrap", "browser"})  # browser: tests/ui (chromium)
_MULTI_PROCESS_MASTER = re.compile(r"local\[(\d+|\*)\]")
_CHILD_PROCESS = re.compile(r"subprocess|multiprocessing|sys\.executable|Popen|os\.fork|\.pipe\(")
_PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn",
                             "os.exec", "os.system"})
_source_cache: dict[object, str] = {}


def starts_processes(item: pytest.Item) -> bool:
    """Whether ``item`` starts a process (a worker pool, broker, server or driver)."""
    path = Path(str(item.fspath))
    if any(part in _PROCESS_FOLDERS for part in path.relative_to(Path(__file__).parent).parts[:-1]):
        return True
    fixtures = set(getattr(item, "fixturenames", ()))
    if fixtures & _PROCESS_FIXTURES:
        return True
    callspec = getattr(item, "callspec", None)
    params = dict(callspec.params) if callspec is not None else {}
    if any((isinstance(value, str) and _MULTI_PROCESS_MASTER.fullmatch(value))
           or getattr(value, "processes", False) is True for value in params.values()):
        return True
    if "ctx" in fixtures and params.get("ctx") != LOCAL:
        return True
    if _CHILD_PROCESS.search(_source(item.module)):
        return True
    functions = [getattr(item, "function", None)]
    fixture_info = getattr(item, "_fixtureinfo", None)
    for definitions in (fixture_info.name2fixturedefs.values() if fixture_info is not None else ()):
        functions.extend(definition.func for definition in definitions)
    return any(map(code_starts_processes, map(_source, functions)))


def code_starts_processes(code: str) -> bool:
    """Whether running ``code`` (a test's body, a fixture's, a module's doctests) starts a process."""
    return bool(_CHILD_PROCESS.search(code) or _MULTI_PROCESS_MASTER.search(code))


def _source(obj: object) -> str:
    """The source of a module or of a function's body (decorators, parametrize lists, aside)."""
    if obj is None:
        return ""
    if obj not in _source_cache:
        try:
            text = inspect.getsource(obj)  # type: ignore[arg-type]
        except (OSError, TypeError):
            text = ""
        if inspect.isfunction(obj):
            text = _code_of(text)
        _source_cache[obj] = text
    return _source_cache[obj]


def _code_of(source: str) -> str:
    """A function's code without its decorators, docstring and comments."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return source
    function = tree.body[0]
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return source
    function.decorator_list = []
    if function.body and isinstance(function.body[0], ast.Expr) and isinstance(
            getattr(function.body[0], "value", None), ast.Constant) and isinstance(function.body[0].value.value, str):
        function.body = function.body[1:] or [ast.Pass()]
    return ast.unparse(function)


def _refuse_processes(event: str, args: tuple[Any, ...]) -> None:
    if event in _PROCESS_EVENTS:
        test = os.environ.get("PYTEST_CURRENT_TEST", "a test")
        raise RuntimeError(
            f"{test} started a process ({event}) during `make test-fast`, which runs only tests that "
            "start none. tests/conftest.py decides which tests start processes from their folder, "
            "fixtures and source; make the rule see this one (for example a fixture name in "
            "_PROCESS_FIXTURES)"
        )


# --------------------------------------------------------------------------- contexts


def new_context(master: str, app_name: str = "dstreams-tests") -> SparkContext:
    """Create a SparkContext (imported lazily so a broken engine fails tests, not collection)."""
    from rdd import SparkContext

    return SparkContext(master, app_name)


def stop_active_context() -> None:
    """Stop the process's active SparkContext, if any (PySpark's class attribute)."""
    from rdd import SparkContext

    active = getattr(SparkContext, "_active_spark_context", None)
    if active is not None:
        active.stop()


class ContextPool:
    """Holds at most one shared SparkContext for the session; see the module docstring."""

    def __init__(self) -> None:
        self._sc: SparkContext | None = None
        self._pinned_by: str | None = None

    def get(self, master: str) -> SparkContext:
        """Return the shared context for ``master``, switching contexts if needed."""
        if self._sc is not None and (self._sc.master != master or not _is_active(self._sc)):
            self.evict(reason=f"a test asked for {master!r}")
        if self._sc is None:
            stop_active_context()  # a context leaked by an earlier test
            self._sc = new_context(master, f"dstreams-tests-shared-{master}")
        return self._sc

    def pin(self, owner: str) -> None:
        self._pinned_by = owner

    def unpin(self) -> None:
        self._pinned_by = None

    def evict(self, reason: str) -> None:
        """Stop the shared context (if any)."""
        if self._pinned_by is not None:
            pytest.fail(
                f"{reason}, but the shared context is in use by {self._pinned_by} for this whole "
                "module: do not mix the module-scoped `ctx` fixture with `sc`, `sc2` of another "
                "master or `no_active_context` in one module",
                pytrace=False,
            )
        sc, self._sc = self._sc, None
        if sc is not None:
            sc.stop()


def _is_active(sc: SparkContext) -> bool:
    from rdd import SparkContext

    return getattr(SparkContext, "_active_spark_context", None) is sc


@pytest.fixture(scope="session")
def context_pool() -> Iterator[ContextPool]:
    pool = ContextPool()
    yield pool
    pool.unpin()
    pool.evict(reason="the session ended")


@pytest.fixture
def no_active_context(context_pool: ContextPool) -> Iterator[None]:
    """No context is active when the test starts; none is left active when it ends."""
    context_pool.evict(reason="a test needs the process to have no active context")
    stop_active_context()
    yield
    stop_active_context()


@pytest.fixture
def sc(no_active_context: None) -> Iterator[SparkContext]:
    """A fresh ``SparkContext('local')`` for this test only."""
    context = new_context(LOCAL, "dstreams-tests-sc")
    try:
        yield context
    finally:
        context.stop()


@pytest.fixture
def make_sc(no_active_context: None) -> Iterator[Callable[..., SparkContext]]:
    """A factory of fresh contexts for this test: ``make_sc("local[2]")``; all stopped afterwards.

    For tests that damage or reconfigure their context (killed workers, a checkpoint
    directory, special settings), so the shared one stays clean.
    """
    made: list[SparkContext] = []

    def make(master: str = LOCAL, conf: Any = None) -> SparkContext:
        from rdd import SparkContext

        context = SparkContext(master, "dstreams-tests-made", conf=conf)
        made.append(context)
        return context

    try:
        yield make
    finally:
        for context in made:
            context.stop()


@pytest.fixture
def sc2(request: pytest.FixtureRequest, context_pool: ContextPool) -> SparkContext:
    """The session's shared ``SparkContext('local[2]')`` (two worker processes).

    With ``--ray`` it is a ``SparkContext('ray')`` on the session's Ray cluster instead.
    """
    if request.config.getoption("ray"):
        request.getfixturevalue("ray_cluster")
        return context_pool.get(RAY_MASTER)
    return context_pool.get(LOCAL2)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``ctx`` runs each module on ``local`` and ``local[2]``; with ``--ray``, on ``ray``."""
    if "ctx" in metafunc.fixturenames:
        if metafunc.config.getoption("ray"):
            metafunc.parametrize("ctx", [RAY_MASTER], ids=["ray"], indirect=True, scope="module")
        else:
            metafunc.parametrize("ctx", [LOCAL, LOCAL2], ids=["local", "local2"], indirect=True, scope="module")


@pytest.fixture(scope="module")
def ctx(request: pytest.FixtureRequest, context_pool: ContextPool) -> Iterator[SparkContext]:
    """A context per master, shared by a module's tests (property tests use this)."""
    if request.param == RAY_MASTER:
        request.getfixturevalue("ray_cluster")
    context = context_pool.get(request.param)
    context_pool.pin(f"the `ctx` fixture of {request.module.__name__}")
    try:
        yield context
    finally:
        context_pool.unpin()


# --------------------------------------------------------------------------- files


class FileMaker:
    """Unique files and directories under one ``tmp_path``.

    Hypothesis runs many examples inside one test, so one ``tmp_path`` is shared by all
    of them; every call here returns a new name, so examples never see each other's
    files.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._counter = itertools.count()

    def path(self, prefix: str = "f") -> Path:
        """A fresh path that does not exist yet."""
        return self.root / f"{prefix}-{next(self._counter)}"

    def new_dir(self, prefix: str = "d") -> Path:
        """A fresh, empty directory."""
        path = self.path(prefix)
        path.mkdir()
        return path

    def text(self, content: str, name: str | None = None, directory: Path | None = None) -> Path:
        """Write ``content`` as UTF-8 exactly as given (no newline translation)."""
        path = (directory / name) if (directory is not None and name is not None) else self.path("t")
        path.write_bytes(content.encode("utf-8"))
        return path


@pytest.fixture
def files(tmp_path: Path) -> FileMaker:
    """Make unique files and directories under this test's ``tmp_path``."""
    return FileMaker(tmp_path)


@pytest.fixture
def examples_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Send ``tempfile``'s directories to this test's ``tmp_path``.

    Documentation examples make scratch directories with ``tempfile.mkdtemp()``, as a
    user would, and do not remove them (that would only clutter the example): run
    under this fixture, they go where pytest cleans up instead of piling up in /tmp.
    """
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how the session's Kafka broker was started and stopped (when a test used it)."""
    for line in report_lines():
        terminalreporter.write_line(line)


__all__ = ["kafka", "kafka_bootstrap", "ray_cluster"]
