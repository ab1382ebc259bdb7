"""bizbench replay: a run's recorded actions, re-sent to a fresh world, give its recorded result."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bizbench.agents.models.scripted import ScriptedModel
from bizbench.cli import app
from bizbench.core.env import ReplayRules
from bizbench.runner.agent_episode import run_agent_episode
from bizbench.runner.episode import run_baseline
from bizbench.runner.replay import (
    RESULT_REL_TOL,
    ReplayReport,
    _compare_result,
    _first_difference,
    _lines,
    default_verdict_store,
    read_verdict,
    replay_run,
    same_value,
    save_verdict,
)
from bizbench.runner.resume import resume_run
from bizbench.runner.runconfig import RunDirError


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    run_baseline("cfo", "prudent-cfo", 3, "paper", out=root / "cfo")
    run_baseline("yc", "heuristic", 2, "default", 3, root / "yc")  # three months: replay needs no full year
    run_baseline("ceo", "rule-based", 42, "default", 35, root / "ceo", world_options={"database": False})
    reply = {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": "sim resume"}}]}
    run_agent_episode("yc", ScriptedModel([reply]), 4, None, root / "yc-model")
    return {p.name: p for p in root.iterdir()}


@pytest.mark.parametrize("name", ["cfo", "yc", "ceo", "yc-model"])
def test_every_recorded_run_verifies(runs: dict[str, Path], name: str) -> None:
    report = replay_run(runs[name])
    assert report.ok, report.summary()
    assert report.actions_sent > 0 and len(report.compared) >= 10


def test_an_edited_result_is_caught(runs: dict[str, Path], tmp_path: Path) -> None:
    forged = tmp_path / "forged"
    forged.mkdir()
    for f in runs["cfo"].iterdir():
        (forged / f.name).write_bytes(f.read_bytes())
    result = json.loads((forged / "result.json").read_text())
    result["score"] += 1_000_000
    (forged / "result.json").write_text(json.dumps(result))
    report = replay_run(forged)
    assert not report.ok and set(report.mismatches) == {"score"}
    r = CliRunner().invoke(app, ["replay", str(forged)])
    assert r.exit_code == 1 and "does not match" in r.output and "score" in r.output


#: the smallest change a forger would make to each run's result: one cent, one customer, one day
SMALLEST_FORGERIES = [
    ("cfo", "score", 0.01),  # a cent on $205,901,067.40: 5e-11 of it
    ("cfo", "final_cash", -0.01),
    ("cfo", "months_survived", -1),
    ("yc", "score", 0.01),
    ("yc", "final_funds_cents", 1),
    ("yc", "tasks_succeeded", 1),
    ("ceo", "score", 0.01),
    ("ceo", "final_subscribers", 1),
    ("ceo", "days_survived", -1),
]


@pytest.mark.parametrize(("name", "field", "change"), SMALLEST_FORGERIES)
def test_the_smallest_forged_change_to_a_result_is_caught(
    runs: dict[str, Path], tmp_path: Path, name: str, field: str, change: float
) -> None:
    forged = copy_run(runs[name], tmp_path / "forged")
    result = json.loads((forged / "result.json").read_text())
    result[field] = round(result[field] + change, 2)
    (forged / "result.json").write_text(json.dumps(result))
    report = replay_run(forged)
    assert not report.ok and set(report.mismatches) == {field}, report.summary()


def test_the_json_summary_of_a_forged_run_names_what_differs(runs: dict[str, Path], tmp_path: Path) -> None:
    """`bizbench replay --json` prints ReplayReport.summary(): every key, with the report's own values."""
    forged = copy_run(runs["yc"], tmp_path / "forged")
    result = json.loads((forged / "result.json").read_text())
    result["score"] += 0.01
    (forged / "result.json").write_text(json.dumps(result))
    report = replay_run(forged)
    summary = report.summary()
    assert summary == {
        "path": str(forged),
        "env": "yc",
        "seed": 2,
        "ok": False,
        "actions_sent": report.actions_sent,
        "actions_skipped": report.actions_skipped,
        "fields_compared": len(report.compared),
        "config_changes": [],
        "divergence": None,
        "mismatches": {"score": {"recorded": result["score"], "replayed": result["score"] - 0.01}},
        "files_verified": ["actions.jsonl", "ledger.csv", "metrics.jsonl"],
        "file_mismatches": {},
        "unverified": report.unverified,
        "files_unverified": report.files_unverified,
        "recorded_with": None,  # recorded by this bizbench
    }
    assert report.actions_sent > 100 and len(report.compared) >= 10 and "score" in report.compared
    assert report.problem() == "result.json differs in score"


