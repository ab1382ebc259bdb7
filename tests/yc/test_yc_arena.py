"""The yc arena (envs/yc/arena.py, docs/arena.md): rival startups sharing one contract market."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bizbench.core.arena import ArenaAborted
from bizbench.core.envs import get_env
from bizbench.envs.yc.arena import YcArena
from bizbench.runner.arena import play_seats, run_arena
from bizbench.runner.episode import open_session, run_baseline

SPEC = get_env("yc")
#: result.json fields of whoever drove the run, or of where it sat, not of the world
_DRIVER = {"wall_seconds", "provenance", "arena_seat"}


def _arena(seats: int, seed: int = 5, horizon: int = 2) -> Any:
    config, digest = SPEC.load_config("default")
    return SPEC.make_arena(SPEC.with_horizon(config, horizon), seed, seats, "default", digest)


def _one_turn(*steps: Callable[[Any], None]) -> list[Callable[[Any], None]]:
    """Drivers that each make their seat's moves, then end the turn once."""

    def driver(step: Callable[[Any], None]) -> Callable[[Any], None]:
        def drive(env: Any) -> None:
            step(env)
            assert env.call("sim_resume").ok

        return drive

    return [driver(step) for step in steps]


def _play_turn(arena: Any, *steps: Callable[[Any], None]) -> None:
    play_seats(arena, _one_turn(*steps), arena.seats)


def _top_task(env: Any) -> str:
    tasks = env.call("market_browse").data["tasks"]
    return str(max(tasks, key=lambda t: t["reward_cents"])["task_id"])


def _take(task_id: str) -> Callable[[Any], None]:
    def step(env: Any) -> None:
        staff = [e["employee_id"] for e in env.call("employee_list").data["employees"]]
        assert env.call("task_accept", task_id=task_id).ok
        assert env.call("task_assign", task_id=task_id, employees=staff).ok
        assert env.call("task_dispatch", task_id=task_id).ok

    return step


def _nothing(env: Any) -> None:
    return None


@pytest.mark.parametrize(("agent", "seed"), [("greedy", 1), ("heuristic", 2), ("random", 3), ("heuristic", 7)])
def test_one_seat_arena_gives_the_single_player_result_digest_and_actions(agent: str, seed: int) -> None:
    single = open_session("yc", seed, horizon=4, agent=agent)
    policy = SPEC.baseline(agent).make(seed)
    while not single.done:
        policy.act(single)
    arena = _arena(1, seed, horizon=4)
    seat_policy = SPEC.baseline(agent).make(seed)

    def drive(env: Any) -> None:
        while not env.done:
            seat_policy.act(env)

    play_seats(arena, [drive], arena.seats)
    seat = arena.seats[0]
    assert seat.state_digest() == single.env.state_digest()
    assert [(a["time"], a["tool"], a["args"], a["ok"]) for a in seat.actions] == [
        (a["time"], a["tool"], a["args"], a["ok"]) for a in single.env.actions
    ]
    mine, theirs = seat.result(), single.env.result()
    assert {k: v for k, v in mine.items() if k not in _DRIVER} == {k: v for k, v in theirs.items() if k not in _DRIVER}


def test_run_arena_with_one_seat_matches_run_baseline() -> None:
    single = run_baseline("yc", "heuristic", seed=4, horizon=3)
    arena = run_arena("yc", ["heuristic"], seed=4, horizon=3)
    (row,) = arena["standings"]
    assert row["score"] == single["score"] and row["final_cash"] == single["final_cash"] and row["rank"] == 1
    assert arena["contests"] == 0


def test_swapping_two_policies_between_seats_mirrors_every_outcome() -> None:
    ab = run_arena("yc", ["greedy", "heuristic"], seed=4, horizon=12)
    ba = run_arena("yc", ["heuristic", "greedy"], seed=4, horizon=12)
    assert ab["contests"] > 0, "the two policies must meet for the test to say anything"
    flipped = [{**row, "seat": 1 - row["seat"]} for row in reversed(ba["standings"])]
    assert ab["standings"] == flipped
    assert ab["seat_contests"] == list(reversed(ba["seat_contests"]))
    mirrored = [
        {**c, "seats": sorted(1 - s for s in c["seats"]), "winner": None if c["winner"] is None else 1 - c["winner"]}
        for c in ba["contest_log"]
    ]
    assert ab["contest_log"] == mirrored


