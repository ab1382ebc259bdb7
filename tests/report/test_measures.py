"""The per-env measures (each env's report module), checked against what the run directory itself says."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bizbench.core.runs import Run, load_run
from bizbench.envs.ceo import report as metrics_ceo
from bizbench.envs.cfo import report as metrics_cfo
from bizbench.envs.yc import report as metrics_yc

from .conftest import CEO_DAYS, CEO_SEED

CFO_TOOLS = {"check_cash_in_bank", "access_financial_docs", "check_market_data", "cash_flow_forecast_calculation"}


# ---------------------------------------------------------------------------- cfo (Table 2)
@pytest.mark.parametrize("name", ["cfo-prudent-1", "cfo-greedy-equity-1"])
def test_cfo_table2_matches_the_action_log(runs: dict[str, Path], name: str) -> None:
    run = load_run(runs[name])
    m = metrics_cfo.run_metrics(run)
    months = [row["action"] for row in run.metrics]  # one action per month played
    requests = sum(a["tool"] == "fund_raising_request" and a["ok"] for a in run.actions)
    assert requests == months.count("fund_raising_request") > 0
    assert m["fr_attempt_pct"] == pytest.approx(100 * requests / len(months))
    assert m["book_closing_pct"] == pytest.approx(100 * months.count("book_closing") / len(months))
    assert m["pass_pct"] == pytest.approx(100 * months.count("pass") / len(months))
    assert m["fr_attempt_pct"] + m["book_closing_pct"] + m["pass_pct"] == pytest.approx(100)  # type: ignore[operator]
    assert m["passes"] == months.count("pass")
    assert m["fr_success_pct"] == pytest.approx(100 * run.get("fundraising_successes") / requests)
    tools = sum(a["tool"] in CFO_TOOLS for a in run.actions)
    assert m["tools_per_month"] == pytest.approx(tools / len(months))
    cash = [row["cash"] for row in run.metrics]
    assert m["peak_cash"] == pytest.approx(max(cash)) and m["low_cash"] == pytest.approx(min(cash))
    assert m["total_raised"] == pytest.approx(run.get("equity_raised") + run.get("debt_raised"))
    assert m["survival_pct"] == 100.0 and m["months"] == 132 and m["score"] == run.get("score")


# ---------------------------------------------------------------------------- yc (Tables 3-4, Fig 4-5)
def test_yc_behaviour_of_a_baseline(runs: dict[str, Path]) -> None:
    run = load_run(runs["yc-heuristic-1"])
    m = metrics_yc.run_metrics(run)
    tools = [a["tool"] for a in run.actions]
    assert m["inspect_per_accept"] == pytest.approx(tools.count("task_inspect") / tools.count("task_accept"))
    assert m["cmds_per_turn"] == pytest.approx(len(tools) / run.get("turns"))
    assert m["sp_per_100_turns"] == 0.0
    assert m["avg_concurrency"] == pytest.approx(np.mean([r["active_task_count"] for r in run.metrics]))
    ev = run.get("evaluation")
    assert m["adversarial_pct"] == pytest.approx(100 * ev["tasks_accepted_adversarial"] / run.get("tasks_accepted"))
    assert m["cost_usd"] is None and m["tokens"] is None  # a baseline calls no model


def test_yc_failure_causes_account_for_every_failed_task(runs: dict[str, Path]) -> None:
    run = load_run(runs["yc-greedy-1"])
    ev = run.get("evaluation")
    assert sum(ev["failure_causes"].values()) == run.get("tasks_failed") > 0
    # greedy takes the best-paid task whoever offers it: adversarial clients cause its failures
    assert ev["failure_causes"]["adversarial"] > 0
    clients = ev["clients"]
    assert sum(c["accepted"] for c in clients) == run.get("tasks_accepted")
    assert sum(c["accepted"] for c in clients if c["adversarial"]) == ev["tasks_accepted_adversarial"]
    assert sorted(c["name"] for c in clients if c["adversarial"]) == sorted(ev["adversarial_clients"])
    m = metrics_yc.run_metrics(run)
    assert m["fail_adversarial"] == ev["failure_causes"]["adversarial"] and m["bankrupt"] == 1.0


def test_yc_model_run_scratchpad_commands_and_tokens(runs: dict[str, Path]) -> None:
    run = load_run(runs["yc-scripted-1"])
    m = metrics_yc.run_metrics(run)
    turns = run.get("turns")
    writes = sum(a["tool"] in ("scratchpad_write", "scratchpad_append") and a["ok"] for a in run.actions)
    auto = sum(e["kind"] == "auto_advance" for e in run.trajectory)
    assert writes >= 2 and auto >= 1  # the script goes idle, so the harness advances by itself
    assert m["sp_per_100_turns"] == pytest.approx(100 * writes / turns)
    assert m["cmds_per_turn"] == pytest.approx((len(run.actions) - auto) / turns)
    assert m["tokens"] == run.get("model_calls") * 1100 and m["cost_usd"] == run.get("cost_usd")


# ---------------------------------------------------------------------------- ceo (Table 3, section 3.4)
def test_ceo_skill_measures_by_hand(runs: dict[str, Path]) -> None:
    run = load_run(runs["ceo-planner-1"])
    m = metrics_ceo.run_metrics(run, {"competitor_event_days": [62, 70]})
    # S1's best channel is content_marketing: 300 $/day on it + 100 elsewhere for 14 days, then
    # 400 on it for 14 days -> (4200 + 5600) / (5600 + 5600)
    assert m["best_channel_pct"] == pytest.approx(100 * 9800 / 11200)
    assert m["targeted_dev_pct"] == pytest.approx(90.0)  # 900 targeted vs 100 global per day
    # 9 rationales of 8 words and 5 of 7 words, one "if" each (the word "If" counts, "drift" does not)
    assert m["if_per_1000_words"] == pytest.approx(14 / (9 * 8 + 5 * 7) * 1000)
    assert m["competitor_days"] == 1.0  # first event day 62, first mention in the week submitted on day 63
    cash = {r["day"]: r["cash"] for r in run.metrics}
    weeks = [a for a in run.actions if a["tool"] == "next_week"][:4]
    submitted = [0, 7, 14, 21]
    errors = [
        abs(w["args"]["predictions"]["cash_4wk"]["point"] - cash[d + 28]) / cash[d + 28] * 100
        for w, d in zip(weeks, submitted, strict=True)
    ]
    assert m["forecast_ape_4wk_pct"] == pytest.approx(np.mean(errors), abs=1e-3)
    assert m["tools_per_week"] == pytest.approx(len(run.actions) / (CEO_DAYS / 7))
    assert m["turns_per_week"] is None and m["days_survived"] == CEO_DAYS


def test_ceo_measures_missing_for_a_baseline(runs: dict[str, Path]) -> None:
    run = load_run(runs["ceo-rule-based-42"])
    m = metrics_ceo.run_metrics(run, {"competitor_event_days": [80]})
    # no rationale, no forecasts, no memos: missing, never invented; 21 days end before day 80
    for key in ("forecast_ape_4wk_pct", "competitor_days", "if_per_1000_words", "turns_per_week", "cost_usd"):
        assert m[key] is None, key
    assert m["tools_per_week"] == pytest.approx(sum(a["tool"] != "next_turn" for a in run.actions) / 3)


def test_the_competitor_days_of_a_held_out_world_are_drawn_under_its_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """A held-out world (docs/sweeps.md) is drawn under $BIZBENCH_SEED_SECRET: its competitor days
    are its own, not the public world's of the same seed."""
    from bizbench.envs.ceo.config import load_config

    config, _ = load_config("default")
    monkeypatch.delenv("BIZBENCH_SEED_SECRET", raising=False)
    assert metrics_ceo.competitor_event_days(config, 1)[:3] == [62, 73, 79]
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "held-out")
    assert metrics_ceo.competitor_event_days(config, 1)[:3] == [67, 75, 80]


