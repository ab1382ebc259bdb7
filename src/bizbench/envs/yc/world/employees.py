"""The fixed roster: tiers, salaries, per-domain skill rates, boosts and salary bumps.

Paper section 3 "Employees and productivity" and Table 2 ("Employees 8", "Salary Tiers",
"Salary bump 1%/task"); boost distribution and rate cap from the reference
(reference-notes "Company and employees"). Everything an employee has is visible to the agent
(``employee list`` shows names, tiers, salaries and productivity, Table 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bizbench.envs.yc.config import Tier, Workforce

__all__ = ["Employee", "apportion", "boost_rate", "draw_employees", "salary_bump_cents"]


@dataclass(slots=True)
class Employee:
    id: str  # "Emp_1" (Appendix C prompt)
    name: str
    tier: str
    salary_cents: int  # per month
    rates: dict[str, float]  # units of work per business hour, by domain
    tasks_succeeded: int = 0

    @property
    def number(self) -> int:
        return int(self.id.split("_", 1)[1])


def apportion(count: int, shares: list[float]) -> list[int]:
    """Largest-remainder apportionment of ``count`` seats by ``shares`` (8 x 50/35/15 % -> 4/3/1).

    Ties in the remainders go to the earlier share (stable)."""
    quotas = [count * s for s in shares]
    seats = [int(q) for q in quotas]
    order = sorted(range(len(shares)), key=lambda i: (-(quotas[i] - seats[i]), i))
    for i in order[: count - sum(seats)]:
        seats[i] += 1
    return seats


def draw_employees(cfg: Workforce, domains: tuple[str, ...], rng: np.random.Generator) -> list[Employee]:
    """The roster for one seed (stream ``employees``).

    Tier counts are apportioned exactly (Table 2 shares); the tier order over Emp_1..Emp_N
    is shuffled. Salary ~ U(tier min, tier max) in whole dollars. Each (employee, domain)
    rate ~ U(tier rate range), except that with probability ``off_tier_share`` it is drawn
    from another tier's range instead (the paper's "spiky" productivity, section 3).
    """
    tiers = list(cfg.tiers)
    counts = apportion(cfg.count, [t.share for t in tiers])
    tier_idx = np.repeat(np.arange(len(tiers)), counts)
    rng.shuffle(tier_idx)
    names = _draw_names(cfg, rng)
    out = []
    for n, ti in enumerate(tier_idx.tolist(), start=1):
        tier = tiers[ti]
        salary = int(rng.integers(tier.salary_min_dollars, tier.salary_max_dollars + 1)) * 100
        rates: dict[str, float] = {}
        for d in domains:
            off = rng.random() < cfg.off_tier_share
            other = int(rng.integers(0, max(len(tiers) - 1, 1)))
            u = rng.random()
            src = tiers[ti]
            if off and len(tiers) > 1:
                src = [t for j, t in enumerate(tiers) if j != ti][other]
            rates[d] = round(src.rate_min + (src.rate_max - src.rate_min) * u, 2)
        out.append(Employee(id=f"Emp_{n}", name=names[n - 1], tier=tier.name, salary_cents=salary, rates=rates))
    return out


def _draw_names(cfg: Workforce, rng: np.random.Generator) -> list[str]:
    combos = [f"{f} {last}" for f in cfg.first_names for last in cfg.last_names]
    firsts_used: set[str] = set()
    names: list[str] = []
    for i in rng.permutation(len(combos)).tolist():
        first = combos[i].split(" ", 1)[0]
        if first in firsts_used and len(firsts_used) < len(cfg.first_names):
            continue
        firsts_used.add(first)
        names.append(combos[i])
        if len(names) == cfg.count:
            break
    return names


def boost_rate(rate: float, cfg: Workforce, rng: np.random.Generator) -> tuple[float, float]:
    """Productivity boost on success: rate x (1 + b), b ~ N(mean, sd) clipped, capped (ref).

    Returns ``(new_rate, b)``; one normal draw from ``rng`` every time (even at the cap)."""
    b = float(np.clip(rng.normal(cfg.boost_mean, cfg.boost_sd), cfg.boost_min, cfg.boost_max))
    return round(min(max(cfg.rate_cap, rate), rate * (1.0 + b)), 4), b


def salary_bump_cents(emp: Employee, tiers: tuple[Tier, ...], cfg: Workforce) -> int:
    """The monthly raise of one success: 1 % of the current salary (Table 2) or of the tier midpoint (ref)."""
    if cfg.salary_bump == "salary_share":
        return int(round(emp.salary_cents * cfg.salary_bump_share))
    tier = next(t for t in tiers if t.name == emp.tier)
    return int(round(tier.salary_midpoint_dollars * 100 * cfg.salary_bump_share))
