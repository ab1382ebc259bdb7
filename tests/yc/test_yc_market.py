"""The market (section 3 "Tasks and domains"; Table 2 "Market", "Distributions"; reference-notes "Tasks and market").

reward = Tri($2K, $12K, $5K) x (1 + 0.3 (p - 1)) x client multiplier (x 1.1^... for trust-gated tasks),
work = Tri(400, 1500, 800) x (1 + 0.3 (p - 1)), p = int(Tri(1, 5, 1)), 30 % trust-gated at trust 2-4.
"""

from __future__ import annotations

import statistics

from yc_helpers import make_env, ok

from bizbench.envs.yc.config import YcConfig
from bizbench.envs.yc.world.clients import Client
from bizbench.envs.yc.world.market import draw_tasks
from bizbench.envs.yc.world.tasks import MARKET, Task
from scripted_stream import ScriptedStream


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


_CLIENTS = [Client("A", 2.0, False), Client("B", 0.5, True), Client("C", 1.25, False)]


def _scripted_draw(cfg: YcConfig, p_raw: list[float]) -> tuple[list[Task], ScriptedStream]:
    """Five tasks, numbered from 41, on hand-picked draws (Tri draws in dollars and units)."""
    rng = ScriptedStream(
        integers=[[0, 1, 2, 1, 0], [0, 3, 2, 1, 0], [4, 2, 3, 4, 4]],  # client, domain, required trust if gated
        triangular=[p_raw, [5000.0, 2000.0, 12000.0, 4001.2, 3000.0], [800.0, 1000.0, 400.0, 0.4, 1000.0]],
        random=[[0.30, 0.2999, 0.0, 0.9, 0.1]],  # gated when below 0.30: no, yes, yes, no, yes
        beta=[[0.5, 0.123456, 1.0, 0.0, 0.2]],
        uniform=[[3.5, 3.14159, 4.0, 3.0, 3.99999]],
    )
    return draw_tasks(cfg, _CLIENTS, rng, 5, 41), rng  # type: ignore[arg-type]


def test_a_task_draw_uses_table_2s_distributions_in_a_fixed_order(cfg: YcConfig) -> None:
    """client ~ U{0..5}, domain ~ U{0..3}, p ~ Tri(1, 1, 5), gated ~ U(0,1) < 0.3, trust ~ U{2..4},
    reward ~ Tri(2000, 5000, 12000), work ~ Tri(400, 800, 1500), delta = 0.35 Beta(1.2, 2.8), creep ~ U(3, 4)."""
    _, rng = _scripted_draw(cfg, [1.0, 2.999, 3.0, 0.2, 11.2])
    assert rng.calls == [
        ("integers", 0, 3, 5),  # one of the 3 clients given
        ("integers", 0, 4, 5),
        ("triangular", 1.0, 1.0, 5.0, 5),
        ("random", 5),
        ("integers", 2, 5, 5),
        ("triangular", 2000.0, 5000.0, 12000.0, 5),
        ("triangular", 400.0, 800.0, 1500.0, 5),
        ("beta", 1.2, 2.8, 5),
        ("uniform", 3.0, 4.0, 5),
    ]


def test_a_tasks_reward_work_prestige_and_trust_follow_the_documented_formulas(cfg: YcConfig) -> None:
    tasks, _ = _scripted_draw(cfg, [1.0, 2.999, 3.0, 0.2, 11.2])
    got = [
        (t.num, t.client, t.domain, t.required_prestige, t.required_trust, t.reward_cents, t.base_work)
        + (t.prestige_delta, t.creep, t.status)
        for t in tasks
    ]
    assert got == [
        # p = floor(1.0) = 1; 0.30 is not below the 30 % share: not gated; $5000 x 1 x 2.0 = $10,000;
        # 800 units; 0.35 x 0.5 = 0.175
        (41, 0, "training", 1, 0, 1_000_000, 800, 0.175, 3.5, MARKET),
        # p = floor(2.999) = 2; gated at trust 2; $2000 x 1.3 x 0.5 x (1 + 0.1 x 2) = $1560; 1000 x 1.3 = 1300;
        # 0.35 x 0.123456 = 0.0432096 -> 0.0432; creep 3.14159 -> 3.1416
        (42, 1, "data_engineering", 2, 2, 156_000, 1300, 0.0432, 3.1416, MARKET),
        # p = 3; gated at trust 3; $12000 x 1.6 x 1.25 x 1.3 = $31,200; 400 x 1.6 = 640
        (43, 2, "research", 3, 3, 3_120_000, 640, 0.35, 4.0, MARKET),
        # floor(0.2) = 0 raised to the floor 1; not gated, so the drawn trust 4 is not required;
        # $4001.2 x 0.5 = $2000.6 -> $2001 (whole dollars, rounded); 0.4 units -> at least 1
        (44, 1, "inference", 1, 0, 200_100, 1, 0.0, 3.0, MARKET),
        # floor(11.2) = 11 capped at prestige 10: x (1 + 0.3 x 9) = 3.7; gated at trust 4;
        # $3000 x 3.7 x 2.0 x 1.4 = $31,080; 1000 x 3.7 = 3700; 0.35 x 0.2 = 0.07; 3.99999 -> 4.0
        (45, 0, "training", 10, 4, 3_108_000, 3700, 0.07, 4.0, MARKET),
    ]


def test_the_required_prestige_is_the_draw_truncated_or_rounded_to_the_nearest_integer() -> None:
    """prestige_rounding "floor" (default) truncates Tri(1, 5, 1); "nearest" rounds half up; either is kept within
    [max(1, prestige min), prestige max]."""
    p_raw = [1.49, 1.5, 2.999, 9.5, 0.2]
    floor_cfg = make_env(1).world.config
    assert [t.required_prestige for t in _scripted_draw(floor_cfg, p_raw)[0]] == [1, 1, 2, 9, 1]
    nearest = make_env(1, market__prestige_rounding="nearest").world.config
    assert [t.required_prestige for t in _scripted_draw(nearest, p_raw)[0]] == [1, 2, 3, 10, 1]
    # a prestige floor above 1 raises every lower draw to it; a ceiling of 9 caps the 9.5
    narrow = make_env(1, prestige={"min": 2.0, "max": 9.0, "initial": 2.0}).world.config
    assert [t.required_prestige for t in _scripted_draw(narrow, p_raw)[0]] == [2, 2, 2, 9, 2]


def test_replacements_are_numbered_on_across_batches_of_the_market_size() -> None:
    """A 3-task market: replacements come in batches of 3, numbered 4, 5, 6, then 7, 8, 9 (the second batch starts
    right after the last task listed), then 10."""
    from bizbench.core.rng import stream_for

    w = make_env(8, market__size=3).world
    assert sorted(w.market.tasks) == [1, 2, 3] and w.market.next_num == 4
    rng = stream_for(8, "market_replacement")
    nums = []
    for k in range(7):
        nums.append(w.market.replace(w.config, w.clients, rng).num)
        assert w.market.next_num == nums[-1] + 1
        assert len(w.market.pending) == (2 - k) % 3
    assert nums == [4, 5, 6, 7, 8, 9, 10]
    assert w.market.batches_drawn == 3
    assert sorted(w.market.tasks) == list(range(1, 11))