def test_a_competitor_event_on_the_last_day_of_the_horizon_is_counted() -> None:
    """With no cutoff, seed 7's last event fires on day 500, the horizon itself."""
    from bizbench.envs.ceo.config import load_config

    config, _ = load_config("default")
    no_cutoff = config.model_copy(update={"competitor": config.competitor.model_copy(update={"cutoff_days": 0})})
    assert metrics_ceo.competitor_event_days(no_cutoff, 7)[-3:] == [493, 498, 500]


def test_competitor_event_days_do_not_depend_on_the_agent() -> None:
    """The adaptation measure re-creates the hidden event days; the real world agrees whatever
    the agent does (here: heavy ads and development against doing nothing)."""
    from bizbench.runner.episode import open_session

    seen = []
    for busy in (False, True):
        env = open_session("ceo", CEO_SEED, "default", horizon=CEO_DAYS, world_options={"database": False})
        if busy:
            env.call("set_targeted_ad_spend", targeted_spend={"content_marketing": {"S1": 1000.0}})
            env.call("set_daily_spend", development=3000.0)
            env.call("start_research_project", tier=3)
        while not env.done:
            env.advance()
        assert not env.world.state.bankrupt
        seen.append([e["day"] for e in env.world.state.competitor_events])
    assert seen[0] == seen[1] == metrics_ceo.competitor_event_days(env.config, CEO_SEED)
    assert seen[0][0] == 62


