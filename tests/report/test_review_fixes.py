"""Report behaviours fixed after review: no pooled worlds, no 100 % survival for a run cut
short, damaged runs left out with a note, the experts' anchor only for the paper's score,
held-out worlds keep their adversarial clients secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import Limits
from bizbench.core.runs import load_run
from bizbench.envs.cfo import report as metrics_cfo
from bizbench.envs.cfo.report import HUMAN_SCORE
from bizbench.report import protocol
from bizbench.report.build import build_report
from bizbench.runner.agent_episode import run_agent_episode
from bizbench.runner.episode import run_baseline
from bizbench.runner.replay import replay_run

PASS = {"content": '{"type": "action", "name": "pass", "params": {}}'}


def test_a_cfo_run_cut_short_by_a_limit_is_a_failed_run_that_did_not_survive(tmp_path: Path) -> None:
    run_agent_episode("cfo", ScriptedModel([PASS]), 5, "paper", tmp_path / "r", None, Limits(max_turns=5))
    values = metrics_cfo.run_metrics(load_run(tmp_path / "r"))
    assert values["survival_pct"] == 0.0 and values["months"] == 5
    run_baseline("cfo", "prudent-cfo", 1, "paper", out=tmp_path / "full")
    assert metrics_cfo.run_metrics(load_run(tmp_path / "full"))["survival_pct"] == 100.0


def test_ceo_runs_of_different_horizons_are_not_pooled(tmp_path: Path) -> None:
    for seed, days in ((1, 35), (2, 35), (3, 21)):
        out = tmp_path / f"ceo{seed}"
        run_baseline("ceo", "do-nothing", seed, "default", days, out, world_options={"database": False})
    keys = {load_run(tmp_path / f"ceo{s}").group_key for s in (1, 2, 3)}
    assert keys == {("ceo", "default (35 days)", "do-nothing"), ("ceo", "default (21 days)", "do-nothing")}


def test_a_damaged_run_is_left_out_with_a_note(tmp_path: Path) -> None:
    run_baseline("cfo", "always-pass", 1, "paper", out=tmp_path / "runs" / "good")
    run_baseline("cfo", "always-pass", 2, "paper", out=tmp_path / "runs" / "bad")
    bad = tmp_path / "runs" / "bad" / "result.json"
    bad.write_text(json.dumps({**json.loads(bad.read_text()), "score": "abc"}))
    report = build_report([tmp_path / "runs"], tmp_path / "out", None, anchors=False)
    assert len(report.measured) == 1 and any("bad: malformed" in note for note in report.notes)


def test_the_experts_anchor_only_scales_the_papers_score(tmp_path: Path) -> None:
    run_baseline("cfo", "always-pass", 1, "hardened", out=tmp_path / "hardened")
    run_baseline("cfo", "always-pass", 1, "random-macro", out=tmp_path / "macro")
    cache = protocol.AnchorCache(tmp_path / "anchors.json")
    hardened = protocol.anchors_for(load_run(tmp_path / "hardened"), cache)
    assert hardened.one is None and "paper's score" in hardened.note
    assert protocol.anchors_for(load_run(tmp_path / "macro"), cache).one == HUMAN_SCORE


def test_held_out_yc_results_keep_the_adversarial_clients_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    public = run_baseline("yc", "greedy", 1, "default", out=tmp_path / "public")["evaluation"]
    assert len(public["adversarial_clients"]) == 2 and "adversarial" in public["clients"][0]
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "s3cret")
    held = run_baseline("yc", "greedy", 1, "default", out=tmp_path / "held")["evaluation"]
    assert "adversarial_clients" not in held and all("adversarial" not in c for c in held["clients"])
    assert set(held["failure_causes"]) == set(public["failure_causes"])  # the counts stay
    assert '"adversarial": true' not in (tmp_path / "held" / "result.json").read_text()
    assert replay_run(tmp_path / "held").ok


def test_a_yc_run_from_before_the_evaluation_still_verifies(tmp_path: Path) -> None:
    run_baseline("yc", "greedy", 2, "default", out=tmp_path / "old")
    path = tmp_path / "old" / "result.json"
    result = json.loads(path.read_text())
    del result["evaluation"]
    path.write_text(json.dumps(result))
    report = replay_run(tmp_path / "old")
    assert report.ok and "evaluation" not in report.compared
