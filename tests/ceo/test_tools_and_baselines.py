"""The ceo tool surface and the baselines end to end.

* every tool has a schema and a description (docs/principles.md principle 1);
* errors are answers and change nothing (principle 8);
* hidden state stays hidden (principle 3);
* the baselines give the same result through the runner, by hand and through the CLI.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bizbench.envs.ceo.baselines import make_policy
from bizbench.envs.ceo.config import load_config
from bizbench.envs.ceo.env import CeoEnv
from bizbench.runner.episode import run_baseline


# ---------------------------------------------------------------------------- schemas
def test_every_tool_has_schema_and_description() -> None:
    reg = CeoEnv.registry
    names = reg.names()
    assert len(names) == len(set(names)) >= 20
    tools = reg.openai_tools()
    assert [t["function"]["name"] for t in tools] == names
    for t in tools:
        assert t["type"] == "function"
        fn = t["function"]
        assert isinstance(fn["description"], str) and len(fn["description"]) > 10, fn["name"]
        params = fn["parameters"]
        assert params["type"] == "object", fn["name"]
        assert isinstance(params["properties"], dict)
        for arg, prop in params["properties"].items():
            assert prop.get("description"), f"{fn['name']}.{arg} has no description"
        for arg in params.get("required", []):
            assert arg in params["properties"]
        json.dumps(t)  # serialisable as sent to a model
    assert len(reg.anthropic_tools()) == len(names)


# ---------------------------------------------------------------------------- errors are answers
def _snapshot(env: CeoEnv) -> dict[str, Any]:
    st = env.world.state
    settings = {
        k: (v.tolist() if isinstance(v, np.ndarray) else copy.deepcopy(v)) for k, v in vars(st.settings).items()
    }
    return {
        "settings": settings,
        "ledger_len": len(st.ledger.rows),
        "balance": st.ledger.balance_cents,
        "customers": st.customers.n,
        "day": st.day,
        "discovered": st.discovered.tolist(),
        "rnd": len(st.rnd_projects),
        "pending": len(st.pending_research),
        "attempts": st.market_research_attempts,
        "streams": json.dumps(env.world.streams.get_state(), sort_keys=True),
        "notifications": len(env.world.notifications),
        "overrides": len(env.overrides),
    }


@pytest.fixture(scope="module")
def played_env() -> CeoEnv:
    """A world a few weeks into rule-based play (customers, settings, spend all non-trivial)."""
    env = CeoEnv.from_preset("default", seed=42, horizon_days=120)
    policy = make_policy("rule-based")
    for _ in range(4):
        policy.act(env)
        env.next_turn()
    policy.act(env)
    assert env.world.state.customers.n > 0
    return env


BAD_CALLS: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    ("set_prices", {"A": -5.0}, ("'A'", ">= 0")),
    ("set_prices", {}, ("at least one",)),
    ("set_model_tiers", {"A": 0}, ("'A'", ">= 1")),
    ("set_model_tiers", {"B": 6}, ("'B'", "<= 5")),
    ("set_model_tiers", {"C": 2.5}, ("'C'", "integer")),
    ("set_daily_spend", {"operations": float("nan")}, ("'operations'", "finite")),
    ("set_daily_spend", {"development": float("inf")}, ("'development'", "finite")),
    ("set_daily_spend", {"operations": "100"}, ("'operations'", "number")),
    ("set_daily_spend", {"operations": -1.0}, ("'operations'", ">= 0")),
    ("set_daily_spend", {"operations": 10.0, "marketing": 5.0}, ("marketing", "unknown argument")),
    ("set_targeted_dev_spend", {"targeted_spend": {"ZZ": 100.0}}, ("'ZZ'", "Unknown")),
    ("set_targeted_dev_spend", {"targeted_spend": {"S1": 100.0, "ZZ": 5.0}}, ("'ZZ'",)),
    ("set_targeted_dev_spend", {"targeted_spend": {"D_S01": 100.0}}, ("'D_S01'", "not been discovered")),
    ("set_targeted_dev_spend", {"targeted_spend": {"S1": float("nan")}}, ("targeted_spend.S1", "finite")),
    ("set_targeted_ad_spend", {"targeted_spend": {"tiktok": {"S1": 100.0}}}, ("'tiktok'", "Unknown channel")),
    ("set_targeted_ad_spend", {"targeted_spend": {"search_ads": {"S1": 10.0}, "fax": {"S1": 1.0}}}, ("'fax'",)),
    ("set_targeted_ad_spend", {"targeted_spend": {"search_ads": {"S1": -1.0}}}, ("search_ads.S1", ">= 0")),
    ("set_targeted_ops_spend", {"by_customer": {"abc": 1.0}}, ("'abc'", "integer")),
    ("set_targeted_ops_spend", {"by_plan": {"D": 1.0}}, ("by_plan",)),
    ("set_promotion", {"global_promotion": 5.0, "by_group": {"ZZ": 1.0}}, ("'ZZ'",)),
    ("set_promotion", {"by_customer": {"99999999": 1.0}}, ("99999999",)),
    ("set_ads_strength", {"global_strength": 1.5}, ("'global_strength'", "<= 1")),
    ("set_lead_promotion", {"by_channel": {"tv": 1.0}}, ("by_channel",)),
    ("set_usage_quotas", {"A": 100.0, "B": 200.0}, ("'C'", "missing")),
    ("set_capacity_tier", {"tier": 8}, ("'tier'", "<= 7")),
    ("set_capacity_tier", {"tier": True}, ("'tier'", "integer")),
    ("get_service_history", {"days": 0}, ("'days'", ">= 1")),
    ("research_group", {"group_id": "D_E03"}, ("'D_E03'", "not been discovered")),
    ("research_group", {"group_id": "S1", "target_level": 7}, ("'target_level'", "<= 5")),
    ("get_group_insights", {"group_id": "ZZ"}, ("'ZZ'",)),
    ("start_research_project", {"tier": 21}, ("'tier'", "<= 20")),
    ("start_research_project", {"tier": 0}, ("'tier'", ">= 1")),
    (
        "send_enterprise_deal",
        {"deals": [{"customer_id": 10**9, "offerings": [{"plan": "B", "price_per_seat": 90.0}]}]},
        ("1000000000", "Unknown customer"),
    ),
    (
        "send_enterprise_deal",
        {"deals": [{"customer_id": 0, "offerings": [{"plan": "D", "price_per_seat": 90.0}]}]},
        ("plan", "'A'"),
    ),
    (
        "send_enterprise_deal",
        {"deals": [{"customer_id": 0, "offerings": [{"plan": "B", "price_per_seat": -5.0}]}]},
        ("price_per_seat", "> 0"),
    ),
    ("send_enterprise_deal", {"deals": [{"customer_id": 0, "offerings": []}]}, ("offerings",)),
    ("send_enterprise_deal", {"deals": []}, ("deals",)),
    ("reject_enterprise_deal", {"deals": [-3]}, ("-3",)),
    ("launch_rocket", {}, ("Unknown tool", "launch_rocket")),
]


@pytest.mark.parametrize(
    ("tool", "args", "needles"), BAD_CALLS, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD_CALLS)]
)
def test_bad_calls_are_answers_and_change_nothing(
    played_env: CeoEnv, tool: str, args: dict[str, Any], needles: tuple[str, ...]
) -> None:
    before = _snapshot(played_env)
    result = played_env.call(tool, **args)
    assert result.ok is False
    assert result.data is None
    assert isinstance(result.error, str) and result.error
    assert "internal_error" not in result.error
    for needle in needles:
        assert needle in result.error, f"{needle!r} not in {result.error!r}"
    assert _snapshot(played_env) == before


@pytest.mark.parametrize(
    "tool, args",
    [
        ("get_group_insights", {"group_id": "Z" * 200_000}),
        ("research_group", {"group_id": "D" * 200_000}),
        ("set_targeted_ad_spend", {"targeted_spend": {"Q" * 200_000: {"S1": 1.0}}}),
        ("set_targeted_ops_spend", {"by_customer": {"x" * 200_000: 1.0}}),
        ("set_promotion", {"by_customer": {"1" * 5_000: 1.0}}),
    ],
)
def test_an_error_quotes_an_over_long_name_cut_with_its_length(
    played_env: CeoEnv, tool: str, args: dict[str, Any]
) -> None:
    """docs/security.md: an error echoes a name to at most MAX_ECHOED_NAME characters."""
    error = played_env.call(tool, **args).error
    assert error is not None and len(error) < 400 and "chars)" in error, error[:500]


def test_lump_sums_refused_below_their_cost() -> None:
    cfg, _ = load_config("default")
    env = CeoEnv(cfg.model_copy(update={"start_cash": 10_000.0}), 1)
    before = _snapshot(env)
    for tool, args, cost in [
        ("research_market", {}, "$25,000.00"),
        ("start_research_project", {"tier": 20}, None),
        ("research_group", {"group_id": "S1", "target_level": 5}, None),
    ]:
        r = env.call(tool, **args)
        assert r.ok is False
        assert "Insufficient cash" in r.error and "$10,000.00" in r.error
        if cost:
            assert cost in r.error
        assert _snapshot(env) == before
    assert env.world.state.ledger.balance_cents == 1_000_000


def _env_with_enterprise_lead() -> tuple[CeoEnv, int]:
    """A fresh world with one E1 prospect awaiting an offer on a new-lead thread."""
    from bizbench.envs.ceo.world import enterprise
    from bizbench.envs.ceo.world.customers import LEAD

    env = CeoEnv.from_preset("default", seed=3, horizon_days=60)
    st = env.world.state
    g = env.config.group_ids.index("E1")
    c = int(
        st.customers.append(
            1, {"group": g, "status": LEAD, "seats": 40.0, "c_max": 120.0, "q_min": 0.1, "q_max": 0.6, "max_turns": 3}
        )[0]
    )
    env.world.book.open_thread(c, enterprise.NEW_LEAD, st.day, "New enterprise lead.")
    return env, c


def test_send_enterprise_deal_with_offerings() -> None:
    env, c = _env_with_enterprise_lead()
    offerings = [{"plan": "B", "price_per_seat": 90.0}, {"plan": "C", "price_per_seat": 140.0}]
    r = env.call("send_enterprise_deal", deals=[{"customer_id": c, "offerings": offerings}])
    assert r.ok, r.error
    assert r.data["results"][0]["offers_sent"] == 2


def test_send_enterprise_deal_accepts_json_offerings() -> None:
    env, c = _env_with_enterprise_lead()
    deals = json.loads(f'[{{"customer_id": {c}, "offerings": [{{"plan": "B", "price_per_seat": 90.0}}]}}]')
    r = env.call("send_enterprise_deal", deals=deals)
    assert r.ok, r.error


def test_one_bad_deal_rejects_the_whole_call() -> None:
    env, c = _env_with_enterprise_lead()
    before = _snapshot(env)
    good = {"customer_id": c, "offerings": [{"plan": "B", "price_per_seat": 90.0}]}
    bad = {"customer_id": 10**6, "offerings": [{"plan": "B", "price_per_seat": 90.0}]}
    r = env.call("send_enterprise_deal", deals=[good, bad])
    assert not r.ok and "1000000" in r.error
    assert _snapshot(env) == before
    assert len(env.world.book.threads[0].turns) == 1


# ---------------------------------------------------------------------------- hidden stays hidden
READ_TOOLS: list[tuple[str, dict[str, Any]]] = [
    ("get_status", {}),
    ("get_cost_info", {}),
    ("get_service_history", {"days": 365}),
    ("get_market_overview", {}),
    ("get_group_insights", {"group_id": "S1"}),
    ("get_group_insights", {"group_id": "S3"}),
    ("get_group_insights", {"group_id": "E1"}),
    ("list_research_projects", {}),
]
FORBIDDEN_KEYS = {
    "satisfaction",
    "mean_satisfaction",
    "pmi",
    "seed",
    "c_max",
    "q_min",
    "q_max",
    "reputation",
    "q_drift_global",
    "bank_global",
    "effective_c_max",
    "boost",
    "bankrupt",
}
SEED = 918_273_645


def _walk(obj: Any, keys: set[str], numbers: list[float]) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            keys.add(str(k))
            _walk(v, keys, numbers)
    elif isinstance(obj, list | tuple):
        for v in obj:
            _walk(v, keys, numbers)
    elif isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return
    else:
        assert isinstance(obj, int | float), f"non-JSON value {obj!r} ({type(obj).__name__})"
        numbers.append(float(obj))


def _significant_digits(x: float) -> int:
    mantissa = repr(float(x)).split("e")[0]
    return len(mantissa.replace("-", "").replace(".", "").strip("0"))


def _distinctive(values: np.ndarray, digits: tuple[int, ...]) -> set[float]:
    """Exact values and their roundings to ``digits`` decimals, keeping only numbers with at
    least five significant digits (shorter ones collide with public numbers by chance)."""
    out: set[float] = set()
    for v in np.asarray(values, dtype=np.float64).ravel():
        if not math.isfinite(v):
            continue
        for x in (float(v), *(round(float(v), k) for k in digits)):
            if _significant_digits(x) >= 5:
                out.add(x)
    return out


def test_hidden_state_stays_hidden() -> None:
    env = CeoEnv.from_preset("default", seed=SEED, horizon_days=126)
    policy = make_policy("rule-based")
    results: list[Any] = []
    macro_seen = []
    while not env.done:
        policy.act(env)
        if env.day in (35, 63):
            assert env.call("research_market").ok
        for tool, args in READ_TOOLS:
            r = env.call(tool, **args)
            assert r.ok, (tool, r.error)
            results.append(r.data)
        overview = env.call("get_market_overview").data
        st = env.world.state
        if env.day < 31:
            assert overview["macroeconomic"] is None, env.day
        else:
            m = overview["macroeconomic"]
            assert m is not None and "visible_day" not in m
            # The latest reading published by today: the 30-day window mean closed on day
            # 1, 31, 61, ... (rounded to 0.1), visible 30 days later.
            close = 1 + 30 * ((env.day - 31) // 30)
            window = st.pmi_history[max(0, close - 30) : close]
            assert m["day"] == close
            assert m["pmi_value"] == round(float(np.mean(window)), 1)
            assert m["pmi_value"] == round(m["pmi_value"], 1)
            assert m["pmi_value"] not in st.pmi_history
            macro_seen.append(m["pmi_value"])
        env.next_turn()
    assert len(set(macro_seen)) >= 2

    st = env.world.state
    cust = st.customers
    text = json.dumps(results)
    assert str(SEED) not in text
    keys: set[str] = set()
    numbers: list[float] = []
    _walk(results, keys, numbers)
    assert not keys & FORBIDDEN_KEYS, keys & FORBIDDEN_KEYS
    published = {r["pmi_value"] for r in st.macro_readings} | {r["pmi_change"] for r in st.macro_readings}
    hidden = {
        "daily pmi": _distinctive(np.array(st.pmi_history), (4, 5, 6)) - published,
        "reputation": _distinctive(st.reputation, (4, 5, 6)),
        "customer c_max": _distinctive(cust.c_max, (4, 5, 6)),
        "customer q_min": _distinctive(cust.q_min, (5, 6)),
        "satisfaction": _distinctive(cust.satisfaction, (5, 6)),
        "bank_global": _distinctive(np.array([st.bank_global, st.q_drift_global]), (4, 5, 6)),
    }
    assert len(hidden["reputation"]) >= 1 and len(hidden["customer c_max"]) > 1000
    leaked = {name: sorted(set(numbers) & vals)[:5] for name, vals in hidden.items() if set(numbers) & vals}
    assert not leaked, leaked


# ---------------------------------------------------------------------------- baselines
@pytest.mark.parametrize("agent", ["rule-based", "random", "do-nothing"])
def test_runner_matches_driving_env_by_hand(agent: str) -> None:
    days = 84
    result = run_baseline("ceo", agent, 42, "no-surges", horizon=days)
    env = CeoEnv.from_preset("no-surges", seed=42, horizon_days=days)
    policy = make_policy(agent, seed=42)
    while not env.done:
        policy.act(env)
        env.next_turn()
    assert result["final_cash"] == round(env.world.state.ledger.cash, 2)
    assert result["days_survived"] == env.day
    assert result["bankrupt"] == env.world.state.bankrupt
    assert result["peak_subscribers"] == max(m["subscribers"] for m in env.world.metrics)
    if agent == "rule-based":
        assert result["peak_subscribers"] > 1000


def test_do_nothing_survives_full_horizon_and_loses_money() -> None:
    env = CeoEnv.from_preset("default", seed=42)
    assert env.config.horizon_days == 500
    policy = make_policy("do-nothing")
    while not env.done:
        policy.act(env)
        env.next_turn()
    st = env.world.state
    assert env.day == 500 and not st.bankrupt
    assert 0 < st.ledger.cash < 1_000_000
    assert st.customers.n == 0
    assert all(m["subscribers"] == 0 for m in env.world.metrics)


def test_cli_run_writes_run_directory(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from bizbench.cli import app

    out = tmp_path / "run"
    res = CliRunner().invoke(
        app, ["run", "ceo", "--agent", "rule-based", "--seed", "42", "--days", "30", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    result = json.loads((out / "result.json").read_text())
    assert result["env"] == "ceo"
    assert result["preset"] == "default"
    assert result["seed"] == 42
    assert result["agent"] == "rule-based"
    assert isinstance(result["final_cash"], float)
    assert isinstance(result["bankrupt"], bool) and result["bankrupt"] is False
    assert isinstance(result["days_survived"], int) and result["days_survived"] == 30
    assert isinstance(result["peak_subscribers"], int)
    assert result["provenance"]["numpy"] == np.__version__
    lines = (out / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == 30
    assert [json.loads(line)["day"] for line in lines] == list(range(1, 31))
    assert json.loads(lines[-1])["cash"] == result["final_cash"]
    assert (out / "cash.png").stat().st_size > 0
    assert (out / "ledger.csv").exists() and (out / "actions.jsonl").exists()