def test_the_json_summary_carries_every_field_of_the_report_under_its_own_key() -> None:
    """Each field holds a value no other field has, so a key swapped, dropped or renamed shows."""
    report = ReplayReport(
        path="runs/x",
        env="cfo",
        seed=7,
        actions_sent=12,
        actions_skipped=3,
        config_changes=["months"],
        divergence="line 4: refused",
        mismatches={"score": {"recorded": 1.0, "replayed": 2.0}},
        compared=["score", "cash", "months"],
        unverified=["tokens"],
        files_verified=["ledger.csv"],
        file_mismatches={"metrics.jsonl": "line 2 differs"},
        files_unverified=["cash.png"],
        recorded_with="bizbench 0.0.1, commit 000000000000",
    )
    assert report.summary() == {
        "path": "runs/x",
        "env": "cfo",
        "seed": 7,
        "ok": False,
        "actions_sent": 12,
        "actions_skipped": 3,
        "fields_compared": 3,
        "config_changes": ["months"],
        "divergence": "line 4: refused",
        "mismatches": {"score": {"recorded": 1.0, "replayed": 2.0}},
        "files_verified": ["ledger.csv"],
        "file_mismatches": {"metrics.jsonl": "line 2 differs"},
        "unverified": ["tokens"],
        "files_unverified": ["cash.png"],
        "recorded_with": "bizbench 0.0.1, commit 000000000000",
    }
    assert ReplayReport(path="p", env="yc", seed=1).summary()["ok"] is True


def test_a_result_field_that_differs_is_kept_as_recorded_and_replayed_and_one_missing_is_named() -> None:
    """A light twin of the forged-run tests: the result fields the world computes, compared one by one."""
    report = ReplayReport(path="p", env="yc", seed=1)
    recorded = {"score": 1.0, "cash": 5, "wall_seconds": 9.0, "tokens": 4}
    fresh = {"score": 2.0, "cash": 5, "months": 3, "wall_seconds": 1.0, "tokens": 8}
    _compare_result(report, ReplayRules(), {"run_format": 2}, recorded, fresh, set(fresh))
    assert report.mismatches == {
        "score": {"recorded": 1.0, "replayed": 2.0},
        "months": {"recorded": "(missing)", "replayed": 3},
    }
    assert report.compared == ["score", "cash", "months"] and report.unverified == ["tokens", "wall_seconds"]


def test_the_first_problem_is_named_in_the_order_config_divergence_result_files() -> None:
    def report(**fields: Any) -> ReplayReport:
        return ReplayReport(path="p", env="yc", seed=1, **fields)

    config = {"config_changes": ["months", "seed"]}
    divergence = {"divergence": "line 4: refused"}
    result = {"mismatches": {"score": {}, "cash": {}}}
    files = {"file_mismatches": {"ledger.csv": "line 3 differs", "metrics.jsonl": "line 1 differs"}}
    assert report(**config, **divergence, **result, **files).problem() == (
        "the world differs from its preset in months, seed"
    )
    assert report(**divergence, **result, **files).problem() == "line 4: refused"
    assert report(**result, **files).problem() == "result.json differs in score, cash"
    assert report(**files).problem() == "ledger.csv: line 3 differs"
    assert report().problem() is None


@pytest.mark.parametrize("resent_checked", [True, False])
def test_a_saved_verdict_binds_the_digests_of_every_file_checked(tmp_path: Path, resent_checked: bool) -> None:
    """config.json and result.json always, the files verified and the mismatched ones; the
    re-sent action lines only when actions.jsonl itself was verified. The store is made with its
    parents."""
    run = tmp_path / "run"
    files = ["actions.jsonl", "ledger.csv"] if resent_checked else ["ledger.csv"]
    report = ReplayReport(
        path=str(run),
        env="yc",
        seed=1,
        compared=["score", "cash"],
        mismatches={"cash": {"recorded": 1, "replayed": 2}},
        files_verified=files,
        file_mismatches={"metrics.jsonl": "line 2 differs"},
        actions_resent=[0, 2],
        digests={"config.json": "c", "result.json": "r", "actions.jsonl": "a", "ledger.csv": "l", "x.png": "p"},
    )
    saved = json.loads(save_verdict(report, tmp_path / "cache" / "replays").read_text())
    assert saved == {
        "format": saved["format"],
        "path": str(run.resolve()),
        "ok": False,
        "problem": "result.json differs in cash",
        "digests": {"config.json": "c", "ledger.csv": "l", "metrics.jsonl": None, "result.json": "r"}
        | ({"actions.jsonl": "a"} if resent_checked else {}),
        "result_fields": ["score"],
        "files": files,
        "action_lines": [0, 2] if resent_checked else [],
    }
    assert list(saved["digests"]) == sorted(saved["digests"])


