PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv bytecode browser layers test test-slow mutants mutants-checkpoint lint demo docs clean

venv: $(STAMP)

$(STAMP): pyproject.toml setup.py src/bizbench/envs/ceo/world/kernels.pyx
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Bytecode for src/, as pip writes it for an installed package: an editable install has none, and where
# PYTHONDONTWRITEBYTECODE is set every start of bizbench compiles ~70 modules (0.1 s; docs/performance.md).
# Every target that runs bizbench compiles what changed since (after a pull, too).
bytecode: venv
	$(BIN)/python -m compileall -q src

# The viewer's browser tests drive Debian's chromium; installed with apt-get when missing and
# root (otherwise those tests skip with the reason). Never fails the build.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		(apt-get install -y -qq chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium)) \
		|| echo "could not install chromium: the browser tests will skip"; \
	else echo "chromium is missing (install it as root: apt-get install chromium): the browser tests will skip"; fi

# Imports point down only (docs/architecture.md): the import-linter contracts in pyproject.toml.
layers: venv
	$(BIN)/lint-imports --no-cache

# The browser tests save their screenshots under test-artifacts/ (or $BIZBENCH_ARTIFACTS).
test: venv bytecode browser layers lint
	BIZBENCH_ARTIFACTS="$${BIZBENCH_ARTIFACTS:-$(CURDIR)/test-artifacts}" $(BIN)/pytest -q -n 2

test-slow: venv bytecode
	$(BIN)/pytest -q -n 0 -m slow --timeout 3600

# Mutation testing of the code that decides a score or a verdict (docs/testing.md). A full run
# takes 5 to 7 hours on 2 cores, so the verdicts are kept in git
# (tests/mutants_checkpoint.json.gz): a machine with no mutants/ starts from them and checks
# AUDIT of the kept kills again; unexplained survivors and changed functions are tried again; the
# verdicts are saved back after the run (or with `make mutants-checkpoint` after a stopped run).
# MUTANTS=glob runs a part, e.g. MUTANTS='bizbench.envs.cfo.*'.
AUDIT ?= 200
mutants: venv
	$(BIN)/python tests/mutants_report.py --restore-checkpoint --audit $(AUDIT)
	@# mutmut copies src/ into mutants/ once: the compiled kernels of this build go there each run
	if [ -d mutants ]; then find src -name '*.so' | while read -r so; do \
		mkdir -p "mutants/$$(dirname "$$so")" && cp "$$so" "mutants/$$so"; done; fi
	$(BIN)/python tests/mutants_report.py --retry-survivors
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/mutmut run --max-children "$${JOBS:-2}" $(MUTANTS)
	$(BIN)/python tests/mutants_report.py --save-checkpoint
	$(BIN)/python tests/mutants_report.py

mutants-checkpoint: venv
	$(BIN)/python tests/mutants_report.py --save-checkpoint

lint: venv
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/mypy src

docs: venv bytecode
	for env in ceo yc cfo; do $(BIN)/bizbench tools $$env --format markdown > docs/$$env-tools.md; done

demo: venv bytecode
	$(BIN)/bizbench run ceo --agent rule-based --seed 42 --out runs/demo-ceo-42

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache test-artifacts mutants
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name '*.egg-info' -type d -prune -exec rm -rf {} +
	find src -name '*.so' -delete
	rm -f src/bizbench/envs/ceo/world/kernels.c
