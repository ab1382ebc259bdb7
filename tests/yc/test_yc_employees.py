"""The roster (section 3 "Employees and productivity"; Table 2 "Salary Tiers", "Salary bump"; ref boosts)."""

from __future__ import annotations

import numpy as np
from yc_helpers import inject, make_env, ok, set_rates, start

from bizbench.envs.yc.config import load_config
from bizbench.envs.yc.world.employees import apportion, boost_rate, draw_employees
from scripted_stream import ScriptedStream

TIERS = {
    "junior": ((2000, 4000), (1.0, 4.0)),
    "mid": ((6000, 8000), (4.0, 7.0)),
    "senior": ((10000, 15000), (7.0, 10.0)),
}


def test_apportion_table2_shares() -> None:
    assert apportion(8, [0.50, 0.35, 0.15]) == [4, 3, 1]  # 4.0 / 2.8 / 1.2
    assert apportion(6, [0.50, 0.35, 0.15]) == [3, 2, 1]
    assert apportion(10, [0.50, 0.35, 0.15]) == [5, 4, 1]  # 5 / 3.5 / 1.5: tie -> earlier share
    assert sum(apportion(7, [0.3, 0.3, 0.4])) == 7


def test_roster_tiers_salaries_and_in_tier_rates_reference_preset() -> None:
    cfg, _ = load_config("reference")  # every rate inside its own tier's range
    for seed in range(5):
        emps = draw_employees(cfg.workforce, cfg.domains, np.random.default_rng(seed))
        assert [e.id for e in emps] == [f"Emp_{i}" for i in range(1, 9)]
        assert sorted(e.tier for e in emps) == ["junior"] * 4 + ["mid"] * 3 + ["senior"]
        assert len({e.name for e in emps}) == 8
        for e in emps:
            (smin, smax), (rmin, rmax) = TIERS[e.tier]
            assert smin * 100 <= e.salary_cents <= smax * 100 and e.salary_cents % 100 == 0
            assert set(e.rates) == set(cfg.domains)
            assert all(rmin <= r <= rmax for r in e.rates.values())


def test_spiky_rates_default_preset() -> None:
    """With off_tier_share 0.25 some (employee, domain) rates come from another tier's range (section 3)."""
    cfg, _ = load_config("default")
    off = 0
    total = 0
    for seed in range(40):
        for e in draw_employees(cfg.workforce, cfg.domains, np.random.default_rng(seed)):
            rmin, rmax = TIERS[e.tier][1]
            for r in e.rates.values():
                total += 1
                off += not rmin <= r <= rmax
                assert 1.0 <= r <= 10.0
    assert 0.12 < off / total < 0.30  # 25 % drawn off-tier, some of which land inside the own range's ends


def test_seed_changes_the_roster() -> None:
    a, b = make_env(1).world.employees, make_env(2).world.employees
    assert [(e.name, e.salary_cents, e.rates) for e in a] != [(e.name, e.salary_cents, e.rates) for e in b]


class _Normal:
    def __init__(self, *draws: float) -> None:
        self.draws = list(draws)

    def normal(self, loc: float, scale: float) -> float:
        return loc + scale * self.draws.pop(0)


def test_boost_clip_and_cap() -> None:
    wf = load_config("default")[0].workforce
    assert boost_rate(5.0, wf, _Normal(0.0)) == (5.6, 0.12)  # b = mean: 5 x 1.12
    assert boost_rate(5.0, wf, _Normal(-10.0)) == (5.05, 0.01)  # clipped at 0.01
    assert boost_rate(5.0, wf, _Normal(10.0)) == (7.0, 0.40)  # clipped at 0.40
    assert boost_rate(9.5, wf, _Normal(1.0))[0] == 10.0  # 9.5 x 1.18 capped at 10 units/hour


