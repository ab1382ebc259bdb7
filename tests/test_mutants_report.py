"""tests/mutants_report.py: the mutation score `make mutants` prints and the survivors
docs/testing.md must explain."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mutants_report import explained_survivors, main, module_of, mutant_pythonpath, parse_results, render, score

RESULTS = """\
    bizbench.core.ledger.x_to_cents__mutmut_1: killed
    bizbench.core.ledger.x_to_cents__mutmut_2: timeout
    bizbench.core.ledger.xǁLedgerǁpost__mutmut_1: survived
    bizbench.core.ledger.xǁLedgerǁpost__mutmut_2: killed
    bizbench.envs.cfo.world.lending.x_lending_month__mutmut_1: no tests
    bizbench.envs.cfo.world.lending.x_lending_month__mutmut_2: killed
    bizbench.envs.cfo.world.lending.x_lending_month__mutmut_3: survived
"""
DOC = """\
| mutant | kind | why |
|---|---|---|
| `bizbench.core.ledger.xǁLedgerǁpost__mutmut_1` | equivalent | the same sum in another order |
| `bizbench.envs.cfo.world.lending.x_lending_month__mutmut_3` | accepted | a log label |
"""


def test_a_mutant_belongs_to_the_module_before_its_function_or_class() -> None:
    assert module_of("bizbench.core.ledger.xǁLedgerǁpost__mutmut_3") == "bizbench.core.ledger"
    assert module_of("bizbench.envs.cfo.world.lending.x_lending_month__mutmut_17") == "bizbench.envs.cfo.world.lending"


def test_equivalent_survivors_leave_the_count_and_accepted_ones_stay_in_it() -> None:
    modules = score(parse_results(RESULTS), explained_survivors(DOC))
    ledger, lending = modules["bizbench.core.ledger"], modules["bizbench.envs.cfo.world.lending"]
    # ledger: 3 killed (a timeout is a kill), 1 survivor, equivalent: 3 of 3 count
    assert (ledger.killed, ledger.survived, ledger.equivalent, ledger.counted) == (3, 1, 1, 3)
    # lending: 1 killed, 2 survived (no tests is a survivor), 1 accepted: 1 of 3
    assert (lending.killed, lending.survived, lending.accepted, lending.counted) == (1, 2, 1, 3)


def test_the_report_fails_below_90_percent_or_with_an_unexplained_survivor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, doc = tmp_path / "results.txt", tmp_path / "testing.md"
    results.write_text(RESULTS)
    doc.write_text(DOC)
    assert main(["--results", str(results), "--doc", str(doc)]) == 1
    out = capsys.readouterr().out
    assert "killed 4 of 6 non-equivalent mutants: 66.7%" in out
    assert "1 survivors docs/testing.md does not explain" in out and "x_lending_month__mutmut_1: no tests" in out
    killed = "".join(f"    bizbench.core.ledger.x_to_cents__mutmut_{i}: killed\n" for i in range(10, 40))
    results.write_text(RESULTS + killed)
    assert main(["--results", str(results), "--doc", str(doc)]) == 1  # 34 of 36 killed, one unexplained
    row = "| `bizbench.envs.cfo.world.lending.x_lending_month__mutmut_1` | accepted | no test reads it |\n"
    doc.write_text(DOC + row)
    assert main(["--results", str(results), "--doc", str(doc)]) == 0  # 34 of 36 = 94.4 %, all explained
    assert "killed 34 of 36 non-equivalent mutants: 94.4%" in capsys.readouterr().out


def test_a_listed_survivor_that_is_killed_now_is_reported_as_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, doc = tmp_path / "results.txt", tmp_path / "testing.md"
    results.write_text(RESULTS.replace("x_lending_month__mutmut_3: survived", "x_lending_month__mutmut_3: killed"))
    doc.write_text(DOC)
    main(["--results", str(results), "--doc", str(doc)])
    assert "1 listed in docs/testing.md but no longer surviving" in capsys.readouterr().out


def test_a_glob_explains_every_survivor_of_one_function(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results, doc = tmp_path / "results.txt", tmp_path / "testing.md"
    results.write_text(RESULTS)
    glob = "| `bizbench.envs.cfo.world.lending.x_lending_month__mutmut_*` | accepted | a log label |\n"
    doc.write_text(DOC.splitlines(keepends=True)[0] + glob)
    modules = score(parse_results(RESULTS), explained_survivors(doc.read_text()))
    lending = modules["bizbench.envs.cfo.world.lending"]
    assert (lending.survived, lending.accepted) == (2, 2)  # mutmut_1 (no tests) and mutmut_3, not the killed one
    main(["--results", str(results), "--doc", str(doc)])
    out = capsys.readouterr().out
    assert "1 survivors docs/testing.md does not explain" in out and "xǁLedgerǁpost__mutmut_1" in out


def test_a_survivor_killed_by_hand_counts_as_killed() -> None:
    """Code that runs only at import is never switched on by mutmut; a row marks it killed when a
    named test kills it applied to the source."""
    doc = DOC.replace("| accepted | a log label |", "| killed | tests/cfo/test_lending.py kills it |")
    lending = score(parse_results(RESULTS), explained_survivors(doc))["bizbench.envs.cfo.world.lending"]
    assert (lending.killed, lending.survived, lending.counted) == (2, 1, 3)


def test_retrying_survivors_clears_only_their_kept_verdicts(tmp_path: Path) -> None:
    """mutmut keeps a verdict until its function changes: a survivor a new test kills must be tried again."""
    meta = tmp_path / "src" / "bizbench" / "core" / "ledger.py.meta"
    meta.parent.mkdir(parents=True)
    codes = {
        "killed": 1,
        "survived": 0,
        "no_tests": 33,
        "suspicious": 35,
        "timeout": 36,
        "typed": 37,
        "unchecked": None,
    }
    meta.write_text(json.dumps({"exit_code_by_key": {f"m_{k}": c for k, c in codes.items()}, "durations_by_key": {}}))
    assert main(["--retry-survivors", "--mutants", str(tmp_path)]) == 0
    kept = json.loads(meta.read_text())
    assert kept["exit_code_by_key"] == {
        "m_killed": 1,
        "m_survived": None,
        "m_no_tests": None,
        "m_suspicious": None,
        "m_timeout": 36,
        "m_typed": 37,
        "m_unchecked": None,
    }
    assert kept["durations_by_key"] == {}
    assert main(["--retry-survivors", "--mutants", str(tmp_path)]) == 0  # nothing left to clear: unchanged
    assert json.loads(meta.read_text()) == kept


def test_under_a_mutant_every_started_process_imports_the_mutated_copy_first() -> None:
    """A served seat on the original code would differ from the mutant in the test's process and
    kill it for the wrong reason (tests/conftest.py)."""
    import bizbench

    here = str(Path(bizbench.__file__).parents[1])
    mutant = "bizbench.core.ledger.x_to_cents__mutmut_1"
    assert mutant_pythonpath({"MUTANT_UNDER_TEST": mutant, "PYTHONPATH": "/plug"}) == f"{here}{os.pathsep}/plug"
    assert mutant_pythonpath({"MUTANT_UNDER_TEST": mutant}) == here
    for outside in ({}, {"MUTANT_UNDER_TEST": "stats"}, {"MUTANT_UNDER_TEST": "fail"}, {"MUTANT_UNDER_TEST": ""}):
        assert mutant_pythonpath({**outside, "PYTHONPATH": "/plug"}) is None


def test_a_module_with_no_mutant_checked_yet_has_no_score_rather_than_zero() -> None:
    modules = score(
        parse_results(RESULTS + "    bizbench.core.runlog.x_tamper_record__mutmut_1: not checked\n"),
        explained_survivors(DOC),
    )
    table = render(modules, markdown=True).splitlines()
    assert "| `bizbench.core.runlog` | 0 | 0 | 0 | 0 | 0 | - |" in table
    assert "| `bizbench.core.ledger` | 4 | 3 | 1 | 1 | 0 | 100.0% |" in table
    assert "| `bizbench.envs.cfo.world.lending` | 3 | 1 | 2 | 0 | 1 | 33.3% |" in table
