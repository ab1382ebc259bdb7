"""A recorded scripted run, replayed through the CLI, ends with the identical result.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bizbench.cli import app

REPLIES = [
    {"content": '{"type": "tool", "name": "check_cash_in_bank", "params": {}}', "usage": {"input_tokens": 900}},
    {"content": 'x {"type": "memory", "operation": "save_note", "content": "cash ok", "tags": ["cash"]}'},
    {"content": "no block"},
    {
        "content": '```json\n{"type": "action", "name": "book_closing", "params": {}}\n```',
        "usage": {"output_tokens": 40},
    },
]


def result(path: Path) -> dict[str, object]:
    data = json.loads((path / "result.json").read_text())
    for volatile in ("wall_seconds", "provenance"):
        data.pop(volatile)
    return data


@pytest.mark.parametrize("env", ["cfo", "yc"])
def test_scripted_run_replays_to_the_same_result(env: str, tmp_path: Path) -> None:
    script = tmp_path / "replies.jsonl"
    if env == "yc":
        lines = [
            {
                "content": "",
                "tool_calls": [{"name": "run_command", "arguments": {"command": "market browse --limit 3"}}],
            },
            {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": "sim resume"}}]},
        ]
    else:
        lines = REPLIES
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    runner = CliRunner()
    first = runner.invoke(
        app, ["run", env, "--model", f"scripted:{script}", "--max-turns", "6", "--out", str(tmp_path / "a")]
    )
    assert first.exit_code == 0, first.output
    again = runner.invoke(
        app, ["run", env, "--model", f"replay:{tmp_path / 'a'}", "--max-turns", "6", "--out", str(tmp_path / "b")]
    )
    assert again.exit_code == 0, again.output
    assert result(tmp_path / "a") == result(tmp_path / "b")
    recorded = result(tmp_path / "a")
    assert recorded["model"] == f"scripted:{script.name}" and recorded["ended_by"] in ("max_turns", "bankrupt")


def test_unknown_model_string_is_a_clear_error(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["run", "cfo", "--model", "nosuchprovider/x", "--out", str(tmp_path / "r")])
    assert r.exit_code == 2 and "nosuchprovider" in r.output
