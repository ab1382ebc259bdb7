"""The YC-Bench commands, defined once (paper Appendix A, Table 1; docs/principles.md principle 1).

Each command of Table 1 (and the prompt's ``scratchpad read``) is a typed function of the
:class:`~bizbench.envs.yc.env.YcEnv` it acts on. Names join the command's words with
underscores: ``market browse`` is ``market_browse``, ``task assign --task-id T --employees
E1,E2`` is ``task_assign(task_id="T", employees=["E1", "E2"])`` (``bizbench.core.cmdline``
maps one to the other). Every result is a JSON-able dict; a bad call raises a ToolError
naming the argument and the allowed values, and changes nothing (principle 8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from bizbench.core.registry import ConfiguredTools, ToolError
from bizbench.envs.yc import views
from bizbench.envs.yc.config import YcConfig, load_config

if TYPE_CHECKING:
    from bizbench.envs.yc.env import YcEnv

__all__ = ["TOOLS", "figures", "percent", "registry", "registry_for"]


def percent(share: float) -> str:
    """A share as the tool descriptions and the prompt state it: 0.35 -> "35 %", 0.125 -> "12.5 %"."""
    return f"{share * 100:g} %"


def figures(config: YcConfig) -> dict[str, str]:
    """The config's values the tool descriptions state, as they read there. They are the values the
    world enforces (``YcWorld.write_scratchpad``, ``cancel``, the deadline check), so a description
    and its check cannot disagree (docs/principles.md principles 1 and 5)."""
    d = config.deadlines
    cap = config.throughput.max_contributors
    return {
        "scratchpad_max_chars": f"{config.scratchpad_max_chars:,}",
        "fail_penalty": percent(d.fail_penalty_share),
        "cancel_fee": f"{percent(d.cancel_fee_share)} of its advertised reward is charged"
        if d.cancel_fee_share > 0
        else "no fee",
        "cancel_prestige": f"{d.cancel_prestige_factor:g}",
        "contributor_rule": f" Only the {cap} largest such contributions on a task count." if cap else "",
        "browse_limit": f"{config.market.browse_limit}",
    }


TOOLS = ConfiguredTools(figures)  # each command, declared once; its text and bounds from a config
registry_for = TOOLS.registry_for  # the yc tools for one config (``YcEnv.registry_for``)


def _notes(config: YcConfig) -> Any:
    """The scratchpad's ``content``: at most the config's ``scratchpad_max_chars``."""
    return Annotated[str, Field(max_length=config.scratchpad_max_chars)]


Domain = Literal["training", "inference", "research", "data_engineering"]
Status = Literal["accepted", "active", "succeeded", "failed", "cancelled"]
TaskId = Annotated[str, Field(min_length=1, max_length=64)]
EmployeeIds = Annotated[list[Annotated[str, Field(min_length=1, max_length=64)]], Field(min_length=1, max_length=64)]


# ---------------------------------------------------------------------------- observe
@TOOLS.tool(category="observe", mutates=False)
def company_status(env: YcEnv) -> dict[str, Any]:
    """Funds, prestige per domain, monthly payroll, runway and the current simulated time."""
    return views.company_status(env.world)


@TOOLS.tool(category="observe", mutates=False)
def employee_list(env: YcEnv) -> dict[str, Any]:
    """Employees with tier, monthly salary and skill rate (work units per business hour) in each domain.

    A task's throughput is the sum of its assigned employees' rates in its domain, each
    divided by the number of active tasks that employee is assigned to.{contributor_rule}
    """
    return views.employee_list(env.world)


def _browse_limit(config: YcConfig) -> Any:
    """``market browse``'s ``limit``: at most the preset's browse limit (Table 2: 50), or unset (the limit)."""
    return Annotated[int, Field(ge=1, le=config.market.browse_limit)] | None


@TOOLS.tool(category="observe", mutates=False, bounded={"limit": _browse_limit})
def market_browse(
    env: YcEnv,
    domain: Domain | None = None,
    reward_min_cents: Annotated[int, Field(ge=0)] | None = None,
    limit: int | None = None,
    offset: Annotated[int, Field(ge=0)] = 0,
) -> dict[str, Any]:
    """Market tasks you may accept now (prestige and trust requirements met), highest reward first.

    Each entry has task_id, client_name, domain, reward_cents, requirements (work units per
    domain), required_prestige, required_trust, prestige_delta and deadline_business_days
    (the deadline starts when you accept). ``total`` counts every matching task.

    Args:
        domain: Only tasks of this domain.
        reward_min_cents: Only tasks paying at least this many cents.
        limit: Entries to return (1-{browse_limit}; default {browse_limit}).
        offset: Entries to skip (for paging past the first {browse_limit}).
    """
    if domain is not None and domain not in env.config.domains:
        raise ToolError(f"argument 'domain': expected one of {list(env.config.domains)}, got {domain!r}")
    shown = env.config.market.browse_limit if limit is None else limit
    return views.browse(env.world, domain, reward_min_cents, shown, offset)


@TOOLS.tool(category="observe", mutates=False)
def task_list(env: YcEnv, status: Status | None = None) -> dict[str, Any]:
    """Your accepted tasks (any status unless filtered) with status, progress and deadline.

    Args:
        status: Only tasks with this status: accepted (not dispatched), active, succeeded, failed or cancelled.
    """
    w = env.world
    tasks = [t for _, t in sorted(w.tasks.items()) if status is None or t.status == status]
    return {"time": w.cal.iso(w.now), "tasks": [views.task_summary(w, t) for t in tasks]}


@TOOLS.tool(category="observe", mutates=False)
def task_inspect(env: YcEnv, task_id: TaskId) -> dict[str, Any]:
    """Details of one task: per-domain requirement and progress, deadline, assigned employees, throughput.

    Args:
        task_id: A task id such as 'Task-42' (yours or in the market).
    """
    return views.task_detail(env.world, env.world.lookup(task_id))


@TOOLS.tool(category="observe", mutates=False)
def client_list(env: YcEnv) -> dict[str, Any]:
    """Clients with your current trust level (0-5) and their tier."""
    return views.client_list(env.world)


@TOOLS.tool(category="observe", mutates=False)
def client_history(env: YcEnv) -> dict[str, Any]:
    """Per-client counts of succeeded, failed, cancelled and open tasks, with the success rate."""
    return views.client_history(env.world)


@TOOLS.tool(category="observe", mutates=False)
def finance_ledger(env: YcEnv) -> dict[str, Any]:
    """Every transaction so far (rewards, penalties, payroll) with the running balance."""
    return views.finance_ledger(env.world)


# ---------------------------------------------------------------------------- task
@TOOLS.tool(category="task")
def task_accept(env: YcEnv, task_id: TaskId) -> dict[str, Any]:
    """Accept a market task; its deadline starts now. Any number of tasks may be accepted.

    An accepted task that is not completed by its deadline fails, dispatched or not: {fail_penalty}
    of its advertised reward is charged and prestige drops.

    Args:
        task_id: A task id from 'market browse', e.g. 'Task-42'.
    """
    w = env.world
    task = w.accept(task_id)
    return views.task_summary(w, task)


@TOOLS.tool(category="task")
def task_assign(env: YcEnv, task_id: TaskId, employees: EmployeeIds) -> dict[str, Any]:
    """Set the employees working on an accepted or active task (replaces the previous assignment).

    Args:
        task_id: One of your accepted or active tasks, e.g. 'Task-42'.
        employees: Employee ids, e.g. ['Emp_1', 'Emp_4'] (on the command line: Emp_1,Emp_4).
    """
    w = env.world
    task = w.assign(task_id, list(employees))
    out: dict[str, Any] = {"task_id": task.id, "status": task.status, "assigned": list(task.assigned)}
    if task.num in w.rates:
        out["throughput_per_hour"] = round(w.rates[task.num], 4)
    return out


@TOOLS.tool(category="task")
def task_dispatch(env: YcEnv, task_id: TaskId) -> dict[str, Any]:
    """Start work on an accepted task that has employees assigned.

    Args:
        task_id: One of your accepted tasks, e.g. 'Task-42'.
    """
    w = env.world
    task = w.dispatch(task_id)
    return {
        "task_id": task.id,
        "status": task.status,
        "assigned": list(task.assigned),
        "throughput_per_hour": round(w.rates.get(task.num, 0.0), 4),
        "deadline": w.cal.iso(task.deadline),
    }


@TOOLS.tool(category="task")
def task_cancel(env: YcEnv, task_id: TaskId, reason: Annotated[str, Field(max_length=2000)]) -> dict[str, Any]:
    """Abandon an accepted or active task: no reward, {cancel_fee}, and prestige in its domain drops
    ({cancel_prestige} x its prestige_delta).

    Args:
        task_id: One of your accepted or active tasks, e.g. 'Task-42'.
        reason: Why you cancel (kept in the task's record).
    """
    w = env.world
    record = w.cancel(task_id, reason)
    return {**record, "funds_cents": w.funds_cents, "prestige": round(w.prestige[w.lookup(task_id).domain], 3)}


# ---------------------------------------------------------------------------- sim
@TOOLS.tool(category="sim")
def sim_resume(env: YcEnv) -> dict[str, Any]:
    """Advance the clock to the next event and process it: a task checkpoint (25/50/75/100 %), a deadline,
    the monthly payroll or the end of the simulation. Time always moves forward, active tasks or not."""
    w = env.world
    before = w.now
    events = w.resume()
    return {
        "previous_time": w.cal.iso(before),
        "time": w.cal.iso(w.now),
        "events": events,
        "funds_cents": w.funds_cents,
        "done": w.done,
        "bankrupt": w.bankrupt,
    }


# ---------------------------------------------------------------------------- memory
@TOOLS.tool(category="memory", mutates=False)
def scratchpad_read(env: YcEnv) -> dict[str, Any]:
    """Your persistent notes (also shown in your instructions every turn; at most {scratchpad_max_chars} characters)."""
    return {"content": env.world.scratchpad, "chars": len(env.world.scratchpad)}


@TOOLS.tool(category="memory", bounded={"content": _notes})
def scratchpad_write(env: YcEnv, content: str) -> dict[str, Any]:
    """Overwrite your persistent notes (at most {scratchpad_max_chars} characters in all).

    Args:
        content: The new notes (replaces everything).
    """
    text = env.world.write_scratchpad(content)
    return {"chars": len(text), "limit": env.config.scratchpad_max_chars}


@TOOLS.tool(category="memory", bounded={"content": _notes})
def scratchpad_append(env: YcEnv, content: str) -> dict[str, Any]:
    """Append to your persistent notes (add a newline yourself; at most {scratchpad_max_chars} characters in all).

    Args:
        content: Text to add at the end.
    """
    text = env.world.write_scratchpad(content, append=True)
    return {"chars": len(text), "limit": env.config.scratchpad_max_chars}


registry = registry_for(load_config("default")[0])  # the default preset's (`bizbench tools yc`, docs/yc-tools.md)