def test_auto_advanced_weeks_are_not_the_agents_text(tmp_path: Path) -> None:
    """The terminal harness's own next_week is neither a memo nor a forecast."""
    forecast = {"point": 1.0, "lower": 1.0, "upper": 1.0}
    preds = dict.fromkeys(("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk"), forecast)
    actions = [
        {"day": 7, "tool": "next_week", "ok": True, "args": {"rationale": "if a then b", "predictions": preds}},
        {
            "day": 14,
            "tool": "next_week",
            "ok": True,
            "args": {"rationale": "[auto_advance by the harness] if", "predictions": preds},
        },
    ]
    run = Run(tmp_path, {"env": "ceo"}, {"days_survived": 14})
    run._cache.update(actions=actions, trajectory=[], metrics=[])
    assert metrics_ceo.agent_texts(run) == [(0, "if a then b")]
    assert metrics_ceo.if_per_1000_words(run) == pytest.approx(1000 / 4)
    assert math.isfinite(json.loads(json.dumps(metrics_ceo.tool_counts(run)))["next_week"])


def test_yc_plots_put_funds_on_days_into_the_year_and_mean_trust_per_client(tmp_path: Path) -> None:
    metrics = [
        {"time": "2025-02-03T09:30", "funds_cents": 20_000_000},
        {"time": "2025-03-02T18:00", "funds_cents": 12_345_600},
    ]

    def run(name: str, clients: list[dict] | None, turns: int = 2) -> Run:
        r = Run(tmp_path / name, {"env": "yc"}, {"evaluation": {"clients": clients}} if clients else {})
        r._cache.update(metrics=metrics[:turns])
        return r

    runs = [
        run("a", [{"name": "Acme", "trust": 4.0, "adversarial": True}, {"name": "Bolt", "trust": 2.0}]),
        run(
            "b",
            [{"name": "Acme", "trust": 3.0, "adversarial": True}, {"name": "Bolt", "trust": 1.0, "adversarial": False}],
        ),
        run("one-turn", None, turns=1),
    ]
    funds, trust = metrics_yc.plots({"m": runs})
    assert (funds.name, funds.kind, funds.title) == ("funds", "runs", "yc: funds over time")
    assert (funds.xlabel, funds.ylabel, funds.scale) == ("days into the year", "funds ($K)", 1000.0)
    # from 2025-01-01 00:00: Feb 3 09:30 is 31 + 2 days and 9.5 h; Mar 2 18:00 is 31 + 28 + 1 days and 18 h
    days = [33 + 9.5 / 24, 60 + 18 / 24]
    assert [len(x) for x, _ in funds.data["m"]] == [2, 2, 1]
    for x, dollars in funds.data["m"]:
        assert x == pytest.approx(days[: len(x)], abs=1e-9)
        assert dollars == [200_000.0, 123_456.0][: len(x)]
    assert (trust.name, trust.kind, trust.xlabel) == ("trust", "bars", "trust (0-5)")
    assert trust.title == "yc: final trust per client (mean over runs; hatched = adversarial)"
    assert trust.top is None  # every client is drawn, not the top 10
    assert trust.data == {"m": {"Acme (ADV)": 3.5, "Bolt": 1.5}}
    assert trust.highlight == {"m": {"Acme (ADV)"}}


def _run_of(tmp_path: Path, env: str, result: dict, actions: list[dict], config: dict | None = None) -> Run:
    """A run made of its result and actions only (the measures read nothing else)."""
    run = Run(tmp_path, {"env": env, "config": config or {}}, result)
    run._cache.update(actions=actions, trajectory=[], metrics=[])
    return run


def _leads(**by_channel: float) -> dict[str, float]:
    channels = ("social_media", "search_ads", "linkedin", "content_marketing", "referral_program")
    return {c: by_channel.get(c, 1.0) for c in channels}


def test_the_best_channel_share_weighs_each_ad_table_by_its_days_and_averages_over_the_groups_that_spent(
    tmp_path: Path,
) -> None:
    """Fig 12a as the module docstring defines it, over a 30-day run: S1's best channel is
    content_marketing (320 leads per $1,000), S2's social_media (400), S3 never gets ads.
    Day 0: S1 $300 content + $100 search, S2 $50 social + $150 content; day 5 (the whole map
    replaced): S1 $400 content only; a refused call on day 10 counts for nothing.
      S1: content 300 x 5 + 400 x 25 = 11,500 of 400 x 5 + 400 x 25 = 12,000 -> 23/24
      S2: social 50 x 5 = 250 of 200 x 5 = 1,000 -> 1/4
      mean over the two groups that spent: (23/24 + 1/4) / 2 = 29/48 = 60.4167 %
    (A plain mean of the two tables' S1 shares (0.75 + 1) / 2 would give 56.25 %, pooling the
    groups' dollars 11,750 / 13,000 = 90.4 %, counting S3 as 0 % 40.3 %.)"""
    groups = [
        {"id": "S1", "channel_leads": _leads(social_media=100, search_ads=200, content_marketing=320)},
        {"id": "S2", "channel_leads": _leads(social_media=400, search_ads=100, content_marketing=50)},
        {"id": "S3", "channel_leads": _leads(linkedin=900)},
    ]
    day0 = {"content_marketing": {"S1": 300.0, "S2": 150.0}, "search_ads": {"S1": 100.0}, "social_media": {"S2": 50.0}}
    actions = [
        {"day": 0, "tool": "set_targeted_ad_spend", "ok": True, "args": {"targeted_spend": day0}},
        {
            "day": 5,
            "tool": "set_targeted_ad_spend",
            "ok": True,
            "args": {"targeted_spend": {"S1": {"content_marketing": 400.0}}},
        },
        {
            "day": 10,
            "tool": "set_targeted_ad_spend",
            "ok": False,
            "args": {"targeted_spend": {"S1": {"search_ads": 9e9}}},
        },
    ]
    run = _run_of(tmp_path, "ceo", {"days_survived": 30}, actions, {"groups": groups})
    assert metrics_ceo.best_channel_share(run) == pytest.approx(100 * 29 / 48, rel=1e-12)


