"""The cfo env through its tools: budget, actions, fundraising rules, books, score, errors, hidden state."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bizbench.envs.cfo.baselines import make_policy, run_policy
from bizbench.envs.cfo.env import CfoEnv
from bizbench.envs.cfo.world import fundraising as fr
from bizbench.envs.cfo.world.macro import GROUPS, SERIES
from bizbench.envs.cfo.world.world import Tranche


def env_at(seed: int = 3, preset: str = "paper") -> CfoEnv:
    return CfoEnv.from_preset(preset, seed)


def ok(env: CfoEnv, name: str, **args: object) -> dict:
    r = env.call(name, **args)
    assert r.ok, r.error
    return dict(r.data)


def refused(env: CfoEnv, name: str, **args: object) -> str:
    before = env.state_digest()
    r = env.call(name, **args)
    assert not r.ok
    assert env.state_digest() == before, f"{name}({args}) changed state while failing"
    return str(r.error)


# ---------------------------------------------------------------------------- accounting in the world
@pytest.mark.parametrize("agent", ["greedy-equity", "greedy-debt", "prudent-cfo"])
def test_books_balance_every_month_and_cash_matches_the_ledger(agent: str) -> None:
    for seed in range(1, 21):
        env = env_at(seed)
        run_policy(env, make_policy(agent))
        led = env.world.ledger
        for rec in env.world.history:
            k = rec.month
            bs = led.balance_sheet(k)
            assert bs["total_assets"] == bs["total_liabilities_and_equity"]
            assert bs["assets"]["cash"] == rec.cash_cents
            cf = led.cash_flow_statement(k, k)
            assert cf["closing_cash"] - cf["opening_cash"] == cf["net_change_in_cash"]
            assert cf["operating_reconciliation"]["net_cash_from_operating"] == cf["net_cash_from_operating"]
            assert bs["liabilities"]["debt"] == rec.debt_cents


def test_revenue_ttm_and_score_follow_eq_2() -> None:
    env = env_at(5)
    run_policy(env, make_policy("greedy-equity"))
    res = env.result()
    w = env.world
    ttm = sum(r.revenue_cents for r in w.history[-12:])
    assert w.revenue_ttm_cents() == ttm
    if not res["bankrupt"]:
        expected = ttm / 100 * 5 + w.cash_cents / 100 - 5000 * env.tool_calls
        assert res["score"] == pytest.approx(expected, abs=0.01)


def test_bankrupt_scores_zero() -> None:
    env = env_at(1)
    res = run_policy(env, make_policy("always-pass"))
    assert res["bankrupt"] and res["score"] == 0.0
    assert res["months_survived"] < 132
    assert env.world.history[-1].cash_cents < 0


# ---------------------------------------------------------------------------- budget and actions
def test_tool_budget_then_the_month_closes_with_pass() -> None:
    env = env_at()
    for _ in range(20):
        ok(env, "check_cash_in_bank")
    assert env.observation()["tool_budget_left"] == 0
    for _ in range(3):  # memory stays free
        ok(env, "save_note", content="cash looks fine", tags=["cash"])
        ok(env, "recall_notes", query="cash")
    data = ok(env, "check_cash_in_bank")
    assert data["tool_budget_spent"] and data["month_closed_with"] == "pass"
    assert env.world.month == 1 and env.world.history[0].action == "pass"
    assert env.tool_calls == 20 and env.observation()["tool_budget_left"] == 20


def test_tool_calls_cost_5000_each_in_the_score() -> None:
    a, b = env_at(8), env_at(8)
    for env, calls in ((a, 0), (b, 2)):
        while not env.done:
            for _ in range(calls):
                ok(env, "check_cash_in_bank")
            ok(env, "fund_raising_request", type="equity", amount=20_000_000) if env.observation()[
                "pending_request"
            ] is None else ok(env, "pass")
    ra, rb = a.result(), b.result()
    assert rb["tool_calls"] == 2 * len(b.world.history)
    if not ra["bankrupt"]:
        assert ra["score"] - rb["score"] == pytest.approx(5000 * 264)


def test_second_pending_request_is_refused_and_keeps_the_month() -> None:
    env = env_at()
    ok(env, "fund_raising_request", type="equity", amount=20_000_000)
    assert env.world.pending is not None or env.world.attempts[0].settle_month <= env.world.month
    if env.world.pending is None:
        pytest.skip("settled immediately")
    month = env.world.month
    err = refused(env, "fund_raising_request", type="debt", amount=5_000_000)
    assert "pending" in err and "still open" in err
    assert env.world.month == month
    ok(env, "book_closing")
    assert env.world.month == month + 1


def test_memory_notes_show_the_five_most_recent() -> None:
    env = env_at()
    for i in range(7):
        ok(env, "save_note", content=f"note {i}", tags=["t"] if i % 2 else [])
    ok(env, "pass")
    shown = env.observation()["recent_notes"]
    assert [n["content"] for n in shown] == [f"note {i}" for i in (6, 5, 4, 3, 2)]
    hits = ok(env, "recall_notes", tags=["t"], limit=10)["notes"]
    assert [n["content"] for n in hits] == ["note 5", "note 3", "note 1"]
    assert env.tool_calls == 0 and env.memory_calls == 8


def test_hardened_preset_caps_notes() -> None:
    env = env_at(preset="hardened")
    assert "at most 2000" in refused(env, "save_note", content="x" * 2001)
    for i in range(201):
        data = ok(env, "save_note", content=f"n{i}")
    assert data["dropped_oldest"] == 1 and data["notes"] == 200
    assert env.notes.notes[0]["content"] == "n1"


# ---------------------------------------------------------------------------- fundraising (Table 5)
def test_outcome_fill_and_delay_distributions() -> None:
    env = env_at()
    cfg = env.config.fundraising
    rng = np.random.default_rng(0)
    draws = [fr.draw_attempt("equity", 1_000_000_00, 0, 0.6, cfg, rng) for _ in range(20_000)]
    wins = [a for a in draws if a.success]
    assert abs(len(wins) / len(draws) - 0.6) < 0.015
    fills = np.array([a.received_cents / a.requested_cents for a in wins])
    assert fills.min() >= 0.7 and fills.max() <= 1.0 and abs(fills.mean() - 0.85) < 0.01
    delays = {a.settle_month for a in draws}
    assert delays == {1, 2, 3, 4, 5, 6}


def test_equity_odds_decay_075_per_round_and_with_size() -> None:
    cfg = env_at().config.fundraising.equity
    base = fr.equity_probability(15.0, 0, 10, 100, cfg, None)
    for n in range(1, 6):
        assert fr.equity_probability(15.0, n, 10, 100, cfg, None) == pytest.approx(base * 0.75**n)
    assert fr.equity_probability(15.0, 0, 100, 100, cfg, None) == 0.0
    assert fr.equity_probability(40.0, 0, 10, 100, cfg, None) < fr.equity_probability(12.0, 0, 10, 100, cfg, None)


@pytest.mark.parametrize(
    ("vix", "requested", "expected"),
    [  # docs/cfo-model.md: p_macro = clip(1.07 - 0.019 x VIX, 0.05, 0.9); size = clip(1 - (r - 0.25) / 0.35, 0, 1)
        (15.0, 10, 0.785),  # 1.07 - 0.285
        (12.0, 10, 0.842),  # "0.84 at VIX 12"
        (30.0, 10, 0.5),  # "0.5 at VIX 30"
        (5.0, 10, 0.9),  # 0.975, capped at p_max
        (60.0, 10, 0.05),  # -0.07, floored at p_min
        (15.0, 25, 0.785),  # r = 0.25: still free
        (15.0, 42.5, 0.785 * 0.5),  # r = 0.425: half-way to the size where the odds are 0
        (15.0, 60, 0.0),  # r = 0.6
    ],
)
def test_equity_odds_are_table_5_by_hand(vix: float, requested: float, expected: float) -> None:
    """Pinned by hand (issue 18: the VIX term was only ever compared with the function's own output)."""
    cfg = env_at().config.fundraising.equity
    assert fr.equity_probability(vix, 0, int(requested * 100), 100 * 100, cfg, None) == pytest.approx(expected)
    assert fr.equity_probability(vix, 2, int(requested * 100), 100 * 100, cfg, None) == pytest.approx(
        expected * 0.5625
    )  # 0.75^2


@pytest.mark.parametrize(
    ("sofr", "leverage", "expected"),
    [  # docs/cfo-model.md: p_macro = clip(0.95 - 0.05 x SOFR %, 0.05, 0.95); eq 3: x max(0, 1 - 1.5 (L - 0.5)+)
        (1.0, 0.0, 0.90),
        (5.0, 0.5, 0.70),
        (5.0, 0.7, 0.70 * 0.7),  # 1 - 1.5 x 0.2
        (20.0, 0.0, 0.05),  # -0.05, floored
        (-2.0, 0.0, 0.95),  # 1.05, capped
        (1.0, 1.2, 0.0),  # 1 - 1.5 x 0.7 < 0
    ],
)
def test_debt_odds_are_eq_3_by_hand(sofr: float, leverage: float, expected: float) -> None:
    """Pinned by hand (issue 18: the SOFR term was only ever compared with the function's own output)."""
    assert fr.debt_probability(sofr, leverage, env_at().config.fundraising.debt) == pytest.approx(expected)


def test_debt_odds_follow_eq_3_and_rate_follows_table_5() -> None:
    cfg = env_at().config.fundraising.debt
    p0 = fr.debt_probability(1.0, 0.5, cfg)
    assert fr.debt_probability(1.0, 0.2, cfg) == p0
    assert fr.debt_probability(1.0, 0.9, cfg) == pytest.approx(p0 * (1 - 1.5 * 0.4))
    assert fr.debt_probability(1.0, 1.1, cfg) == pytest.approx(p0 * (1 - 1.5 * 0.6))
    assert fr.debt_probability(1.0, 1.2, cfg) == 0.0
    assert fr.contract_rate(2.0, 5.0, 0.3, cfg) == pytest.approx(0.07)
    assert fr.contract_rate(2.0, 5.0, 0.9, cfg) == pytest.approx(0.07 + 0.05 * 0.4)


def test_debt_rate_is_set_at_settlement() -> None:
    for seed in range(1, 30):
        env = env_at(seed)
        ok(env, "fund_raising_request", type="debt", amount=10_000_000)
        a = env.world.attempts[0]
        while env.world.month <= a.settle_month:
            ok(env, "pass")
        if a.success:
            tr = env.world.tranches[0]
            m = env.world.macro.at(a.settle_month)
            assert tr.start_month == a.settle_month
            assert tr.rate == pytest.approx((m["treasury_2y"] + m["baa_yield"]) / 100, abs=1e-12)
            return
    pytest.fail("no debt request succeeded in 29 seeds")


def test_asking_100x_never_yields_100x_the_score() -> None:
    """Section 3.4: approval depends on the firm; an absurd request must not pay."""
    for kind in ("equity", "debt"):
        for seed in range(1, 11):
            small, huge = env_at(seed), env_at(seed)
            for env, amount in ((small, 20_000_000), (huge, 2_000_000_000)):
                while not env.done:
                    if env.observation()["pending_request"] is None:
                        ok(env, "fund_raising_request", type=kind, amount=amount)
                    else:
                        ok(env, "pass")
            assert huge.result()["score"] <= max(small.result()["score"], 1.0) * 1.5
            assert huge.result()[f"{kind}_raised"] <= max(small.result()[f"{kind}_raised"], 1.0) * 10


# ---------------------------------------------------------------------------- documents and staleness
def test_statements_exist_only_after_book_closing_and_are_as_of_the_last_completed_month() -> None:
    """The opening statements (section 3.1, Table 6: t = 0) are there from the start; a month's
    statements only after a book closing that covers it."""
    env = env_at()
    opening = ok(env, "access_financial_docs", action="retrieve", filename="financial_statements_opening.json")
    assert opening["content"]["as_of"] == "opening" and opening["content"]["balance_sheet"]["assets"]["cash"] == 15e6
    for _ in range(4):
        ok(env, "pass")
    names = [d["filename"] for d in ok(env, "access_financial_docs", action="list")["documents"]]
    assert [n for n in names if n.startswith("financial_statements")] == ["financial_statements_opening.json"]
    assert "bank_transactions_month_<k>.json" in names and "general_ledger_month_<k>.json" not in names
    ok(env, "book_closing")  # at month 4: covers months 0-3
    doc = ok(env, "access_financial_docs", action="retrieve", filename="financial_statements_month_3.json")["content"]
    assert doc["balance_sheet"]["assets"]["cash"] == env.world.history[3].cash_cents / 100
    ok(env, "access_financial_docs", action="retrieve", filename="general_ledger_month_3.json")
    assert "unknown filename" in refused(
        env, "access_financial_docs", action="retrieve", filename="general_ledger_month_4.json"
    )


def test_raw_bank_records_show_only_totals() -> None:
    env = env_at()
    ok(env, "pass")
    ok(env, "pass")
    bank = ok(env, "access_financial_docs", action="retrieve", filename="bank_transactions_month_1.json")["content"]
    assert set(bank) == {"month", "deposits", "withdrawals", "transactions"}
    net = env.world.history[1].cash_cents - env.world.history[0].cash_cents
    assert bank["deposits"] - bank["withdrawals"] == pytest.approx(net / 100, abs=0.01)
    assert set(ok(env, "check_cash_in_bank")) == {"month", "cash"}


def test_general_ledger_is_in_dollars() -> None:
    env = env_at()
    ok(env, "pass")
    ok(env, "book_closing")
    journal = ok(env, "access_financial_docs", action="retrieve", filename="general_ledger_month_0.json")["content"]
    raw = env.world.ledger.journal(0, 0)
    assert [e["id"] for e in journal] == [e["id"] for e in raw]
    assert journal[0]["lines"][0]["amount"] == raw[0]["lines"][0]["amount"] / 100


def test_market_data_history_only() -> None:
    env = env_at()
    for _ in range(3):
        ok(env, "pass")
    data = ok(env, "check_market_data", data_type="equity_market")
    assert set(data["series"]) == set(GROUPS["equity_market"])
    assert all(len(s["values"]) == 4 for s in data["series"].values())
    assert "future" in refused(env, "check_market_data", data_type="vix", start_month=0, end_month=4)
    assert "unknown data_type" in refused(env, "check_market_data", data_type="gdp_forecast")
    for key in SERIES:
        ok(env, "check_market_data", data_type=key, start_month=3, end_month=3)


def test_forecast_uses_the_closed_books() -> None:
    env = env_at()
    before = ok(env, "cash_flow_forecast_calculation", months=3)
    assert "opening business plan" in before["based_on"] and len(before["projection"]) == 3
    ok(env, "pass")
    ok(env, "pass")
    ok(env, "book_closing")
    after = ok(env, "cash_flow_forecast_calculation", months=12, growth_rate_override=1.5)
    assert "closed through" in after["based_on"] and after["monthly_growth_pct"] == 1.5
    assert "months" in refused(env, "cash_flow_forecast_calculation", months=13)


# ---------------------------------------------------------------------------- errors and hidden state
def test_bad_calls_are_clear_errors_that_change_nothing() -> None:
    env = env_at()
    assert "amount" in refused(env, "fund_raising_request", type="equity", amount=-5)
    assert "amount" in refused(env, "fund_raising_request", type="equity", amount=50)
    assert "type" in refused(env, "fund_raising_request", type="convertible", amount=1_000_000)
    r = env.call("fund_raising_request", type="equity", amount=math.nan)
    assert not r.ok and r.tamper == "non_finite"
    assert "Unknown tool" in refused(env, "set_interest_rate", rate=0.0)
    assert "filename" in refused(env, "access_financial_docs", action="retrieve")
    assert env.world.month == 0 and env.tool_calls == 0


@pytest.mark.parametrize("preset", ["paper", "hardened"])
def test_the_tools_state_the_limits_of_their_preset_and_enforce_them(preset: str) -> None:
    """A request's range and the notes' limits are in the schemas the agent reads (CfoEnv.registry_for)."""
    env = env_at(preset=preset)
    cfg = env.config
    amount = {p.name: p for p in env.registry.spec("fund_raising_request").params}["amount"]
    low, high = cfg.fundraising.min_request_dollars, cfg.fundraising.max_request_dollars
    assert amount.type_str == f"float (>= {low}, <= {high})"
    assert amount.description.endswith(f"from ${low:,} to ${high:,}.")
    for amount in (99_999.99, 1e-300, 1e308, cfg.fundraising.max_request_dollars + 0.01):
        error = refused(env, "fund_raising_request", type="equity", amount=amount)
        assert "argument 'amount'" in error and len(error) < 200
    note_chars = cfg.agent.max_note_chars or 100_000
    assert f"content: str (len >= 1, len <= {note_chars})" in env.registry.spec("save_note").signature
    assert "<= 50" in env.registry.spec("recall_notes").signature
    assert "'limit'" in refused(env, "recall_notes", limit=51)
    assert CfoEnv.registry_for(cfg).spec("save_note").signature == env.registry.spec("save_note").signature


def test_an_unknown_data_type_or_filename_is_quoted_cut_with_its_length() -> None:
    """docs/security.md: an error echoes a name to at most MAX_ECHOED_NAME characters."""
    env = env_at()
    for tool, args, length in [
        ("check_market_data", {"data_type": "A" * 100_000}, "100,000"),
        ("access_financial_docs", {"action": "retrieve", "filename": "f" * 190}, "190"),  # the schema allows 200
    ]:
        error = refused(env, tool, **args)
        assert len(error) < 600 and f"({length} chars)" in error, error[:700]


def test_nothing_hidden_reaches_the_agent() -> None:
    env = env_at(4)
    seen: list[str] = []
    policy = make_policy("prudent-cfo")
    while not env.done:
        seen.append(json.dumps(env.observation()))
        for name, args in (
            ("check_cash_in_bank", {}),
            ("access_financial_docs", {"action": "list"}),
            ("cash_flow_forecast_calculation", {"months": 12}),
        ):
            seen.append(json.dumps(env.call(name, **args).data))
        policy(env, env.observation())
        env.budget_used = 0  # the probes above are ours, not the policy's
    text = "\n".join(seen).lower()
    for word in ("surge", "probability", "collection_rate", "regime", "user_growth_dev", "gross_margin_pct"):
        assert word not in text, word


def test_episode_ends_and_refuses_further_actions() -> None:
    env = CfoEnv.from_preset("paper", 2, months=6)
    res = run_policy(env, make_policy("greedy-equity"))
    assert res["months_survived"] == 6 and env.done
    assert "ended" in refused(env, "pass")
    assert "ended" in refused(env, "check_cash_in_bank")


# ---------------------------------------------------------------------------- determinism
def _digest_in_subprocess(seed: int) -> str:
    code = (
        "from bizbench.envs.cfo.env import CfoEnv\n"
        "from bizbench.envs.cfo.baselines import make_policy, run_policy\n"
        f"env = CfoEnv.from_preset('random-macro', {seed})\n"
        "run_policy(env, make_policy('prudent-cfo'))\n"
        "print(env.state_digest())\n"
    )
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.strip()


def test_same_seed_same_actions_same_world_in_two_processes() -> None:
    env = CfoEnv.from_preset("random-macro", 11)
    run_policy(env, make_policy("prudent-cfo"))
    assert _digest_in_subprocess(11) == env.state_digest()
    other = CfoEnv.from_preset("random-macro", 12)
    run_policy(other, make_policy("prudent-cfo"))
    assert other.state_digest() != env.state_digest()


def test_different_seeds_draw_different_worlds_on_the_paper_path() -> None:
    a, b = env_at(1), env_at(2)
    assert not np.array_equal(a.world.surges, b.world.surges)
    assert a.world.macro is b.world.macro or np.array_equal(a.world.macro.series["vix"], b.world.macro.series["vix"])


def test_statements_are_in_dollars_with_integer_months() -> None:
    env = env_at()
    ok(env, "pass")
    ok(env, "book_closing")
    doc = ok(env, "access_financial_docs", action="retrieve", filename="financial_statements_month_0.json")["content"]
    inc = doc["income_statement_month"]
    assert inc["start_month"] == 0 and isinstance(inc["start_month"], int)
    cents = env.world.ledger.income_statement(0, 0)["revenue"]["interest_income"]
    assert inc["revenue"]["interest_income"] == cents / 100


def test_system_prompt_names_every_tool_and_the_rules() -> None:
    import re

    env = env_at()
    prompt = env.system_prompt()
    for name in env.registry.names():
        assert f"- {name}(" in prompt, name
    assert "0 and 20 tool calls" in prompt and "5 most recent notes" in prompt
    # Appendix E tells the objective (solvency), not the score (eq 2) nor the horizon
    assert "primary objective is to ensure long-term solvency" in prompt
    assert not {"$5,000", "132", "score", "twelve-month"} & set(re.findall(r"\$[\d,]+|\d+|[a-z-]+", prompt))
    assert "months_total" not in env.observation()
    for block in re.findall(r"\{\"type\".*\}", prompt):  # every example is valid JSON naming a real tool
        spec = json.loads(block)
        assert spec.get("name", spec.get("operation")) in env.registry.names()
    assert "no limit" in prompt and "at most 200 notes" in env_at(preset="hardened").system_prompt()


# ---------------------------------------------------------------------------- review fixes
def test_raised_cash_does_not_lift_the_next_equity_ceiling() -> None:
    """The size factor compares a request with the enterprise value, cash excluded."""
    a, b = env_at(6), env_at(6)
    b.world.cash_cents += 500_000_000_00  # as if a huge round had landed
    assert a.world.enterprise_value_cents() == b.world.enterprise_value_cents()
    assert a.world.raise_probability("equity", 40_000_000_00) == b.world.raise_probability("equity", 40_000_000_00)


def test_hardened_raises_are_neutral_for_the_per_share_score() -> None:
    env = env_at(6, "hardened")
    for _ in range(14):
        ok(env, "pass")
    w = env.world
    before = env.score_dollars()
    price = w.share_price_cents()
    amount = 30_000_000_00
    w.cash_cents += amount  # settle a raise at the issue price, outside the ledger, to compare values
    w.shares += int(amount / price)
    assert env.score_dollars() == pytest.approx(before, rel=1e-6)


def _issue_price(seed: int, preset: str, ask_month: int) -> float:
    """Dollars a new share fetched in a $15M equity round asked for at ``ask_month``."""
    env = env_at(seed, preset)
    while env.world.month < ask_month:
        ok(env, "pass")
    ok(env, "fund_raising_request", type="equity", amount=15_000_000)
    shares = env.world.shares
    while env.world.pending is not None:
        ok(env, "pass")
    attempt = env.world.attempts[-1]
    assert attempt.success, "the test needs a seed whose round succeeds"
    return attempt.received_cents / 100 / (env.world.shares - shares)


def test_a_year_one_raise_is_priced_like_a_neutral_one() -> None:
    """Hardened prices new shares at the score's value; in year 1 the trailing revenue covers
    only the months run so far, so it is annualised: a round asked for at month 0 (settled at
    month 1) fetches about the price of one asked for at month 12, once the year is full."""
    year_one, year_two = _issue_price(4, "hardened", 0), _issue_price(4, "hardened", 12)
    assert year_one == pytest.approx(year_two, rel=0.1)
    env = env_at(4, "hardened")
    expected = (5 * 12 * env.world.plan.lending.revenue_cents + env.world.cash_cents) / env.world.shares
    assert env.world.share_price_cents() == pytest.approx(expected)  # month 0: the opening plan's year


def test_year_one_revenue_is_annualised_to_the_nearest_cent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trailing revenue x 12 / months run, for the first 12 months (docs/cfo-model.md), to the cent."""
    world = env_at(4, "hardened").world
    monkeypatch.setattr(world, "revenue_ttm_cents", lambda: 5)
    monkeypatch.setattr(world, "month", 7)
    assert world.revenue_annualised_cents() == 9  # 5 x 12 / 7 = 8.57 cents
    monkeypatch.setattr(world, "revenue_ttm_cents", lambda: 1_000_000)
    expected = {11: 1_090_909, 12: 1_000_000, 13: 1_000_000}  # 12,000,000 / 11 = 1,090,909.09; a full year as is
    for month, cents in expected.items():
        monkeypatch.setattr(world, "month", month)
        assert world.revenue_annualised_cents() == cents, month


def test_hardened_counts_cash_net_of_debt() -> None:
    env = env_at(6, "hardened")
    ok(env, "pass")
    before = env.score_dollars()
    env.world.tranches.append(Tranche(10_000_000_00, 0.07, 1, 200))
    assert env.score_dollars() < before


def test_the_result_shows_debt_outstanding_and_the_score_net_of_debt() -> None:
    env = env_at(6)  # the paper preset: eq 2 counts cash gross
    ok(env, "pass")
    env.world.tranches.append(Tranche(10_000_000_00, 0.07, 1, 200))  # due after the horizon
    r = env.result()
    assert r["debt_outstanding"] == 10_000_000
    assert r["score_net_of_debt"] == pytest.approx(r["score"] - 10_000_000)
    hardened = env_at(6, "hardened")
    ok(hardened, "pass")
    assert hardened.result()["score_net_of_debt"] == hardened.result()["score"]  # hardened already nets it


def test_ledger_csv_names_cfos_columns_and_units(tmp_path: Path) -> None:
    from bizbench.runner.episode import run_baseline

    run_baseline("cfo", "one-raise", 3, None, 4, tmp_path / "run")
    with (tmp_path / "run" / "ledger.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["month", "account", "amount_usd_debit_positive", "cash_flow_category", "memo"]
    cash = sum(float(r["amount_usd_debit_positive"]) for r in rows if r["account"] == "cash")
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert cash == pytest.approx(result["final_cash"] - 15_000_000)  # the cash lines move cash from the opening $15M


def test_a_debt_rate_stays_finite_when_book_equity_is_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    env = env_at(2)
    monkeypatch.setattr(env.world, "book_equity_cents", lambda: -1)
    quote = ok(env, "fund_raising_request", type="debt", amount=5_000_000)["request"]
    assert math.isfinite(quote["indicative_rate_today_pct"])
    json.dumps(quote, allow_nan=False)
    while not env.done and env.world.month < 8:
        ok(env, "pass")
    assert all(math.isfinite(t.rate) for t in env.world.tranches)
    assert fr.leverage(1, -5) == fr.LEVERAGE_CAP and fr.leverage(0, -5) == 0.0


def test_the_company_opens_as_a_going_concern() -> None:
    env = env_at()
    bs = env.world.ledger.balance_sheet(-1)
    assert bs["assets"]["interest_receivable"] > 0 and bs["liabilities"]["accounts_payable"] > 0
    assert bs["total_assets"] == bs["total_liabilities_and_equity"]
    ok(env, "pass")
    cf = env.world.ledger.cash_flow_statement(0, 0)
    assert cf["operating"]["interest_collected"] > 0 and cf["operating"]["operating_expenses_paid"] < 0


# ---------------------------------------------------------------------------- refused calls, by driver
def test_a_call_refused_at_run_time_uses_no_budget_for_an_agent_class() -> None:
    """The env's rule for every driver but react-json: a refused call changes nothing
    (principle 8), so 25 unknown-filename retrievals leave the month's 20 tool calls."""
    env = env_at(4)
    for _ in range(25):
        before = env.state_digest()
        r = env.call("access_financial_docs", action="retrieve", filename="no_such_file.json")
        assert not r.ok and "unknown filename" in (r.error or "") and env.state_digest() == before
    assert env.observation()["tool_budget_left"] == 20
    for _ in range(20):
        ok(env, "check_cash_in_bank")
    assert env.world.month == 0 and env.tool_calls == 20
    assert ok(env, "check_cash_in_bank")["month_closed_with"] == "pass"


def test_each_driver_is_told_how_refused_calls_count() -> None:
    """The seat's instructions state the env's rule (a refused call uses no budget); react-json's
    prompt states the harness's (a refused tool call uses one) and not the env's, so no prompt
    contradicts the budget its driver enforces."""
    from bizbench.agents.harness.react_json import ReactJsonHarness
    from bizbench.envs.cfo.sdk import _instructions as instructions

    env = env_at()
    seat = instructions(env.config, "bizbench cfo --session /workspace")
    assert "A call refused with an error" in seat and "uses none of the month's budget" in seat
    react = ReactJsonHarness().system_prompt(env)
    assert "budgeted tool call that is refused with an error use one call" in react
    assert "uses none of the month's budget" not in react


def _attempt(**change: object) -> fr.Attempt:
    fields: dict = dict(
        kind="debt", requested_cents=100, month=1, settle_month=2, success=True, received_cents=100, probability=0.5
    )
    return fr.Attempt(**(fields | change))


def _shift(world: object, part: str, **steps: float) -> None:
    """Replace the world's frozen ``part`` by a copy with each named field moved by its step."""
    old = getattr(world, part)
    setattr(world, part, dataclasses.replace(old, **{k: getattr(old, k) + v for k, v in steps.items()}))


# every part of the world's state, changed by the smallest step: each must change the digest
STATE_CHANGES = {
    "month": lambda w: setattr(w, "month", w.month + 1),
    "cash": lambda w: setattr(w, "cash_cents", w.cash_cents + 1),
    "principal": lambda w: _shift(w, "book", principal_cents=1),
    "interest receivable": lambda w: _shift(w, "book", interest_receivable_cents=1),
    "borrowers": lambda w: _shift(w, "book", borrowers=1),
    "gross margin": lambda w: _shift(w, "indicators", gross_margin_pct=0.5),
    "ebitda margin": lambda w: _shift(w, "indicators", ebitda_margin_pct=0.5),
    "user growth": lambda w: _shift(w, "indicators", user_growth_dev_pct=0.5),
    "collection rate": lambda w: _shift(w, "indicators", collection_rate=-0.01),
    "shares": lambda w: setattr(w, "shares", w.shares + 1),
    "equity rounds": lambda w: setattr(w, "equity_rounds", w.equity_rounds + 1),
    "a pending request": lambda w: setattr(w, "pending", _attempt()),
    "an attempt": lambda w: w.attempts.append(_attempt()),
    "a tranche": lambda w: w.tranches.append(Tranche(100, 0.05, 1, 13)),
    "a closing": lambda w: w.closings.append(1),
    "opex payable": lambda w: setattr(w, "opex_payable_cents", w.opex_payable_cents + 1),
    "interest payable": lambda w: setattr(w, "interest_payable_cents", w.interest_payable_cents + 1),
    "bankruptcy": lambda w: setattr(w, "bankrupt", True),
    "a random draw": lambda w: w.rng["fundraising"].random(),
    "a surge": lambda w: w.surges.__setitem__(0, w.surges[0] + 0.25),
}


@pytest.mark.parametrize("part", list(STATE_CHANGES))
def test_the_state_digest_changes_with_every_part_of_the_worlds_state(part: str) -> None:
    """Equal digests must mean equal worlds (resume and the session's checks rely on it), so no
    part of the hidden state may be left out of the snapshot the digest hashes."""
    env = env_at()
    before = env.state_digest()
    STATE_CHANGES[part](env.world)
    assert env.state_digest() != before


def test_a_pending_request_is_digested_by_its_fields() -> None:
    env = env_at()
    env.world.pending = _attempt()
    before = env.state_digest()
    env.world.pending = _attempt(success=False)
    assert env.state_digest() != before


@pytest.mark.parametrize(("env_id", "read"), [("cfo", "check_cash_in_bank"), ("yc", "company_status")])
def test_an_env_whose_tools_come_from_its_config_pickles_and_makes_them_again(env_id: str, read: str) -> None:
    import pickle

    from bizbench.core.envs import get_env

    env = get_env(env_id).from_preset(seed=2)
    assert env.call(read).ok  # its config's registry is made and kept on the instance
    copy = pickle.loads(pickle.dumps(env))
    assert copy.state_digest() == env.state_digest() and copy.call(read).ok
    assert [s.signature for s in copy.registry.specs()] == [s.signature for s in env.registry.specs()]


def test_the_notepad_as_the_play_page_and_cli_chat_show_it_keeps_a_note_as_written() -> None:
    env = env_at()
    ok(env, "save_note", content="Ünïcødé 💰 日本語 — €5M")
    assert "Ünïcødé 💰 日本語 — €5M" in env.memory() and "\\u" not in env.memory()
