"""The trajectory viewer's data model and page (the browser tests are in test_viewer_browser.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from bizbench.cli_view import view
from bizbench.report.viewer import ViewerError, build_page, load_run, write_viewer

from .viewer_runs import XSS, recorded_runs


@pytest.fixture(scope="module")
def runs() -> dict[str, Path]:
    return recorded_runs()


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def page_data(html: str) -> dict[str, Any]:
    block = re.search(r'<script type="application/json" id="bizbench-data">(.*?)</script>', html, re.S)
    assert block is not None
    return json.loads(block.group(1))


def all_actions(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for p in data["periods"] for a in p["actions"]]


def test_baselines_are_cut_into_their_envs_periods(runs: dict[str, Path]) -> None:
    ceo, yc, cfo = (load_run(runs[name]) for name in ("ceo", "yc", "cfo"))
    assert (ceo["unit"], yc["unit"], cfo["unit"]) == ("week", "turn", "month")
    assert [p["label"] for p in ceo["periods"]] == [f"Week {w + 1} (days {7 * w}–{7 * w + 7})" for w in range(4)]
    assert len(cfo["periods"]) == 132 and cfo["periods"][5]["label"] == "Month 5"
    assert len(yc["periods"]) == len(lines(runs["yc"] / "metrics.jsonl"))  # a turn ends with its sim resume
    for data, name in ((ceo, "ceo"), (yc, "yc"), (cfo, "cfo")):
        rows = lines(runs[name] / "actions.jsonl")
        assert [a["name"] for a in all_actions(data)] == [r["tool"] for r in rows]  # every action, in order
        assert not data["model_run"] and data["memory"] is None
        assert len(data["charts"][0]["series"][0]) == len(lines(runs[name] / "metrics.jsonl"))
    # the ceo week: its actions are those of its days, its metrics those of its last day
    assert {a["at"] for a in ceo["periods"][1]["actions"]} == {7}
    assert ceo["periods"][1]["metrics"]["day"] == 14
    assert ceo["charts"][1]["names"] and ceo["charts"][1]["id"] == "customers"
    assert {a["at"] for a in cfo["periods"][3]["actions"]} == {3} and cfo["periods"][3]["metrics"]["month"] == 3
    assert yc["periods"][0]["actions"][-1]["name"] == "sim_resume"


def memory_texts(data: dict[str, Any]) -> list[str]:
    """The memory snapshots rebuilt from their deltas, as the page's memoryText does."""
    texts: list[str] = []
    for d in data["memory"]:
        prev = texts[-1] if texts else ""
        texts.append(prev[: d["pre"]] + d["mid"] + prev[len(prev) - d["suf"] :])
    return texts