def test_inspect_per_accept_is_accepted_inspections_over_accepted_acceptances(tmp_path: Path) -> None:
    """Table 3's Inspect/Accept on a ratio far from 1: 7 accepted task_inspect calls (and one
    refused) over 2 accepted task_accept calls (and one refused) = 3.5 (swapped: 0.29; counting
    the refused calls: 8 / 3)."""
    calls = [("task_inspect", True)] * 7 + [("task_inspect", False), ("market_browse", True)]
    calls += [("task_accept", True), ("task_accept", True), ("task_accept", False)]
    actions = [{"tool": tool, "ok": ok, "args": {}} for tool, ok in calls]
    m = metrics_yc.run_metrics(_run_of(tmp_path, "yc", {"turns": 10}, actions))
    assert m["inspect_per_accept"] == 3.5


def test_inspect_per_accept_is_missing_with_no_accepted_task_and_counts_from_one(tmp_path: Path) -> None:
    """No accepted task_accept (one refused): the ratio is missing, not 3 / 0 nor 0; one accepted
    task_accept: 3 inspections / 1 = 3.0."""
    inspects = [{"tool": "task_inspect", "ok": True, "args": {}}] * 3
    refused_accept = {"tool": "task_accept", "ok": False, "args": {}}
    none = metrics_yc.run_metrics(_run_of(tmp_path, "yc", {"turns": 4}, [*inspects, refused_accept]))
    assert none["inspect_per_accept"] is None
    one = [*inspects, refused_accept, {"tool": "task_accept", "ok": True, "args": {}}]
    assert metrics_yc.run_metrics(_run_of(tmp_path, "yc", {"turns": 4}, one))["inspect_per_accept"] == 3.0


def test_every_yc_measure_of_one_run_by_hand(tmp_path: Path) -> None:
    """Tables 3-4 and Fig 4a/5a on a run built by hand, every ratio far from 1:
    8 turns; 3 accepted scratchpad writes (2 writes, 1 append; a refused write does not count);
    3 accepted inspections over 2 accepted acceptances; 12 commands of which 2 are the harness's
    own resumes after idle turns; 3 status lines with a task count, one without."""
    calls = [("scratchpad_write", True)] * 2 + [("scratchpad_append", True), ("scratchpad_write", False)]
    calls += [("task_inspect", True)] * 3 + [("task_accept", True)] * 2 + [("sim_resume", True)] * 3
    actions = [{"tool": tool, "ok": ok, "args": {}} for tool, ok in calls]
    result = {
        "turns": 8,
        "final_funds": 123_456.78,
        "bankrupt": True,
        "tasks_accepted": 4,
        "tasks_failed": 3,
        "cost_usd": 1.25,
        "tokens": {"input_tokens": 1_000, "output_tokens": 250},
        "wall_seconds": 90,
        "evaluation": {"tasks_accepted_adversarial": 1, "failure_causes": {"adversarial": 2, "too_late": 1}},
    }
    run = _run_of(tmp_path, "yc", result, actions)
    run._cache.update(
        trajectory=[{"kind": "auto_advance"}, {"kind": "message"}, {"kind": "auto_advance"}],
        metrics=[{"active_task_count": 1}, {"active_task_count": 2}, {"funds_cents": 5}, {"active_task_count": 4}],
    )
    m = metrics_yc.run_metrics(run)
    assert m == {
        "final_funds": 123_456.78,
        "bankrupt": 1.0,
        "turns": 8,
        "sp_per_100_turns": 37.5,  # 3 / 8 x 100
        "inspect_per_accept": 1.5,  # 3 / 2
        "avg_concurrency": pytest.approx(7 / 3),  # (1 + 2 + 4) / 3 status lines with a count
        "cmds_per_turn": 1.25,  # (12 - 2) / 8
        "adversarial_pct": 25.0,  # 1 of 4 accepted tasks
        "tasks_failed": 3,
        "cost_usd": 1.25,
        "tokens": 1_250,
        "runtime_min": 1.5,
        "fail_adversarial": 2,
        "fail_not_dispatched": None,
        "fail_split_effort": None,
        "fail_poor_match": None,
        "fail_understaffed": None,
        "fail_too_late": 1,
    }