def test_the_same_arena_twice_gives_the_same_worlds() -> None:
    agents = ["greedy", "heuristic", "random"]
    first, second = _arena(3, seed=9), _arena(3, seed=9)
    for arena in (first, second):
        policies = [SPEC.baseline(a).make(9) for a in agents]

        def driver(i: int, policies: list[Any] = policies) -> Callable[[Any], None]:
            def drive(env: Any) -> None:
                while not env.done:
                    policies[i].act(env)

            return drive

        play_seats(arena, [driver(i) for i in range(3)], arena.seats)
    assert [s.state_digest() for s in first.seats] == [s.state_digest() for s in second.seats]
    assert first.contests == second.contests


def test_a_seat_does_not_see_a_rivals_accept_until_the_turn_is_settled() -> None:
    import threading

    arena = _arena(2)
    target = _top_task(arena.seats[0])
    taken = threading.Event()
    seen: list[list[str]] = []

    def take(env: Any) -> None:
        _take(target)(env)
        taken.set()

    def look(env: Any) -> None:
        assert taken.wait(10), "the rival's accept comes first"
        seen.append([t["task_id"] for t in env.call("market_browse").data["tasks"]])

    _play_turn(arena, take, look)
    assert target in seen[0]
    assert target not in [t["task_id"] for t in arena.seats[1].call("market_browse").data["tasks"]]
    assert target in {t["task_id"] for t in arena.seats[0].call("task_list").data["tasks"]}


def test_equal_bids_for_one_task_go_to_neither_seat_and_free_their_staff() -> None:
    arena = _arena(2)
    target = _top_task(arena.seats[0])
    _play_turn(arena, _take(target), _take(target))
    for env in arena.seats:
        assert env.call("task_list").data["tasks"] == []
        assert env.world.open == {} and env.world.rates == {}
        lost = [e for e in env.world.log if e["type"] == "task_lost"]
        assert [e["task_id"] for e in lost] == [target]
        assert "none of you" in lost[0]["reason"]
        assert target not in [t["task_id"] for t in env.call("market_browse").data["tasks"]]
    assert arena.contests == [{"turn": 1, "task_id": target, "seats": [0, 1], "winner": None}]


def test_the_seat_with_more_prestige_in_the_domain_wins_a_contested_task() -> None:
    arena = _arena(3)
    target = _top_task(arena.seats[0])
    domain = arena.seats[0].world.lookup(target).domain
    arena.seats[2].world.prestige[domain] += 0.5
    _play_turn(arena, _take(target), _nothing, _take(target))
    loser, _, winner = arena.seats
    assert loser.call("task_list").data["tasks"] == []
    assert [t["task_id"] for t in winner.call("task_list").data["tasks"]] == [target]
    (lost,) = [e for e in loser.world.log if e["type"] == "task_lost"]
    assert lost["reason"] == f"awarded to a rival with more prestige in {domain}"
    assert arena.contests[0]["winner"] == 2


def test_the_market_keeps_its_size_and_lists_each_replacement_once() -> None:
    arena = _arena(2)
    size = len(arena.market.tasks)
    tasks = arena.seats[0].call("market_browse").data["tasks"]
    first, second = tasks[0]["task_id"], tasks[1]["task_id"]
    _play_turn(arena, _take(first), _take(second))
    views = [set(env.world.market.tasks) for env in arena.seats]
    assert views[0] == views[1] == set(arena.market.tasks)
    assert len(views[0]) == size
    assert {int(first.split("-")[1]), int(second.split("-")[1])}.isdisjoint(views[0])
    assert {env.world.market.next_num for env in arena.seats} == {arena.market.next_num} == {size + 3}


def test_a_seat_wakes_at_its_own_next_event_while_its_rival_plays_on() -> None:
    arena = _arena(2)
    target = _top_task(arena.seats[0])
    idle_alone = arena.seats[1].world.next_event_time()  # the idle company's payroll
    woke: dict[int, int] = {}

    def taker(env: Any) -> None:
        _take(target)(env)
        assert env.call("sim_resume").ok
        woke[0] = env.world.now

    def idle(env: Any) -> None:
        assert env.call("sim_resume").ok
        woke[1] = env.world.now

    play_seats(arena, [taker, idle], arena.seats)
    assert woke[0] < woke[1] == idle_alone
    assert arena.seats[0].world.log[0]["type"] == "task_progress"
    assert arena.seats[1].world.resumes == 1


