"""Runs recorded before a rule changed replay under the rule they ran with (docs/run-format.md).

The fixture is prudent-cfo on hardened, seed 4, recorded by the code before year-1 shares
were priced on annualised revenue (``annualise_year_one``): config.json, actions.jsonl and
result.json as that run wrote them (score $14,682,440.95).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bizbench.cli import app
from bizbench.envs.cfo.config import CfoConfig, Equity, load_config
from bizbench.envs.cfo.env import CfoEnv
from bizbench.runner.episode import run_baseline
from bizbench.runner.replay import replay_run

OLD_RUN = Path(__file__).parent / "data" / "hardened-prudent-cfo-seed4-before-year-one-annualising"


def test_a_hardened_run_recorded_before_year_one_annualising_replays_its_own_score() -> None:
    recorded = json.loads((OLD_RUN / "config.json").read_text())
    assert "annualise_year_one" not in recorded["config"]["fundraising"]["equity"]
    report = replay_run(OLD_RUN)
    assert report.divergence is None and report.mismatches == {}, report.summary()
    assert report.result["score"] == 14_682_440.95  # not 24,863,513.01 (annualised pricing)
    # the world is not today's hardened preset, and replay says where it differs
    assert report.config_changes == ["fundraising"] and not report.ok
    # and its preset_hash is not today's hardened one (the merged change kept the hash and moved the score)
    assert recorded["preset_hash"] != load_config("hardened")[1]


def test_a_recorded_config_without_the_field_prices_year_one_on_partial_revenue() -> None:
    recorded = json.loads((OLD_RUN / "config.json").read_text())["config"]
    config = CfoConfig.model_validate(recorded)
    assert config.fundraising.equity.annualise_year_one is False
    env = CfoEnv(config, seed=4, preset="hardened")
    # month 0: eq 2's trailing revenue is 0, so a share is priced on cash alone
    assert env.world.share_price_cents() == pytest.approx(env.world.cash_cents / env.world.shares)


def test_hardened_annualises_year_one_and_the_paper_presets_do_not() -> None:
    assert Equity().annualise_year_one is False
    assert load_config("hardened")[0].fundraising.equity.annualise_year_one is True
    for preset in ("paper", "random-macro"):
        config = load_config(preset)[0]
        assert config.fundraising.equity.annualise_year_one is False
        # left out of the dump when off: a paper run recorded before the field replays with no config change
        assert "annualise_year_one" not in config.model_dump(mode="json")["fundraising"]["equity"]
    env = CfoEnv.from_preset("hardened", 4)
    expected = (5 * 12 * env.world.plan.lending.revenue_cents + env.world.cash_cents) / env.world.shares
    assert env.world.share_price_cents() == pytest.approx(expected)


def test_a_hardened_run_made_now_replays_verified(tmp_path: Path) -> None:
    run_baseline("cfo", "prudent-cfo", 4, "hardened", out=tmp_path / "run")
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["config"]["fundraising"]["equity"]["annualise_year_one"] is True
    report = replay_run(tmp_path / "run")
    assert report.ok, report.summary()
    assert report.result["score"] == 24_863_513.01
    r = CliRunner().invoke(app, ["replay", str(tmp_path / "run")])
    assert r.exit_code == 0, r.output
