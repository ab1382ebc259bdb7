"""check_env over every registered env: ceo, yc, cfo and the lemonade plug-in (tests/conftest.py).

One test per (env, check), so that xdist spreads them and a failure names both. The checks run a
short horizon (check_env's default: 21 days, 3 months) so that the file stays quick.

A problem that is known and owned elsewhere in issue 13 is listed in ``KNOWN`` with its owner:
the test then xfails while that problem is present and passes once it is gone; any other
problem fails it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bizbench.core.envs import list_envs
from bizbench.runner.check import CHECKS, EnvCheckError, Problem, check_env, env_problems

ENVS = [spec.id for spec in list_envs()]
HERE = Path(__file__).resolve().parent

#: (env id or "*", check, pattern of the problem, why it is expected now and who removes it)
KNOWN: list[tuple[str, str, str, str]] = []


def known(env_id: str, problem: Problem) -> str | None:
    for env, check, pattern, why in KNOWN:
        if env in ("*", env_id) and check == problem.check and re.search(pattern, problem.message):
            return why
    return None


def test_every_env_is_checked() -> None:
    assert {"ceo", "yc", "cfo", "lemonade"} <= set(ENVS)


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("env_id", ENVS)
def test_env_keeps_the_contract(env_id: str, check: str, tmp_path: Path) -> None:
    report = check_env(env_id, [check], workdir=tmp_path, raise_errors=False)
    expected = {known(env_id, p) for p in report.problems} - {None}
    unexpected = [p for p in report.problems if known(env_id, p) is None]
    assert not unexpected, str(report)
    if expected:
        pytest.xfail("; ".join(sorted(str(w) for w in expected)))


# ---------------------------------------------------------------------------- the checker catches
@pytest.fixture
def broken():
    import broken_envs

    return broken_envs


def test_a_leak_in_the_observation_is_found(broken) -> None:
    problems = env_problems(broken.LEAKY, ["hidden"])
    assert problems and all(p.check == "hidden" for p in problems)
    assert any("the observation of" in p.message and "mood" in p.message for p in problems)


def test_a_play_module_that_calls_tools_shows_hidden_values_or_names_no_tool_is_found(broken) -> None:
    messages = [p.message for p in env_problems(broken.PEEKING, ["play"])]
    assert any("TURN_TOOLS names 'close_shop'" in m for m in messages)
    assert any("MONEY names 'till'" in m for m in messages)
    assert any("END_TURN_TOOL 'buy_lemons'" in m for m in messages)
    assert any("exactly one of MEMORY_FILE and memory_call" in m for m in messages)
    assert any("memory_call names 'write_diary'" in m for m in messages)
    assert any("MEMORY_FILE '../notes.md'" in m for m in messages)
    assert any("changed the world or logged a call" in m for m in messages)
    assert any("'sales' is not a declared chart of finite numbers" in m for m in messages)
    assert any("'taste' is not a declared chart" in m for m in messages)
    assert any(m.startswith("hidden ") and "the chart points" in m for m in messages)


def test_a_refused_call_that_changes_the_world_or_raises_is_found(broken) -> None:
    messages = [p.message for p in env_problems(broken.CARELESS, ["failed_calls"])]
    assert any("an unknown tool: call_tool raised KeyError" in m for m in messages)
    assert any(m.startswith("set_price: price NaN: refused, but the state digest changed") for m in messages)


def test_a_read_that_changes_the_world_is_found_when_replay_skips_reads(broken) -> None:
    messages = [p.message for p in env_problems(broken.NOSY, ["protocol"])]
    assert messages == ["read-only get_status changed the state digest, and replay does not re-send reads"]


def test_random_arguments_that_crash_a_tool_are_found(broken, monkeypatch: pytest.MonkeyPatch) -> None:
    from lemonade.tools import registry

    monkeypatch.setattr(registry.spec("get_status"), "fn", lambda env: 1 / 0)
    messages = [p.message for p in env_problems(broken.LEAKY, ["failed_calls"])]
    crashed = "the tool crashed (internal_error: ZeroDivisionError) on {}"
    assert any(m.startswith("get_status: random arguments") and m.endswith(crashed) for m in messages), messages


def test_an_undescribed_tool_is_found(broken) -> None:
    messages = [p.message for p in env_problems(broken.UNDOCUMENTED, ["tool_docs"])]
    assert "tool paint_sign has no description (the first line of its docstring)" in messages
    assert "argument 'colour' of tool paint_sign has no description (an Args: entry)" in messages


def test_a_world_that_depends_on_the_process_is_found(broken, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("BIZBENCH_ENVS", os.environ["BIZBENCH_ENVS"] + ",broken_envs:SALTED")
    messages = [p.message for p in env_problems(broken.SALTED, ["determinism"])]
    assert any("the state digest differs in a second process at the start" in m for m in messages), messages


def test_an_env_registered_in_this_process_only_is_found(broken) -> None:
    messages = [p.message for p in env_problems(broken.SALTED, ["determinism"])]
    assert any("registered in this process only" in m for m in messages), messages


def test_check_env_raises_with_every_problem(broken) -> None:
    with pytest.raises(EnvCheckError) as caught:
        check_env(broken.LEAKY, ["protocol", "hidden"])
    text = str(caught.value)
    assert "env 'lemonade-leaky' breaks the Env contract" in text and "[hidden]" in text
    assert caught.value.report.ran == ["protocol", "hidden"]
    with pytest.raises(ValueError, match="unknown check"):
        check_env(broken.LEAKY, ["nope"])


def test_a_replay_that_lets_the_smallest_forgery_through_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """replay's tolerance loosened to 1e-3 (the bug issue 18 names), then floats compared as
    equal whatever they are: the replay check names what it forged and replay did not catch."""
    from bizbench.runner import replay

    lemonade = next(spec for spec in list_envs() if spec.id == "lemonade")
    monkeypatch.setattr(replay, "RESULT_REL_TOL", 1e-3)
    (problem,) = env_problems(lemonade, ["replay"])
    assert problem.message.startswith("replay verifies a run forged by the smallest change in: ")
    assert "score" in problem.message and "metrics.jsonl" not in problem.message
    monkeypatch.setattr(replay, "same_value", lambda a, b, rel_tol=0.0: True)
    (problem,) = env_problems(lemonade, ["replay"])
    assert "score" in problem.message and "metrics.jsonl" in problem.message and "ledger.csv" in problem.message


def test_an_arena_that_drifts_from_the_single_player_world_is_found() -> None:
    import broken_arenas

    messages = [p.message for p in env_problems(broken_arenas.LATE, ["arena"])]
    assert any("a one-seat arena ends in another world than the single-player run" in m for m in messages), messages


def test_an_arena_that_favours_a_seat_is_found() -> None:
    import broken_arenas

    messages = [p.message for p in env_problems(broken_arenas.FIRST_SEAT, ["arena"])]
    assert any("a seat is favoured" in m for m in messages), messages