def test_memory_grows_with_the_notes_not_their_square(tmp_path: Path) -> None:
    """132 months of one 1,500-character note each: the page holds each note about once."""
    from bizbench.agents.models.scripted import ScriptedModel
    from bizbench.runner.agent_episode import run_agent_episode

    def month(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
        if sum(m["role"] == "assistant" for m in messages) == 0:
            note = {"type": "memory", "operation": "save_note", "content": "n" * 1500, "tags": ["m"]}
            return {"content": json.dumps(note)}
        return {"content": json.dumps({"type": "action", "name": "pass", "params": {}})}

    run_agent_episode("cfo", ScriptedModel(month), 1, "paper", tmp_path / "run")
    data = load_run(tmp_path / "run")
    stored = sum(len(d["mid"]) for d in data["memory"])
    notes = 1500 * sum(1 for p in data["periods"] if p["actions"] and p["actions"][0]["name"] == "save_note")
    assert notes > 1500 * 20 and stored < 1.3 * notes
    texts = memory_texts(data)
    assert texts[data["periods"][-1]["memory"]].count("n" * 1500) == notes // 1500  # the whole notepad, rebuilt


def test_model_runs_show_replies_tool_results_and_memory_as_it_was(runs: dict[str, Path]) -> None:
    cfo = load_run(runs["cfo_model"])
    assert cfo["model_run"] and len(cfo["periods"]) == 5  # 4 months, and the 5th's observation before the stop
    month = cfo["periods"][2]
    replies = [m for m in month["messages"] if m["kind"] == "model_call"]
    assert len(replies) == 3 and "Planning month 2" in replies[0]["text"]
    assert [m["kind"] for m in month["messages"]][0] == "observation"
    assert [a["name"] for a in month["actions"]] == ["save_note", "check_cash_in_bank", "book_closing"]
    assert all("result" in a for a in month["actions"])  # trajectory calls carry their results
    notes = [memory_texts(cfo)[p["memory"]] for p in cfo["periods"]]
    assert [n.count("(month ") for n in notes] == [1, 2, 3, 4, 4]  # the notepad replayed month by month
    assert [m["kind"] for m in cfo["periods"][4]["messages"]] == ["observation", "end"]
    assert notes[2].index("month 2 ") < notes[2].index("month 0 ")  # newest first

    yc = load_run(runs["yc_model"])
    pads = [memory_texts(yc)[p["memory"]] for p in yc["periods"]]
    assert [pad.count(XSS) for pad in pads] == [1, 2, 3, 4, 4]  # turn 5 began, then max_turns stopped the run
    assert all("turn 0" in pad for pad in pads)


def test_ceo_terminal_weeks_rationales_and_memory(runs: dict[str, Path]) -> None:
    data = load_run(runs["ceo_model"])
    assert len(data["periods"]) == 3
    for week, period in enumerate(data["periods"]):
        env_calls = [a for a in period["actions"] if a["src"] == "env"]
        tools = [a for a in period["actions"] if a["src"] == "tool"]
        # the accepted next_week is logged with the next week's day and still belongs to its own week
        expected = [("get_status", True), ("next_week", False), ("next_week", True)]
        assert [(a["name"], a["ok"]) for a in env_calls] == expected
        assert [t["name"] for t in tools] == ["write_file"]
        rationales = [m["text"] for m in period["messages"] if m["kind"] == "rationale"]
        assert rationales == [f"plan of week {week + 1}"]
        memory = memory_texts(data)[period["memory"]]
        assert memory == ("" if week == 0 else f"# Memory\nMARKER-{week}\n")  # as shown at the week's start
    assert "end" in [m["kind"] for m in data["periods"][2]["messages"]]
    assert XSS in data["system_prompt"]


def test_texts_are_cut_with_a_marker_and_counted(runs: dict[str, Path]) -> None:
    data = load_run(runs["cfo_model"], text_cap=100)
    assert data["truncated"] > 0
    observation = next(m for m in data["periods"][0]["messages"] if m["kind"] == "observation")
    assert observation["text"].startswith(json.dumps({"current_month": 0})[:-1])
    assert "… [truncated: " in observation["text"] and len(observation["text"]) < 200
    with pytest.raises(ViewerError, match="at least 100"):
        load_run(runs["cfo_model"], text_cap=10)


def test_page_inlines_escaped_data_and_loads_nothing(runs: dict[str, Path], tmp_path: Path) -> None:
    index = write_viewer([runs["cfo_model"]], tmp_path / "out")
    html = index.read_text()
    block = html.split('id="bizbench-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in block and ">" not in block and "&" not in block  # no agent text can close the block
    assert "<img" not in html
    data = page_data(html)
    assert XSS in json.dumps(data, ensure_ascii=False) or XSS in str(data)
    assert data["runs"][0]["label"] == "cfo / paper / scripted / seed 1"
    # nothing to fetch: no src/href/url() outside the data, and the CSP forbids any request
    page = html.replace(block, "")
    assert not re.search(r"""\b(src|href)\s*=\s*["']|url\(|@import|<link|<iframe|<object""", page)
    assert "default-src 'none'" in html


def test_compare_runs_of_one_env_only(runs: dict[str, Path], tmp_path: Path) -> None:
    html = write_viewer([runs["yc"], runs["yc_model"]], tmp_path / "cmp").read_text()
    assert [r["dir"] for r in page_data(html)["runs"]] == ["yc", "yc_model"]
    same = build_page([load_run(runs["cfo"]), load_run(runs["cfo"])])
    assert [r["label"] for r in page_data(same)["runs"]] == ["cfo / paper / prudent-cfo / seed 1 (cfo)"] * 2
    with pytest.raises(ViewerError, match="different envs"):
        write_viewer([runs["yc"], runs["cfo"]], tmp_path / "mixed")


def test_a_run_cut_short_still_shows(runs: dict[str, Path], tmp_path: Path) -> None:
    cut = tmp_path / "cut"
    cut.mkdir()
    for name in ("config.json", "actions.jsonl", "metrics.jsonl"):
        (cut / name).write_bytes((runs["cfo"] / name).read_bytes())
    with (cut / "metrics.jsonl").open("a") as f:
        f.write('{"month": 132, "cash": 1')  # a line cut by a kill
    data = load_run(cut)
    assert len(data["periods"]) == 132 and any("no result.json" in n for n in data["notes"])


def cli() -> typer.Typer:
    app = typer.Typer()
    app.command("view")(view)
    app.command("noop")(lambda: None)  # two commands, so `view` is a subcommand as in bizbench
    return app


def test_cli(runs: dict[str, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(cli(), ["view", str(runs["ceo"]), str(runs["ceo_model"]), "-o", str(tmp_path / "v")])
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "v" / "index.html").is_file() and "index.html" in ok.output
    for bad, why in ((tmp_path / "missing", "not a directory"), (tmp_path, "not a run directory (no config.json)")):
        result = runner.invoke(cli(), ["view", str(bad), "-o", str(tmp_path / "w")])
        assert result.exit_code == 2 and f"{bad}: {why}" in result.output
    mixed = runner.invoke(cli(), ["view", str(runs["yc"]), str(runs["cfo"]), "-o", str(tmp_path / "w")])
    assert mixed.exit_code == 2 and "different envs" in mixed.output


@pytest.mark.slow
def test_a_500_day_ceo_baseline_page_stays_small(tmp_path: Path) -> None:
    from bizbench.runner.episode import run_baseline

    run_baseline("ceo", "rule-based", 42, out=tmp_path / "run", world_options={"database": False})
    index = write_viewer([tmp_path / "run"], tmp_path / "view")
    data = page_data(index.read_text())["runs"][0]
    assert len(data["periods"]) == 72 and data["truncated"] == 0
    assert index.stat().st_size < 600_000  # about 205 KB


def test_odd_records_never_break_the_page(tmp_path: Path) -> None:
    """Bounded previews of pathological events (reprs instead of objects), junk lines and wrong types."""
    run = tmp_path / "odd"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"env": "yc", "config": ["not", "a", "dict"]}))
    events = [
        {"i": 0, "kind": "turn", "turn": 1, "observation": "{'time': ...}"},
        {
            "i": 1,
            "kind": "model_call",
            "content": "x" * 10,
            "tool_calls": "[{'name': 'run_command', ...}]",
            "tokens": "{...}",
            "cost_usd": "nan",
            "turn": 1,
        },
        {
            "i": 2,
            "kind": "model_call",
            "content": None,
            "tool_calls": [1, {"name": "n"}],
            "tokens": {"input_tokens": "?"},
        },
        {"i": 3, "kind": "tool_call", "name": None, "arguments": "'{'", "ok": False, "result": ["e"], "turn": "two"},
        {"i": 4, "kind": "tool_call", "name": "scratchpad_write", "arguments": {"content": 5}, "ok": True},
        {"i": 5, "kind": "mystery", "payload": {"deep": [1, 2]}},
    ]
    (run / "trajectory.jsonl").write_text("\n".join(map(json.dumps, events)) + "\nnot json\n[1, 2]\n")
    (run / "metrics.jsonl").write_text('{"turn": "1"}\n{"turn": 1, "funds_cents": "lots", "open_tasks": [1]}\n')
    (run / "actions.jsonl").write_text('{"tool": 3}\n')
    data = load_run(run)
    period = data["periods"][0]
    assert [m["kind"] for m in period["messages"]] == ["observation", "model_call", "model_call", "event: mystery"]
    assert period["messages"][1]["meta"] == "0 in / 0 out tokens"
    assert [a["name"] for a in period["actions"]] == ["None", "scratchpad_write"]
    assert period["metrics"]["open_tasks"] == "[1]" and data["charts"][0]["series"] == [[]]
    assert data["memory"] is None  # content 5 is no scratchpad text
    assert "index.html" in str(write_viewer([run], tmp_path / "v"))


