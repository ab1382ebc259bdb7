"""The Gymnasium door (bizbench.interfaces.gym, docs/interfaces.md) over every registered env,
driven by Gymnasium's own ``make``, ``make_vec``, ``check_env`` and wrappers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from bizbench.core.envs import list_envs
from bizbench.core.rng import SECRET_ENV
from bizbench.interfaces.gym import (
    ACTION_FORMAT,
    CHARSET,
    MAX_OBSERVATION,
    BizbenchEnv,
    as_text,
    gym_id,
    register_envs,
)
from bizbench.report.build import build_report
from bizbench.runner.check import find_hidden
from bizbench.runner.replay import replay_run

ENVS = [spec.id for spec in list_envs()]
ADVANCE = json.dumps({"advance": True})
#: the plug-in test env, whose do-nothing stand goes bankrupt in about 20 days of its 30
BANKRUPTING = "lemonade"


def make(env_id: str, **kwargs: Any) -> gymnasium.Env[str, str]:
    return gymnasium.make(gym_id(env_id), horizon=kwargs.pop("horizon", 2), **kwargs)


def call(tool: str, **args: Any) -> str:
    return json.dumps({"tool": tool, "args": args})


def read_calls(env: gymnasium.Env[str, str]) -> list[str]:
    """A call of every read-only tool that needs no argument, from the env's registry."""
    tools = env.unwrapped.episode.tools()  # type: ignore[attr-defined]
    return [call(t.name) for t in tools if not t.mutates and not t.input_schema.get("required")]


def play(env: gymnasium.Env[str, str], actions: list[str], seed: int) -> dict[str, Any]:
    """Reset with ``seed``, send ``actions`` then advances until the episode ends."""
    obs, info = env.reset(seed=seed)
    seen, rewards = [obs], []
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        seen.append(obs)
        rewards.append(reward)
    while not (rewards and (terminated or truncated)):
        obs, reward, terminated, truncated, info = env.step(ADVANCE)
        seen.append(obs)
        rewards.append(reward)
    return {"observations": seen, "rewards": rewards, "info": info, "terminated": terminated, "truncated": truncated}


def test_importing_the_door_registers_a_gymnasium_id_for_every_registered_env() -> None:
    assert {gym_id(e) for e in ENVS} <= set(gymnasium.registry)
    assert register_envs() == []  # registering again adds nothing
    assert all(gymnasium.registry[gym_id(e)].kwargs == {"env_id": e} for e in ENVS)