def test_each_run_directory_has_its_own_verdict_file_named_by_the_sha256_of_its_path(tmp_path: Path) -> None:
    """docs/run-format.md, "The verdict": one file per run directory, named by the SHA-256 of its
    absolute path (its first 32 hex digits)."""
    store = tmp_path / "store"
    first = save_verdict(ReplayReport(path="/nonexistent/bizbench-run-a", env="yc", seed=1), store)
    second = save_verdict(ReplayReport(path="/nonexistent/bizbench-run-b", env="yc", seed=1), store)
    # printf %s /nonexistent/bizbench-run-a | sha256sum | cut -c1-32 (and -b)
    assert first.name == "f1146afb1b13899d6b4778a877654dd3.json"
    assert second.name == "da8cd8b20c75b8713b33e416d934e932.json"
    assert sorted(store.iterdir()) == sorted([first, second])


def test_verdicts_are_kept_in_the_users_cache_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """docs: ``$XDG_CACHE_HOME/bizbench/replays``, ``~/.cache/bizbench/replays`` without it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_verdict_store() == tmp_path / "cache" / "bizbench" / "replays"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_verdict_store() == tmp_path / "home" / ".cache" / "bizbench" / "replays"


def test_same_value_tells_a_bool_from_a_number_and_a_cent_on_a_billion() -> None:
    assert same_value(1_000_000_000.01, 1_000_000_000.01, RESULT_REL_TOL)
    assert not same_value(1_000_000_000.00, 1_000_000_000.01, RESULT_REL_TOL)
    assert not same_value(9_999_999_999.99, 9_999_999_999.98, RESULT_REL_TOL)
    assert same_value(0.1 + 0.2, 0.3, RESULT_REL_TOL)  # float noise in the last bit
    assert not same_value(0.1 + 0.2, 0.3) and same_value(float("nan"), float("nan"))
    assert not same_value(True, 1) and not same_value(1, True) and not same_value(0, False)
    assert same_value(1, 1.0) and not same_value("1", 1, RESULT_REL_TOL) and not same_value(None, 0.0, RESULT_REL_TOL)
    assert not same_value({"a": 1}, {"a": 1, "b": 2}) and not same_value([1, 2], [1, 2, 3])
    assert not same_value({"a": [1.0]}, {"a": [1.5]}, RESULT_REL_TOL) and same_value({"a": [1]}, {"a": [1]})
    # the tolerance reaches values inside objects and lists; a value of another shape is just different
    assert same_value({"a": [0.1 + 0.2]}, {"a": [0.3]}, RESULT_REL_TOL) and same_value(
        [0.1 + 0.2], [0.3], RESULT_REL_TOL
    )
    assert (
        not same_value({"a": 1}, 1)
        and not same_value(1, {"a": 1})
        and not same_value([1], 1)
        and not same_value(1, [1])
    )
    # an integer against a float one unit in the last place above it: equal within the tolerance only
    assert same_value(3, 3.0000000000000004, RESULT_REL_TOL) and same_value(3.0000000000000004, 3, RESULT_REL_TOL)
    assert not same_value(3, 3.0000000000000004)


def test_an_edited_action_log_is_caught(runs: dict[str, Path], tmp_path: Path) -> None:
    forged = tmp_path / "forged"
    forged.mkdir()
    for f in runs["cfo"].iterdir():
        (forged / f.name).write_bytes(f.read_bytes())
    rows = [json.loads(line) for line in (forged / "actions.jsonl").read_text().splitlines()]
    raises = [i for i, r in enumerate(rows) if r["tool"] == "fund_raising_request"]
    del rows[raises[0]]  # the same world without the first fundraising request
    (forged / "actions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert not replay_run(forged).ok


def test_replay_cli_verifies_and_prints_json(runs: dict[str, Path]) -> None:
    r = CliRunner().invoke(app, ["replay", str(runs["ceo"]), "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output)
    assert summary["ok"] is True and summary["env"] == "ceo"
    # every refused call and every read is left out (ceo replays no reads); the rest are sent
    # (issue 18: this was `actions_skipped >= 0`, which cannot fail)
    from bizbench.core.envs import get_env

    registry = get_env("ceo").env_class.registry
    rows = [json.loads(line) for line in (runs["ceo"] / "actions.jsonl").read_text().splitlines()]
    left_out = [r for r in rows if r["ok"] is not True or (r["tool"] in registry and not registry.mutates(r["tool"]))]
    assert left_out and summary["actions_skipped"] == len(left_out)
    assert summary["actions_sent"] == len(rows) - len(left_out)


def test_replay_needs_a_finished_run_and_the_same_secret(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(RunDirError, match="not a run directory"):
        replay_run(tmp_path)
    (tmp_path / "config.json").write_bytes((runs["yc"] / "config.json").read_bytes())
    with pytest.raises(RunDirError, match="no readable result.json"):
        replay_run(tmp_path)
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "another secret")
    with pytest.raises(RunDirError, match=re.escape(f"{runs['yc']} was run on public seeds; unset")):
        replay_run(runs["yc"])
    held = tmp_path / "held"
    run_baseline("cfo", "always-pass", 1, "paper", out=held)
    assert replay_run(held).ok
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "a third secret")
    with pytest.raises(RunDirError, match="held-out seeds"):
        replay_run(held)


def copy_run(source: Path, target: Path) -> Path:
    target.mkdir()
    for f in source.iterdir():
        (target / f.name).write_bytes(f.read_bytes())
    return target


def edit_json(path: Path, change: Callable[[Any], Any]) -> None:
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


def test_a_forged_world_config_is_caught(runs: dict[str, Path], tmp_path: Path) -> None:
    """Richer start funds under the preset's name: replay names the changed field and fails."""
    forged = copy_run(runs["yc"], tmp_path / "forged")
    edit_json(forged / "config.json", lambda c: {**c, "config": {**c["config"], "start_funds_dollars": 2_000_000.0}})
    report = replay_run(forged)
    assert not report.ok and report.config_changes == ["start_funds_dollars"]


