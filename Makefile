# dstreams: developer entry points.
#
#   make venv     create .venv and install the project editable with its dev extra
#                 (test, lint and docs tools; only when pyproject.toml or setup.cfg changed)
#   make test     run the whole test suite     (PYTEST_ARGS='-k window -x' to pass options)
#   make test-ray the Ray backend's tests on a local 3-node Ray cluster (127.0.0.1 only)
#   make test-fast  the tests that start no process (no workers, broker, driver) and no
#                 soak test, with few Hypothesis examples: the inner loop, about 45 s
#   make lint     ruff (style, imports, naming, bugbear, pyupgrade) and mypy
#   make docs     build the documentation into docs/_build/html (warnings are errors)
#   make run      run the network word count    (HOST=localhost PORT=9999 for `nc -lk 9999`;
#                 RUN_ARGS='--batches 5' to pass options)
#   make bench    run the benchmarks and rewrite bench/RESULTS.md   (BENCH_ARGS='--quick rdd')
#   make clean    remove caches and build output; `make distclean` also removes .venv
#
# Needs only python3 (3.10+) and make.

PYTHON      ?= python3
VENV        ?= .venv
PY          := $(VENV)/bin/python
STAMP       := $(VENV)/.installed

PYTEST_ARGS ?=
RUN_ARGS    ?=
BENCH_ARGS  ?=

# `make run` runs the network word count (Spark's network_wordcount.py). With no HOST
# and PORT it reads from a built-in sample line server on 127.0.0.1; with
# `make run HOST=localhost PORT=9999` it reads from `nc -lk 9999`. Ctrl-C stops it.
HOST        ?=
PORT        ?=
MAIN_JOB    := examples/network_wordcount.py

.PHONY: venv test test-ray test-fast test-deps lint docs run bench clean distclean

venv: $(STAMP)

# Create the virtual environment. Some Debian/Ubuntu Pythons ship without ensurepip;
# as root we install python3-venv and try once more, otherwise we say what is missing.
$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "make: $(PYTHON) is missing or older than 3.10; run with PYTHON=python3.11" >&2; exit 1; }
	@echo "make: creating $(VENV) and installing dstreams into it (first run only, about a minute)..."
	@$(PYTHON) -m venv $(VENV) || { \
	  rm -rf $(VENV); \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: '$(PYTHON) -m venv' failed; installing python3-venv" >&2; \
	    apt-get update -qq && apt-get install -y -qq python3-venv && $(PYTHON) -m venv $(VENV); \
	  else \
	    echo "make: '$(PYTHON) -m venv' failed; install your distribution's python3-venv" >&2; \
	    exit 1; \
	  fi; }

# The stamp records a successful install; it is redone only when the packaging files
# change (or the venv is recreated), so `make test` stays instant.
$(STAMP): pyproject.toml setup.cfg | $(PY)
	@echo "make: installing dstreams (editable) and its test, lint and docs tools into $(VENV)..."
	@$(PY) -m pip install --quiet --quiet -e '.[dev]'
	@# matplotlib (the bench plots) builds its font cache at first use by running fc-list:
	@# build it here, so that no test starts that process (make test-fast allows none).
	@$(PY) -c 'import matplotlib.font_manager'
	@touch $@

# The tests start hundreds of Python processes (workers, drivers, examples), and pytest
# rewrites every test module's asserts: with bytecode caching off (PYTHONDONTWRITEBYTECODE,
# set on some machines) each of them compiles everything again, about 0.3 s a process and
# 8 s of collection. The test targets cache bytecode under .venv/pycache instead, out of
# the source tree, and every process they start inherits that. The benchmarks do the same:
# they measure what an installed package costs, and pip compiles a package's bytecode
# when it installs it (a fresh worker would otherwise compile the engine at every start).
CACHED_PY   := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache $(PY)
PYTEST      := $(CACHED_PY) -m pytest

# pytest exits 5 when it collects no test. That is an error by default; CI-style callers
# that must tolerate an empty selection pass ALLOW_NO_TESTS=1.
# What the tests need besides Python packages: netcat (the socket tests type into
# `nc -lk`) and Apache Kafka's jars (the Kafka tests start a real broker). Both steps
# are no-ops once done; the jars are cached in ~/.cache/dstreams/kafka.
test-deps:
	@bash scripts/ensure-netcat.sh
	@bash scripts/ensure-chromium.sh
	@bash scripts/kafka/kafka-maven.sh fetch >/dev/null
	@bash scripts/kinesis/kinesalite.sh fetch >/dev/null

test: venv test-deps
	@$(PYTEST) -q -p no:cacheprovider --durations=15 $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ] && [ "$(ALLOW_NO_TESTS)" = 1 ]; then \
	  echo "make test: no tests were collected"; rc=0; \
	fi; exit $$rc

# The same programs on master "ray": the backend conformance suite, the RDD and DStream
# operator property tests, the DStream operator and state tests (their `ctx` and `sc2`
# contexts run on Ray), the Kafka exactly-once test (its drivers join the cluster) and
# tests/ray (node loss, a killed
# state actor, locality, nothing left after stop), on one local Ray cluster per session.
RAY_TESTS := tests/ray tests/rdd/test_backend_conformance.py tests/property \
	tests/dstream/test_basic_operations.py tests/dstream/test_state_operations.py \
	tests/dstream/test_window_operations.py tests/dstream/test_output_operations.py \
	tests/kafka/test_recovery.py

test-ray: venv test-deps
	@$(PYTEST) -q -p no:cacheprovider --ray $(RAY_TESTS) $(PYTEST_ARGS)

# The tests that start no worker process, broker or driver (tests/conftest.py marks the
# others from their folder, fixtures and source; `--fast` drops them and fails any test
# that starts a process anyway).
test-fast: venv
	@HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-fast} $(PYTEST) -q -p no:cacheprovider --fast $(PYTEST_ARGS)

lint: venv
	@$(PY) -m ruff check rdd dstream tests examples bench scripts docs/conf.py
	@$(PY) -m mypy

docs: venv
	@$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "make docs: docs/_build/html/index.html"

# `set -m` (job control) runs the example in a process group of its own, in the terminal's
# foreground: Ctrl-C reaches the example only, so make exits with the example's status (0
# after a graceful stop). Otherwise make, which gets the Ctrl-C too, always reports
# "Interrupt" and exits 130. Without a terminal `set -m` does nothing (its warning is
# silenced).
run: venv
	@{ set -m; } 2>/dev/null; \
	if [ -n "$(HOST)$(PORT)" ]; then \
	  $(PY) $(MAIN_JOB) --host "$(or $(HOST),localhost)" --port "$(or $(PORT),9999)" $(RUN_ARGS); \
	else \
	  $(PY) $(MAIN_JOB) $(RUN_ARGS); \
	fi

bench: venv
	$(CACHED_PY) -m bench $(BENCH_ARGS)

clean:
	find . -path ./$(VENV) -prune -o -type d -name __pycache__ -print0 | xargs -0 -r rm -rf
	rm -rf .pytest_cache .hypothesis .mypy_cache .ruff_cache build dist *.egg-info bench/_data docs/_build

distclean: clean
	rm -rf $(VENV)