def test_make_with_the_module_prefix_needs_no_import_of_the_door() -> None:
    script = (
        "import sys, gymnasium\n"
        "assert 'bizbench.interfaces.gym' not in sys.modules\n"
        f"env = gymnasium.make('bizbench.interfaces.gym:{gym_id(BANKRUPTING)}', horizon=2)\n"
        "obs, info = env.reset(seed=1)\n"
        "print(env.unwrapped.env_id, info['horizon'])\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [BANKRUPTING, "2"]


@pytest.mark.parametrize("env_id", ENVS)
def test_gymnasium_check_env_passes(env_id: str) -> None:
    env = make(env_id)
    check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("env_id", ENVS)
def test_the_rewards_of_an_episode_sum_to_its_score(env_id: str, tmp_path: Path) -> None:
    env = make(env_id, record_dir=tmp_path)
    env.reset(seed=3)
    run = play(env, read_calls(env)[:3], seed=3)
    result = json.loads((Path(run["info"]["run_dir"]) / "result.json").read_text())
    assert run["terminated"] and not run["truncated"] and result["ended_by"] == run["info"]["ended_by"]
    assert sum(run["rewards"]) == pytest.approx(run["info"]["score"], rel=1e-9, abs=1e-6)
    assert run["info"]["score"] == pytest.approx(max(result["score"], 0.0))
    env.close()


def test_a_bankrupt_episode_earns_nothing_in_all() -> None:
    env = gymnasium.make(gym_id(BANKRUPTING))  # the preset's horizon: doing nothing goes bankrupt
    run = play(env, [], seed=1)
    assert run["terminated"] and run["info"]["bankrupt"] and run["info"]["ended_by"] == "bankrupt"
    assert run["info"]["score"] == 0.0 and sum(run["rewards"]) == pytest.approx(0.0, abs=1e-9)
    assert min(run["rewards"]) < 0  # the last step takes back what the company had
    assert "## The episode is over (bankrupt); its score is 0.00." in run["observations"][-1]


@pytest.mark.parametrize(
    "action",
    [
        "not json",
        "[1, 2]",
        '{"tool": 5}',
        '{"args": {}}',
        '{"tool": "x", "arguments": {}}',
        '{"advance": false}',
        '{"advance": 1}',  # equal to True in Python, not the JSON true the docs ask for
        '{"advance": 1.0}',
        '{"advance": "true"}',
        "",
        123,
        None,
        '{"tool": "get_status", "args": ' + "[" * 5000 + "]" * 5000 + "}",  # past the JSON parser's depth
    ],
)
def test_a_malformed_action_is_an_error_observation_that_counts_as_a_step(action: Any) -> None:
    env = make(BANKRUPTING)
    _, start = env.reset(seed=2)
    digest = env.unwrapped.episode.state_digest()  # type: ignore[attr-defined]
    obs, reward, terminated, truncated, info = env.step(action)
    assert obs.startswith("Error: ") and '{"tool": "<tool name>", "args": {...}} or {"advance": true}' in obs
    assert (info["ok"], info["error"], info["steps"], terminated, truncated) == (False, obs[7:], 1, False, False)
    assert reward == start["score"]  # the first reward is the starting score: nothing changed
    assert env.unwrapped.episode.state_digest() == digest  # type: ignore[attr-defined]


@pytest.mark.parametrize("env_id", ENVS)
def test_a_refused_call_is_the_envs_error_and_is_recorded(env_id: str, tmp_path: Path) -> None:
    env = make(env_id, record_dir=tmp_path)
    _, start = env.reset(seed=4)
    digest = env.unwrapped.episode.state_digest()  # type: ignore[attr-defined]
    obs, reward, terminated, truncated, info = env.step(call("no_such_tool", x=1))
    assert obs.startswith("Error: ") and "no_such_tool" in obs and info["ok"] is False
    assert reward == start["score"]  # the first reward is the starting score: nothing changed
    assert env.unwrapped.episode.state_digest() == digest  # type: ignore[attr-defined]
    env.close()
    (run,) = tmp_path.iterdir()
    actions = [json.loads(line) for line in (run / "actions.jsonl").read_text().splitlines()]
    assert [(a["tool"], a["ok"]) for a in actions] == [("no_such_tool", False)]


def test_a_step_that_ends_a_turn_shows_the_new_observation() -> None:
    env = make(BANKRUPTING, horizon=5)
    obs, info = env.reset(seed=5)
    assert json.loads(obs)["day"] == 0
    assert (info["turn"], info["elapsed"], info["horizon"], info["unit"], info["steps"]) == (0, 0, 5, "day", 0)
    obs, reward, terminated, truncated, info = env.step(call("set_price", price=0.75))
    assert "## Observation" not in obs and not info["turn_ended"] and info["ok"]
    obs, reward, terminated, truncated, info = env.step(ADVANCE)
    assert obs.startswith("## Observation\n") and info["turn_ended"] and info["turn"] == 1
    assert json.loads(obs.removeprefix("## Observation\n"))["day"] == 1
    assert reward == pytest.approx(env.unwrapped.episode.score() - 20.0)  # type: ignore[attr-defined]
    assert "score" not in info and "seed" not in info  # the score comes at the ends; the seed never


@pytest.mark.parametrize("env_id", ENVS)
def test_the_system_prompt_says_how_to_act_and_the_tool_reference_names_every_tool(env_id: str) -> None:
    env = make(env_id).unwrapped
    with pytest.raises(RuntimeError, match="reset"):
        env.system_prompt()  # type: ignore[attr-defined]
    env.reset(seed=6)
    prompt, reference = env.system_prompt(), env.tool_reference()  # type: ignore[attr-defined]
    assert prompt.endswith(ACTION_FORMAT) and prompt.startswith(env.episode.system_prompt().rstrip())  # type: ignore[attr-defined]
    tools = env.episode.tools()  # type: ignore[attr-defined]
    assert tools and all(t.name in reference for t in tools)


@pytest.mark.parametrize("env_id", ENVS)
def test_same_seed_and_actions_give_the_same_world_and_observations(env_id: str) -> None:
    runs = []
    for _ in range(2):
        env = make(env_id)
        env.reset(seed=11)
        first = play(env, read_calls(env)[:2], seed=11)
        env.reset()  # the next world seed comes from the env's generator, seeded by reset(seed=11)
        digest = env.unwrapped.episode.state_digest()  # type: ignore[attr-defined]
        runs.append((first["observations"], first["rewards"], digest))
        env.close()
    assert runs[0] == runs[1]
    other = make(env_id)
    other.reset(seed=12)
    assert other.unwrapped.episode.state_digest() != runs[0][2]  # type: ignore[attr-defined]


@pytest.mark.parametrize("env_id", ENVS)
def test_nothing_returned_holds_the_seed_or_a_hidden_value(env_id: str) -> None:
    seed = 7_654_321
    env = make(env_id)
    obs, info = env.reset(seed=seed)
    texts = [("reset", obs), ("reset info", json.dumps(info))]
    world = env.unwrapped.episode.env  # type: ignore[attr-defined]
    hidden = [seed, *getattr(world, "hidden_values", list)()]
    for action in [*read_calls(env), ADVANCE]:
        obs, reward, terminated, truncated, info = env.step(action)
        texts += [(action, obs), (f"{action} info", json.dumps(info))]
    hidden += getattr(world, "hidden_values", list)()
    assert find_hidden(hidden, texts) == []


def test_every_run_replays_and_reports_and_a_reset_or_close_ends_an_unfinished_one(tmp_path: Path) -> None:
    env = make(BANKRUPTING, horizon=3, record_dir=tmp_path / "runs")
    play(env, [call("set_price", price=0.6), call("buy_lemons", units=3)], seed=8)  # completed
    env.reset(seed=9)
    env.step(call("set_price", price=0.4))
    env.reset(seed=10)  # ends seed 9's run
    env.step(ADVANCE)
    env.close()  # ends seed 10's run
    env.close()
    runs = sorted((tmp_path / "runs").iterdir())
    assert [p.name for p in runs] == [f"{BANKRUPTING}-default-gym-{n:05d}" for n in (1, 2, 3)]
    results = [json.loads((p / "result.json").read_text()) for p in runs]
    assert [r["ended_by"] for r in results] == ["completed", "reset", "close"]
    assert [r["completed"] for r in results] == [True, False, False]
    assert results[1]["incomplete_reason"].startswith("reset: the run ended after 0 of 3 days")
    configs = [json.loads((p / "config.json").read_text()) for p in runs]
    assert {(c["agent"], c["interface"], c["split"]) for c in configs} == {("gym", "gym", "dev")}
    assert [c["seed"] for c in configs] == [8, 9, 10]
    for path in runs:
        assert replay_run(path).ok, path
    report = build_report([tmp_path / "runs"], tmp_path / "report", None, anchors=False, make_plots=False)
    assert len(report.measured) == 3 and not report.unfinished


def test_max_steps_truncates_and_records_why(tmp_path: Path) -> None:
    env = make(BANKRUPTING, horizon=10, max_steps=3, record_dir=tmp_path)
    env.reset(seed=13)
    steps = [env.step(action) for action in ("oops", call("get_status"), ADVANCE)]
    assert [step[2:4] for step in steps] == [(False, False), (False, False), (False, True)]
    assert steps[0][1] > 0 and sum(step[1] for step in steps) == pytest.approx(0.0)  # cut short: worth 0
    (run,) = tmp_path.iterdir()
    result = json.loads((run / "result.json").read_text())
    assert result["ended_by"] == "max_steps" and json.loads((run / "config.json").read_text())["max_steps"] == 3
    assert replay_run(run).ok


def test_a_timelimit_truncates_and_the_next_reset_ends_the_run(tmp_path: Path) -> None:
    env = make(BANKRUPTING, horizon=10, record_dir=tmp_path, max_episode_steps=2)
    env.reset(seed=14)
    assert env.step(ADVANCE)[3] is False and env.step(ADVANCE)[3] is True
    env.reset(seed=15)
    first = min(tmp_path.iterdir())
    result = json.loads((first / "result.json").read_text())
    assert (result["ended_by"], result["survived"]) == ("reset", 2)
    env.close()


def test_the_test_split_plays_the_held_out_worlds(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(SECRET_ENV, raising=False)
    with pytest.raises(ValueError, match=SECRET_ENV):
        make(BANKRUPTING, split="test")
    monkeypatch.setenv(SECRET_ENV, "a gym test secret")
    dev, test = make(BANKRUPTING), make(BANKRUPTING, split="test", record_dir=tmp_path)
    digests = [e.reset(seed=3) and e.unwrapped.episode.state_digest() for e in (dev, test)]  # type: ignore[attr-defined]
    assert digests[0] != digests[1]
    test.close()
    (run,) = tmp_path.iterdir()
    assert json.loads((run / "result.json").read_text())["seed_secret_id"] is not None
    assert replay_run(run).ok


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"preset": "no-such-preset"}, "unknown preset 'no-such-preset'"),
        ({"horizon": 0}, "--horizon must be a whole number"),
        ({"split": "train"}, "split must be 'dev' or 'test'"),
        ({"render_mode": "human"}, "render_mode must be one of"),
        ({"max_steps": 0}, "max_steps must be a whole number"),
    ],
)
def test_bad_options_are_refused_when_the_env_is_made(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make(BANKRUPTING, **kwargs)


def test_bad_reset_arguments_are_refused_naming_the_problem() -> None:
    with pytest.raises(ValueError, match="no reset options, got preset"):
        BizbenchEnv(BANKRUPTING).reset(options={"preset": "short"})


def test_text_outside_the_charset_is_escaped_and_long_text_is_cut() -> None:
    space = gymnasium.spaces.Text(MAX_OBSERVATION, min_length=0, charset=CHARSET)
    escaped = as_text('caf\u00e9 \u2014 "ok" \U0001f600 \x00')
    assert escaped == 'caf\\u00e9 \\u2014 "ok" \\ud83d\\ude00 \\u0000' and escaped in space
    text = "caf\u00e9 \U0001f600"
    assert json.loads('"' + as_text(text) + '"') == text  # the escapes are JSON's
    long = as_text("x" * (MAX_OBSERVATION + 5))
    assert len(long) == MAX_OBSERVATION and long.endswith(f"[cut: the text ran to {MAX_OBSERVATION + 5:,} characters]")
    assert long in space


def test_render_ansi_shows_the_last_observation() -> None:
    env = make(BANKRUPTING, render_mode="ansi")
    obs, _ = env.reset(seed=1)
    assert env.render() == obs
    obs, *_ = env.step(ADVANCE)
    assert env.render() == obs


def test_an_async_vector_env_runs_episodes_in_worker_processes(tmp_path: Path) -> None:
    n = 3
    envs = gymnasium.make_vec(
        gym_id(ENVS[-1]),
        num_envs=n,
        vectorization_mode="async",
        vector_kwargs={"shared_memory": False},
        horizon=2,
        record_dir=tmp_path,
    )
    obs, info = envs.reset(seed=20)
    assert len(obs) == n and all(isinstance(o, str) for o in obs)
    returns, done, scores = np.zeros(n), np.zeros(n, dtype=bool), np.zeros(n)
    while not done.all():
        obs, rewards, terminated, truncated, info = envs.step([ADVANCE] * n)
        ending = (terminated | truncated) & ~done
        returns += np.where(done, 0.0, rewards)
        if ending.any():  # the last step of an episode tells its score
            scores[ending] = info["score"][ending]
        done |= ending
    envs.close()
    assert returns == pytest.approx(scores)
    runs = sorted(tmp_path.iterdir())
    assert len(runs) == n and sorted(json.loads((p / "config.json").read_text())["seed"] for p in runs) == [20, 21, 22]
    assert all(replay_run(p).ok for p in runs)
