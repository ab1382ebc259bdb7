"""The CEO-Bench terminal harness with a scripted model: tools, a wipe per turn, MEMORY.md, git, served runs
of ceo, yc and cfo, and the host-only auto-advance.

Tests that run bash need the agent sandbox and are skipped without it; everything else (the
file tools, path checks, MEMORY.md cut, malformed replies, the turn's call cap, limits, a
served run directory) runs against a live ``bizbench serve ENV`` without the sandbox.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

import bizbench
from bizbench.agents.harness.terminal import TerminalHarness, Toolbox, Workspace, registry
from bizbench.agents.harness.terminal.seat import ServedSeat, render_observation
from bizbench.agents.harness.terminal.workspace import MEMORY_FILE
from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import AgentRun, Limits, Trajectory
from bizbench.core.envs import get_env
from bizbench.core.errors import ToolError
from bizbench.core.sandbox import SandboxResult, sandbox_unavailable_reason
from bizbench.runner.agent_episode import run_agent_episode

SEED = 918273
PRESET = "horizon-50"
REASON = sandbox_unavailable_reason()
needs_sandbox = pytest.mark.skipif(REASON is not None, reason=f"no sandbox on this host: {REASON}")
HORIZONS = ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"content": "", "tool_calls": [{"name": name, "arguments": arguments}]}


def tool(box: Toolbox, name: str, **args: Any) -> str:
    """Run a harness tool as the harness does (validation, then the function)."""
    return str(registry.spec(name).fn(box, **registry.validate(name, args)))


def events(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "trajectory.jsonl").read_text().splitlines()]


@pytest.fixture
def box(tmp_path: Path) -> Toolbox:
    ws = tmp_path / "ws"
    ws.mkdir()
    return Toolbox(Workspace(ws, managed=(".novamind", "bin")))


# ---------------------------------------------------------------------------- paths
def test_paths_outside_the_workspace_are_refused(box: Toolbox, tmp_path: Path) -> None:
    ws = box.workspace
    (tmp_path / "secret.txt").write_text("host secret\n")
    (ws.root / "link").symlink_to(tmp_path / "secret.txt")
    (ws.root / "dirlink").symlink_to(tmp_path)
    (ws.root / ".git").mkdir()
    for path in ["../secret.txt", "a/../../secret.txt", "/etc/passwd", str(tmp_path / "secret.txt"), "/workspace/../x"]:
        with pytest.raises(ToolError, match="outside the workspace"):
            ws.resolve(path)
    for path in ["link", "dirlink/secret.txt"]:
        with pytest.raises(ToolError, match="symbolic link"):
            tool(box, "read_file", path=path)
        with pytest.raises(ToolError, match="symbolic link"):
            tool(box, "write_file", path=path, content="x")
    for path in [".git/config", ".novamind/connection.json", "/workspace/.git/hooks/pre-commit", "."]:
        with pytest.raises(ToolError, match="managed by the harness"):
            tool(box, "write_file", path=path, content="x")
    assert (tmp_path / "secret.txt").read_text() == "host secret\n"
    assert ws.resolve("/workspace/notes/a.md") == Path(ws.real_root) / "notes" / "a.md"
    (ws.root / "inner").symlink_to("notes")  # a link that stays inside is fine
    tool(box, "write_file", path="notes/a.md", content="ok\n")
    assert "ok" in tool(box, "read_file", path="inner/a.md")


def test_special_files_never_block_the_harness(box: Toolbox) -> None:
    os.mkfifo(box.workspace.root / MEMORY_FILE)
    with pytest.raises(ToolError, match="not a regular file"):
        tool(box, "read_file", path=MEMORY_FILE)
    memory = box.workspace.memory(40_000)
    assert memory.text == "" and memory.problem and "not a regular file" in memory.problem
    (box.workspace.root / "MEMORY.md").unlink()
    (box.workspace.root / MEMORY_FILE).symlink_to("/etc/passwd")
    memory = box.workspace.memory(40_000)
    assert memory.text == "" and "symbolic link" in str(memory.problem)
    assert "root:" not in tool(box, "search_files", pattern="root")  # links are not followed


# ---------------------------------------------------------------------------- file tools
def test_file_tools(box: Toolbox) -> None:
    text = "".join(f"line {i}\n" for i in range(1, 11))
    assert "Wrote" in tool(box, "write_file", path="/workspace/notes/log.md", content=text)
    out = tool(box, "read_file", path="notes/log.md", offset=3, limit=2)
    assert out.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"] and "offset=5" in out
    assert "Edited" in tool(box, "edit_file", path="notes/log.md", old="line 10\n", new="line ten\n")
    tool(box, "write_file", path="twice.txt", content="ab ab\n")
    with pytest.raises(ToolError, match="occurs 2 times"):
        tool(box, "edit_file", path="twice.txt", old="ab", new="x")
    with pytest.raises(ToolError, match="does not occur"):
        tool(box, "edit_file", path="notes/log.md", old="absent", new="x")
    tool(box, "write_file", path="scripts/run.py", content="import novamind_api as nm\nprint(nm.get_status())\n")
    hits = tool(box, "search_files", pattern=r"get_\w+", glob="*.py")
    assert hits == "scripts/run.py:2: print(nm.get_status())"
    assert "notes/log.md:10: line ten" in tool(box, "search_files", pattern="ten$", path="notes")
    with pytest.raises(ToolError, match="invalid regular expression"):
        tool(box, "search_files", pattern="(unclosed")
    assert tool(box, "glob_files", pattern="**/*.py") == "scripts/run.py"
    assert tool(box, "glob_files", pattern="*") == "notes/\nscripts/\ntwice.txt"
    assert set(tool(box, "glob_files", pattern="**").splitlines()) == {
        "notes/",
        "notes/log.md",
        "scripts/",
        "scripts/run.py",
        "twice.txt",
    }
    with pytest.raises(ToolError, match="outside the workspace"):
        tool(box, "glob_files", pattern="../*")
    with pytest.raises(ToolError, match="binary"):
        (box.workspace.root / "blob.bin").write_bytes(b"\x00\x01" * 100)
        tool(box, "read_file", path="blob.bin")


def test_a_catastrophic_regex_cannot_hang_the_harness(box: Toolbox, monkeypatch: pytest.MonkeyPatch) -> None:
    from bizbench.agents.harness.terminal import tools as tools_module

    monkeypatch.setattr(tools_module, "SEARCH_TIMEOUT_S", 1.0)
    tool(box, "write_file", path="a.txt", content="a" * 40 + "!\n")
    with pytest.raises(ToolError, match="longer than 1 s"):
        tool(box, "search_files", pattern="^(a+)+$")


def test_memory_is_cut_at_40000_characters_with_a_note(box: Toolbox) -> None:
    body = "".join(f"note {i:05d} " + "x" * 40 + "\n" for i in range(1000))  # 52,000 characters
    tool(box, "write_file", path=MEMORY_FILE, content=body)
    memory = box.workspace.memory(40_000)
    assert memory.cut and memory.total_chars == len(body) == 52_000
    shown, note = memory.text[:40_000], memory.text[40_000:]
    assert shown == body[:40_000] and "note 00999" not in memory.text
    line = body[:40_000].count("\n") + 1
    assert "52,000 characters" in note and f"offset={line}" in note
    assert tool(box, "read_file", path=MEMORY_FILE, offset=line, limit=1).startswith(f"{line:>6}\tnote {line - 1:05d}")
    short = box.workspace.memory(100_000)
    assert not short.cut and short.text == body


def test_bash_output_cap_and_timeout_notes(box: Toolbox) -> None:
    seen: list[tuple[str, float, int]] = []

    def shell(ws: Path, command: str, timeout_s: float, limit: int) -> SandboxResult:
        seen.append((command, timeout_s, limit))
        if command == "slow":
            return SandboxResult(-9, "partial\n", "", timed_out=True)
        return SandboxResult(0, "x" * 50_000, "warning\n", timed_out=False)

    box.shell = shell
    out = tool(box, "bash", command="big")
    assert len(out) < 30_500 and "characters omitted" in out and "the middle was cut" in out
    assert out.endswith("[exit code 0]") and "warning" in out
    out = tool(box, "bash", command="slow", timeout_s=2)
    assert out == "partial\n[timed out after 2 s: the command was killed]"
    assert seen == [("big", 1200.0, 30_000), ("slow", 2.0, 30_000)]
    with pytest.raises(ToolError, match="timeout_s"):
        registry.validate("bash", {"command": "x", "timeout_s": 5000})


@needs_sandbox
def test_bash_runs_in_the_sandbox_with_timeout_and_cap(box: Toolbox) -> None:
    out = tool(box, "bash", command="pwd; id -un; python -c 'import bizbench' 2>&1 | tail -1")
    assert out.splitlines()[:2] == ["/workspace", "agent"] and "No module named 'bizbench'" in out
    out = tool(box, "bash", command="python -c \"print('y' * 50000)\"")
    assert len(out) < 30_500 and "the middle was cut" in out and out.endswith("[exit code 0]")
    out = tool(box, "bash", command="echo started; sleep 30", timeout_s=1)
    assert out.startswith("started") and "timed out after 1 s" in out
    pyproject = Path(bizbench.__file__).resolve().parents[2] / "pyproject.toml"  # the host's repository
    out = tool(box, "bash", command=f"cat {pyproject} ../../etc/shadow 2>&1; echo > /etc/x 2>&1")
    assert "No such file" in out and "[exit code" in out and "[project]" not in out


# ---------------------------------------------------------------------------- served episodes
def nw_code(good: bool) -> str:
    """Bash running next_week through the SDK: bad forecasts (lower > point) or good ones."""
    if good:
        body = "c = nm.get_status()['cash']\nf = {'point': c, 'lower': c - 50000, 'upper': c + 50000}"
    else:
        body = "f = {'point': 1.0, 'lower': 5.0, 'upper': 9.0}"
    keys = repr(list(HORIZONS))
    return (
        "python - <<'PY'\nimport novamind_api as nm\n"
        f"{body}\nout = nm.next_week(rationale='weekly plan', predictions={{k: f for k in {keys}}})\n"
        "print(out['dashboard'])\nPY"
    )


class WeeklyAgent:
    """Each week: write MEMORY.md, query with python, next_week with bad then good forecasts."""

    def __init__(self) -> None:
        self.starts: list[list[dict[str, Any]]] = []
        self.all: list[list[dict[str, Any]]] = []

    def __call__(self, messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
        self.all.append(list(messages))
        step = sum(m["role"] == "assistant" for m in messages)
        if step == 0:
            self.starts.append(list(messages))
            week = len(self.starts)
            memo = f"# Memory\nweek {week}: prices unchanged; MARKER-{week}\n"
            if week == 2:
                memo += "filler line\n" * 4000  # 48,000+ characters: cut next week
            return call("write_file", path="MEMORY.md", content=memo)
        if step == 1:
            code = "import json, novamind_api as nm\nprint(json.dumps(nm.get_status()))"
            return call("bash", command=f'python -c "{code}"')
        if step == 2:
            return call("bash", command=nw_code(good=False))
        # the good next_week, plus a call that must be skipped once the week has changed
        reply = call("bash", command=nw_code(good=True))
        reply["tool_calls"].append({"name": "write_file", "arguments": {"path": "late.txt", "content": "x"}})
        return reply


@needs_sandbox
def test_three_week_episode_resets_memory_commits_and_writes_the_run_directory(tmp_path: Path) -> None:
    agent = WeeklyAgent()
    out = tmp_path / "run"
    result = run_agent_episode(
        "ceo", ScriptedModel(agent), SEED, PRESET, out, harness="terminal", harness_options={"days": 21}
    )
    assert result["ended_by"] == "completed" and result["days_survived"] == 21 and result["turns"] == 3
    assert result["harness"] == "terminal" and result["model"] == "scripted"
    assert result["server_ended_by"] == "episode_end" and result["auto_advances"] == 0
    assert result["forecast_errors"]["1wk"]["scored"] == 3  # only the accepted forecasts were stored
    assert result["harness_calls"] == 0  # the observation is a GET, not a tool call
    assert result["tool_calls"] == 3 * 4  # get_status, the refused next_week, get_status and next_week
    assert result["malformed_replies"] == 0 and result["model_calls"] == 12

    # the reset: each week starts from system prompt + MEMORY.md + dashboard, nothing else
    assert len(agent.starts) == 3 and all(len(m) == 2 for m in agent.starts)
    for week, msgs in enumerate(agent.starts, start=1):
        system, user = msgs[0]["content"], msgs[1]["content"]
        assert system.startswith("# Your workspace") and "# Your role" in system
        assert f"Turn {week} begins: day {7 * (week - 1)} of 21." in user
        assert f"=== Week {week - 1} Dashboard (Day {7 * (week - 1)}) ===" in user
        assert f"MARKER-{week - 1}" in system if week > 1 else "MEMORY.md is empty" in system
        assert "Traceback" not in json.dumps(msgs) and "weekly plan" not in json.dumps(msgs)  # no old results
    assert "[MEMORY.md is 48,0" in agent.starts[2][0]["content"]  # week 2's long memo is cut in week 3
    assert len(agent.starts[2][0]["content"]) < len(agent.starts[0][0]["content"]) + 40_000 + 600
    # the refused forecast is an SDK error the agent reads; the retry goes through
    refused = agent.all[3][-1]["content"]
    assert refused.startswith("Traceback") and "NovaMindAPIError" in refused and "lower" in refused
    assert '"cash": ' in agent.all[2][-1]["content"]  # the SDK answered get_status from the sandbox

    rows = events(out)
    kinds = [r["kind"] for r in rows]
    assert kinds.count("reset") == 3 and kinds.count("advance") == 3 and kinds[-1] == "end"
    assert [r["names"] for r in rows if r["kind"] == "skipped_calls"] == [["write_file"]] * 3
    advances = [r for r in rows if r["kind"] == "advance"]
    spans = [(a["from_elapsed"], a["to_elapsed"], a["auto"]) for a in advances]
    assert spans == [(0, 7, False), (7, 14, False), (14, 21, False)]
    # git: one commit at day 0 and one per week, in the run's workspace.bundle
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(out / "workspace.bundle"), str(clone)], check=True, env=_git_env())
    log = subprocess.run(
        ["git", "-C", str(clone), "log", "--format=%H %an <%ae> %s"], capture_output=True, text=True, env=_git_env()
    ).stdout.splitlines()
    start = next(r for r in rows if r["kind"] == "workspace")
    assert [line.split()[0] for line in log] == [a["commit"] for a in reversed(advances)] + [start["commit"]]
    assert all("bizbench-harness <harness@bizbench.invalid>" in line for line in log)
    assert "MARKER-3" in (clone / MEMORY_FILE).read_text() and not (clone / ".novamind").exists()
    assert not (clone / "late.txt").exists()
    assert not Path(start["workspace"]).exists()  # removed once its history was saved

    for name in ("trajectory.jsonl", "system_prompt.txt", "tools.json", "result.json", "config.json", "company.db"):
        assert (out / name).exists(), name
    assert (out / "system_prompt.txt").read_text() == TerminalHarness().system_prompt(
        ServedSeat(get_env("ceo"), SEED, PRESET, horizon=21)
    )
    assert [t["name"] for t in json.loads((out / "tools.json").read_text())] == registry.names()
    config = json.loads((out / "config.json").read_text())
    assert config["harness"] == "terminal" and config["model"] == "scripted" and config["horizon"] == 21
    on_disk = json.loads((out / "result.json").read_text())
    assert on_disk["final_cash"] == result["final_cash"] and on_disk["ended_by"] == "completed"
    assert "stopped (episode_end)" in (out / "serve.log").read_text()
    assert str(SEED) not in json.dumps([m for msgs in agent.all for m in msgs])


def _git_env() -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def run_seat(
    model: Any, days: int = 14, limits: Limits | None = None, **options: Any
) -> tuple[ServedSeat, AgentRun, str]:
    """The harness on a live served seat without a run directory; the server is always stopped."""
    harness = TerminalHarness(days=days, **options)
    seat = harness.open_env("ceo", SEED, PRESET)
    run = AgentRun(ScriptedModel(model), Trajectory(None), limits or Limits())
    try:
        ended = harness.run(seat, run)
    finally:
        seat.stop()
    return seat, run, ended


def test_malformed_replies_get_feedback_count_toward_the_cap_and_auto_advance() -> None:
    replies = [
        {"content": "Let me think about pricing first."},  # no tool call
        call("open_browser", url="x"),  # unknown tool
        {"content": "", "tool_calls": [{"name": "bash", "arguments": '{"command": "ls"'}]},  # not JSON
        call("read_file"),  # missing argument
        call("read_file", path="docs/tools.md", limit="ten"),  # wrong type
    ]
    seen: list[list[dict[str, Any]]] = []

    def model(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
        seen.append(list(messages))
        return replies[sum(m["role"] == "assistant" for m in messages) % len(replies)]

    seat, run, ended = run_seat(model, days=14, max_calls_per_week=5)
    assert ended == "completed" and run.meter.turns == 2
    assert run.meter.malformed == 10 and run.meter.env_calls == 0
    kinds = [e["kind"] for e in run.trajectory.events]
    assert kinds.count("auto_advance") == 2 and kinds.count("feedback") == 10
    feedback = [e["message"] for e in run.trajectory.events if e["kind"] == "feedback"][:5]
    assert "no tool call" in feedback[0] and "Unknown tool: open_browser" in feedback[1]
    assert "not a JSON object" in feedback[2] and "path" in feedback[3] and "limit" in feedback[4]
    answers = [m["content"] for m in seen[4][2:] if m["role"] in ("tool", "user")]
    assert len(answers) == 4 and all(a.startswith(("Error:", "Your reply had no tool call")) for a in answers)
    assert "ended by the harness after 5 tool calls" in seen[5][1]["content"]  # week 2 is told why
    result = seat.result(agent="scripted", ended_by=ended)
    assert result["auto_advances"] == 2 and result["harness_calls"] == 2 and result["tool_calls"] == 0
    assert all(v["scored"] == 0 for v in result["forecast_errors"].values())  # no forecast was recorded


def test_limits_end_the_run_cleanly() -> None:
    usage = {"input_tokens": 600, "output_tokens": 100}
    seat, run, ended = run_seat(
        lambda m, t: {**call("glob_files", pattern="docs/*"), "usage": usage}, limits=Limits(max_tokens=2000)
    )
    assert ended == "max_tokens" and run.meter.model_calls == 3 and run.meter.env_calls == 3
    assert seat.result(ended_by=ended)["server_ended_by"] == "signal"
    seat, run, ended = run_seat(lambda m, t: {"content": "thinking"}, max_calls_per_week=2, limits=Limits(max_turns=1))
    assert ended == "max_turns" and run.meter.turns == 1 and run.meter.malformed == 2
    assert seat.result(ended_by=ended)["days_survived"] == 7


def test_a_dead_server_ends_the_run_with_server_error() -> None:
    def model(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
        assert seat.proc is not None
        seat.proc.send_signal(signal.SIGKILL)
        seat.proc.wait()
        return call("write_file", path="notes.md", content="x")

    harness = TerminalHarness(days=14, max_calls_per_week=2)
    seat = harness.open_env("ceo", SEED, PRESET)
    run = AgentRun(ScriptedModel(model), Trajectory(None))
    try:
        assert harness.run(seat, run) == "server_error"
    finally:
        seat.close()
    assert [e for e in run.trajectory.events if e["kind"] == "server_error"]
    result = seat.result(ended_by="server_error")
    assert result["server_ended_by"] == "server_error" and result["survived"] == 0


def test_open_env_and_workspace_paths() -> None:
    harness = TerminalHarness(days=14)
    seat = harness.open_env("ceo", SEED, None)
    try:
        assert seat.preset == "default" and seat.config.horizon_days == 14 and len(seat.preset_hash) == 64
        assert str(SEED) not in str(seat.workspace.root) and seat.workspace.root.is_dir()
    finally:
        seat.close()
    assert not seat.workspace.root.exists()
    with pytest.raises(ValueError, match="counts months: use horizon"):
        harness.open_env("cfo", 1, None)  # days is for envs counted in days
    with pytest.raises(ValueError, match="disagree"):
        harness.open_env("ceo", 1, None, horizon=7)
    seat = TerminalHarness().open_env("cfo", SEED, None, horizon=3)
    assert (
        seat.horizon_value == 3 and seat.unit == "month" and "bizbench cfo --session /workspace" in seat.instructions()
    )
    with pytest.raises(ValueError, match="contains the seed"):
        ServedSeat(get_env("ceo"), SEED, PRESET, workspace=Path(f"/tmp/ws-{SEED}"))


def test_git_commits_with_its_own_identity_and_ignores_planted_repositories(box: Toolbox, tmp_path: Path) -> None:
    ws = box.workspace
    ws.git_init()
    marker = tmp_path / "pwned"
    nested = ws.root / "sub"
    env = _git_env()
    subprocess.run(["git", "init", "-q", str(nested)], check=True, env=env)
    hook = ["git", "-C", str(nested), "config", "core.fsmonitor", f"touch {marker}; false"]
    subprocess.run(hook, check=True, env=env)
    (ws.root / ".gitattributes").write_text("* filter=evil\n")
    (nested / "f").write_text("a\n")
    first = ws.commit("day 0: start", 0)
    (nested / "f").write_text("b\n")
    tool(box, "write_file", path="MEMORY.md", content="m\n")
    second = ws.commit("day 7: end of week 1", 7)
    assert first != second and ws.log() == ["day 7: end of week 1", "day 0: start"]
    assert not marker.exists()
    shown = subprocess.run(
        ["git", "-C", str(ws.root), "log", "-1", "--format=%an <%ae> %ad", "--date=iso"],
        capture_output=True,
        text=True,
        env={**env, "GIT_CONFIG_PARAMETERS": f"'safe.directory'='{ws.real_root}'"},
    ).stdout.strip()
    assert shown == "bizbench-harness <harness@bizbench.invalid> 2025-01-08 00:00:00 +0000"
    assert ws.bundle(tmp_path / "ws.bundle") and (tmp_path / "ws.bundle").stat().st_size > 0


@needs_sandbox
def test_a_killed_terminal_run_resumes_to_the_same_result(tmp_path: Path) -> None:
    """A run cut short in its second week is re-executed: a fresh seat and workspace, the recorded
    replies first (the sandboxed commands run again), then the live model."""
    from bizbench.core.jsonio import read_jsonl
    from bizbench.runner.resume import resume_run

    done = tmp_path / "done"
    run_agent_episode(
        "ceo", ScriptedModel(WeeklyAgent()), SEED, PRESET, done, harness="terminal", harness_options={"days": 14}
    )
    killed = tmp_path / "killed"
    shutil.copytree(done, killed)
    (killed / "result.json").unlink()
    lines = (killed / "trajectory.jsonl").read_text().splitlines(keepends=True)
    second_week = next(i for i, line in enumerate(lines) if '"kind": "reset"' in line and '"elapsed": 7' in line)
    (killed / "trajectory.jsonl").write_text("".join(lines[: second_week + 3]))
    result = resume_run(killed, model=ScriptedModel(WeeklyAgent()))
    expected = json.loads((done / "result.json").read_text())
    for key in ("final_cash", "days_survived", "forecast_errors", "tool_calls", "model_calls", "turns", "ended_by"):
        assert result[key] == expected[key], key
    assert read_jsonl(killed / "resume.jsonl")[0]["replies_reused"] >= 4


# ---------------------------------------------------------------------------- any env with a seat
SHELL_TURN_END = {"cfo": "bizbench cfo --session /workspace pass", "yc": "bizbench yc --session /workspace sim resume"}


@needs_sandbox
@pytest.mark.parametrize("env_id", ["yc", "cfo"])
def test_the_terminal_harness_plays_yc_and_cfo(env_id: str, tmp_path: Path) -> None:
    """Three turns through the env's shell client from the sandbox; the record replays."""
    from bizbench.runner.replay import replay_run

    reply = call("bash", command=SHELL_TURN_END[env_id])
    seen: list[list[dict[str, Any]]] = []

    def model(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
        seen.append(list(messages))
        return reply

    out = tmp_path / "run"
    result = run_agent_episode(
        env_id, ScriptedModel(model), SEED, None, out, "terminal", Limits(max_turns=3), horizon=3
    )
    assert result["ended_by"] == "completed" and result["survived"] == 3 and result["turns"] == 3
    assert result["env"] == env_id and result["harness"] == "terminal" and result["auto_advances"] == 0
    assert result["server_ended_by"] == "episode_end" and result["harness_calls"] == 0
    for name in ("trajectory.jsonl", "system_prompt.txt", "tools.json", "result.json", "config.json", "actions.jsonl"):
        assert (out / name).exists(), name
    assert not (out / "control.token").exists()  # removed with the server
    config = json.loads((out / "config.json").read_text())
    assert config["env"] == env_id and config["horizon"] == 3 and config["harness"] == "terminal"
    prompt = (out / "system_prompt.txt").read_text()
    assert prompt.startswith("# Your workspace") and SHELL_TURN_END[env_id].rsplit(" ", 1)[0] in prompt
    # each turn starts afresh with the observation (a GET, not a tool call)
    assert len(seen) == 3 and all(len(m) == 2 for m in seen)
    assert [m[1]["content"].splitlines()[0] for m in seen] == [
        f"Turn {t} begins: {get_env(env_id).unit} {t - 1} of 3." for t in (1, 2, 3)
    ]
    rows = events(out)
    assert [r["kind"] for r in rows].count("reset") == 3
    assert [(a["from_elapsed"], a["to_elapsed"]) for a in rows if a["kind"] == "advance"] == [(0, 1), (1, 2), (2, 3)]
    assert all(r["observation"] for r in rows if r["kind"] == "reset")
    assert replay_run(out).ok


@needs_sandbox
def test_only_the_host_can_advance(tmp_path: Path) -> None:
    """POST /advance needs the control token in the run directory: the agent's attempt from the
    sandbox (without it, or with a guess) gets 403 and a tamper entry, and the month stays."""
    probe = (
        "python - <<'PY'\nimport os, socket\n"
        "for extra in (b'', b'X-Bizbench-Control: guess\\r\\n'):\n"
        "    s = socket.socket(socket.AF_UNIX); s.connect(os.environ['ENTERPRISE_API_SOCKET'])\n"
        "    s.sendall(b'POST /advance HTTP/1.0\\r\\nContent-Length: 2\\r\\n' + extra + b'\\r\\n{}')\n"
        "    print(s.recv(65536).decode().split()[1])\n"
        "print(sorted(os.listdir('/workspace')))\nPY"
    )
    replies = [call("bash", command=probe), call("bash", command=SHELL_TURN_END["cfo"])]
    out = tmp_path / "run"
    result = run_agent_episode(
        "cfo", ScriptedModel(replies), SEED, None, out, "terminal", Limits(max_turns=1), horizon=3
    )
    assert result["ended_by"] == "max_turns" and result["survived"] == 1
    said = next(r for r in events(out) if r["kind"] == "tool_call")["result"]
    assert said.splitlines()[:2] == ["403", "403"] and "control.token" not in said
    tamper = [json.loads(line) for line in (out / "tamper.jsonl").read_text().splitlines()]
    assert [t["kind"] for t in tamper] == ["control_refused", "control_refused"]
    actions = [json.loads(line) for line in (out / "actions.jsonl").read_text().splitlines()]
    assert [a["tool"] for a in actions] == ["pass"]  # only the agent's own turn end


def test_the_harness_auto_advances_any_env_through_the_host_endpoint() -> None:
    """Without the sandbox: at the call cap the harness ends cfo's month (its default: pass)."""
    harness = TerminalHarness(max_calls_per_week=1)
    seat = harness.open_env("cfo", SEED, None, horizon=2)
    run = AgentRun(ScriptedModel(lambda m, t: call("glob_files", pattern="docs/*")), Trajectory(None))
    try:
        assert harness.run(seat, run) == "completed"
    finally:
        seat.stop()
    assert [e["kind"] for e in run.trajectory.events].count("auto_advance") == 2
    result = seat.result(ended_by="completed")
    assert result["auto_advances"] == 2 and result["harness_calls"] == 2 and result["tool_calls"] == 0
    assert result["survived"] == 2


def test_observations_are_rendered_readably() -> None:
    text = render_observation({"day": 7, "cash": 1.5, "dashboard": "=== Week 1 ===\nline two\n"})
    assert text == '{\n "day": 7,\n "cash": 1.5\n}\n\n=== Week 1 ===\nline two'
    assert render_observation({"month": 2}) == '{\n "month": 2\n}'