def test_a_failing_seat_stops_the_arena_and_its_error_is_raised() -> None:
    arena = _arena(2)
    stopped: list[bool] = []

    def broken(env: Any) -> None:
        raise RuntimeError("the agent crashed")

    def waits(env: Any) -> None:  # an agent that would play on: the stop must reach it through the tool
        try:
            while not env.done:
                env.call("sim_resume")
        except ArenaAborted:
            stopped.append(True)
            raise

    with pytest.raises(RuntimeError, match="the agent crashed"):
        play_seats(arena, [waits, broken], arena.seats)
    assert stopped == [True]


def test_a_turn_that_fails_to_resolve_stops_every_seat_and_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    arena = _arena(2)
    calls = iter(range(100))

    def resolve() -> set[int]:
        if next(calls) == 1:  # the second turn (idle companies play two: a payroll, then the horizon)
            raise ZeroDivisionError("a bug in the turn")
        return YcArena.resolve(arena)

    monkeypatch.setattr(arena.gate, "_resolve", resolve)

    def plays(env: Any) -> None:
        while not env.done:
            env.call("sim_resume")

    with pytest.raises(ZeroDivisionError, match="a bug in the turn"):
        play_seats(arena, [plays, plays], arena.seats)
    assert not any(env.done for env in arena.seats)


def test_a_company_bankrupt_within_its_turn_contests_nothing() -> None:
    arena = _arena(2)
    target = _top_task(arena.seats[0])

    def take_then_fail(env: Any) -> None:
        _take(target)(env)
        env.world.bankrupt = env.world.done = True  # as a cancellation fee would leave it

    play_seats(arena, [take_then_fail, *_one_turn(_take(target))], arena.seats)
    assert arena.contests == []
    assert [t["task_id"] for t in arena.seats[1].call("task_list").data["tasks"]] == [target]


def test_a_seat_that_leaves_does_not_hold_up_the_others() -> None:
    arena = _arena(2, horizon=1)

    def plays(env: Any) -> None:
        while not env.done:
            assert env.call("sim_resume").ok

    play_seats(arena, [plays, _nothing], arena.seats)
    assert all(env.done for env in arena.seats)


def test_an_arena_takes_one_to_eight_seats() -> None:
    for bad in (0, 9, True, 2.0):
        with pytest.raises(ValueError, match="--seats must be a whole number from 1 to 8"):
            _arena(bad)


def test_a_rivals_task_is_invisible_and_its_hidden_work_never_reaches_a_seat() -> None:
    arena = _arena(2)
    target = _top_task(arena.seats[0])
    answers: dict[str, Any] = {}

    def taker(env: Any) -> None:
        _take(target)(env)
        assert env.call("sim_resume").ok

    def prober(env: Any) -> None:
        assert env.call("sim_resume").ok  # wakes at its own payroll, after the rival's task began
        for name, args in (("task_inspect", {"task_id": target}), ("task_list", {}), ("client_history", {})):
            answers[name] = env.call(name, **args)

    play_seats(arena, [taker, prober], arena.seats)
    assert not answers["task_inspect"].ok and "no task" in str(answers["task_inspect"].error)
    assert answers["task_list"].data["tasks"] == []
    taken = arena.seats[0].world.tasks[int(target.split("-")[1])]
    assert taken.done > 0
    for answer in answers.values():
        text = str(answer.data) + str(answer.error)
        assert repr(taken.true_work) not in text and repr(taken.done) not in text


def test_a_seat_with_rivals_is_told_the_arenas_rules_and_a_lone_seat_is_not() -> None:
    config, digest = SPEC.load_config("default")
    alone = SPEC.make(SPEC.with_horizon(config, 2), 5, "default", digest, None)
    (lone,) = _arena(1).seats
    assert lone.system_prompt("cli-chat") == alone.system_prompt("cli-chat")
    prompt = _arena(3).seats[1].system_prompt("cli-chat")
    assert prompt.startswith(alone.system_prompt("cli-chat")) and "RIVALS. Rival startups (2 of them)" in prompt
    assert "awards it to none of them" in prompt