def test_a_yc_run_without_turns_tokens_times_or_evaluation_has_those_measures_missing(tmp_path: Path) -> None:
    """Not measurable is None, never 0: no turns (every per-turn ratio), no status line with a task
    count, no tokens, no wall time, no evaluation (adversarial share and causes); not bankrupt is 0."""
    run = _run_of(tmp_path, "yc", {"turns": 0, "final_funds": 0.0, "tasks_accepted": 2}, [])
    m = metrics_yc.run_metrics(run)
    for key in ("sp_per_100_turns", "inspect_per_accept", "avg_concurrency", "cmds_per_turn", "adversarial_pct"):
        assert m[key] is None, key
    assert (m["tokens"], m["runtime_min"], m["cost_usd"], m["bankrupt"]) == (None, None, None, 0.0)
    assert all(m[f"fail_{c}"] is None for c in ("adversarial", "not_dispatched", "too_late"))
    empty = _run_of(tmp_path, "yc", {"turns": 4, "tokens": {}, "wall_seconds": 0}, [])
    empty_measures = metrics_yc.run_metrics(empty)
    assert (empty_measures["tokens"], empty_measures["runtime_min"]) == (None, 0.0)
    for tokens, total in (({"output_tokens": 7}, 7), ({"input_tokens": 5}, 5)):  # a missing side counts 0
        counted = _run_of(tmp_path, "yc", {"turns": 4, "tokens": tokens}, [])
        assert metrics_yc.run_metrics(counted)["tokens"] == total


def _cfo_run(path: Path, **result: Any) -> Run:
    return _run_of(path, "cfo", {"completed": True, **result}, [])


def test_cfo_table2_values_of_one_run_by_hand(tmp_path: Path) -> None:
    run = _cfo_run(
        tmp_path,
        fundraising_requests=3,  # 3 + 2 + 5 = 10 months played, one action each
        book_closings=2,
        passes=5,
        fundraising_attempts=4,
        fundraising_successes=1,
        equity_raised=2e6,
        debt_raised=5e5,
        tool_calls=25,
        score=1.5e7,
        score_net_of_debt=1.4e7,
        debt_outstanding=1e6,
        bankrupt=False,
        months_survived=10,
        months_total=12,
        peak_cash=3e6,
        final_cash=2e6,
        low_cash=1e5,
        cost_usd=1.25,
        tokens=100,
    )
    assert metrics_cfo.run_metrics(run) == {
        "score": 1.5e7,
        "score_net_of_debt": 1.4e7,
        "debt_outstanding": 1e6,
        "survival_pct": 0.0,  # 10 of 12 months
        "months": 10,
        "equity_raised": 2e6,
        "debt_raised": 5e5,
        "total_raised": 2.5e6,
        "fr_success_pct": 25.0,  # 1 of 4 requests
        "peak_cash": 3e6,
        "final_cash": 2e6,
        "low_cash": 1e5,
        "tools_per_month": 2.5,  # 25 calls over 10 months
        "fr_attempt_pct": pytest.approx(30.0),  # 3 of 10 months
        "fr_success_action_pct": 10.0,  # 1 of 10 months
        "book_closing_pct": 20.0,
        "passes": 5.0,
        "pass_pct": 50.0,
        "cost_usd": 1.25,
    }


def test_cfo_measures_with_nothing_to_divide_by_are_missing_not_zero(tmp_path: Path) -> None:
    values = metrics_cfo.run_metrics(_cfo_run(tmp_path, tool_calls=7, equity_raised=1e6))
    assert values["total_raised"] is None  # no debt figure
    assert values["survival_pct"] is None  # no bankrupt / months figures
    assert values["passes"] == 0.0
    missing = ("fr_success_pct", "tools_per_month", "fr_attempt_pct", "fr_success_action_pct", "book_closing_pct")
    assert [values[k] for k in (*missing, "pass_pct", "cost_usd")] == [None] * 7
    no_tools = metrics_cfo.run_metrics(_cfo_run(tmp_path, passes=2))
    assert (no_tools["tools_per_month"], no_tools["pass_pct"]) == (None, 100.0)
    assert (no_tools["fr_success_pct"], no_tools["fr_success_action_pct"]) == (None, 0.0)  # no success recorded


@pytest.mark.parametrize(
    ("result", "survival"),
    [
        ({"bankrupt": False, "months_survived": 12, "months_total": 12}, 100.0),  # every month
        ({"bankrupt": False, "months_survived": 11, "months_total": 12}, 0.0),  # one short
        ({"bankrupt": True, "months_survived": 12, "months_total": 12}, 0.0),
        ({"bankrupt": False, "months_survived": 12, "months_total": 12, "completed": False}, 0.0),  # ended early
        ({"months_survived": 12, "months_total": 12}, None),
        ({"bankrupt": False, "months_total": 12}, None),
        ({"bankrupt": False, "months_survived": 12}, None),
    ],
)
def test_cfo_survival_is_100_only_for_every_month_played_without_bankruptcy(
    tmp_path: Path, result: dict[str, Any], survival: float | None
) -> None:
    assert metrics_cfo.run_metrics(_cfo_run(tmp_path, **result))["survival_pct"] == survival


