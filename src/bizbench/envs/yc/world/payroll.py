"""Monthly payroll (paper section 3 "Simulation Clock"; Table 2; reference-notes "Clock").

Payroll is charged on the first business day of each month at 09:00, the start month
excluded by default (11 payrolls in a one-year run from 2025-01-01). It is the sum of the
employees' current monthly salaries, which grow with every success (salary bumps), and it
is processed before any other event at the same instant (events.PAYROLL has the lowest
priority number). Funds below zero after a payroll mean bankruptcy.
"""

from __future__ import annotations

from bizbench.envs.yc.config import Clock
from bizbench.envs.yc.world.clock import MINUTES_PER_DAY, Calendar
from bizbench.envs.yc.world.employees import Employee

__all__ = ["monthly_payroll_cents", "payroll_times"]


def payroll_times(cal: Calendar, cfg: Clock, start: int, horizon: int) -> list[int]:
    """Instants of every payroll in ``[start, horizon)``, in order."""
    out = []
    year, month = cal.start.year, cal.start.month
    first = True
    while True:
        day = cal.first_business_day_of_month(year, month)
        t = day * MINUTES_PER_DAY + cfg.payroll_hour * 60
        if t >= horizon:
            break
        if t >= start and (cfg.payroll_in_start_month or not first):
            out.append(t)
        first = False
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def monthly_payroll_cents(employees: list[Employee]) -> int:
    return sum(e.salary_cents for e in employees)
