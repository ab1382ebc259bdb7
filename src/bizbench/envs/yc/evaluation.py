"""Post-run evaluation facts of a yc world, for result.json and reports (never for the agent).

YC-Bench section 4.2 and Figures 3-5 analyse runs with hidden facts: which clients are
adversarial (Fig 4a: adversarial tasks among all accepted, against their ~32 % market
share), the final trust per client (Fig 3b) and why each failed task failed (Fig 5a:
adversarial clients, understaffing, poorly matched or overloaded employees). The world
knows these; :func:`evaluation` writes them into result.json once the run is over, where
``bizbench report`` reads them. result.json is written after the episode and is not in the
agent's workspace, so the agent never sees them (docs/principles.md principle 3).

Failure causes, checked in this order for each failed task (the first that applies):

* ``adversarial`` - its client is adversarial (scope creep inflated the work, section 3);
* ``not_dispatched`` - it was never dispatched, so no work was done;
* ``split_effort`` - its final team, working on it alone (no rate / N split with other
  active tasks), would have done the work between dispatch and the deadline: the effort was
  spread over too many tasks (section 4.2);
* ``poor_match`` - the same number of employees, chosen as the fastest in the task's domain,
  would have done it: the team was poorly matched to the domain;
* ``understaffed`` - all employees together would have done it (Sonnet's "would succeed
  with all 8 employees assigned", section 5);
* ``too_late`` - not even all employees from the dispatch on could have: it was dispatched
  too late for its deadline.

Counterfactuals use the employees' rates at the end of the run (successes only ever raise a
rate), so a cause in the middle of the list is a slight over-estimate of what the team could
have done at the time.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from bizbench.envs.yc.world.tasks import FAILED, Task, throughputs
from bizbench.envs.yc.world.world import YcWorld

__all__ = ["FAILURE_CAUSES", "evaluation", "failure_cause"]

FAILURE_CAUSES = ("adversarial", "not_dispatched", "split_effort", "poor_match", "understaffed", "too_late")


def _work_done_alone(w: YcWorld, task: Task, team: list[str], hours: float) -> float:
    """Units the ``team`` would do on ``task`` alone in ``hours`` business hours."""
    probe = dataclasses.replace(task, assigned=list(team))
    rate = throughputs([probe], w.emp_by_id, w.config.throughput.max_contributors)[task.num]
    return rate * hours


def failure_cause(w: YcWorld, task: Task) -> str:
    """Why a failed task failed (one of :data:`FAILURE_CAUSES`; see the module docstring)."""
    if w.clients[task.client].adversarial:
        return "adversarial"
    if task.dispatched_at < 0 or not task.assigned:
        return "not_dispatched"
    hours = w.cal.business_minutes_between(task.dispatched_at, task.deadline) / 60.0
    need = task.true_work - 1e-9
    if _work_done_alone(w, task, task.assigned, hours) >= need:
        return "split_effort"
    fastest = sorted(w.employees, key=lambda e: -e.rates[task.domain])[: len(task.assigned)]
    if _work_done_alone(w, task, [e.id for e in fastest], hours) >= need:
        return "poor_match"
    if _work_done_alone(w, task, [e.id for e in w.employees], hours) >= need:
        return "understaffed"
    return "too_late"


def evaluation(w: YcWorld, reveal_clients: bool = True) -> dict[str, Any]:
    """Hidden facts of the finished run: adversarial clients, accepted tasks from them, failure
    causes and the final trust and task counts of every client.

    ``reveal_clients=False`` (held-out worlds) keeps only the counts: which clients are
    adversarial stays secret, since the same held-out world serves later evaluations."""
    accepted = {i: 0 for i in range(len(w.clients))}
    for t in w.tasks.values():
        accepted[t.client] += 1
    causes = dict.fromkeys(FAILURE_CAUSES, 0)
    for t in w.tasks.values():
        if t.status == FAILED:
            causes[failure_cause(w, t)] += 1
    facts: dict[str, Any] = {
        "adversarial_clients": [c.name for c in w.clients if c.adversarial],
        "tasks_accepted_adversarial": sum(n for i, n in accepted.items() if w.clients[i].adversarial),
        "failure_causes": causes,
        "clients": [
            {
                "name": c.name,
                "adversarial": c.adversarial,
                "trust": round(c.trust(w.now, w.config.trust), 4),
                "accepted": accepted[i],
                "succeeded": c.succeeded,
                "failed": c.failed,
                "cancelled": c.cancelled,
            }
            for i, c in enumerate(w.clients)
        ],
    }
    if not reveal_clients:
        del facts["adversarial_clients"]
        for client in facts["clients"]:
            del client["adversarial"]
    return facts