def test_missing_outcome_fields_fail_and_unverified_claims_are_listed(runs: dict[str, Path], tmp_path: Path) -> None:
    forged = copy_run(runs["cfo"], tmp_path / "forged")
    (forged / "result.json").write_text("{}")
    assert set(replay_run(forged).mismatches) >= {"score", "final_cash", "bankrupt"}
    report = replay_run(runs["yc-model"])
    assert report.ok and {"model", "cost_usd", "tokens", "ended_by", "tool_calls"} <= set(report.unverified)


def test_a_yc_model_run_with_refused_commands_verifies(tmp_path: Path) -> None:
    bad = {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": "task accept --task-id X"}}]}
    ok = {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": "sim resume"}}]}
    run_agent_episode("yc", ScriptedModel([bad, ok, bad, ok]), 5, None, tmp_path / "run")
    report = replay_run(tmp_path / "run")
    assert report.ok, report.summary()
    rows = [json.loads(line) for line in (tmp_path / "run" / "actions.jsonl").read_text().splitlines()]
    assert [row["ok"] for row in rows].count(False) == 2  # the two refused accepts, each left out once
    assert (report.actions_skipped, report.actions_sent) == (2, len(rows) - 2)


@pytest.mark.parametrize(
    "row",
    [
        {"day": 0, "tool": "next_turn", "args": [1], "ok": True},
        {"day": 0, "tool": "next_turn", "args": {"days": "abc"}, "ok": True},
        {"day": 0, "tool": "next_turn", "args": {"days": -5}, "ok": True},
        {"day": 0, "tool": "set_prices", "args": "A=1", "ok": True},
        {"day": 0, "tool": "no_such_tool", "args": {}, "ok": True},
    ],
)
def test_a_crafted_action_is_a_divergence_not_a_crash(runs: dict[str, Path], tmp_path: Path, row: dict) -> None:
    forged = copy_run(runs["ceo"], tmp_path / "forged")
    with (forged / "actions.jsonl").open("a") as f:
        f.write(json.dumps(row) + "\n")
    report = replay_run(forged)
    assert not report.ok and report.divergence is not None


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"weeks": 1, "colour": "red", "days": 1}, "unknown argument(s) colour, weeks"),
        ({"days": 0}, "days must be null or a positive integer, got 0"),
    ],
)
def test_a_crafted_turn_end_is_a_divergence_that_names_the_line_and_the_problem(
    runs: dict[str, Path], tmp_path: Path, args: dict, problem: str
) -> None:
    forged = copy_run(runs["ceo"], tmp_path / "forged")
    with (forged / "actions.jsonl").open("a") as f:
        f.write(json.dumps({"day": 0, "tool": "next_turn", "args": args, "ok": True}) + "\n")
    line = len((forged / "actions.jsonl").read_text().splitlines())  # the appended row, counted from 1
    report = replay_run(forged)
    assert not report.ok and report.divergence == f"action on line {line} (next_turn): {problem}"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: [c], "does not describe a bizbench run"),
        (lambda c: {**c, "seed": None}, "'seed' must be an int"),
        (lambda c: {**c, "seed": 3.7}, "'seed' must be an int"),
        (lambda c: {**c, "seed": True}, "'seed' must be an int"),
        (lambda c: {k: v for k, v in c.items() if k != "config"}, "'config' must be a dict"),
    ],
)
def test_a_malformed_config_is_a_clear_error(runs: dict[str, Path], tmp_path: Path, change: Any, message: str) -> None:
    forged = copy_run(runs["cfo"], tmp_path / "forged")
    edit_json(forged / "config.json", change)
    with pytest.raises(RunDirError, match=message):
        replay_run(forged)
    r = CliRunner().invoke(app, ["replay", str(forged)])
    assert r.exit_code == 2 and "Traceback" not in r.output


