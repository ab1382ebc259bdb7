"""Clients, trust and adversaries (section 3 "Clients", "Adversarial clients"; Table 2 "Trust", "Adversarial";
ref trust formulas: gain 1.6 (1 - t/5)^1.5, decay 0.009/day, focus pressure 0.018, 50 % work cut at trust 5)."""

from __future__ import annotations

import pytest
from yc_helpers import honest, inject, make_env, ok, set_rates, start

from bizbench.envs.yc.config import load_config
from bizbench.envs.yc.world.clients import trust_gain, work_factor
from scripted_stream import ScriptedStream

TRUST = load_config("default")[0].trust


def test_trust_gain_formula_by_hand() -> None:
    assert trust_gain(0.0, TRUST) == pytest.approx(1.6)
    assert trust_gain(1.6, TRUST) == pytest.approx(1.6 * 0.68**1.5)  # 0.8972
    assert trust_gain(2.5, TRUST) == pytest.approx(1.6 * 0.5**1.5)  # 0.5657
    assert trust_gain(5.0, TRUST) == 0.0
    # "build rate 5 ~ 5 tasks to significant": five successes in a row from 0
    path = [0.0]
    for _ in range(5):
        path.append(path[-1] + trust_gain(path[-1], TRUST))
    assert path[1:] == pytest.approx([1.6, 2.4972, 3.0638, 3.4494, 3.7257], abs=1e-4)


def test_work_factor_linear_to_half_at_max() -> None:
    assert work_factor(0.0, TRUST) == 1.0
    assert work_factor(2.5, TRUST) == 0.75
    assert work_factor(5.0, TRUST) == 0.5


def test_exactly_two_adversaries_drawn_from_the_seed() -> None:
    sets = set()
    names = set()
    for seed in range(12):
        clients = make_env(seed).world.clients
        assert len(clients) == 6
        assert sum(c.adversarial for c in clients) == 2  # round(6 x 0.35)
        sets.add(frozenset(c.name for c in clients if c.adversarial))
        names.add(frozenset(c.name for c in clients))
        for c in clients:
            lo, hi = (1.0, 2.5) if c.adversarial else (0.7, 2.5)
            assert lo <= c.multiplier <= hi
    assert len(sets) > 6 and len(names) > 6  # the world changes with the seed (reference-notes defect 6)


def test_trust_decays_per_day_and_gates_and_cuts_work() -> None:
    env = make_env()
    w = env.world
    c = honest(w)
    w.clients[c].set_trust(w.now, 2.5, TRUST)
    gated = inject(w, work=400, client=c, required_trust=2)
    entry = next(t for t in ok(env.call("market_browse", limit=50))["tasks"] if t["task_id"] == gated)
    assert entry["requirements"] == {"training": 300}  # 400 x (1 - 0.5 x 2.5/5)
    assert entry["required_trust"] == 2
    # idle until the first payroll, Mon 2025-02-03 09:00: 33 days of decay
    ok(env.call("sim_resume"))
    assert w.cal.iso(w.now) == "2025-02-03T09:00"
    listed = {x["client_name"]: x["trust"] for x in ok(env.call("client_list"))["clients"]}
    assert listed[w.clients[c].name] == pytest.approx(2.5 - 0.009 * 33, abs=1e-3)
    # 2.203 -> the work shown is now 400 x (1 - 0.5 x 2.203/5) = 311.88 -> 312
    entry = next(t for t in ok(env.call("market_browse", limit=50))["tasks"] if t["task_id"] == gated)
    assert entry["requirements"] == {"training": 312}
    # after 23 more days trust falls below 2: the gated task leaves the browse list and cannot be accepted
    w.clients[c].set_trust(w.now, 1.99, TRUST)
    assert gated not in [t["task_id"] for t in ok(env.call("market_browse", limit=50))["tasks"]]
    r = env.call("task_accept", task_id=gated)
    assert not r.ok and "requires trust 2" in r.error


def test_success_builds_trust_and_focus_pressure_costs_the_others() -> None:
    env = make_env()
    w = env.world
    set_rates(w, "training", [5.0] * 8)
    c = honest(w)
    others = [i for i in range(6) if i != c]
    for i in others:
        w.clients[i].set_trust(w.now, 1.0, TRUST)
    tid = inject(w, work=90, client=c)  # 90 units at 5/h = 18 h: done Thu 2025-01-02 18:00
    start(env, tid, ["Emp_1"])
    while not w.clients[c].succeeded:
        ok(env.call("sim_resume"))
    assert w.cal.iso(w.now) == "2025-01-02T18:00"
    days = (w.now - w.start) / 1440  # 1 day 9 h of decay
    assert w.clients[c].trust(w.now, TRUST) == pytest.approx(1.6)  # from 0: no decay below the floor
    for i in others:
        assert w.clients[i].trust(w.now, TRUST) == pytest.approx(1.0 - 0.009 * days - 0.018)
    event = next(e for e in w.log if e["type"] == "task_completed")
    assert event["trust"] == pytest.approx(1.6)


