"""The ceo arena (envs/ceo/arena.py, docs/arena.md): rival companies selling to one market."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bizbench.core.envs import get_env
from bizbench.runner.arena import play_seats, run_arena
from bizbench.runner.replay import replay_arena

SPEC = get_env("ceo")


def _arena(seats: int, horizon: int, seed: int = 3) -> Any:
    config, digest = SPEC.load_config("default")
    return SPEC.make_arena(SPEC.with_horizon(config, horizon), seed, seats, "default", digest, database=False)


def _play(arena: Any, agents: list[str], seed: int = 3) -> Any:
    policies = [SPEC.baseline(a).make(seed) for a in agents]

    def driver(i: int) -> Callable[[Any], None]:
        def drive(env: Any) -> None:
            while not env.done:
                policies[i].act(env)

        return drive

    play_seats(arena, [driver(i) for i in range(len(agents))], arena.seats)
    return arena


@pytest.mark.parametrize("agent", ["rule-based", "random"])
def test_one_seat_arena_is_the_single_player_world(agent: str) -> None:
    config, digest = SPEC.load_config("default")
    single = SPEC.make(SPEC.with_horizon(config, 45), 3, "default", digest, None, database=False)
    policy = SPEC.baseline(agent).make(3)
    while not single.done:
        policy.act(single)
    (seat,) = _play(_arena(1, 45), [agent]).seats
    assert seat.state_digest() == single.state_digest()
    assert [(a["day"], a["tool"], a["args"]) for a in seat.actions] == [
        (a["day"], a["tool"], a["args"]) for a in single.actions
    ]
    assert seat.result() == single.result()


def test_swapping_two_policies_mirrors_both_companies_and_the_leads_between_them() -> None:
    ab = _play(_arena(2, 49), ["rule-based", "random"])
    ba = _play(_arena(2, 49), ["random", "rule-based"])
    assert [s.state_digest() for s in ab.seats] == [s.state_digest() for s in ba.seats][::-1]
    moved = ab.result()["leads_to_rivals"]
    assert moved[1][0] > 0, "the random company's leads must find the rule-based one's offer for the test to say much"
    assert moved == [row[::-1] for row in ba.result()["leads_to_rivals"][::-1]]


def test_twin_companies_end_equal_and_trade_their_churners_evenly() -> None:
    arena = _play(_arena(2, 70), ["rule-based", "rule-based"])
    twins = arena.seats
    assert twins[0].state_digest() == twins[1].state_digest()
    outcome = arena.result()
    assert outcome["leads_to_rivals"] == [[0, 0], [0, 0]]  # the same offer at both: a lead stays where it was reached
    (_, gone), (back, _) = outcome["churners_to_rivals"]
    assert gone == back > 0


def test_leads_that_choose_a_rival_convert_there_as_its_organic_customers() -> None:
    from bizbench.envs.ceo.world.customers import SOURCE_ORGANIC, SUBSCRIBED
    from bizbench.envs.ceo.world.sampling import sample_customers

    world = _arena(2, 35).seats[1].world
    world.state.day = 12
    world.state.settings.prices[:] = [5.0, 5.0, 5.0]  # an offer most leads take
    world.state.settings.quotas[:] = [1e9, 1e9, 1e9]
    s1 = next(i for i, g in enumerate(world.config.groups) if g.id == "S1")
    cols = sample_customers(np.random.default_rng(5), world.state, world.params, s1, 300, q_shift=0.0, c_drift=0.0)
    cols["source"] = np.zeros(300, dtype=np.int64)  # a channel of the company that reached them
    before = {name: st for name, st in world.streams.get_state().items()}
    subs = world.welcome_leads(s1, cols)
    cust = world.state.customers
    assert 0 < len(subs) <= 300 and cust.n == 300
    assert (cust.status[subs] == SUBSCRIBED).all() and (cust.start_day[subs] == 12).all()
    assert (cust.source[:300] == SOURCE_ORGANIC).all()
    after = world.streams.get_state()
    assert {k: v for k, v in after.items() if k != "arena/leads"} == before and "arena/leads" in after


def test_a_turn_lasts_the_fewest_days_a_seat_asked() -> None:
    arena = _arena(2, 30)

    def week(env: Any) -> None:
        env.next_turn()

    def one_day(env: Any) -> None:
        env.next_turn(1)

    play_seats(arena, [week, one_day], arena.seats)
    assert [env.world.day for env in arena.seats] == [1, 1]
    assert [len(env.last_week) for env in arena.seats] == [1, 1]


def test_an_arena_takes_one_to_four_companies() -> None:
    for bad in (0, 5):
        with pytest.raises(ValueError, match="--seats must be a whole number from 1 to 4"):
            _arena(bad, 7)


def test_a_ceo_arena_run_writes_each_seats_company_db_and_replays(tmp_path: Path) -> None:
    out = tmp_path / "a"
    outcome = run_arena("ceo", ["rule-based", "do-nothing"], seed=2, horizon=21, out=out)
    assert [row["agent"] for row in outcome["standings"]] == ["rule-based", "do-nothing"]
    for i in range(2):
        assert (out / f"seat-{i}" / "company.db").is_file()
    assert all(report.ok for report in replay_arena(out))


def test_the_rivals_tool_shows_each_rivals_public_offer_as_the_week_began() -> None:
    import threading

    arena = _arena(2, 21)
    seen: dict[str, Any] = {}
    repriced = threading.Event()

    def reprice(env: Any) -> None:
        assert env.call("set_prices", A=9.0, B=19.0, C=49.0).ok
        repriced.set()
        env.next_turn()
        seen["after"] = env.call("rivals").data

    def look(env: Any) -> None:
        assert repriced.wait(10), "the rival's new prices come first"
        seen["during"] = env.call("rivals").data
        env.next_turn()

    play_seats(arena, [reprice, look], arena.seats)
    assert seen["during"]["you"] == "company 1"
    (during,) = seen["during"]["rivals"]
    assert during["company"] == "company 0" and during["prices"] == {"A": 0.0, "B": 0.0, "C": 0.0}
    assert arena.seats[1].call("rivals").data["rivals"][0]["prices"] == {"A": 9.0, "B": 19.0, "C": 49.0}
    assert set(during) == {
        "company",
        "prices",
        "model_tiers",
        "usage_quotas",
        "lead_promotion",
        "recent_customer_posts",
    }
    company_0 = arena.seats[0].world
    posts = [p for p in company_0.social_posts if p["kind"] == "customer" and p["day"] > company_0.day - 7]
    shown = arena.seats[1].call("rivals").data["rivals"][0]["recent_customer_posts"]
    assert [p["content"] for p in shown] == [p["content"] for p in posts[-20:][::-1]]


def test_a_rival_that_went_bankrupt_has_left_the_market_and_is_not_listed(tmp_path: Path) -> None:
    config, digest = SPEC.load_config("default")
    files = [tmp_path / "s0", tmp_path / "s1"]
    arena = SPEC.make_arena(SPEC.with_horizon(config, 21), 3, 2, "default", digest, None, files)
    seen: list[list[str]] = []

    def spend(env: Any) -> None:  # $1M a day of development: bankrupt within the first week
        assert env.call("set_prices", A=9.0).ok and env.call("set_daily_spend", development=1e6).ok
        while not env.done:
            env.next_turn()

    def watch(env: Any) -> None:
        while not env.done:
            seen.append([r["company"] for r in env.call("rivals").data["rivals"]])
            env.next_turn()

    play_seats(arena, [spend, watch], arena.seats)
    assert arena.seats[0].world.state.bankrupt
    assert seen == [["company 0"], [], []]
    rows = arena.seats[1].call("query", sql="SELECT DISTINCT day FROM rivals ORDER BY day").data["rows"]
    assert [r["day"] for r in rows] == [0]  # listed as the first week began, never after


def test_a_lone_seat_has_the_single_players_tools() -> None:
    (seat,) = _arena(1, 7).seats
    assert "rivals" not in seat.registry and seat.registry.names() == SPEC.env_class.registry.names()


def test_the_rival_aware_baseline_undercuts_a_cheaper_rival_and_alone_is_the_rule_based_one() -> None:
    config, digest = SPEC.load_config("default")
    alone = {}
    for agent in ("rule-based", "rule-based-rival"):
        env = SPEC.make(SPEC.with_horizon(config, 28), 3, "default", digest, None, database=False)
        policy = SPEC.baseline(agent).make(3)
        while not env.done:
            policy.act(env)
        alone[agent] = env.state_digest()
    assert alone["rule-based"] == alone["rule-based-rival"]
    arena = _play(_arena(2, 28), ["rule-based-rival", "rule-based"], seed=3)
    prices = arena.seats[0].world.state.settings.prices.tolist()
    book = [12.0, 25.0, 55.0]  # the rule-based rival's mid price book (Appendix B)
    assert prices == [round(max(0.6 * b, b * 0.95), 2) for b in book]


def test_a_firm_that_signs_with_one_company_is_lost_to_the_others_it_tendered_at() -> None:
    from bizbench.envs.ceo.world import acquisition
    from bizbench.envs.ceo.world.customers import LEAD, LOST, SUBSCRIBED
    from bizbench.envs.ceo.world.rivals import PERSONA
    from bizbench.envs.ceo.world.sampling import sample_customers

    arena = _arena(3, 30)
    worlds = [env.world for env in arena.seats]
    e1 = next(i for i, g in enumerate(worlds[0].config.groups) if g.id == "E1")
    for w in worlds:  # a product every firm's gate admits: the best model tier, room for any usage
        w.state.day = 5
        w.state.settings.quotas[:] = [1e12, 1e12, 1e12]
        w.state.settings.tiers[:] = len(w.params.tier_quality)
        w.state.bonus_shared += 0.5
    first = worlds[0]
    cols = sample_customers(np.random.default_rng(8), first.state, first.params, e1, 6, q_shift=0.0, c_drift=0.0)
    prefs = acquisition.lead_preferences(first.state, cols, q_shift=0.0, c_drift=0.0)
    admitted = acquisition.admit(first.state, first.params, None, cols, prefs, first.delivered_quality()).leads
    assert len(admitted) >= 2
    for c in admitted:
        first.book.open_thread(int(c), "new_lead", 5, "New enterprise lead.")
    tender = {name: getattr(first.state.customers, name)[admitted] for name in PERSONA}
    tender["origin"] = admitted
    for seat in (1, 2):
        for origin, row in worlds[seat].welcome_tenders(e1, tender):
            arena._tender(0, origin, seat, row)
    signed, waiting = arena.firms[0], arena.firms[1]
    assert set(signed) == {0, 1, 2}
    worlds[2].state.customers.status[signed[2]] = SUBSCRIBED  # the firm signs with company 2
    arena._settle_tenders()
    for seat in (0, 1):
        assert worlds[seat].state.customers.status[signed[seat]] == LOST
        assert signed[seat] not in worlds[seat].book.open_by_customer
        assert worlds[seat].notifications[-1]["message"].endswith("signed with a rival")
    assert worlds[2].state.customers.status[signed[2]] == SUBSCRIBED
    assert arena.firms[0] is waiting and all(worlds[s].state.customers.status[r] == LEAD for s, r in waiting.items())


def test_three_companies_in_any_seating_play_the_same_game() -> None:
    agents = ["rule-based", "random", "rule-based-rival"]
    games = []
    for shift in range(3):
        seated = agents[shift:] + agents[:shift]
        arena = _play(_arena(3, 42), seated)
        games.append({a: env.state_digest() for a, env in zip(seated, arena.seats, strict=True)})
    assert games[0] == games[1] == games[2]


def test_a_seats_company_db_holds_its_rivals_public_offers_and_posts(tmp_path: Path) -> None:
    config, digest = SPEC.load_config("default")
    files = [tmp_path / "s0", tmp_path / "s1"]
    arena = SPEC.make_arena(SPEC.with_horizon(config, 42), 3, 2, "default", digest, None, files)
    arena = _play(arena, ["rule-based", "rule-based-rival"])
    seat = arena.seats[1]
    sql = "SELECT day, company, plan, list_price FROM rivals ORDER BY day, plan"
    rows = [tuple(r.values()) for r in seat.call("query", sql=sql).data["rows"]]
    assert rows[:3] == [(0, "company 0", "A", 0.0), (0, "company 0", "B", 0.0), (0, "company 0", "C", 0.0)]
    assert (7, "company 0", "B", 25.0) in rows  # the mid price book, set in its first week
    posts = seat.call("query", sql="SELECT COUNT(*) AS n FROM rival_posts").data["rows"][0]["n"]
    rival = arena.seats[0].world
    assert posts == sum(p["kind"] == "customer" for p in rival.social_posts) > 0
    tables = [t["table"] for t in seat.call("describe_tables").data["tables"]]
    assert tables[-2:] == ["rivals", "rival_posts"] and len(tables) == 21
    alone = SPEC.make(SPEC.with_horizon(config, 7), 3, "default", digest, None, files=tmp_path / "alone")
    refused = alone.call("query", sql="SELECT * FROM rivals")
    assert not refused.ok and "rivals" in str(refused.error)
    assert len(alone.call("describe_tables").data["tables"]) == 19


def test_a_served_seats_sdk_has_the_rivals_tool(tmp_path: Path) -> None:
    from bizbench.core.seat import seat_of

    seat = _arena(2, 7).seats[0]
    seat_of(SPEC).write_workspace(tmp_path, seat.config, seat.registry)
    sdk = "\n".join(p.read_text() for p in tmp_path.rglob("*.py"))
    assert "def rivals(" in sdk and "def next_week(" in sdk


def test_a_seat_with_rivals_is_told_the_arenas_rules_and_a_lone_seat_is_not() -> None:
    config, digest = SPEC.load_config("default")
    alone = SPEC.make(SPEC.with_horizon(config, 7), 3, "default", digest, None, database=False)
    (lone,) = _arena(1, 7).seats
    assert lone.system_prompt("react-json") == alone.system_prompt("react-json")
    prompt = _arena(2, 7).seats[0].system_prompt("react-json")
    assert prompt.startswith(alone.system_prompt("react-json")) and "RIVALS. You are one of 2 companies" in prompt
    assert "`rivals` tool" in prompt