# ---------------------------------------------------------------------------- the files the report reads
def cash_or_first_number(row: dict[str, Any]) -> str:
    """A metrics row's ``cash``, or else its first field holding a plain number."""
    numbers = [k for k, v in row.items() if isinstance(v, int | float) and not isinstance(v, bool)]
    return "cash" if "cash" in numbers else numbers[0]


def edit_lines(path: Path, change: Callable[[int, dict[str, Any]], dict[str, Any]]) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(change(i, row)) + "\n" for i, row in enumerate(rows)))


@pytest.mark.parametrize("name", ["cfo", "yc", "ceo"])
def test_a_run_whose_metrics_were_edited_is_a_mismatch_naming_the_file_line_and_field(
    runs: dict[str, Path], tmp_path: Path, name: str
) -> None:
    """The attack of issue 16 (finding 3): ``cash`` (or the first number) set to 2,000,000 on
    every line of metrics.jsonl in a copy of a finished run, result.json and actions.jsonl untouched."""
    forged = copy_run(runs[name], tmp_path / "forged")
    key = cash_or_first_number(json.loads((forged / "metrics.jsonl").read_text().splitlines()[0]))
    edit_lines(forged / "metrics.jsonl", lambda i, row: {**row, key: 2_000_000})
    report = replay_run(forged)
    assert not report.ok and report.mismatches == {} and "metrics.jsonl" not in report.files_verified
    why = report.file_mismatches["metrics.jsonl"]
    assert why.startswith(f"line 1, field {key!r}: recorded 2000000, replayed ") and "lines differ" in why
    r = CliRunner().invoke(app, ["replay", str(forged), "--verdicts", str(tmp_path / "verdicts")])
    assert r.exit_code == 1 and "does not match" in r.output and f"metrics.jsonl: line 1, field {key!r}" in r.output


@pytest.mark.parametrize("name", ["cfo", "yc", "ceo"])
def test_every_file_the_report_reads_is_regenerated_and_the_rest_is_listed(runs: dict[str, Path], name: str) -> None:
    report = replay_run(runs[name])
    assert {"actions.jsonl", "metrics.jsonl", "ledger.csv"} <= set(report.files_verified)
    assert report.file_mismatches == {} and "tamper.jsonl" in report.files_unverified
    # every file of the run is checked once: config.json and result.json field by field, the rest
    # regenerated or listed as not
    files = sorted(f.name for f in runs[name].iterdir())
    assert sorted(["config.json", "result.json", *report.files_verified, *report.files_unverified]) == files


def test_a_format_1_run_still_verifies_and_its_logs_are_left_unverified(runs: dict[str, Path], tmp_path: Path) -> None:
    old = copy_run(runs["cfo"], tmp_path / "old")
    edit_json(old / "config.json", lambda c: {k: v for k, v in c.items() if k not in ("run_format", "horizon", "unit")})
    report = replay_run(old)
    assert report.ok, report.summary()
    assert report.files_verified == [] and {"actions.jsonl", "metrics.jsonl", "ledger.csv"} <= set(
        report.files_unverified
    )


def test_an_edited_ledger_is_caught(runs: dict[str, Path], tmp_path: Path) -> None:
    forged = copy_run(runs["yc"], tmp_path / "forged")
    lines = (forged / "ledger.csv").read_text().splitlines(keepends=True)
    header, first = lines[0].rstrip("\r\n").split(","), lines[1].split(",")
    amount = header.index("amount")
    first[amount] = "1000000.00"
    (forged / "ledger.csv").write_text("".join([lines[0], ",".join(first), *lines[2:]]))
    report = replay_run(forged)
    assert not report.ok and report.file_mismatches["ledger.csv"].startswith("line 2, field 'amount': recorded ")


def test_a_deleted_log_is_caught(runs: dict[str, Path], tmp_path: Path) -> None:
    """A missing metrics.jsonl would turn a bad figure into "not measurable"."""
    forged = copy_run(runs["cfo"], tmp_path / "forged")
    (forged / "statements.jsonl").unlink()
    report = replay_run(forged)
    assert not report.ok and report.file_mismatches["statements.jsonl"].startswith("0 lines recorded, ")


def test_an_edited_clock_in_the_action_log_is_caught(runs: dict[str, Path], tmp_path: Path) -> None:
    """The day of a logged call (the report dates ceo's forecasts by it) is what the replay logs."""
    forged = copy_run(runs["ceo"], tmp_path / "forged")
    edit_lines(forged / "actions.jsonl", lambda i, row: {**row, "day": row["day"] + 100} if i == 0 else row)
    report = replay_run(forged)
    assert not report.ok and report.file_mismatches["actions.jsonl"].startswith("line 1, field 'day': recorded ")


