"""The task marketplace: 200 tasks at the start, each accepted task replaced by a new draw.

Paper section 3 "Tasks and domains"; Table 2 "Market" and "Distributions"; reference-notes "Tasks and
market". For a task with required prestige p (an integer from Tri(1, 5, 1)) and client c:

* reward  = Tri($2K, $12K, $5K) x (1 + 0.30 (p - 1)) x multiplier(c)
            [x (1 + bonus x required trust) for a trust-gated task, CHOSEN], whole dollars;
* work    = Tri(400, 1500, 800) x (1 + 0.3 (p - 1)) units in the task's one domain;
* 30 % of tasks are trust-gated and require trust 2-4 with their client;
* prestige delta = 0.35 x Beta(1.2, 2.8);
* scope-creep factor ~ U(3, 4), drawn for every task and used only if the client is
  adversarial (so the stream does not depend on which clients are).

The initial pool comes from stream ``market`` and replacements from stream
``market_replacement`` in fixed batches, so the k-th replacement is the same task whenever
it is drawn (docs/principles.md principle 4). The market is kept sorted by (reward desc, task number),
the order ``market browse`` shows.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from bizbench.envs.yc.config import YcConfig
from bizbench.envs.yc.world.clients import Client
from bizbench.envs.yc.world.tasks import Task

__all__ = ["Market", "draw_tasks"]


def draw_tasks(cfg: YcConfig, clients: list[Client], rng: np.random.Generator, n: int, first_num: int) -> list[Task]:
    """``n`` new tasks numbered from ``first_num``; a fixed sequence of vectorised draws."""
    m = cfg.market
    client = rng.integers(0, len(clients), n)
    domain = rng.integers(0, len(cfg.domains), n)
    p_raw = rng.triangular(m.required_prestige.low, m.required_prestige.mode, m.required_prestige.high, n)
    gated = rng.random(n) < m.gated_share
    trust_req = rng.integers(m.gated_trust_min, m.gated_trust_max + 1, n)
    reward = rng.triangular(m.reward_dollars.low, m.reward_dollars.mode, m.reward_dollars.high, n)
    work = rng.triangular(m.work.low, m.work.mode, m.work.high, n)
    delta = m.prestige_delta_scale * rng.beta(m.prestige_delta_beta[0], m.prestige_delta_beta[1], n)
    creep = rng.uniform(cfg.clients.scope_creep_min, cfg.clients.scope_creep_max, n)
    if m.prestige_rounding == "nearest":
        prestige = np.floor(p_raw + 0.5)
    else:
        prestige = np.floor(p_raw)
    prestige = np.clip(prestige, max(1.0, cfg.prestige.min), cfg.prestige.max).astype(np.int64)
    out = []
    for i in range(n):
        p = int(prestige[i])
        c = int(client[i])
        req_trust = int(trust_req[i]) if bool(gated[i]) else 0
        dollars = float(reward[i]) * (1.0 + m.reward_prestige_scale * (p - 1)) * clients[c].multiplier
        dollars *= 1.0 + m.gated_reward_bonus_per_trust * req_trust
        units = float(work[i]) * (1.0 + m.work_prestige_scale * (p - 1))
        out.append(
            Task(
                num=first_num + i,
                client=c,
                domain=cfg.domains[int(domain[i])],
                required_prestige=p,
                required_trust=req_trust,
                reward_cents=int(round(dollars)) * 100,
                base_work=max(1, int(round(units))),
                prestige_delta=round(float(delta[i]), 4),
                creep=round(float(creep[i]), 4),
            )
        )
    return out


@dataclass
class Market:
    """Open market tasks plus the replacement pipeline."""

    tasks: dict[int, Task] = field(default_factory=dict)  # in the market, by number
    order: list[tuple[int, int]] = field(default_factory=list)  # sorted (-reward_cents, num)
    next_num: int = 1
    pending: list[Task] = field(default_factory=list)  # drawn replacements not yet listed
    batches_drawn: int = 0

    def add(self, task: Task) -> None:
        self.tasks[task.num] = task
        bisect.insort(self.order, (-task.reward_cents, task.num))

    def remove(self, num: int) -> Task:
        task = self.tasks.pop(num)
        key = (-task.reward_cents, num)
        i = bisect.bisect_left(self.order, key)
        del self.order[i]
        return task

    def copy(self) -> Market:
        """A market of its own sharing the task objects: a rival company's view of the shared
        market (docs/arena.md), which copies a task before accepting it."""
        return Market(dict(self.tasks), list(self.order), self.next_num, list(self.pending), self.batches_drawn)

    def ordered(self) -> list[Task]:
        return [self.tasks[num] for _, num in self.order]

    @classmethod
    def initial(cls, cfg: YcConfig, clients: list[Client], rng: np.random.Generator) -> Market:
        market = cls()
        for task in draw_tasks(cfg, clients, rng, cfg.market.size, 1):
            market.add(task)
        market.next_num = cfg.market.size + 1
        return market

    def replace(self, cfg: YcConfig, clients: list[Client], rng: np.random.Generator) -> Task:
        """List the next replacement task (drawn in batches of the market size)."""
        if not self.pending:
            self.pending = draw_tasks(cfg, clients, rng, cfg.market.size, self.next_num)
            self.batches_drawn += 1
        task = self.pending.pop(0)
        self.next_num = task.num + 1
        self.add(task)
        return task
