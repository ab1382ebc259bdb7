"""The agent's system prompt (paper Appendix C), generated from the preset and the tool registry.

The original prompt disagrees with its world in places (reference-notes "Known defects" 5): it says a
failure costs "no reward" while the world also charges 35 % of the reward, and that ``sim
resume`` "requires active tasks". Here every number comes from the config and every command
line from the registry (``bizbench.core.cmdline`` syntax), and tests parse every command
the prompt names back into a valid tool call.
"""

from __future__ import annotations

import re

from bizbench.envs.yc.config import YcConfig
from bizbench.envs.yc.tools import percent, registry, registry_for

__all__ = ["command_reference", "system_prompt"]

# One example invocation per tool (words + flags, as typed after the command prefix).
_EXAMPLES: dict[str, str] = {
    "company_status": "company status",
    "employee_list": "employee list",
    "market_browse": "market browse [--domain training] [--reward-min-cents 500000] [--limit 50] [--offset 0]",
    "task_list": "task list [--status active]",
    "task_inspect": "task inspect --task-id Task-42",
    "client_list": "client list",
    "client_history": "client history",
    "finance_ledger": "finance ledger",
    "task_accept": "task accept --task-id Task-42",
    "task_assign": "task assign --task-id Task-42 --employees Emp_1,Emp_4,Emp_7",
    "task_dispatch": "task dispatch --task-id Task-42",
    "task_cancel": 'task cancel --task-id Task-42 --reason "text"',
    "sim_resume": "sim resume",
    "scratchpad_read": "scratchpad read",
    "scratchpad_write": 'scratchpad write --content "text"',
    "scratchpad_append": 'scratchpad append --content "text"',
}


def command_reference(prefix: str = "yc-bench", config: YcConfig | None = None) -> list[str]:
    """``- `prefix command --flags` - description`` for every registered tool, grouped as in Table 1
    (descriptions of ``config``'s registry; default: the default preset's)."""
    lines: list[str] = []
    for spec in (registry if config is None else registry_for(config)).specs():
        example = _EXAMPLES[spec.name]
        lines.append(f"- `{prefix} {example}` - {spec.description}")
    return lines


def _money(cents: int) -> str:
    return f"${cents / 100:,.0f}"


def system_prompt(config: YcConfig, prefix: str = "yc-bench") -> str:
    """The instructions for one preset; ``prefix`` is how the agent invokes a command."""
    c = config
    ck = c.clock
    d = c.deadlines
    tiers = ", ".join(f"{t.name} ${t.salary_min_dollars:,}-{t.salary_max_dollars:,}/month" for t in c.workforce.tiers)
    cap = c.throughput.max_contributors
    cap_rule = (
        f" Only the {cap} largest contributions on a task count; extra employees add payroll growth, not speed."
        if cap
        else ""
    )
    if c.workforce.salary_bump == "tier_midpoint_share":
        bump = f"{percent(c.workforce.salary_bump_share)} of the midpoint of their tier's salary range"
    else:
        bump = f"{percent(c.workforce.salary_bump_share)} of their current salary"
    cancel_fee = (
        f" and {percent(d.cancel_fee_share)} of the advertised reward is charged" if d.cancel_fee_share > 0 else ""
    )
    fail_prestige = (
        f"prestige in its domain drops by {d.fail_prestige_factor:g} x its prestige_delta"
        if d.fail_prestige_factor
        else "prestige is unchanged"
    )
    cps = "/".join(str(p) for p in c.checkpoints_pct)
    commands = "\n".join(command_reference(prefix, config))
    text = f"""You are the CEO of an AI services startup in a business simulation. Maximize funds and prestige
while avoiding bankruptcy. The score is your funds at the end of the simulation.

All actions use `{prefix}` commands. All return JSON; an error returns {{"error": ...}} and changes nothing.

## Core workflow (repeat every turn)

1. `{prefix} market browse` - pick a task
2. `{prefix} task accept --task-id Task-42` - accept it (its deadline starts now)
3. `{prefix} task assign --task-id Task-42 --employees Emp_1,Emp_4,Emp_7` - assign employees
   (check `employee list` for skill rates)
4. `{prefix} task dispatch --task-id Task-42` - start work
5. `{prefix} sim resume` - advance to the next event

You may run several tasks at once and accept any number of tasks.
Use `{prefix} scratchpad write --content "..."` to keep notes: your conversation history is truncated after
{c.harness.history_turns} turns, but the scratchpad is shown to you every turn. Write reusable rules, not one-off
observations.

## Commands

{commands}

## Key mechanics

- **Clock**: the simulation starts {ck.start_date.isoformat()} and ends after {ck.horizon_months} months. Work happens
  only on business days (Mon-Fri, {ck.day_start_hour:02d}:00-{ck.day_end_hour:02d}:00). Time moves only when you call
  `sim resume`, which always advances to the next event: a task checkpoint ({cps} % of the work done), a deadline,
  the monthly payroll or the end of the simulation. If you do not call it for {c.harness.auto_advance_turns} turns,
  time advances by itself.
- **Payroll**: the sum of monthly salaries ({tiers}) is deducted on the first business day of each month at
  {ck.payroll_hour:02d}:00. Funds below zero = bankruptcy, the simulation ends.
- **Throughput**: an employee's rate in a domain is work units per business hour. A task's throughput is the sum of
  its assigned employees' rates in its domain; an employee on N active tasks gives each rate/N.{cap_rule}
- **Deadlines**: a task's deadline is max({d.min_days:g}, work / {d.qty_per_day:g}) business days after you accept it.
  Success (all work done by the deadline): the reward is paid and prestige in its domain rises by its
  prestige_delta. Failure (deadline passed, whether the task was dispatched or not): no reward,
  {percent(d.fail_penalty_share)} of the advertised reward is charged as a penalty, and {fail_prestige}.
- **Cancel**: `task cancel` abandons a task: no reward, prestige in its domain drops by
  {d.cancel_prestige_factor:g} x its prestige_delta{cancel_fee}.
- **Salary bumps**: every success raises the monthly salary of every employee assigned to it by {bump}.
  More employees assigned = higher payroll growth. A success also makes its assigned employees more productive in
  the task's domain.
- **Prestige**: per domain, {c.prestige.min:g}-{c.prestige.max:g}, no decay. A task needs prestige of at least
  its required_prestige in its domain; harder tasks pay more.
- **Trust**: per client, 0-{c.trust.max:g}. Completing a task for a client builds trust with it (less work on its
  future tasks, up to {percent(c.trust.max_work_reduction)} less at maximum trust, and access to trust-gated tasks).
  Each success erodes trust with every other client a little, and trust fades slowly over time.
- **Not all clients are reliable.** Check `client history` for failure patterns.
"""
    return re.sub(r"\n  (?=\S)", " ", text)  # one line per bullet
