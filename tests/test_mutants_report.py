"""tests/mutants_report.py: the mutation score `make mutants` prints and the survivors
docs/testing.md must explain."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mutants_report import (
    explained_survivors,
    main,
    module_of,
    mutant_pythonpath,
    parse_results,
    render,
    restore_checkpoint,
    save_checkpoint,
    score,
)

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


def _meta(mutants: Path, verdicts: dict[str, int | None], rel: str = "src/bizbench/core/ledger.py.meta") -> Path:
    meta = mutants / rel
    meta.parent.mkdir(parents=True, exist_ok=True)
    data = {"exit_code_by_key": verdicts, "hash_by_function_name": {"x_f": "h1"}, "durations_by_key": {"m": 0.5}}
    meta.write_text(json.dumps(data))
    return meta


def test_retrying_survivors_clears_only_the_kept_verdicts_of_unexplained_survivors(tmp_path: Path) -> None:
    """mutmut keeps a verdict until its function changes: a survivor a new test kills must be tried
    again; one docs/testing.md explains stays (an equivalent one cannot die)."""
    codes = {
        "killed": 1,
        "survived": 0,
        "no_tests": 33,
        "suspicious": 35,
        "timeout": 36,
        "typed": 37,
        "unchecked": None,
    }
    verdicts = {f"x_{k}__mutmut_1": c for k, c in codes.items()} | {"x_eq__mutmut_1": 0, "x_acc__mutmut_2": 33}
    doc = "| `x_eq__mutmut_1` | equivalent | same value |\n| `x_acc__mutmut_*` | accepted | a log label |\n"
    meta = _meta(tmp_path, verdicts)
    (tmp_path / "doc.md").write_text(doc)
    args = ["--retry-survivors", "--mutants", str(tmp_path), "--doc", str(tmp_path / "doc.md")]
    assert main(args) == 0
    kept = json.loads(meta.read_text())
    assert kept["exit_code_by_key"] == {
        "x_killed__mutmut_1": 1,
        "x_survived__mutmut_1": None,
        "x_no_tests__mutmut_1": None,
        "x_suspicious__mutmut_1": None,
        "x_timeout__mutmut_1": 36,
        "x_typed__mutmut_1": 37,
        "x_unchecked__mutmut_1": None,
        "x_eq__mutmut_1": 0,
        "x_acc__mutmut_2": 33,
    }
    assert kept["durations_by_key"] == {"m": 0.5}
    assert main(args) == 0  # nothing left to clear: unchanged
    assert json.loads(meta.read_text()) == kept


def _project(root: Path, heavy: str = "tests/a.py::test_slow\n") -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.mutmut]\nonly_mutate = ["src/x.py"]\n')
    (root / "tests" / "heavy_tests.txt").write_text(heavy)
    return root


def test_a_checkpoint_gives_a_new_machine_every_kept_verdict_and_function_hash(tmp_path: Path) -> None:
    root = _project(tmp_path / "repo")
    verdicts = {"a__mutmut_1": 1, "a__mutmut_2": 0, "a__mutmut_3": None, "a__mutmut_4": 37}
    _meta(tmp_path / "here", verdicts)
    _meta(tmp_path / "here", {"b__mutmut_1": 36}, rel="src/bizbench/core/runlog.py.meta")
    checkpoint = tmp_path / "checkpoint.json.gz"
    assert save_checkpoint(tmp_path / "here", checkpoint, root) == 4  # the unchecked one has no verdict

    said = restore_checkpoint(checkpoint, tmp_path / "new", audit=0, root=root)
    assert said.startswith("restored 4 verdicts")
    meta = json.loads((tmp_path / "new" / "src/bizbench/core/ledger.py.meta").read_text())
    assert meta["exit_code_by_key"] == verdicts and meta["hash_by_function_name"] == {"x_f": "h1"}
    # every key mutmut's loader pops is there, or it refuses the file
    assert set(meta) == {
        "exit_code_by_key",
        "hash_by_function_name",
        "type_check_error_by_key",
        "durations_by_key",
        "estimated_durations_by_key",
    }
    runlog = json.loads((tmp_path / "new" / "src/bizbench/core/runlog.py.meta").read_text())
    assert runlog["exit_code_by_key"] == {"b__mutmut_1": 36}


def test_a_checkpoint_is_not_restored_over_local_verdicts_or_under_another_configuration(tmp_path: Path) -> None:
    root = _project(tmp_path / "repo")
    _meta(tmp_path / "here", {"a__mutmut_1": 1})
    checkpoint = tmp_path / "checkpoint.json.gz"
    save_checkpoint(tmp_path / "here", checkpoint, root)
    local = _meta(tmp_path / "local", {"a__mutmut_1": 0})
    assert "already holds verdicts" in restore_checkpoint(checkpoint, tmp_path / "local", root=root)
    assert json.loads(local.read_text())["exit_code_by_key"] == {"a__mutmut_1": 0}

    other = _project(tmp_path / "other", heavy="tests/a.py::test_slow\ntests/b.py::test_slower\n")
    assert "another [tool.mutmut] or heavy-test list" in restore_checkpoint(checkpoint, tmp_path / "n1", root=other)
    (root / "pyproject.toml").write_text('[tool.mutmut]\nonly_mutate = ["src/y.py"]\n')
    assert "another [tool.mutmut]" in restore_checkpoint(checkpoint, tmp_path / "n2", root=root)
    assert not list((tmp_path / "n1").rglob("*.meta")) and not list((tmp_path / "n2").rglob("*.meta"))
    assert "no checkpoint" in restore_checkpoint(tmp_path / "none.json.gz", tmp_path / "n3", root=root)


def test_the_audit_checks_again_kills_drawn_the_same_way_from_the_same_checkpoint(tmp_path: Path) -> None:
    root = _project(tmp_path / "repo")
    verdicts = {f"a__mutmut_{i}": 1 for i in range(1, 41)} | {"a__mutmut_41": 0, "a__mutmut_42": 37}
    _meta(tmp_path / "here", verdicts)
    checkpoint = tmp_path / "checkpoint.json.gz"
    save_checkpoint(tmp_path / "here", checkpoint, root)
    drawn = []
    for target in ("n1", "n2"):
        said = restore_checkpoint(checkpoint, tmp_path / target, audit=5, root=root)
        assert said == "restored 37 verdicts from checkpoint.json.gz; 5 kept kills will be checked again"
        meta = json.loads((tmp_path / target / "src/bizbench/core/ledger.py.meta").read_text())
        cleared = sorted(n for n, c in meta["exit_code_by_key"].items() if c is None)
        assert (tmp_path / target / "audit.txt").read_text().split() == cleared
        assert len(cleared) == 5 and all(verdicts[n] == 1 for n in cleared)  # kills only, not a survivor
        drawn.append(cleared)
    assert drawn[0] == drawn[1]


def test_a_kept_kill_the_audit_finds_undone_fails_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "doc.md").write_text(DOC)
    (tmp_path / "results.txt").write_text(
        RESULTS.replace("x_to_cents__mutmut_1: killed", "x_to_cents__mutmut_1: survived")
    )
    (tmp_path / "mutants").mkdir()
    (tmp_path / "mutants" / "audit.txt").write_text("bizbench.core.ledger.x_to_cents__mutmut_1\n")
    args = ["--results", str(tmp_path / "results.txt"), "--doc", str(tmp_path / "doc.md")]
    assert main([*args, "--mutants", str(tmp_path / "mutants")]) == 1
    out = capsys.readouterr().out
    assert "audit: 1 kills kept from the checkpoint checked again, 1 not killed now" in out
    assert "1 kept kills the audit found undone" in out


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
