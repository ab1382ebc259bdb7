"""The episode every standard interface shares (bizbench/interfaces/episode.py, docs/interfaces.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bizbench.core.envs import get_env, list_envs
from bizbench.core.rng import SECRET_ENV
from bizbench.interfaces.episode import ToolEpisode
from bizbench.runner.replay import replay_run

ENVS = [spec.id for spec in list_envs()]
SEED = 918_273_645  # distinctive: found if it leaks


def _play_out(episode: ToolEpisode) -> float:
    total = 0.0
    while not episode.finished:
        episode.advance()
        total += episode.reward()
    return total


@pytest.mark.parametrize("env_id", ENVS)
def test_the_tools_are_the_registry_of_the_env(env_id: str) -> None:
    episode = ToolEpisode(env_id, 1, horizon=2)
    registry = episode.env.registry
    assert [t.name for t in episode.tools()] == registry.names()
    for tool in episode.tools():
        spec = registry.spec(tool.name)
        assert (tool.description, tool.input_schema, tool.mutates, tool.category) == (
            spec.description,
            spec.parameters,
            spec.mutates,
            spec.category,
        )


@pytest.mark.parametrize("env_id", ENVS)
def test_nothing_the_agent_reads_names_the_seed_or_the_config(env_id: str) -> None:
    episode = ToolEpisode(env_id, SEED, horizon=2)
    seen = [episode.system_prompt(), episode.tool_reference(), episode.observation_text()]
    seen += [json.dumps(t.input_schema) + t.description for t in episode.tools()]
    for tool in episode.tools():
        if not tool.mutates:
            seen.append(episode.call(tool.name, {}).text)
    assert not [text[:80] for text in seen if str(SEED) in text]
    assert not [text[:80] for text in seen if "preset_hash" in text]


@pytest.mark.parametrize("env_id", ENVS)
def test_a_refused_call_is_an_answer_that_changes_nothing(env_id: str) -> None:
    episode = ToolEpisode(env_id, 3, horizon=2)
    before = episode.state_digest()
    for name, args in [
        ("no_such_tool", {}),
        (episode.tools()[0].name, {"no_such_argument": 1}),
        ("x", "not-an-object"),
    ]:
        answer = episode.call(name, args)
        assert not answer.ok and answer.text.startswith("Error: ") and answer.error
    assert episode.state_digest() == before


@pytest.mark.parametrize("env_id", ENVS)
def test_the_rewards_of_an_episode_sum_to_its_score(env_id: str, tmp_path: Path) -> None:
    episode = ToolEpisode(env_id, 2, horizon=3, out=tmp_path / "run", agent="test")
    total = _play_out(episode)
    result = episode.finish()
    assert episode.terminated and result["completed"]
    assert total == pytest.approx(episode.score()) == pytest.approx(max(result["score"], 0.0))


@pytest.mark.parametrize("env_id", ENVS)
def test_an_episode_is_a_run_directory_that_replays(env_id: str, tmp_path: Path) -> None:
    episode = ToolEpisode(env_id, 4, horizon=2, out=tmp_path / "run", agent="test", interface="test")
    for tool in episode.tools():
        if not tool.mutates:
            episode.call(tool.name, {})
    episode.call("no_such_tool", {})
    _play_out(episode)
    digest = episode.state_digest()
    episode.finish()
    assert episode.state_digest() == digest  # the final world's, though finishing closed it
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert (config["agent"], config["interface"], config["split"]) == ("test", "test", "dev")
    report = replay_run(tmp_path / "run")
    assert report.ok, report


def test_a_bankrupt_company_scores_zero_and_its_rewards_sum_to_zero() -> None:
    episode = ToolEpisode("lemonade", 1)
    episode.call("set_price", {"price": 10})
    total = episode.reward()
    assert episode.call("buy_lemons", {"units": 80}).ok  # all $20 of the cash
    total += episode.reward()
    while not episode.finished:
        episode.call("end_day", {})
        total += episode.reward()
    assert episode.env.bankrupt and episode.env.score() < 0
    assert episode.score() == 0.0 and total == pytest.approx(0.0)
    assert episode.finish()["bankrupt"]


def test_a_step_limit_truncates_the_episode_scores_it_zero_and_the_run_says_so(tmp_path: Path) -> None:
    episode = ToolEpisode("lemonade", 1, max_steps=2, out=tmp_path / "run")
    episode.call("get_status", {})
    total = episode.reward()
    assert total > 0  # the stand's starting cash
    episode.advance()
    total += episode.reward()
    assert episode.truncated and episode.finished and not episode.terminated
    assert episode.score() == 0.0 and total == pytest.approx(0.0)  # stalling never beats playing
    refused = episode.call("get_status", {})
    assert not refused.ok and "ended" in refused.text
    result = episode.finish()
    assert result["ended_by"] == "max_steps" and not result["completed"]
    assert "max_steps" in result["incomplete_reason"]
    assert episode.finish() is result and episode.score() == 0.0


def test_an_episode_a_door_ends_early_scores_zero_as_the_report_counts_it() -> None:
    episode = ToolEpisode("lemonade", 1)
    episode.call("get_status", {})
    assert episode.reward() > 0
    result = episode.finish("client_disconnected")
    assert not result["completed"] and result["ended_by"] == "client_disconnected"
    assert episode.score() == 0.0 and episode.reward() < 0  # the last reward takes the start back


def test_the_test_split_needs_the_secret_and_the_dev_split_ignores_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SECRET_ENV, raising=False)
    with pytest.raises(ValueError, match=SECRET_ENV):
        ToolEpisode("lemonade", 1, split="test")
    public = ToolEpisode("lemonade", 1, split="dev").state_digest()
    monkeypatch.setenv(SECRET_ENV, "the benchmark's secret")
    assert ToolEpisode("lemonade", 1, split="dev").state_digest() == public
    held_out = ToolEpisode("lemonade", 1, split="test")
    assert held_out.state_digest() != public and held_out.env.secret_id is not None
    with pytest.raises(ValueError, match="split"):
        ToolEpisode("lemonade", 1, split="train")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, True, 1.5, "7"])
def test_a_bad_seed_or_step_limit_is_refused_with_its_name(bad: object) -> None:
    with pytest.raises(ValueError, match="seed"):
        ToolEpisode("lemonade", bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_steps"):
        ToolEpisode("lemonade", 1, max_steps=bad if bad != 1.5 else 0)  # type: ignore[arg-type]


def test_a_prompt_written_in_command_lines_says_how_they_map_to_tools() -> None:
    for spec in list_envs():
        prompt = ToolEpisode(spec.id, 1, horizon=1).system_prompt()
        assert ("is a tool" in prompt) == bool(get_env(spec.id).command_prefix)


def test_a_huge_name_from_an_agent_grows_neither_the_answer_nor_the_record(tmp_path: Path) -> None:
    episode = ToolEpisode("lemonade", 1, out=tmp_path / "run")
    answers = [episode.call("t" * 1_000_000, {}), episode.call("get_status", {"a" * 1_000_000: 1})]
    assert all(not a.ok and len(a.text) < 600 for a in answers)
    episode.finish("test")
    assert (tmp_path / "run" / "actions.jsonl").stat().st_size < 20_000
    assert replay_run(tmp_path / "run").ok