def test_cfo_plots_draw_cash_by_month_and_count_each_months_action(tmp_path: Path) -> None:
    run = _cfo_run(tmp_path)
    run._cache["metrics"] = [
        {"month": 1, "cash": 5e6, "action": "pass"},
        {"month": 2, "cash": 4e6, "action": "fund_raising_request"},
        {"month": 3, "cash": 6e6, "action": "pass"},
    ]
    cash, actions = metrics_cfo.plots({"m": [run]})
    assert (cash.name, cash.kind, cash.title, cash.xlabel, cash.ylabel, cash.scale) == (
        "cash",
        "runs",
        "cfo: cash by month",
        "month",
        "cash ($M)",
        1e6,
    )
    assert cash.data == {"m": [([1, 2, 3], [5e6, 4e6, 6e6])]}
    assert (actions.name, actions.kind, actions.title, actions.xlabel) == (
        "actions",
        "cumulative",
        "cfo: actions over time (EnterpriseArena Fig 2-3)",
        "month",
    )
    assert actions.data == {
        "fund_raising_request": {"m": [[0.0, 1.0, 0.0]]},
        "book_closing": {"m": [[0.0, 0.0, 0.0]]},
        "pass": {"m": [[1.0, 0.0, 1.0]]},
    }


def test_the_human_experts_anchor_only_runs_scored_the_papers_way(tmp_path: Path) -> None:
    from bizbench.envs.cfo.config import load_config

    paper = load_config("paper")[0].model_dump(mode="json")  # every Score field at its default: eq 2
    assert metrics_cfo.human_experts(_run_of(tmp_path, "cfo", {}, [], config=paper)) == (152.2e6, "")
    net = {**paper, "score": {**paper["score"], "cash": "net"}}
    assert metrics_cfo.human_experts(_run_of(tmp_path, "cfo", {}, [], config=net)) == (
        None,
        "the human experts played the paper's score; this preset scores another way",
    )


def test_ceo_table3_and_skill_values_of_one_run_by_hand(tmp_path: Path) -> None:
    def week(day: int, rationale: str, cash_4wk: dict[str, float] | None = None, ok: bool = True) -> dict[str, Any]:
        args: dict[str, Any] = {"rationale": rationale}
        if cash_4wk is not None:
            args["predictions"] = {"cash_4wk": cash_4wk}
        return {"day": day, "tool": "next_week", "ok": ok, "args": args}

    actions = [
        # logged with the day each week advanced to, so they were submitted on days 0, 7, 14 and 28
        week(7, "If demand falls, cut ads. if not, hold.", {"point": 900.0}),  # no bounds: the point stands in
        {"day": 7, "tool": "set_price", "ok": True, "args": {}},
        week(14, "[auto_advance by the harness]", {"point": 1.0}),  # the harness's, not the agent's
        week(21, "refused", ok=False),  # a refused call is a tool call but no submitted week
        week(28, "We saw the Competitor's launch.", {"point": 500.0, "lower": 400.0, "upper": 600.0}),
        week(35, "steady", {"point": 0.0}),  # submitted on day 28: not in the first four weeks
        {"day": 35, "tool": "next_turn", "ok": True},  # a baseline's turn is not a tool
    ]
    trajectory = [
        {"day": 3, "kind": "model_call", "content": "thinking about competitors"},  # before the first event
        {"day": "?", "kind": "model_call", "content": "competitor"},  # no day: left out
        {"day": 5, "kind": "tool_call", "ok": False, "name": "write_file", "arguments": {"content": "if if if"}},
        {"day": 10, "kind": "tool_call", "ok": True, "name": "write_file", "arguments": {"content": "if x"}},
        {"day": 20, "kind": "tool_call", "ok": True, "name": "edit_file", "arguments": {"new": "plan"}},
    ]
    ledger = [
        {"day": "1", "category": "development", "amount": "-300", "group": "smb", "note": "targeted"},
        {"day": "2", "category": "development", "amount": "-100", "group": "", "note": ""},
        {"day": "3", "category": "marketing", "amount": "-50", "group": "smb", "note": "targeted"},
    ]
    metrics = [{"day": 28, "cash": 1000.0}, {"day": 42, "cash": 400.0}, {"day": 56, "cash": 100.0}]
    run = _run_of(tmp_path, "ceo", {"final_cash": 1234.5, "days_survived": 49, "model_calls": 14}, actions)
    run._cache.update(trajectory=trajectory, metrics=metrics)
    run._cache["ledger.csv"] = ledger
    assert metrics_ceo.agent_texts(run) == [
        (0, "If demand falls, cut ads. if not, hold."),
        (3, "thinking about competitors"),
        (10, "if x"),
        (14, "We saw the Competitor's launch."),
        (20, "plan"),
        (28, "steady"),
    ]
    assert metrics_ceo.run_metrics(run, {"competitor_event_days": [30, 12]}) == {
        "final_cash": 1234.5,
        "bankrupt": 0.0,
        "days_survived": 49,
        "turns_per_week": 2.0,  # 14 model calls over 49 / 7 = 7 weeks
        "cost_usd": None,
        "best_channel_pct": None,  # no customer groups in the config
        # day 0: |900 - 1000| / 1000 = 10 %; day 14: |500 - 400| / 400 = 25 %; mean 17.5 %
        "forecast_ape_4wk_pct": 17.5,
        "competitor_days": 2.0,  # first event day 12, first later mention day 14
        # memos (rationales and files written): 8 + 5 + 1 + 2 + 1 = 17 words, 3 "if"
        "if_per_1000_words": pytest.approx(3 / 17 * 1000),
        "targeted_dev_pct": 75.0,  # 300 of 400 development dollars
        "tools_per_week": pytest.approx(6 / 7),  # 5 next_week and 1 set_price over 7 weeks
    }
    assert metrics_ceo.days_to_competitor_mention(run, [50]) is None  # the first event after the run ended
    assert metrics_ceo.days_to_competitor_mention(run, [14]) == 0.0  # a mention on the event's own day counts
    assert metrics_ceo.days_to_competitor_mention(run, [15]) is None  # no mention from day 15 on
    assert metrics_ceo.days_to_competitor_mention(run, []) is None