def test_success_bumps_salary_by_tier_midpoint_and_boosts_rates() -> None:
    """Default preset: each assigned employee's salary rises by 1 % of the tier midpoint ($30 / $70 / $125)."""
    env = make_env()
    w = env.world
    set_rates(w, "training", [5.0] * 8)
    before = {e.id: (e.salary_cents, e.rates["training"], e.rates["research"]) for e in w.employees}
    team = ["Emp_1", "Emp_2", "Emp_3", "Emp_4"]
    tid = inject(w, work=180, domain="training")
    start(env, tid, team)
    while not any(e["type"] == "task_completed" for e in w.log):
        ok(env.call("sim_resume"))
    done = next(e for e in w.log if e["type"] == "task_completed")
    bump = {"junior": 3000, "mid": 7000, "senior": 12500}
    for e in w.employees:
        sal, tr, rs = before[e.id]
        if e.id in team:
            assert e.salary_cents == sal + bump[e.tier]
            assert 5.05 <= e.rates["training"] <= 7.0
            assert e.tasks_succeeded == 1
        else:
            assert (e.salary_cents, e.rates["training"]) == (sal, tr)
        assert e.rates["research"] == rs  # other domains untouched
    assert [b["employee_id"] for b in done["salary_bumps"]] == team
    assert done["monthly_payroll_cents"] == w.payroll_cents


def test_compounding_salary_bump_preset() -> None:
    env = make_env(preset="salary-compounding")
    w = env.world
    set_rates(w, "training", [5.0] * 8)
    sal = w.emp_by_id["Emp_1"].salary_cents
    start(env, inject(w, work=90), ["Emp_1"])
    while not w.emp_by_id["Emp_1"].tasks_succeeded:
        ok(env.call("sim_resume"))
    assert w.emp_by_id["Emp_1"].salary_cents == sal + round(sal * 0.01)


def test_a_roster_draw_follows_the_tiers_salaries_names_and_spiky_rates_rules() -> None:
    """3 employees of the default tiers: 3 x 50/35/15 % -> 1.5 / 1.05 / 0.45 -> 2 juniors, 1 mid (largest
    remainder); per employee a salary U{min..max} dollars, then per domain: off-tier (draw < 0.25), which other
    tier, and the position u in the range: rate = min + (max - min) u, to the cent."""
    wf = load_config("default")[0].workforce.model_copy(
        update={"count": 3, "first_names": ("Ada", "Bruno"), "last_names": ("Abara", "Brandt")}
    )
    rng = ScriptedStream(
        integers=[7123, 0, 1] + [4000, 0, 1] + [2000, 1, 0],  # salary, then the other tier per domain
        random=[0.25, 0.5, 0.2499, 0.123] + [0.0, 0.999, 0.9, 0.0] + [0.1, 0.5, 0.3, 0.25],
        # combos in order: Ada Abara, Ada Brandt, Bruno Abara, Bruno Brandt
        permutation=[[1, 0, 3, 2]],
    )
    emps = draw_employees(wf, ("training", "research"), rng)  # type: ignore[arg-type]
    per_domain = [("random",), ("integers", 0, 2), ("random",)]  # 3 tiers: 2 others to pick from
    assert rng.calls == [
        ("shuffle", [0, 0, 1]),  # junior, junior, mid before the shuffle (reversed by the stand-in)
        ("permutation", 4),
        ("integers", 6000, 8001),
        *per_domain * 2,
        ("integers", 2000, 4001),
        *per_domain * 2,
        ("integers", 2000, 4001),
        *per_domain * 2,
    ]
    got = [(e.id, e.name, e.tier, e.salary_cents, e.rates, e.tasks_succeeded) for e in emps]
    assert got == [
        # mid: training 0.25 is not below 0.25, own range 4 + 3 x 0.5 = 5.5; research off-tier, other tier 1 of
        # (junior, senior) = senior: 7 + 3 x 0.123 = 7.369 -> 7.37
        ("Emp_1", "Ada Brandt", "mid", 712_300, {"training": 5.5, "research": 7.37}, 0),
        # junior: training off-tier to mid (other 0 of mid, senior): 4 + 3 x 0.999 = 6.997 -> 7.0; research own 1.0
        # ("Ada Abara" was skipped: Ada is taken while an unused first name is left)
        ("Emp_2", "Bruno Brandt", "junior", 400_000, {"training": 7.0, "research": 1.0}, 0),
        # junior: training off-tier to senior: 7 + 3 x 0.5 = 8.5; research own 1 + 3 x 0.25 = 1.75;
        # both first names are used, so "Bruno Abara" may repeat one
        ("Emp_3", "Bruno Abara", "junior", 200_000, {"training": 8.5, "research": 1.75}, 0),
    ]


