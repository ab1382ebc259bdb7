"""The suite's own limits (docs/testing.md): a hung test fails in its time limit instead of
hanging the run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from heavy_tests import heavy_test_ids

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_has_a_time_limit(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    assert float(pytestconfig.getini("timeout")) == 300


def test_a_hung_test_fails_in_its_limit_and_the_run_goes_on(tmp_path: Path) -> None:
    """The project's settings (its pyproject.toml) with the limit lowered to 2 s: the hung test
    fails with a Timeout, the next test still runs and passes."""
    (tmp_path / "test_hung.py").write_text(
        "import threading\n\ndef test_hangs():\n    threading.Event().wait()\n\ndef test_after():\n    assert True\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-c", str(ROOT / "pyproject.toml")]
        + ["--rootdir", str(tmp_path), "-o", "timeout=2", str(tmp_path / "test_hung.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Timeout (>2.0s)" in proc.stdout and "1 failed, 1 passed" in proc.stdout, proc.stdout


def test_under_a_mutant_a_test_without_a_limit_of_its_own_gets_a_minute(tmp_path: Path) -> None:
    """The suite's conftest (loaded as a plugin) under ``MUTANT_UNDER_TEST``: a test gets a 60 s
    limit, one with its own limit keeps it; outside a mutant (mutmut's stats pass) no test does,
    and the suite's 300 s applies."""
    (tmp_path / "test_limits.py").write_text(
        "import pytest\n\n"
        "def test_plain(request):\n"
        "    marker = request.node.get_closest_marker('timeout')\n"
        "    print('LIMIT', marker.args if marker else None)\n\n"
        "@pytest.mark.timeout(7)\n"
        "def test_own(request):\n"
        "    print('OWN', request.node.get_closest_marker('timeout').args)\n"
    )
    seen = {}
    for mutant in ("bizbench.core.ledger.x_to_cents__mutmut_1", "stats"):
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "conftest", "-s"]
            + ["-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path), str(tmp_path / "test_limits.py")],
            env={**os.environ, "MUTANT_UNDER_TEST": mutant, "PYTHONPATH": str(ROOT / "tests")},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        seen[mutant] = re.findall(r"(?:LIMIT|OWN) \S+", proc.stdout)
    assert seen["bizbench.core.ledger.x_to_cents__mutmut_1"] == ["LIMIT (60,)", "OWN (7,)"]
    assert seen["stats"] == ["LIMIT None", "OWN (7,)"]


def test_every_heavy_test_listed_is_a_test_of_the_suite(pytestconfig: pytest.Config) -> None:
    """tests/heavy_tests.txt names tests that exist: a renamed test would otherwise slip back
    into `make mutants` unnoticed, or a stale line would hide nothing."""
    listed = heavy_test_ids()
    assert len(listed) > 100
    for node_id in listed:
        path, _, name = node_id.partition("::")
        function = name.split("[")[0]
        assert f"def {function}(" in (ROOT / path).read_text(), node_id


def test_the_heavy_tests_are_marked_and_left_out_of_the_mutation_run(tmp_path: Path) -> None:
    """A listed test carries the `heavy` mark, so `-m "not heavy"` (make mutants) deselects it."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "--collect-only", "-q"]
        + ["-m", "not slow and not heavy", "tests/golden/test_golden.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    heavy_golden = {t for t in heavy_test_ids() if t.startswith("tests/golden/")}
    assert heavy_golden and not heavy_golden & set(proc.stdout.split()), proc.stdout
    assert "tests/golden/test_golden.py::" in proc.stdout