def test_a_resumed_run_verifies(runs: dict[str, Path], tmp_path: Path) -> None:
    """A run killed halfway and resumed (its attempt kept in attempts/) replays verified."""
    killed = copy_run(runs["yc-model"], tmp_path / "killed")
    for name in ("result.json", "ledger.csv", "cash.png"):
        (killed / name).unlink()
    for name in ("trajectory.jsonl", "actions.jsonl", "metrics.jsonl"):
        lines = (killed / name).read_text().splitlines(keepends=True)
        (killed / name).write_text("".join(lines[: len(lines) // 2]))
    reply = {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": "sim resume"}}]}
    resume_run(killed, model=ScriptedModel([reply]))
    assert (killed / "attempts" / "1" / "actions.jsonl").is_file()
    report = replay_run(killed)
    assert report.ok, report.summary()
    assert {"actions.jsonl", "metrics.jsonl", "ledger.csv"} <= set(report.files_verified)


def test_a_config_json_naming_another_env_is_one_line_naming_the_mismatch(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    run = copy_run(runs["cfo"], tmp_path / "run")
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "env": "yc"}))
    with pytest.raises(RunDirError, match=r"not a valid yc config \(\d+ problems; the first: ") as replayed:
        replay_run(run)
    assert "\n" not in str(replayed.value)  # not pydantic's listing of every problem


# ---------------------------------------------------------------------------- the verdict
def test_a_verdict_store_that_cannot_be_written_is_a_one_line_error_after_the_verdict(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    (tmp_path / "afile").write_text("not a directory")
    r = CliRunner().invoke(app, ["replay", str(runs["cfo"]), "--verdicts", str(tmp_path / "afile")])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "verified" in said and "the verdict could not be kept in" in said, r.output
    assert "Traceback" not in r.output


def test_the_verdict_is_kept_outside_the_run_and_void_once_a_file_changes(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    run = copy_run(runs["cfo"], tmp_path / "run")
    store = tmp_path / "verdicts"
    assert read_verdict(run, store).status == "not replayed"
    r = CliRunner().invoke(app, ["replay", str(run), "--verdicts", str(store)])
    assert r.exit_code == 0 and "verified" in r.output
    assert {p.name for p in run.iterdir()} == {p.name for p in runs["cfo"].iterdir()}  # nothing written into it
    verdict = read_verdict(run, store)
    assert verdict.verified and "metrics.jsonl" in verdict.files and "score" in verdict.result_fields
    # a copy elsewhere (its files unchanged) has no verdict: a submission cannot bring its own
    copy = copy_run(run, tmp_path / "copy")
    assert read_verdict(copy, store).status == "not replayed"
    # nor by planting the verdict under the copy's file name (docs/run-format.md: the first 32 hex
    # digits of the SHA-256 of its path): the verdict names the run it was made for
    (saved,) = store.iterdir()
    (store / f"{hashlib.sha256(str(copy.resolve()).encode()).hexdigest()[:32]}.json").write_bytes(saved.read_bytes())
    assert read_verdict(copy, store).status == "not replayed"
    assert read_verdict(run, None).status == "not replayed"  # no store, nothing read
    edit_lines(run / "metrics.jsonl", lambda i, row: row if i else {**row, "cash": 2_000_000})
    assert read_verdict(run, store).status == "changed since replay: metrics.jsonl"
    with (run / "ledger.csv").open("a") as ledger:
        ledger.write("\n")
    assert read_verdict(run, store).status == "changed since replay: ledger.csv, metrics.jsonl"
    (run / "metrics.jsonl").unlink()
    assert read_verdict(run, store).status == "changed since replay: ledger.csv, metrics.jsonl"


@pytest.mark.parametrize("digests", [{}, None, ["result.json"]])
def test_a_verdict_without_digests_verifies_nothing(runs: dict[str, Path], tmp_path: Path, digests: Any) -> None:
    """A verdict is bound to its files' digests: an edited one with none binds nothing."""
    run = copy_run(runs["cfo"], tmp_path / "run")
    saved = save_verdict(replay_run(run), tmp_path / "verdicts")
    assert read_verdict(run, tmp_path / "verdicts").verified
    edit_json(saved, lambda verdict: {**verdict, "digests": digests})
    assert read_verdict(run, tmp_path / "verdicts").status == "not replayed"


def test_a_failed_replay_is_kept_with_its_reason(runs: dict[str, Path], tmp_path: Path) -> None:
    forged = copy_run(runs["cfo"], tmp_path / "forged")
    edit_lines(forged / "metrics.jsonl", lambda i, row: {**row, "cash": 2_000_000})
    save_verdict(replay_run(forged), tmp_path / "verdicts")
    verdict = read_verdict(forged, tmp_path / "verdicts")
    assert not verdict.verified and verdict.status.startswith("replay failed: metrics.jsonl: line 1, field 'cash'")


def test_a_short_run_labelled_with_a_longer_horizon_is_not_verified(tmp_path: Path) -> None:
    """Issue 16 review: config.json's own horizon (which the report groups by) was never checked."""
    from bizbench.core.envs import list_envs
    from bizbench.runner.episode import run_baseline

    spec = list_envs()[0]
    run = tmp_path / "run"
    run_baseline(spec.id, spec.default_baseline, 1, None, 2, run)
    assert replay_run(run).ok
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "horizon": 500}))
    report = replay_run(run)
    assert not report.ok and any("config.json says 500" in c for c in report.config_changes)


def test_a_run_recorded_on_another_machine_and_version_verifies(runs: dict[str, Path], tmp_path: Path) -> None:
    """Provenance says where a run was made, not what it did: replay neither compares it nor lists it."""
    moved = copy_run(runs["yc"], tmp_path / "moved")
    other = {"bizbench": "0.0.1", "git_commit": "0" * 40, "python": "3.99.0", "platform": "elsewhere"}
    edit_json(moved / "result.json", lambda result: {**result, "provenance": other})
    report = replay_run(moved)
    assert report.ok, report.summary()
    assert "provenance" not in report.compared and "provenance" not in report.unverified
    assert report.recorded_with == "bizbench 0.0.1, commit 000000000000"


def test_a_mismatch_of_a_run_recorded_by_another_bizbench_says_an_upgrade_may_explain_it(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """A world changed between two versions makes an honest record differ too: the message names the
    recording version, so a user can replay with it before calling the record edited."""
    forged = copy_run(runs["yc"], tmp_path / "older")
    edit_json(forged / "result.json", lambda r: {**r, "score": r["score"] + 1, "provenance": {"bizbench": "0.0.1"}})
    r = CliRunner().invoke(app, ["replay", str(forged)])
    assert r.exit_code == 1 and "recorded with bizbench 0.0.1, commit unknown" in r.output, r.output
    copy = copy_run(runs["yc"], tmp_path / "same")
    edit_json(copy / "result.json", lambda r: {**r, "score": r["score"] + 1})
    r = CliRunner().invoke(app, ["replay", str(copy)])
    assert r.exit_code == 1 and "recorded with" not in r.output, r.output


@pytest.mark.parametrize(
    ("recorded", "named"),
    [
        (None, None),
        ("not an object", None),
        ({}, "bizbench None, commit unknown"),
        ({"bizbench": "0.0.1", "git_commit": None}, "bizbench 0.0.1, commit unknown"),
        ({"bizbench": "now", "git_commit": None}, None),  # no commit recorded: the version decides
        ({"bizbench": "now", "git_commit": "now"}, None),
        ({"bizbench": "now", "git_commit": "a" * 40}, "bizbench now, commit aaaaaaaaaaaa"),
    ],
)
def test_another_bizbench_is_named_by_a_version_or_a_known_commit_other_than_this_ones(
    monkeypatch: pytest.MonkeyPatch, recorded: Any, named: str | None
) -> None:
    import bizbench.runner.replay as replay

    monkeypatch.setattr(replay, "provenance", lambda: {"bizbench": "now", "git_commit": "now"})
    assert replay.another_bizbench(recorded) == named


def test_a_replay_draws_no_plot(runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The replayed record is compared, never looked at, so no cash plot is drawn for it."""

    def no_plot(*args: object, **kwargs: object) -> None:
        raise AssertionError("a replay drew a plot")

    monkeypatch.setattr("bizbench.core.plots.plot_money", no_plot)
    assert replay_run(runs["yc"]).ok


def without(field: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda record: {k: v for k, v in record.items() if k != field}


def test_a_field_added_later_is_left_out_of_the_comparison(runs: dict[str, Path], tmp_path: Path) -> None:
    """cfo added ``score_net_of_debt`` after its first runs: a run without it still verifies; one
    with it has it compared."""
    assert "score_net_of_debt" in replay_run(runs["cfo"]).compared
    early = copy_run(runs["cfo"], tmp_path / "early")
    edit_json(early / "result.json", without("score_net_of_debt"))
    report = replay_run(early)
    assert report.ok, report.summary()
    assert "score_net_of_debt" not in report.compared


def test_a_core_field_missing_from_a_format_2_result_is_a_mismatch(runs: dict[str, Path], tmp_path: Path) -> None:
    cut = copy_run(runs["cfo"], tmp_path / "cut")
    edit_json(cut / "result.json", without("survived_fraction"))
    recorded = json.loads((runs["cfo"] / "result.json").read_text())
    assert replay_run(cut).mismatches == {
        "survived_fraction": {"recorded": "(missing)", "replayed": recorded["survived_fraction"]}
    }


def test_a_core_field_missing_from_a_format_1_result_is_left_out(runs: dict[str, Path], tmp_path: Path) -> None:
    """A format-1 run predates the common result core."""
    old = copy_run(runs["cfo"], tmp_path / "old")
    edit_json(old / "config.json", lambda c: {k: v for k, v in c.items() if k not in ("run_format", "horizon", "unit")})
    edit_json(old / "result.json", without("survived_fraction"))
    report = replay_run(old)
    assert report.ok, report.summary()
    assert "survived_fraction" not in report.compared


def test_a_result_float_in_its_last_bit_still_verifies_and_one_a_trillionth_off_does_not(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Another CPU's exp/log may change a float's last bit (RESULT_REL_TOL is 1e-13); a forgery
    does more: the cfo score, about 2e8, moved by 1e-12 of itself (~0.0002) is caught."""
    score = json.loads((runs["cfo"] / "result.json").read_text())["score"]
    last_bit = copy_run(runs["cfo"], tmp_path / "last-bit")
    edit_json(last_bit / "result.json", lambda r: {**r, "score": math.nextafter(score, math.inf)})
    assert replay_run(last_bit).ok
    for factor in (1 + 2e-13, 1 + 1e-12):  # twice the tolerance, and ten times
        forged = copy_run(runs["cfo"], tmp_path / f"forged-{factor}")
        edit_json(forged / "result.json", lambda r, f=factor: {**r, "score": score * f})
        assert set(replay_run(forged).mismatches) == {"score"}


def test_a_record_file_is_read_line_by_line_as_the_report_reads_it(tmp_path: Path) -> None:
    """ledger.csv by csv rules (a quoted field keeps its line break; a row is numbered by its last
    line), a .jsonl log by its JSON objects only; a byte that is no UTF-8 becomes U+FFFD, never an error."""
    ledger = tmp_path / "ledger.csv"
    ledger.write_bytes(b'month,memo\r\n1,"a\r\nb"\r\n2,\xff\r\n')
    assert _lines(ledger) == [(3, {"month": "1", "memo": "a\r\nb"}), (4, {"month": "2", "memo": "\ufffd"})]
    log = tmp_path / "metrics.jsonl"
    log.write_bytes(b'{"a": "\xff"}\nnot json\n[1]\n{"b": 2}\n')
    assert _lines(log) == [(1, {"a": "\ufffd"}), (4, {"b": 2})]
    assert _lines(tmp_path / "absent.jsonl") == []


def test_a_field_only_one_side_of_a_line_has_is_a_difference() -> None:
    recorded = [(1, {"day": 1}), (2, {"day": 2, "cash": 5})]
    assert _first_difference(recorded, [{"day": 1, "cash": 3}, {"day": 2, "cash": 5}]) == (
        "line 1, field 'cash': recorded (missing), replayed 3 (1 of 2 lines differ)"
    )
    assert _first_difference(recorded, [{"day": 1}, {"day": 2}]) == (
        "line 2, field 'cash': recorded 5, replayed (missing) (1 of 2 lines differ)"
    )


def test_a_difference_names_the_first_line_cuts_a_long_value_at_80_characters_and_counts_the_lines() -> None:
    long = "x" * 81  # shown as its first 80 characters and its length
    recorded = [(1, {"note": long}), (2, {"note": "b"}), (3, {"note": "c"})]
    assert _first_difference(recorded, [{"note": "a"}, {"note": "z"}]) == (
        f"line 1, field 'note': recorded {'x' * 80}... (81 chars), replayed a (2 of 2 lines differ); "
        "3 lines recorded, 2 replayed"
    )
    assert _first_difference([(1, {"note": "x" * 80})], [{"note": "y"}]) == (
        f"line 1, field 'note': recorded {'x' * 80}, replayed y (1 of 1 lines differ)"
    )
    assert _first_difference(recorded[:1], [{"note": long}, {"note": "b"}]) == "1 lines recorded, 2 replayed"


def test_a_verified_verdict_gives_the_result_fields_files_and_action_lines_replay_regenerated(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    run = copy_run(runs["yc"], tmp_path / "run")
    report = replay_run(run)
    save_verdict(report, tmp_path / "verdicts")
    verdict = read_verdict(run, tmp_path / "verdicts")
    assert verdict.verified and report.compared and report.files_verified and report.actions_resent
    assert verdict.result_fields == frozenset(report.compared)
    assert verdict.files == frozenset(report.files_verified)
    assert verdict.action_lines == tuple(report.actions_resent)
