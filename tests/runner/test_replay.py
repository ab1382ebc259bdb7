"""bizbench replay: a run's recorded actions, re-sent to a fresh world, give its recorded result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bizbench.agents.models.scripted import ScriptedModel
from bizbench.cli import app
from bizbench.runner.agent_episode import run_agent_episode
from bizbench.runner.episode import run_ceo_baseline, run_cfo_baseline, run_yc_baseline
from bizbench.runner.replay import replay_run
from bizbench.runner.resume import ResumeError


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    run_cfo_baseline("prudent-cfo", 3, "paper", root / "cfo")
    run_yc_baseline("heuristic", 2, "default", root / "yc")
    run_ceo_baseline("rule-based", 42, "default", days=35, out=root / "ceo", database=False)
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
    assert summary["ok"] is True and summary["env"] == "ceo" and summary["actions_skipped"] >= 0


def test_replay_needs_a_finished_run_and_the_same_secret(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ResumeError, match="no result.json"):
        replay_run(tmp_path)
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "another secret")
    with pytest.raises(ResumeError, match="held-out seeds"):
        replay_run(runs["yc"])
