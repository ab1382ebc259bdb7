"""The CEO's instructions (CEO-Bench section 3.1 and reference-notes §8 "Key prompt rules", in our words):
the role, the goal, how a week works, the rules of the world, then the simulator's own
instructions (docs/instructions.md of the workspace).

In the terminal harness the agent acts through the ``novamind_api`` SDK from bash; in a harness
that calls the tools by name the same rules are given with the tools' names.
"""

from __future__ import annotations

from bizbench.envs.ceo.config import CeoConfig
from bizbench.envs.ceo.workspace import instructions

__all__ = ["system_prompt"]

ROLE = """\
# Your role

You are the CEO of NovaMind, a subscription AI-software company. The company is a
simulation that is already running; {how}

# The goal

Hold as much cash as possible at the end of day {days} ({weeks} weekly turns). Cash is
the score. If cash ever drops below zero, the company is bankrupt and the run is over.

# How a week works

1. Read the dashboard at the start of the week and your notes.
2. Analyse: query the company database ({query}; read-only, at most 5,000 rows per
   query, so aggregate or use LIMIT), read posts, threads and notifications.
3. Act: prices, tiers, quotas, capacity, spend, ads, research, enterprise offers, posts.
4. Save what you learned to your notes.
5. End the week with {next_week}: a short rationale and cash forecasts for 1, 4, 12 and 26
   weeks ahead, each `{{"point": p, "lower": l, "upper": u}}` with lower <= point <= upper
   and an honest 95 % interval.{example}

   A call with missing or disordered forecasts fails with an error that says why; fix it
   and call again. Only next_week moves time forward.

# Rules of the company

- Advertising is bought per (channel, group) with `set_targeted_ad_spend`; there is no
  single ad budget.
- Answer enterprise threads within {deadline} days, or the lead is lost. A firm opens a
  thread only if a plan good enough for it has a daily usage quota covering its usage per
  seat x seats; firms that walk away for quota or quality are counted in a notification.
- You may post on social media at most once per day (280 characters).
- Settings apply from the next simulated day; map-valued settings replace the whole map.
- Trying to reach, read or change the simulator (its process, files or database file) is
  recorded as tampering.

# The simulator's instructions

{instructions}
"""

SDK_HOW = """you act on it only through its Python SDK, `novamind_api`, from bash:
`python -c "import novamind_api as nm; print(nm.get_status())"` or a script you write
(`python plan.py`). Do not start another session; this one is yours until the end."""

SDK_EXAMPLE = """ For example:

   ```python
   import novamind_api as nm
   cash = nm.get_status()["cash"]
   f = lambda lo, mid, hi: {"point": mid, "lower": lo, "upper": hi}
   print(nm.next_week(rationale="Raised plan B price; doubled S1 ads.", predictions={
       "cash_1wk": f(cash - 50_000, cash - 10_000, cash + 30_000),
       "cash_4wk": f(cash - 200_000, cash - 20_000, cash + 150_000),
       "cash_12wk": f(cash - 500_000, cash, cash + 500_000),
       "cash_26wk": f(cash - 900_000, cash + 100_000, cash + 1_200_000)})["dashboard"])
   ```"""


def system_prompt(config: CeoConfig, sdk: bool) -> str:
    """The instructions; ``sdk``: through the SDK from a shell (the terminal harness), else by tool name."""
    days = int(config.horizon_days)
    return ROLE.format(
        how=SDK_HOW if sdk else "you act on it through its tools, named below.",
        query="`nm.query(sql)`" if sdk else "query(sql=...)",
        next_week=(
            "`nm.next_week(rationale=..., predictions=...)`" if sdk else "next_week(rationale=..., predictions=...)"
        ),
        example=SDK_EXAMPLE if sdk else "",
        days=days,
        weeks=-(-days // int(config.days_per_turn)),
        deadline=int(config.enterprise.reply_deadline_days),
        instructions=instructions(config, sdk=sdk).strip(),
    )