def test_a_cfo_month_shows_its_raise_the_outcome_and_the_debt(tmp_path: Path) -> None:
    from bizbench.runner.episode import run_baseline

    run_baseline("cfo", "one-raise", 3, None, 8, tmp_path / "run")
    data = load_run(tmp_path / "run")
    first = data["periods"][0]["metrics"]
    assert first["raise_requested"] == "equity $20.0M" and "debt" in first
    settled = [p["metrics"]["raise_settled"] for p in data["periods"] if p["metrics"]["raise_settled"]]
    assert len(settled) == 1 and settled[0].startswith("equity $20.0M asked in month 0: ")
    assert {"raise_requested", "raise_settled", "debt"} <= set(data["key_metrics"])
    cash = data["charts"][0]
    marks = {m[0]: m[2] for m in cash["markers"]}
    assert marks[0] == "asked: equity $20.0M" and any(m.startswith("settled: equity $20.0M") for m in marks.values())
    assert all([x, y] in cash["series"][0] for x, y, _ in cash["markers"])  # each mark sits on the cash line


def test_a_long_agent_name_wraps_inside_its_column() -> None:
    """The run titles above the month columns (the agent's or model's name) wrap instead of
    widening their column."""
    from importlib import resources

    css = resources.files("bizbench.report").joinpath("viewer_template.html").read_text()
    h2 = re.search(r"^h2 \{([^}]*)\}", css, re.M)
    assert h2 is not None and "overflow-wrap: anywhere" in h2.group(1) and "min-width: 0" in h2.group(1)
