"""The report and the viewer read every run format and any registered env: format-1 runs (before
the Env contract) still load and report; an env without a report or viewer module of its own
is reported from the common result core and viewed with the defaults; an env not registered
here is a clear note, never a crash."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bizbench.core.env import EnvSpec
from bizbench.core.envs import get_env, register, unregister
from bizbench.core.runs import load_run
from bizbench.report import protocol
from bizbench.report.build import build_report
from bizbench.report.viewer import ViewerError, write_viewer
from bizbench.report.viewer import load_run as view_run

#: what run format 2 added to config.json and to result.json (the common core)
FORMAT_2_CONFIG = ("run_format", "horizon", "unit", "world_options")
FORMAT_2_RESULT = ("completed", "survived", "survived_fraction", "horizon", "unit", "tokens", "cost_usd")


def as_format_1(source: Path, target: Path) -> Path:
    """A copy of a run directory as run format 1 wrote it: no horizon or unit in config.json, no
    common core in result.json (ceo and yc had no ``score``, yc no ``final_cash``)."""
    shutil.copytree(source, target)
    config = json.loads((target / "config.json").read_text())
    result = json.loads((target / "result.json").read_text())
    for key in FORMAT_2_CONFIG:
        config.pop(key, None)
    for key in FORMAT_2_RESULT:
        result.pop(key, None)
    if config["env"] in ("ceo", "yc"):
        del result["score"]
    if config["env"] == "yc":
        del result["final_cash"]
    (target / "config.json").write_text(json.dumps(config))
    (target / "result.json").write_text(json.dumps(result))
    return target


def test_a_format_1_run_still_loads_reports_and_views(runs: dict[str, Path], tmp_path: Path) -> None:
    old = tmp_path / "old"
    names = {"ceo": "ceo-rule-based-42", "yc": "yc-heuristic-1", "cfo": "cfo-prudent-1"}
    paths = {env: as_format_1(runs[name], old / name) for env, name in names.items()}
    for env, path in paths.items():
        run = load_run(path)
        spec = get_env(env)
        assert run.run_format == 1 and "horizon" not in run.config and "survived" not in run.result
        assert run.unit == spec.unit and run.horizon == spec.horizon_of(run.inner_config)
    ceo, yc = load_run(paths["ceo"]), load_run(paths["yc"])
    assert ceo.horizon == 21 and ceo.group_key == ("ceo", "default (21 days)", "rule-based")
    assert yc.group_key == ("yc", "default", "heuristic")  # the preset's own horizon: not qualified
    # the headline score falls back to the field format 1 kept it in
    assert protocol.score(ceo) == ceo.get("final_cash") and protocol.score(yc) == yc.get("final_funds")

    report = build_report([old], tmp_path / "out", tmp_path / "anchors.json", make_plots=False)
    assert len(report.measured) == 3 and not [n for n in report.notes if "malformed" in n]
    by_env = {m.run.env: m for m in report.measured}
    assert by_env["yc"].metrics["score"] == yc.get("final_funds")
    assert by_env["yc"].metrics["normalised"] == pytest.approx(1.0)  # heuristic is yc's one anchor
    assert by_env["ceo"].anchors.zero is not None  # the do-nothing baseline replayed the recorded world
    assert "YC-Bench results and Table 3" in (tmp_path / "out" / "report.md").read_text()

    data = view_run(paths["ceo"])
    assert [p["label"] for p in data["periods"]] == [f"Week {w + 1} (days {7 * w}–{7 * w + 7})" for w in range(3)]
    assert "index.html" in str(write_viewer([paths["yc"]], tmp_path / "view"))


LEMONADE = EnvSpec(
    id="lemonade",
    title="Lemonade stand",
    description="Sell lemonade for three turns",
    package="lemonade_stand",
    env="lemonade_stand.env:Stand",
    config="lemonade_stand.config:Config",
    unit="turn",
    horizon_key=("turns",),
    baselines="lemonade_stand.baselines:TABLE",
    default_baseline="sell",
    harness="react-json",
)


@pytest.fixture
def lemonade() -> Iterator[EnvSpec]:
    register(LEMONADE)
    try:
        yield LEMONADE
    finally:
        unregister(LEMONADE.id)


def write_run(path: Path, env: str, final_cash: float) -> Path:
    """A finished run directory of run format 2, written by hand: three turns of selling."""
    path.mkdir(parents=True)
    config = {"run_format": 2, "env": env, "preset": "default", "seed": 1, "agent": "stand"}
    config.update({"horizon": 3, "unit": "turn", "config": {"turns": 3}})
    (path / "config.json").write_text(json.dumps(config))
    rows: dict[str, list[dict[str, Any]]] = {
        "metrics": [{"turn": t, "cash": 10.0 + 5 * t, "cups": 5 * t} for t in range(3)],
        "actions": [{"turn": t, "tool": "sell", "args": {"cups": 5}, "ok": True, "error": None} for t in range(3)],
    }
    for name, lines in rows.items():
        (path / f"{name}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in lines))
    core = {"env": env, "preset": "default", "seed": 1, "final_cash": final_cash, "bankrupt": False}
    core.update({"completed": True, "survived": 3, "survived_fraction": 1.0, "score": final_cash, "horizon": 3})
    core.update({"unit": "turn", "tool_calls": 3, "tokens": None, "cost_usd": 0.0, "ended_by": "completed"})
    (path / "result.json").write_text(json.dumps(core))
    return path


def test_an_env_without_a_report_module_is_a_note_and_its_common_fields(lemonade: EnvSpec, tmp_path: Path) -> None:
    write_run(tmp_path / "runs" / "stand", "lemonade", 25.0)
    write_run(tmp_path / "runs" / "stranger", "no-such-env", 1.0)
    report = build_report([tmp_path / "runs"], tmp_path / "out", tmp_path / "anchors.json")
    notes = "\n".join(report.notes)
    assert "env 'lemonade' has no report module" in notes
    assert "unknown env 'no-such-env'" in notes and "stranger" in notes  # left out, named, no crash
    assert [m.run.env for m in report.measured] == ["lemonade"]
    measured = report.measured[0]
    assert measured.metrics["score"] == 25.0 and measured.metrics["survived_pct"] == 100.0
    assert measured.metrics["normalised"] is None and "names no anchors" in measured.anchors.note
    assert [heading for heading, _, _ in report.sections] == ["lemonade: Lemonade stand"]
    assert (tmp_path / "out" / "lemonade_results.csv").is_file() and (tmp_path / "out" / "lemonade_runs.csv").is_file()


def test_an_env_without_a_viewer_module_is_shown_with_the_defaults(lemonade: EnvSpec, tmp_path: Path) -> None:
    data = view_run(write_run(tmp_path / "stand", "lemonade", 25.0))
    assert data["unit"] == "turn" and [p["label"] for p in data["periods"]] == ["Turn 0", "Turn 1", "Turn 2"]
    assert data["charts"][0]["series"] == [[[0.0, 10.0], [1.0, 15.0], [2.0, 20.0]]]
    assert [[a["name"] for a in p["actions"]] for p in data["periods"]] == [["sell"]] * 3
    assert data["memory"] is None and data["result"]["score"] == 25.0
    with pytest.raises(ViewerError, match="no-such-env"):
        view_run(write_run(tmp_path / "stranger", "no-such-env", 1.0))
