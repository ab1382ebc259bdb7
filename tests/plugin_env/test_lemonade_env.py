"""The lemonade stand itself: a plug-in env that satisfies the Env contract from ``tests/`` alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lemonade_helpers import ENV, SEED

from bizbench.core.env import Env, EnvSpec
from bizbench.core.envs import get_env, list_envs
from bizbench.runner.check import find_hidden

SRC = Path(__file__).resolve().parents[2] / "src"


def fresh(spec: EnvSpec, seed: int = SEED, horizon: int | None = None, preset: str | None = None) -> Env:
    return spec.from_preset(preset, seed=seed, horizon=horizon)


def test_it_is_registered_through_the_plugin_variable_only() -> None:
    assert ENV in [s.id for s in list_envs()]
    spec = get_env(ENV)
    assert spec.package == "lemonade" and spec.unit == "day"
    assert not list(SRC.rglob("*lemonade*"))
    named = subprocess.run(["grep", "-rIli", "lemonade", str(SRC)], capture_output=True, text=True).stdout
    assert named == ""  # nothing under src/ names it
    code = "from bizbench.core.envs import get_env; print(get_env('lemonade').title)"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Lemonade" in child.stdout  # a child process sees it (sweep workers, resume, serve)


def test_presets_and_horizon_override(spec: EnvSpec) -> None:
    assert spec.presets() == ["default", "short"]
    assert fresh(spec).horizon == 30 and fresh(spec, preset="short").horizon == 7
    env = fresh(spec, horizon=4)
    assert isinstance(env, Env) and env.horizon == 4 and spec.horizon_of(env.config) == 4
    with pytest.raises(ValueError, match="whole number of days"):
        spec.with_horizon(env.config, 0)


def test_a_day_of_trade_is_exact_in_cents(spec: EnvSpec) -> None:
    env = fresh(spec)
    start = env.cash()
    assert env.call("set_price", price=1.5).ok
    bought = env.call("buy_lemons", units=40)
    assert bought.ok and bought.data["cost"] == 10.0 and bought.data["lemons"] == 40
    env.advance()
    day = env.world.history[-1]
    assert day.sold <= 40 and day.revenue_cents == 150 * day.sold
    assert env.world.cash_cents == round(start * 100) - 1000 + day.revenue_cents - 100
    assert env.world.cash_cents == env.config.start_cash_cents + sum(r.cents for r in env.ledger_rows())
    assert env.observation()["lemons"] == (40 - day.sold) - (40 - day.sold) // 2
    assert env.elapsed == 1 and not env.done


def test_idle_goes_bankrupt_before_the_end(spec: EnvSpec) -> None:
    env = fresh(spec)
    while not env.done:
        env.advance()
    assert env.bankrupt and env.elapsed == 20 < env.horizon and env.cash() == -1.0
    refused = env.call("end_day")
    assert not refused.ok and "closed" in (refused.error or "")
    assert env.call("get_status").ok  # reading still answers


@pytest.mark.parametrize(
    ("tool", "args", "names"),
    [
        ("set_price", {"price": 0}, "price"),
        ("set_price", {"price": "1.0"}, "price"),
        ("set_price", {"price": float("nan")}, "price"),
        ("buy_lemons", {"units": 2.5}, "units"),
        ("buy_lemons", {"units": 81}, "units"),  # more than the cash buys
        ("buy_lemons", {}, "units"),
        ("end_day", {"days": 2}, "days"),
        ("sell_stand", {}, "sell_stand"),
    ],
)
def test_a_bad_call_names_the_argument_and_changes_nothing(spec: EnvSpec, tool: str, args: dict, names: str) -> None:
    env = fresh(spec)
    before = env.state_digest()
    answer = env.call_tool(tool, args)
    assert not answer.ok and names in (answer.error or "")
    assert env.state_digest() == before
    assert env.actions[-1]["ok"] is False and env.actions[-1]["tool"] == tool


def test_the_world_is_drawn_from_named_streams(spec: EnvSpec) -> None:
    a, b, c = fresh(spec, 1), fresh(spec, 1), fresh(spec, 2)
    assert a.state_digest() == b.state_digest() != c.state_digest()
    assert sorted(a.world.streams.names()) == ["taste", "weather"]  # customers' stream opens on the first day
    held_out = spec.make(a.config, 1, "default", "", "a secret")
    assert held_out.state_digest() != a.state_digest() and held_out.secret_id is not None
    assert held_out.world.entropy in held_out.hidden_values()


def test_nothing_hidden_reaches_the_agent(spec: EnvSpec) -> None:
    env = fresh(spec)
    seen = [("tool docs", env.registry.markdown_docs())]
    policy = spec.baseline("learner").make(SEED)
    while not env.done:
        seen.append(("observation", json.dumps(env.observation())))
        for name in ("get_status", "buy_lemons", "set_price"):
            answer = env.call(name, **({"units": 10**6} if name == "buy_lemons" else {}))
            seen.append((name, json.dumps(answer.data) + str(answer.error)))
        policy.act(env)
    hidden = env.hidden_values()
    assert SEED in hidden and env.world.thirst in hidden and "thirst" in hidden
    assert find_hidden(hidden, seen) == []
    leaky = [("observation", json.dumps({**env.observation(), "t": env.world.thirst}))]
    assert len(find_hidden(hidden, leaky)) == 1  # the search would see it


def test_metrics_hold_the_hidden_truth_for_the_run_directory_only(spec: EnvSpec) -> None:
    env = fresh(spec, horizon=3)
    while not env.done:
        env.call("buy_lemons", units=5)
        env.advance()
    rows = env.take_rows()["metrics"]
    assert [r["day"] for r in rows] == [0, 1, 2] and env.take_rows()["metrics"] == []
    assert all(r["sold"] <= r["buyers_wanted"] for r in rows)
    assert env.money_points()[0] == (0, 20.0) and env.money_points()[-1][1] == env.cash()


def test_baselines_rank_as_designed(spec: EnvSpec) -> None:
    from bizbench.runner.episode import run_baseline

    cash = {name: run_baseline(ENV, name, seed=3)["final_cash"] for name in spec.baseline_table()}
    assert cash["idle"] < 0 < cash["steady"] and cash["learner"] > 0
    steady = spec.baseline("steady")
    assert steady.options == {"price": 1.0, "share": 0.4}
    assert run_baseline(ENV, "steady", seed=3, options={"price": 2.0})["final_cash"] != cash["steady"]
    with pytest.raises(ValueError, match="takes no option"):
        run_baseline(ENV, "steady", seed=3, options={"speed": 1})
