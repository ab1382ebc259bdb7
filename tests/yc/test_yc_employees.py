"""The roster (section 3 "Employees and productivity"; Table 2 "Salary Tiers", "Salary bump"; ref boosts)."""

from __future__ import annotations

import numpy as np
from yc_helpers import inject, make_env, ok, set_rates, start

from bizbench.envs.yc.config import load_config
from bizbench.envs.yc.world.employees import apportion, boost_rate, draw_employees

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
