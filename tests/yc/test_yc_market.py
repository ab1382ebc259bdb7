"""The market (section 3 "Tasks and domains"; Table 2 "Market", "Distributions"; reference-notes "Tasks and market").

reward = Tri($2K, $12K, $5K) x (1 + 0.3 (p - 1)) x client multiplier (x 1.1^... for trust-gated tasks),
work = Tri(400, 1500, 800) x (1 + 0.3 (p - 1)), p = int(Tri(1, 5, 1)), 30 % trust-gated at trust 2-4.
"""

from __future__ import annotations

import statistics

from yc_helpers import make_env, ok

from bizbench.envs.yc.world.clients import Client
from bizbench.envs.yc.world.tasks import MARKET, Task


def _all_tasks(seeds: range) -> list[tuple[Task, Client]]:
    out = []
    for seed in seeds:
        w = make_env(seed).world
        out += [(t, w.clients[t.client]) for t in w.market.tasks.values()]
    return out


def test_initial_pool_and_distribution_bounds() -> None:
    w = make_env(3).world
    assert sorted(w.market.tasks) == list(range(1, 201))
    tasks = _all_tasks(range(10))
    base_work = []
    base_reward = []
    for t, c in tasks:
        p = t.required_prestige
        assert p in (1, 2, 3, 4)  # floor of Tri(1, 5, 1)
        scale = 1 + 0.3 * (p - 1)
        trust = t.required_trust
        assert trust in (0, 2, 3, 4)
        bonus = 1 + 0.1 * trust
        dollars = t.reward_cents / 100
        assert t.reward_cents % 100 == 0
        mult = c.multiplier
        assert 2000 * scale * mult * bonus - 0.5 <= dollars <= 12000 * scale * mult * bonus + 0.5
        assert 400 * scale - 0.5 <= t.base_work <= 1500 * scale + 0.5
        assert 0 <= t.prestige_delta <= 0.35
        assert 3.0 <= t.creep <= 4.0
        assert t.status == MARKET
        base_work.append(t.base_work / scale)
        base_reward.append(dollars / (scale * mult * bonus))
    n = len(tasks)
    assert n == 2000
    # Tri means: work (400 + 800 + 1500) / 3 = 900, reward (2000 + 5000 + 12000) / 3 = 6333
    assert abs(statistics.mean(base_work) - 900) < 20
    assert abs(statistics.mean(base_reward) - 6333) < 150
    gated = sum(t.required_trust > 0 for t, _ in tasks) / n
    assert 0.26 < gated < 0.34
    p1 = sum(t.required_prestige == 1 for t, _ in tasks) / n
    assert abs(p1 - (1 - 0.75**2)) < 0.04  # P(Tri(1,5,1) < 2) = 1 - (3/4)^2 = 0.4375


def test_seed_changes_the_market() -> None:
    a = [(t.reward_cents, t.domain) for t in make_env(1).world.market.ordered()]
    b = [(t.reward_cents, t.domain) for t in make_env(2).world.market.ordered()]
    assert a != b


def _fields(t: Task) -> tuple:
    return tuple(getattr(t, k) for k in ("num", "client", "domain", "required_prestige", "reward_cents", "base_work"))


def test_replacements_do_not_depend_on_timing_or_choice() -> None:
    """The k-th replacement is the same task whichever task was accepted and whenever (own stream)."""
    e1, e2 = make_env(4), make_env(4)
    ids = [t["task_id"] for t in ok(e1.call("market_browse", limit=5))["tasks"]]
    ok(e1.call("task_accept", task_id=ids[0]))
    ok(e2.call("sim_resume"))  # time passes first (a payroll)
    ok(e2.call("task_accept", task_id=ids[3]))  # and another task is taken
    new1 = set(e1.world.market.tasks) - set(range(1, 201))
    new2 = set(e2.world.market.tasks) - set(range(1, 201))
    assert new1 == new2 == {201}
    assert _fields(e1.world.market.tasks[201]) == _fields(e2.world.market.tasks[201])
    assert len(e1.world.market.tasks) == 200


def test_browse_lists_only_acceptable_tasks_sorted_and_paged() -> None:
    env = make_env(5)
    w = env.world
    full = ok(env.call("market_browse", limit=50))
    acceptable = [t for t in w.market.ordered() if w.acceptable(t)]
    assert full["total"] == len(acceptable)
    assert all(t["required_prestige"] <= 1 and t["required_trust"] == 0 for t in full["tasks"])
    rewards = [t["reward_cents"] for t in full["tasks"]]
    assert rewards == sorted(rewards, reverse=True)
    page = ok(env.call("market_browse", limit=5, offset=5))
    assert [t["task_id"] for t in page["tasks"]] == [t["task_id"] for t in full["tasks"][5:10]]
    dom = ok(env.call("market_browse", domain="research"))
    assert dom["tasks"] and all(t["domain"] == "research" for t in dom["tasks"])
    floor = rewards[3]
    rich = ok(env.call("market_browse", reward_min_cents=floor))
    assert rich["total"] == sum(r >= floor for r in rewards)
    for t in full["tasks"]:
        assert set(t) == {
            "task_id", "client_name", "domain", "reward_cents", "requirements", "required_prestige",
            "required_trust", "prestige_delta", "deadline_business_days",
        }  # fmt: skip
        assert list(t["requirements"]) == [t["domain"]]
    # raising prestige unlocks more tasks
    w.prestige["training"] = 4.0
    assert ok(env.call("market_browse"))["total"] > full["total"]


def test_any_number_of_tasks_may_be_accepted() -> None:
    env = make_env(6)
    ids = [t["task_id"] for t in ok(env.call("market_browse", limit=12))["tasks"]]
    for tid in ids:
        ok(env.call("task_accept", task_id=tid))
    assert len(ok(env.call("task_list", status="accepted"))["tasks"]) == 12
    assert len(env.world.market.tasks) == 200


def test_an_accepted_task_is_replaced_by_the_first_draw_of_the_seeds_market_replacement_stream() -> None:
    """docs: replacements come from stream ``market_replacement`` in batches of the market size, numbered on
    from 201; the first one listed is the first task of that batch."""
    from bizbench.core.rng import stream_for
    from bizbench.envs.yc.world.market import draw_tasks

    env = make_env(7)
    w = env.world
    expected = draw_tasks(w.config, w.clients, stream_for(7, "market_replacement"), 200, 201)[0]
    ok(env.call("task_accept", task_id=ok(env.call("market_browse", limit=1))["tasks"][0]["task_id"]))
    assert _fields(w.market.tasks[201]) == _fields(expected)
    assert (w.market.tasks[201].required_trust, w.market.tasks[201].creep) == (expected.required_trust, expected.creep)