def _ad_call(spend: dict[str, dict[str, float]], day: int | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {"tool": "set_targeted_ad_spend", "ok": True, "args": {"targeted_spend": spend}}
    return call if day is None else {**call, "day": day}


def test_the_best_channel_share_counts_small_spends_and_not_a_table_replaced_the_same_day(tmp_path: Path) -> None:
    groups = [
        {"id": "S1", "channel_leads": _leads(content_marketing=320)},
        {"id": "S2", "channel_leads": _leads(social_media=400)},
    ]
    actions = [
        _ad_call({"S1": {"search_ads": 500.0}}),  # no day logged: day 0, replaced on day 0, so it holds 0 days
        _ad_call({"S1": {"content_marketing": 0.25, "made_up": 9.0}}, day=0),
        _ad_call({"S2": {"search_ads": 1.0}}, day=2),
    ]
    # S1: $0.25 a day on its best channel for days 0-1, $0.50 in all (unknown names ignored) -> 100 %
    # S2: $1 a day on search_ads for days 2-3, none on its best channel -> 0 %; mean 50 %
    run = _run_of(tmp_path, "ceo", {"days_survived": 4}, actions, {"groups": groups})
    assert metrics_ceo.best_channel_share(run) == 50.0
    # a run without its length holds every table for 0 days: no dollars, no share
    assert metrics_ceo.best_channel_share(_run_of(tmp_path, "ceo", {}, actions, {"groups": groups})) is None
    # a table logged without its day holds from day 0: $1 a day on content for days 0-1, then search on day 2
    undated = [_ad_call({"S1": {"content_marketing": 1.0}}), _ad_call({"S1": {"search_ads": 1.0}}, day=2)]
    run = _run_of(tmp_path, "ceo", {"days_survived": 3}, undated, {"groups": groups})
    assert metrics_ceo.best_channel_share(run) == pytest.approx(100 * 2 / 3)


def test_ceo_measures_of_a_run_without_its_length_or_any_text_are_missing(tmp_path: Path) -> None:
    actions = [{"tool": "next_week", "ok": True, "args": {}}, {"day": 7, "tool": "next_week", "ok": True, "args": {}}]
    run = _run_of(tmp_path, "ceo", {"bankrupt": True, "model_calls": 3}, actions)
    values = metrics_ceo.run_metrics(run, None)
    assert (values["bankrupt"], values["turns_per_week"], values["tools_per_week"]) == (1.0, None, None)
    assert values["competitor_days"] is None and values["if_per_1000_words"] is None
    # a week logged without its day leaves the next one submitted on day 0 too
    assert [day for day, _ in metrics_ceo._weeks_submitted(run)] == [0, 0]


def test_a_competitor_mention_counts_up_to_the_runs_last_day_and_texts_of_one_day_keep_their_order(
    tmp_path: Path,
) -> None:
    actions = [
        {"day": 9, "tool": "next_week", "ok": True, "args": {"rationale": "watch the competitor"}},
        {"day": 16, "tool": "next_week", "ok": True, "args": {"rationale": "the competitor again"}},
    ]
    trajectory = [{"day": 0, "kind": "tool_call", "ok": True, "name": "write_file", "arguments": {"content": "a memo"}}]
    run = _run_of(tmp_path, "ceo", {"days_survived": 0}, actions)
    run._cache["trajectory"] = trajectory
    # a rationale and a file of the same day (0): the rationale first, as they were gathered (not by text)
    assert metrics_ceo.agent_texts(run) == [(0, "watch the competitor"), (0, "a memo"), (9, "the competitor again")]
    assert metrics_ceo.days_to_competitor_mention(run, [0]) == 0.0  # an event on the run's last day (0)
    no_length = _run_of(tmp_path, "ceo", {}, actions)
    no_length._cache["trajectory"] = []
    assert metrics_ceo.days_to_competitor_mention(no_length, [1]) is None  # a run of unknown length: 0 days


def test_the_targeted_development_share_counts_a_development_spend_under_one_dollar(tmp_path: Path) -> None:
    run = _run_of(tmp_path, "ceo", {}, [])
    run._cache["ledger.csv"] = [
        {"day": "1", "category": "development", "amount": "-0.25", "group": "S1", "note": "targeted"},
        {"day": "1", "category": "development", "amount": "-0.75", "group": "", "note": ""},
    ]
    assert metrics_ceo.targeted_dev_share(run) == 25.0  # 0.25 of 1.00 development dollars
    run._cache["ledger.csv"] = []
    assert metrics_ceo.targeted_dev_share(run) is None


def test_ceo_plots_draw_cash_the_best_runs_customers_and_tool_calls_per_week(tmp_path: Path) -> None:
    def run(name: str, result: dict[str, Any], metrics: list[dict[str, Any]], tools: list[str]) -> Run:
        r = _run_of(tmp_path / name, "ceo", result, [{"day": 1, "tool": t, "ok": True} for t in tools])
        r._cache["metrics"] = metrics
        return r

    richer_but_bankrupt = run(
        "r1",
        {"bankrupt": True, "completed": False, "final_cash": 9e6, "days_survived": 14, "seed": 1},
        [{"day": 1, "cash": 5.0}],
        ["set_price"] * 7,
    )
    best = run(
        "r2",
        {"bankrupt": False, "completed": True, "final_cash": 1e6, "days_survived": 21, "seed": 2},
        [
            {"day": 1, "cash": 6.0, "subscribers_by_group": {"S2": 3, "S1": 1}, "seats_by_group": {"S1": 10}},
            {"day": 2, "cash": 7.0, "subscribers_by_group": {"S1": 2}, "seats_by_group": {"S3": 5}},
            {"day": 3, "cash": 8.0},  # a day without customers by group
        ],
        ["next_week"] * 3 + ["next_turn"],
    )
    unmeasured = run("r3", {"completed": True, "seed": 3}, [], ["set_price"])  # no length: no weeks
    cash, customers_a, customers_z, tools = metrics_ceo.plots({"m A": [richer_but_bankrupt, best], "z": [unmeasured]})
    assert (cash.name, cash.kind, cash.title, cash.xlabel, cash.ylabel, cash.scale) == (
        "cash",
        "runs",
        "ceo: cash over time",
        "simulated day",
        "cash ($M)",
        1e6,
    )
    assert cash.data == {"m A": [([1], [5.0]), ([1, 2, 3], [6.0, 7.0, 8.0])], "z": [([], [])]}
    assert (customers_a.name, customers_a.kind, customers_a.title, customers_a.xlabel, customers_a.ylabel) == (
        "customers_m_a",
        "stacked",
        "ceo: customers by group, best run of m A (seed 2)",
        "simulated day",
        "subscribers + seats",
    )
    # subscribers + seats per group, groups sorted, 0 where a day lacks the group
    assert customers_a.data == ([1, 2, 3], {"S1": [11, 2, 0], "S2": [3, 0, 0], "S3": [0, 5, 0]})
    assert (customers_z.name, customers_z.data) == ("customers_z", ([], {}))
    assert (tools.name, tools.kind, tools.title, tools.xlabel) == (
        "tools",
        "bars",
        "ceo: tool calls per week (top 10)",
        "calls/week",
    )
    # per run calls / weeks, averaged over the model's runs: set_price 7 / 2 / 2, next_week 3 / 3 / 2
    assert tools.data == {"m A": {"set_price": 1.75, "next_week": 0.5}, "z": {}}


def test_the_ceo_world_facts_and_anchor_come_from_the_runs_own_config_and_seed(tmp_path: Path) -> None:
    from bizbench.envs.ceo.config import load_config
    from bizbench.envs.ceo.upper_bound import estimate

    config = load_config("default")[0].model_copy(update={"horizon_days": CEO_DAYS})
    run = Run(tmp_path, {"env": "ceo", "seed": CEO_SEED, "config": config.model_dump(mode="json")}, {})
    facts = metrics_ceo.world_facts(run)
    assert list(facts) == ["competitor_event_days"] and facts["competitor_event_days"][0] == 62
    assert metrics_ceo.upper_bound(run) == (estimate(config).reported, "")
    assert 0 < metrics_ceo.upper_bound(run)[0] < estimate(load_config("default")[0]).reported  # 98 days, not 500
