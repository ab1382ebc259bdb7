"""The whole suite sees the lemonade stand, the plug-in env of ``tests/plugin_env`` (docs/envs.md),
and can write a user's agent module (``--agent module:Class``, docs/agents.md) with ``user_agents``.

It is registered the way a user registers an env of their own, for this process and every
process it starts (sweep workers, ``bizbench resume``, ``serve``): its directory goes on
``sys.path`` and ``$PYTHONPATH``, and ``lemonade.spec:SPEC`` into ``$BIZBENCH_ENVS``. Nothing
under ``src/`` names it.

Under ``make mutants`` (docs/testing.md), every process a test starts runs the mutant under test
too: a served seat or a resumed run on the original code would differ from the mutated code in
this process, and a test comparing the two would kill every mutant for the wrong reason.

The tests listed in ``tests/heavy_tests.txt`` are marked ``heavy``; ``make mutants`` deselects
them with ``-m "not slow and not heavy"``. Under a mutant, a test without a time limit of its own
gets ``MUTANT_TEST_TIMEOUT`` (60 s) instead of the suite's 300 s: a hung mutant is found sooner.

A run refuses to start on compiled kernels older than their source (``kernels.pyx`` edited since
the last build): the tests would pass against the old code (docs/performance.md, "Compiled
kernels").
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from heavy_tests import heavy_test_ids
from mutants_report import MUTANT_TEST_TIMEOUT, mutant_pythonpath, under_a_mutant

PLUGIN_DIR = str(Path(__file__).resolve().parent / "plugin_env")
LEMONADE = "lemonade.spec:SPEC"


def _prepend(var: str, value: str, sep: str) -> None:
    items = [v for v in os.environ.get(var, "").split(sep) if v]
    if value not in items:
        os.environ[var] = sep.join([value, *items])


if PLUGIN_DIR not in sys.path:
    sys.path.insert(0, PLUGIN_DIR)
_prepend("PYTHONPATH", PLUGIN_DIR, os.pathsep)
_prepend("BIZBENCH_ENVS", LEMONADE, ",")


def pytest_configure(config: pytest.Config) -> None:
    from bizbench.envs.ceo.world import kernels

    source = Path(kernels.__file__).with_name("kernels.pyx")
    if source.exists() and hashlib.sha256(source.read_bytes()).hexdigest() != kernels.SOURCE_SHA256:
        raise pytest.UsageError(
            f"{kernels.__file__} was compiled from another {source.name}: rebuild it with `make venv` "
            "or `.venv/bin/python setup.py build_ext --inplace`"
        )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the heavy tests before ``-m`` selects (tryfirst: the mark plugin deselects after), and
    under a mutant give every test without a limit of its own the mutants' limit."""
    heavy = heavy_test_ids()
    mutant = under_a_mutant(os.environ)
    for item in items:
        if item.nodeid in heavy:
            item.add_marker(pytest.mark.heavy)
        if mutant and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(MUTANT_TEST_TIMEOUT))


@pytest.fixture(autouse=True)
def _subprocesses_run_the_mutant_under_test(monkeypatch: pytest.MonkeyPatch) -> None:
    path = mutant_pythonpath(os.environ)
    if path is not None:
        monkeypatch.setenv("PYTHONPATH", path)


@pytest.fixture
def user_agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], str]:
    """``write(module, source)``: a user's agent module in a temporary directory on ``sys.path``;
    returns its name for ``module:Class``."""

    def write(module: str, source: str) -> str:
        (tmp_path / f"{module}.py").write_text(source)
        monkeypatch.syspath_prepend(str(tmp_path))
        return module

    return write