def test_with_a_single_tier_every_rate_comes_from_that_tier() -> None:
    """One tier: an off-tier draw has no other tier to go to; the 'which other tier' draw is U{0} (integers(0, 1))."""
    base = load_config("default")[0].workforce
    mid = next(t for t in base.tiers if t.name == "mid").model_copy(update={"share": 1.0})
    wf = base.model_copy(update={"count": 1, "tiers": (mid,)})
    rng = ScriptedStream(integers=[6000, 0], random=[0.0, 0.5], permutation=[[5]])
    emps = draw_employees(wf, ("training",), rng)  # type: ignore[arg-type]
    assert rng.calls == [
        ("shuffle", [0]),
        ("permutation", 16 * 12),
        ("integers", 6000, 8001),
        ("random",),
        ("integers", 0, 1),
        ("random",),
    ]
    assert [(e.id, e.name, e.tier, e.salary_cents, e.rates) for e in emps] == [
        ("Emp_1", "Ada Fischer", "mid", 600_000, {"training": 5.5})  # combo 5: Ada x the 6th last name
    ]


def test_a_boosted_rate_is_kept_to_4_decimals() -> None:
    wf = load_config("default")[0].workforce
    assert boost_rate(3.33333, wf, _Normal(0.0)) == (3.7333, 0.12)  # 3.33333 x 1.12 = 3.7333296


def test_a_display_name_repeats_a_first_name_only_when_every_first_name_is_taken() -> None:
    """The first name is the part before the first space, so a two-word last name does not make a new one."""
    from bizbench.envs.yc.world.employees import _draw_names

    wf = load_config("default")[0].workforce.model_copy(
        update={"count": 3, "first_names": ("Ada", "Bruno"), "last_names": ("van Dahl", "Eze")}
    )
    # combos: Ada van Dahl, Ada Eze, Bruno van Dahl, Bruno Eze; "Ada Eze" is skipped while Bruno is unused
    rng = ScriptedStream(integers=[], random=[], permutation=[[0, 1, 2, 3]])
    assert _draw_names(wf, rng) == ["Ada van Dahl", "Bruno van Dahl", "Bruno Eze"]  # type: ignore[arg-type]


def test_with_two_tiers_an_off_tier_rate_comes_from_the_other_tier() -> None:
    """junior and senior at 50 % each: 1 employee -> 0.5 / 0.5, the tie goes to junior; an off-tier draw (0.0 <
    0.25) takes the one other tier, senior: 7 + 3 x 0.5 = 8.5."""
    base = load_config("default")[0].workforce
    two = tuple(t.model_copy(update={"share": 0.5}) for t in base.tiers if t.name in ("junior", "senior"))
    wf = base.model_copy(update={"count": 1, "tiers": two})
    rng = ScriptedStream(integers=[3000, 0], random=[0.0, 0.5], permutation=[[0]])
    emps = draw_employees(wf, ("training",), rng)  # type: ignore[arg-type]
    assert ("integers", 0, 1) in rng.calls
    assert [(e.tier, e.salary_cents, e.rates) for e in emps] == [("junior", 300_000, {"training": 8.5})]