def test_work_cut_is_frozen_at_acceptance() -> None:
    env = make_env()
    w = env.world
    c = honest(w)
    w.clients[c].set_trust(w.now, 5.0, TRUST)
    tid = inject(w, work=801, client=c)
    ok(env.call("task_accept", task_id=tid))
    task = ok(env.call("task_inspect", task_id=tid))
    assert task["requirements"] == {"training": 400}  # 801 x 0.5 = 400.5 -> 400 (round half even)
    w.clients[c].set_trust(w.now, 0.0, TRUST)
    assert ok(env.call("task_inspect", task_id=tid))["requirements"] == {"training": 400}


def _tri_cdf(x: float, low: float, mode: float, high: float) -> float:
    if x <= low:
        return 0.0
    if x >= high:
        return 1.0
    if x <= mode:
        return (x - low) ** 2 / ((high - low) * (mode - low))
    return 1 - (high - x) ** 2 / ((high - low) * (high - mode))


def test_docs_give_the_adversary_prior_of_every_client_tier() -> None:
    """docs/yc.md's table of P(adversarial | tier): exact from the preset's distributions; the draws agree."""
    import re
    from pathlib import Path

    import numpy as np

    from bizbench.envs.yc.world.clients import draw_clients, tier_label

    cfg = load_config("default")[0]
    c = cfg.clients
    share = c.adversarial_count / c.count
    lo, hi = c.tier_thresholds
    bands = dict(zip(c.tier_names, [(0.0, lo), (lo, hi), (hi, 99.0)], strict=True))
    exact = {}
    for tier, (a, b) in bands.items():
        honest_p = _tri_cdf(b, *_abc(c.multiplier)) - _tri_cdf(a, *_abc(c.multiplier))
        adv_p = _tri_cdf(b, *_abc(c.adversarial_multiplier)) - _tri_cdf(a, *_abc(c.adversarial_multiplier))
        exact[tier] = share * adv_p / (share * adv_p + (1 - share) * honest_p)
    docs = (Path(__file__).parents[2] / "docs" / "yc.md").read_text()
    for tier in c.tier_names:
        row = re.search(rf"\| {tier} \|[^|]*\|[^|]*\| ([0-9.]+) \|", docs)
        assert row is not None, f"docs/yc.md gives no prior for the {tier} tier"
        assert float(row.group(1)) == round(exact[tier], 2), tier
    seen = {t: [0, 0] for t in c.tier_names}
    for seed in range(1500):
        for client in draw_clients(c, cfg.trust, np.random.default_rng(seed)):
            counts = seen[tier_label(client.multiplier, c)]
            counts[0] += 1
            counts[1] += client.adversarial
    for tier, (n, adversarial) in seen.items():
        assert adversarial / n == pytest.approx(exact[tier], abs=0.03), tier


def _abc(tri: object) -> tuple[float, float, float]:
    return tri.low, tri.mode, tri.high  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("trust", "allowed"),
    [
        (2.0, True),  # exactly at the gate
        (2.0 - 1e-9, True),  # float noise below it never blocks an earned level
        (2.0 - 1e-8, False),  # anything more is below the gate
        (1.9, False),
    ],
)
def test_a_trust_gated_task_is_listed_and_accepted_from_exactly_its_required_trust(trust: float, allowed: bool) -> None:
    env = make_env()
    w = env.world
    c = honest(w)
    w.clients[c].set_trust(w.now, trust, TRUST)
    tid = inject(w, work=400, client=c, required_trust=2, reward_cents=99_999_900)  # the richest task: listed first
    listed = [t["task_id"] for t in ok(env.call("market_browse", limit=1))["tasks"]]
    assert (tid in listed) is allowed
    assert ok(env.call("task_inspect", task_id=tid))["acceptable_now"] is allowed
    r = env.call("task_accept", task_id=tid)
    assert r.ok is allowed
    if not allowed:
        assert f"requires trust 2 with {w.clients[c].name}" in r.error


def test_a_preset_with_a_fail_loss_takes_that_trust_from_the_client_of_a_failed_task() -> None:
    """fail_loss 0.5 (0 in the paper presets). Trust 2.0 at Wed 2025-01-01 09:00; the undispatched task fails at
    its deadline, Thu 2025-01-09 18:00, 8 days 9 h later: 2.0 - 0.009 x 8.375 - 0.5 = 1.424625."""
    env = make_env(trust__fail_loss=0.5)
    w = env.world
    c = honest(w)
    w.clients[c].set_trust(w.now, 2.0, TRUST)
    other = next(i for i in range(6) if i != c)
    w.clients[other].set_trust(w.now, 2.0, TRUST)
    ok(env.call("task_accept", task_id=inject(w, work=400, client=c)))
    events = ok(env.call("sim_resume"))["events"]
    assert [(e["time"], e["type"]) for e in events] == [("2025-01-09T18:00", "task_failed")]
    assert w.clients[c].trust(w.now, w.config.trust) == pytest.approx(1.424625)
    assert w.clients[other].trust(w.now, w.config.trust) == pytest.approx(2.0 - 0.009 * 8.375)  # decay only


