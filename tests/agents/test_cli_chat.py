"""The YC-Bench harness with a scripted model: run_command, the K-turn window, the scratchpad
in the system prompt, auto-advance, malformed replies, limits, the run directory and replay."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bizbench.agents.harness.cli_chat import NO_CALL, CliChatHarness, prefixes, split_command
from bizbench.agents.models.base import ModelError, ModelReply
from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import AgentRun, Limits, Trajectory
from bizbench.core.errors import ToolError
from bizbench.envs.yc.env import YcEnv
from bizbench.runner.agent_episode import run_agent_episode

Messages = list[dict[str, Any]]


def cmd(*commands: str, content: str = "") -> dict[str, Any]:
    """A reply calling run_command once per command line."""
    return {"content": content, "tool_calls": [{"name": "run_command", "arguments": {"command": c}} for c in commands]}


def play(
    script: Any, months: int = 3, seed: int = 1, max_turns: int | None = None, **options: Any
) -> tuple[YcEnv, AgentRun, str, list[Messages]]:
    """Run the harness on a short yc world; returns the env, the run, why it ended and what the model saw."""
    seen: list[Messages] = []

    def model(messages: Messages, tools: Any) -> Any:
        seen.append(json.loads(json.dumps(messages)))
        return script(messages) if callable(script) else script[min(len(seen) - 1, len(script) - 1)]

    env = YcEnv.from_preset("default", seed, horizon_months=months)
    run = AgentRun(ScriptedModel(model), Trajectory(None), Limits(max_turns=max_turns))
    ended_by = CliChatHarness(**options).run(env, run)
    return env, run, ended_by, seen


def events(run: AgentRun, kind: str) -> list[dict[str, Any]]:
    return [e for e in run.trajectory.events if e["kind"] == kind]


def tool_answers(messages: Messages) -> list[Any]:
    return [json.loads(m["content"]) for m in messages if m["role"] == "tool"]


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("yc-bench task accept --task-id Task-42", ["task", "accept", "--task-id", "Task-42"]),
        ("bizbench yc company status", ["company", "status"]),
        ('scratchpad write --content "two words"', ["scratchpad", "write", "--content", "two words"]),
        ("yc-bench", []),
    ],
)
def test_split_command_strips_the_prefix(line: str, words: list[str]) -> None:
    assert split_command(line, prefixes(YcEnv.from_preset("default", 1))) == words


def test_split_command_reports_unbalanced_quotes() -> None:
    with pytest.raises(ToolError, match="quotes"):
        split_command('scratchpad write --content "open')


def test_window_and_auto_advance_default_to_the_preset_and_the_prompt_states_them() -> None:
    env = YcEnv.from_preset("default", 1)
    assert CliChatHarness().settings(env) == (20, 5)
    assert re.search(r"truncated after\s+20\s+turns", CliChatHarness().system_prompt(env))
    harness = env.config.harness.model_copy(update={"history_turns": 4, "auto_advance_turns": 2})
    env.config = env.config.model_copy(update={"harness": harness})
    assert CliChatHarness().settings(env) == (4, 2)
    prompt = CliChatHarness(context_turns=7, auto_advance_after=3).system_prompt(env)
    assert re.search(r"truncated after\s+7\s+turns", prompt) and re.search(r"for\s+3\s+turns", prompt)
    assert env.config.harness.history_turns == 4  # the env's own config is untouched
    with pytest.raises(ValueError, match="context_turns"):
        CliChatHarness(context_turns=0)


def test_tools_are_one_run_command_function() -> None:
    (tool,) = CliChatHarness().tools(YcEnv.from_preset("default", 1))
    assert tool["name"] == "run_command" and tool["parameters"]["required"] == ["command"]
    assert "task accept" in tool["description"] and "sim resume" in tool["description"]


def test_history_is_truncated_to_the_last_k_turns() -> None:
    k = 3

    def model(messages: Messages) -> dict[str, Any]:
        turn = int(re.search(r"start of turn (\d+)", messages[-1]["content"]).group(1))  # type: ignore[union-attr]
        return cmd("company status", content=f"reply {turn}")

    env, run, ended_by, seen = play(model, max_turns=9, context_turns=k)
    assert ended_by == "max_turns" and run.meter.turns == 9 and len(seen) == 9
    for n, messages in enumerate(seen, start=1):
        assert messages[0]["role"] == "system" and messages[-1]["role"] == "user"
        assert f"start of turn {n}" in messages[-1]["content"]
        kept = [m["content"] for m in messages if m["role"] == "assistant"]
        assert kept == [f"reply {t}" for t in range(max(1, n - k), n)]
        # whole turns: each kept turn is its status message, the reply and one tool answer
        assert [m["role"] for m in messages[1:-1]] == ["user", "assistant", "tool"] * len(kept)
        assert all(m["tool_call_id"] for m in messages if m["role"] == "tool")


def test_the_scratchpad_is_in_the_system_prompt_every_turn_even_after_truncation() -> None:
    note = "Avoid clients that fail; Emp_3 is strong in training"
    script = [cmd(f'yc-bench scratchpad write --content "{note}"'), cmd("company status")]
    env, run, _, seen = play(script, max_turns=4, context_turns=1)
    assert "(empty)" in seen[0][0]["content"] and note not in seen[0][0]["content"]
    for messages in seen[1:]:
        assert messages[0]["content"].rstrip().endswith(note)
    assert "scratchpad write" not in json.dumps(seen[3][1:])  # the writing turn left the window
    assert env.scratchpad == note
    assert events(run, "tool_call")[0]["name"] == "scratchpad_write" and events(run, "tool_call")[0]["ok"]


def test_auto_advance_after_five_turns_without_sim_resume() -> None:
    env, run, ended_by, seen = play([cmd("company status")], months=3, max_turns=12)
    auto = events(run, "auto_advance")
    assert [e["turn"] for e in auto] == [5, 10] and all(e["idle_turns"] == 5 and e["ok"] for e in auto)
    assert all(e["time"] > e["time_before"] for e in auto)
    assert env.world.resumes == 2 and env.actions[-1]["tool"] != "sim_resume"
    assert seen[5][-1]["content"].startswith("5 turns passed without time moving on")
    assert "5 turns passed" not in seen[4][-1]["content"]
    status = [json.loads(m[-1]["content"].rsplit("\n", 1)[1]) for m in (seen[4], seen[5])]
    assert status[1]["time"] > status[0]["time"] and status[1]["events_since_last_turn"]


def test_sim_resume_by_the_model_resets_the_idle_count() -> None:
    script = [cmd("company status"), cmd("company status"), cmd("sim resume")] + [cmd("company status")]
    env, run, _, _ = play(script, months=3, max_turns=9)
    assert [e["turn"] for e in events(run, "auto_advance")] == [8]
    assert env.world.resumes == 2


def test_malformed_replies_get_feedback_count_and_never_crash() -> None:
    script = [
        {"content": "Let me think about the market first."},  # no tool call
        cmd("yc-bench hire engineer"),  # unknown command
        cmd("task list --bogus 1"),  # unknown flag
        {"tool_calls": [{"name": "run_command", "arguments": '{"command": "company status"'}]},  # invalid JSON
        {"tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]},  # another tool
        {"tool_calls": [{"name": "run_command", "arguments": {"cmd": "company status"}}]},  # wrong argument
        cmd('scratchpad write --content "unterminated'),  # shlex cannot split it
        cmd("market browse --limit many", "yc-bench company status"),  # bad value, then a good call
        cmd("task accept --task-id Task-999999"),  # well-formed, refused by the env: not malformed
    ]
    env, run, ended_by, seen = play(script, max_turns=len(script))
    assert ended_by == "max_turns" and run.meter.turns == len(script) and run.meter.model_calls == len(script)
    feedback = events(run, "feedback")
    assert run.meter.malformed == len(feedback) == 8
    assert [f["turn"] for f in feedback] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert seen[1][-1]["content"].startswith(NO_CALL.split("{")[0])  # the no-call feedback opens the next turn
    errors = [tool_answers(seen[t])[-1]["error"] for t in range(2, 8)]
    assert "Unknown command: hire engineer" in errors[0]
    assert "Unknown flag --bogus" in errors[1]
    assert "must be a JSON object" in errors[2]
    assert "Unknown tool 'bash'" in errors[3]
    assert "Unknown argument(s) cmd" in errors[4]
    assert "quotes" in errors[5]
    bad, good = tool_answers(seen[8])[-2:]
    assert "expects an integer" in bad["error"] and good["funds_cents"] == env.world.funds_cents
    refused = events(run, "tool_call")[-1]
    assert refused["name"] == "task_accept" and not refused["ok"] and "Task-999999" in refused["result"]["error"]
    assert [t["kind"] for t in env.tamper] == ["unknown_tool"]  # as in the shell seat


def test_several_calls_in_one_reply_run_in_order_until_the_horizon() -> None:
    """A greedy model that reads what it was shown: browse, then accept/assign/dispatch/resume in one reply."""

    def model(messages: Messages) -> dict[str, Any]:
        answers = tool_answers(messages[-4:])
        if len(messages) == 2:
            return cmd("market browse --limit 1")
        if answers and "tasks" in answers[-1]:
            tid = answers[-1]["tasks"][0]["task_id"]
            everyone = ",".join(f"Emp_{n}" for n in range(1, 9))
            return cmd(
                f"task accept --task-id {tid}",
                f"task assign --task-id {tid} --employees {everyone}",
                f"task dispatch --task-id {tid}",
                "sim resume",
            )
        return cmd("sim resume")

    env, run, ended_by, seen = play(model, months=1)
    assert ended_by == "completed" and env.done and not env.world.bankrupt
    names = [e["name"] for e in events(run, "tool_call")]
    assert names[:5] == ["market_browse", "task_accept", "task_assign", "task_dispatch", "sim_resume"]
    assert all(e["ok"] for e in events(run, "tool_call")) and run.meter.malformed == 0
    assert env.result()["tasks_accepted"] == 1 and not events(run, "auto_advance")


def test_limits_and_model_errors_end_the_run_cleanly() -> None:
    env, run, ended_by, _ = play([cmd("company status")], max_turns=3)
    assert ended_by == "max_turns" and run.meter.turns == 3 and run.meter.model_calls == 3

    def broken(messages: Any, tools: Any) -> ModelReply:
        raise ModelError("provider down", attempts=[{"attempt": 1, "error": "500"}])

    env = YcEnv.from_preset("default", 1, horizon_months=1)
    run = AgentRun(ScriptedModel(broken), Trajectory(None))
    assert CliChatHarness().run(env, run) == "model_error"
    assert run.trajectory.events[-1]["kind"] == "model_error" and run.meter.turns == 0


def test_run_directory_and_replay_of_a_scripted_run(tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    usage = {"input_tokens": 120, "output_tokens": 15}
    lines = [
        {**cmd("market browse --limit 3", content="Looking."), "usage": usage},
        {**cmd('scratchpad append --content "plan: one client"'), "usage": usage},
        {"content": "no call", "usage": usage},
        {**cmd("company status", "employee list"), "usage": usage},
    ]
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    results = [
        run_agent_episode(
            "yc",
            ScriptedModel.from_file(script),
            5,
            out=tmp_path / name,
            limits=Limits(max_turns=8),
            harness_options={"context_turns": 3},
        )
        for name in ("a", "b")
    ]
    a, b = (dict(r) for r in results)
    for r in (a, b):
        r.pop("wall_seconds")
        r.pop("provenance")
    assert a == b
    assert a["model"] == "scripted:script.jsonl" and a["harness"] == "cli-chat" and a["ended_by"] == "max_turns"
    assert a["turns"] == 8 and a["malformed_replies"] == 1
    assert a["tokens"] == {"input_tokens": 8 * 120, "output_tokens": 8 * 15, "cached_tokens": 0, "reasoning_tokens": 0}
    assert a["cost_usd"] == 0 and a["resumes"] == 1  # one auto-advance, after turn 5

    run = tmp_path / "a"
    names = ("trajectory.jsonl", "system_prompt.txt", "tools.json", "result.json", "config.json")
    for f in (*names, "actions.jsonl", "metrics.jsonl", "tamper.jsonl", "ledger.csv", "cash.png"):
        assert (run / f).exists(), f
    assert json.loads((run / "result.json").read_text())["ended_by"] == "max_turns"
    assert json.loads((run / "config.json").read_text())["harness_options"] == {"context_turns": 3}
    trajectory = [json.loads(line) for line in (run / "trajectory.jsonl").read_text().splitlines()]
    kinds = [e["kind"] for e in trajectory]
    assert kinds[0] == "turn" and kinds[-1] == "end" and kinds.count("model_call") == 8
    assert kinds.count("auto_advance") == 1 and kinds.count("feedback") == 1
    # one metrics row per simulated turn (a sim resume), however yc is driven: here the one auto-advance
    assert [json.loads(line)["turn"] for line in (run / "metrics.jsonl").read_text().splitlines()] == [1]
    actions = [json.loads(line) for line in (run / "actions.jsonl").read_text().splitlines()]
    assert len(actions) == sum(k == "tool_call" for k in kinds) + 1  # every command plus the auto-advance
    assert "sim_resume" in [x["tool"] for x in actions]
    assert "run_command" in (run / "system_prompt.txt").read_text()
    assert re.search(r"truncated after\s+3\s+turns", (run / "system_prompt.txt").read_text())
    assert [t["name"] for t in json.loads((run / "tools.json").read_text())] == ["run_command"]


def test_help_is_answered_from_the_registry_not_recorded_as_tamper_or_an_action() -> None:
    script = [
        cmd("yc-bench help", "yc-bench task cancel --help", "yc-bench help task", "yc-bench help fly"),
        cmd("yc-bench company status"),
    ]
    env, run, _, seen = play(script, max_turns=2)
    listing, one, prefix, unknown = tool_answers(seen[1])[-4:]
    assert "task cancel" in [c["command"] for c in listing["commands"]]
    assert one["command"] == "task cancel" and [f["flag"] for f in one["flags"]] == ["--task-id", "--reason"]
    assert [c["command"] for c in prefix["commands"]][0] == "task list"
    assert "Unknown command: fly" in unknown["error"]
    assert env.tamper == [] and [e["name"] for e in events(run, "tool_call")] == ["company_status"]
    assert [a.get("tool") or a.get("name") for a in env.actions] == ["company_status"]
