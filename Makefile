# President RL environment: the two commands a new user needs are `make demo` and `make test`.
# Each creates its own virtual environment (.venv) on first use.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed

BENCH_VENV  := .venv-bench
BENCH_PY    := $(BENCH_VENV)/bin/python
BENCH_PIP   := $(BENCH_PY) -m pip
BENCH_STAMP := $(BENCH_VENV)/.installed

# Ray RLlib pins its own Gymnasium, so it has its own venv (the optional extra `rllib`):
# train.rllib_ppo and the tests marked `rllib` (tests/test_rllib.py) run there.
RLLIB_VENV  := .venv-rllib
RLLIB_PY    := $(RLLIB_VENV)/bin/python
RLLIB_PIP   := $(RLLIB_PY) -m pip
RLLIB_STAMP := $(RLLIB_VENV)/.installed

# torch FIRST, pinned: a CPU wheel of this release lies on disk; an unpinned torch
# (asked for directly or by stable-baselines3) pulls a multi-GB CUDA build.
TORCH := torch==2.13.0

# Everything that ruff and mypy check (folders that do not exist yet are skipped).
SRC := $(wildcard president_env agents apps train benchmarks tests)

export PIP_NO_INPUT := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1

# pip installs with --no-compile: compiling every module of torch, Ray and the rest to bytecode
# is most of an install's time (here: .venv 94 s instead of 182 s, .venv-rllib 78 s instead of
# 159 s), and Python compiles the modules that are imported, once, when first imported (about
# 17 s for torch, SB3, Tianshou, TorchRL and the other packages the tests import). So that it
# keeps them, bytecode writing stays on for what make runs (PYTHONDONTWRITEBYTECODE, set to
# anything but empty, would turn it off).
INSTALL := install -q --no-compile
export PYTHONDONTWRITEBYTECODE :=

# Tests run in parallel (pytest-xdist) on JOBS processes; `slow` tests are listed in
# tests/conftest.py; `long` ones (long statistical and load runs) only run in `make test-long`.
# pytest's exit status 5 (no test collected) fails the target like any other.
JOBS   ?= 2
# The main venv deselects the `rllib` tests (-m "not rllib"); the RLlib venv runs exactly those,
# with RLLIB_REQUIRED=1 so that a missing or broken Ray fails them instead of skipping them.
PYTEST := MPLBACKEND=Agg $(PY) -m pytest -q -p no:cacheprovider -n $(JOBS) --dist loadgroup
RLLIB_PYTEST := RLLIB_REQUIRED=1 MPLBACKEND=Agg $(RLLIB_PY) -m pytest -q -p no:cacheprovider \
	-m rllib tests/test_rllib.py

.PHONY: help venv venv-rllib test test-fast test-long test-rllib warm warm-engine warm-agents lint typecheck docs demo bench clean distclean

help:
	@echo "make demo      - install (first time) and run the demo"
	@echo "make test      - install (first time), lint, type-check and run all the tests but the"
	@echo "                 long runs (the RLlib tests in their own venv: $(RLLIB_VENV))"
	@echo "make test-fast - lint and run the tests not marked slow (the developer's set)"
	@echo "make test-long - only the long runs (-m long: 1,000-game round trips, web load test,"
	@echo "                 the other tables of sweeps)"
	@echo "make test-rllib - only the RLlib tests (train.rllib_ppo, the README's RLlib snippet)"
	@echo "make lint      - ruff check + mypy only"
	@echo "make docs      - rewrite the generated tables of the docs (options and presets from Rules,"
	@echo "                 results from docs/data) after checking the data"
	@echo "make bench     - throughput benchmark against peers (own venv: $(BENCH_VENV))"
	@echo "make clean     - remove caches and build files; distclean also removes the venvs"

venv: $(STAMP)

# Rebuilt when pyproject.toml changes; a venv whose python does not run is recreated.
$(STAMP): pyproject.toml
	@$(PY) -c "" 2>/dev/null || { rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }
	$(PIP) $(INSTALL) $(TORCH)
	$(PIP) $(INSTALL) -e ".[dev]"
	@touch $@

test: venv venv-rllib
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy $(SRC)
	$(PYTEST) -m "not rllib and not long"
	$(RLLIB_PYTEST)

test-fast: venv
	$(VENV)/bin/ruff check .
	$(PYTEST) -m "not slow and not rllib and not long"

test-long: venv
	$(PYTEST) -m "long and not rllib"

# Compile the numba kernels once, in one process, into their on-disk cache (.ci/run runs it
# beside the RLlib venv's install, before the parallel tests; see tests/conftest.py).
warm: venv
	$(PY) tests/conftest.py --warm

warm-engine warm-agents: warm-%: venv
	$(PY) tests/conftest.py --warm $*

test-rllib: venv-rllib
	$(RLLIB_PYTEST)

docs: venv
	$(PY) -m president_env.testing.doctables --write

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy $(SRC)

demo: venv
	$(PY) -m train.demo

venv-rllib: $(RLLIB_STAMP)

$(RLLIB_STAMP): pyproject.toml
	@$(RLLIB_PY) -c "" 2>/dev/null || { rm -rf $(RLLIB_VENV) && $(PYTHON) -m venv $(RLLIB_VENV); }
	$(RLLIB_PIP) $(INSTALL) $(TORCH)
	$(RLLIB_PIP) $(INSTALL) -e ".[rllib]" "pytest>=8.0"  # only tests/test_rllib.py runs here
	@touch $@

$(BENCH_STAMP): pyproject.toml
	@$(BENCH_PY) -c "" 2>/dev/null || { rm -rf $(BENCH_VENV) && $(PYTHON) -m venv $(BENCH_VENV); }
	$(BENCH_PIP) $(INSTALL) $(TORCH)
	$(BENCH_PIP) $(INSTALL) -e . rlcard open_spiel "pettingzoo[classic]"
	@touch $@

bench: $(BENCH_STAMP)
	$(BENCH_PY) benchmarks/bench.py

clean:
	rm -rf build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -path ./$(VENV) -prune -o -path ./$(BENCH_VENV) -prune -o -path ./$(RLLIB_VENV) -prune -o \
		-name __pycache__ -type d -print0 | xargs -0 rm -rf

distclean: clean
	rm -rf $(VENV) $(BENCH_VENV) $(RLLIB_VENV)