def test_on_success_returns_the_winners_trust_before_and_after_and_presses_the_others() -> None:
    """One day after every trust was set: the winner 2.0 - 0.009 = 1.991 before, then gains
    1.6 (1 - 1.991/5)^1.5 = 0.746962: 2.737962. The others lose 0.009 of decay and 0.018 of focus pressure
    (1.0 -> 0.973), floored at 0 (0.02 -> 0)."""
    from bizbench.envs.yc.world.clients import Client, on_success

    clients = [Client("A", 1.0, False), Client("B", 1.0, False), Client("C", 1.0, True)]
    for c, v in zip(clients, (2.0, 1.0, 0.02), strict=True):
        c.set_trust(0, v, TRUST)
    before, after = on_success(clients, 0, 1440, TRUST)
    assert (before, after) == (pytest.approx(1.991), pytest.approx(2.737962, abs=1e-6))
    assert [c.trust_value for c in clients] == [pytest.approx(2.737962, abs=1e-6), pytest.approx(0.973), 0.0]
    assert [c.trust_as_of for c in clients] == [1440, 1440, 1440]


def test_a_market_task_asks_for_at_least_one_unit_of_work() -> None:
    """Trust 5 halves the work: 1 unit -> 0.5 -> 0 rounded, floored at 1; 3 units -> 1.5 -> 2 (half to even)."""
    env = make_env()
    w = env.world
    c = honest(w)
    w.clients[c].set_trust(w.now, 5.0, TRUST)
    one = inject(w, work=1, client=c, reward_cents=99_999_900)
    three = inject(w, work=3, client=c, reward_cents=99_999_800)
    shown = {t["task_id"]: t["requirements"] for t in ok(env.call("market_browse", limit=2))["tasks"]}
    assert shown == {one: {"training": 1}, three: {"training": 2}}


def test_a_client_draw_takes_names_adversaries_then_both_multipliers_of_every_client() -> None:
    """3 clients out of 5 names, round(3 x 0.35) = 1 adversary; each client draws an honest multiplier
    Tri(0.7, 1.0, 2.5) and an adversarial one Tri(1.0, 1.5, 2.5), keeps the one of its kind to 4 decimals, and
    starts at the preset's initial trust."""
    from bizbench.envs.yc.world.clients import draw_clients

    cfg = load_config("default")[0]
    names = ("N0", "N1", "N2", "N3", "N4")
    clients_cfg = cfg.clients.model_copy(update={"count": 3, "names": names})
    trust = cfg.trust.model_copy(update={"initial": 0.5})
    rng = ScriptedStream(permutation=[[3, 0, 4, 1, 2], [2, 0, 1]], triangular=[1.23456, 2.0, 0.8, 1.9, 0.9, 2.123456])
    got = draw_clients(clients_cfg, trust, rng)  # type: ignore[arg-type]
    honest_m, adv_m = ("triangular", 0.7, 1.0, 2.5), ("triangular", 1.0, 1.5, 2.5)
    assert rng.calls == [("permutation", 5), ("permutation", 3)] + [honest_m, adv_m] * 3
    assert [(c.name, c.multiplier, c.adversarial, c.trust_value, c.trust_as_of) for c in got] == [
        ("N3", 1.2346, False, 0.5, 0),
        ("N0", 0.8, False, 0.5, 0),
        ("N4", 2.1235, True, 0.5, 0),  # the third client is the first of the second permutation
    ]


@pytest.mark.parametrize(
    ("multiplier", "tier"),
    [(0.7, "standard"), (1.1999, "standard"), (1.2, "premium"), (1.7999, "premium"), (1.8, "enterprise")],
)
def test_a_clients_tier_band_starts_at_each_threshold(multiplier: float, tier: str) -> None:
    """Tier bands: standard below 1.2, premium from 1.2 below 1.8, enterprise from 1.8."""
    from bizbench.envs.yc.world.clients import tier_label

    assert tier_label(multiplier, load_config("default")[0].clients) == tier


def test_a_failure_without_a_fail_loss_leaves_the_clients_trust_record_untouched() -> None:
    """fail_loss 0 (the paper presets): no trust is written, so the record keeps its value and its time; with
    fail_loss 0.5, ten days after trust 2.0: 2.0 - 0.009 x 10 - 0.5 = 1.41, recorded at that minute."""
    from bizbench.envs.yc.world.clients import Client, on_failure

    c = Client("A", 1.0, False, trust_value=2.0, trust_as_of=0)
    on_failure(c, 10 * 1440, TRUST)
    assert (c.trust_value, c.trust_as_of) == (2.0, 0)
    on_failure(c, 10 * 1440, TRUST.model_copy(update={"fail_loss": 0.5}))
    assert (c.trust_value, c.trust_as_of) == (pytest.approx(1.41), 10 * 1440)
