"""Aggregation, the normalisation protocol and the ``bizbench report`` command."""

from __future__ import annotations

import csv
import json
import math
import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from bizbench.cli_report import report
from bizbench.core.runs import RunDirError, find_runs, load_run
from bizbench.envs.cfo.report import HUMAN_SCORE
from bizbench.report import protocol
from bizbench.report.aggregate import Column, Summary, aggregate, group_runs, summarise, t_quantile
from bizbench.report.build import build_report
from bizbench.runner.episode import run_baseline
from bizbench.runner.replay import replay_run, save_verdict

app = typer.Typer()
app.command("report")(report)


@app.command("noop")
def _unused() -> None:  # a second command keeps typer from flattening the app into one command
    pass


# ---------------------------------------------------------------------------- aggregation
@pytest.mark.parametrize(("df", "table"), [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (30, 2.0423)])
def test_t_quantile_matches_printed_tables(df: int, table: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(table, abs=1e-4)


def test_t_quantile_at_the_edges_of_its_domain() -> None:
    assert t_quantile(0.75, 1) == pytest.approx(1.0)  # df 1 is Cauchy: its upper quartile is tan(pi / 4) = 1
    for p, df in [(0.5, 5), (1.0, 5), (0.975, 0)]:  # p = 0.5 and p = 1 are outside (0.5, 1); df 0 below 1
        with pytest.raises(ValueError) as refused:
            t_quantile(p, df)
        assert str(refused.value) == f"t_quantile needs 0.5 < p < 1 and df >= 1, got p={p}, df={df}"


def test_mean_and_t_interval_by_hand() -> None:
    s = summarise([1.0, 2.0, None, 3.0])  # None is a run without the measure: left out
    assert s.n == 3 and s.value == 2.0
    assert s.half_width == pytest.approx(4.302653 * 1.0 / math.sqrt(3), rel=1e-5)
    assert s.low == pytest.approx(2.0 - s.half_width) and s.high == pytest.approx(2.0 + s.half_width)
    assert summarise([5.0]).half_width is None and summarise([5.0]).value == 5.0
    assert summarise([]).value is None and summarise([None]).n == 0
    assert summarise([1.0, 0.0, 1.0], "sum").value == 2.0
    assert summarise([1.0, 7.0], "max").value == 7.0 and summarise([1.0, 7.0], "min").value == 1.0
    assert summarise([1.0, 3.0], "std").value == pytest.approx(math.sqrt(2))


# ---------------------------------------------------------------------------- loader
def test_bad_inputs_name_the_path(tmp_path: Path, runs: dict[str, Path]) -> None:
    with pytest.raises(RunDirError, match="missing"):
        load_run(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunDirError, match="empty.*no config.json"):
        load_run(tmp_path / "empty")
    with pytest.raises(RunDirError, match="neither a run directory"):
        find_runs([tmp_path / "empty"])
    found = find_runs([runs["yc-heuristic-1"].parent, runs["yc-heuristic-1"]])  # a parent of runs, deduplicated
    assert len(found) == len(runs) and all(r.finished for r in found)


# ---------------------------------------------------------------------------- protocol
def test_normalisation_anchors(runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = protocol.AnchorCache(tmp_path / "anchors.json")
    yc = load_run(runs["yc-heuristic-1"])
    a = protocol.anchors_for(yc, cache)
    do_nothing = run_baseline("yc", "do-nothing", 1)
    assert do_nothing["bankrupt"] and do_nothing["final_funds"] < 0
    assert a.zero == protocol.FAILED_SCORE  # a bankrupt anchor scores as every failed run does
    assert a.one == yc.get("final_funds")  # the heuristic baseline is yc's reference
    assert protocol.normalise(protocol.score(yc), a) == pytest.approx(1.0)
    assert protocol.normalise(a.zero, a) == 0.0

    cfo = load_run(runs["cfo-prudent-1"])
    a = protocol.anchors_for(cfo, cache)
    assert a.zero == run_baseline("cfo", "always-pass", 1)["score"] and a.one == HUMAN_SCORE
    assert protocol.normalise(cfo.get("score"), a) == pytest.approx((cfo.get("score") - a.zero) / (152.2e6 - a.zero))

    ceo = load_run(runs["ceo-planner-1"])
    a = protocol.anchors_for(ceo, cache)
    assert a.zero == run_baseline("ceo", "do-nothing", 1, horizon=98, world_options={"database": False})["final_cash"]
    from bizbench.envs.ceo.config import CeoConfig
    from bizbench.envs.ceo.upper_bound import estimate

    assert a.one == estimate(CeoConfig.model_validate(ceo.inner_config)).reported  # App. D of the run's horizon
    assert protocol.normalise(ceo.get("final_cash"), a) == pytest.approx(
        (ceo.get("final_cash") - a.zero) / (a.one - a.zero)
    )
    assert protocol.normalise(1.0, protocol.Anchors(5.0, 2.0)) is None  # a reference below do-nothing: no scale
    assert protocol.world_facts(ceo, cache)["competitor_event_days"][0] == 62  # type: ignore[index]

    # cached: a second report computes nothing
    saved = json.loads((tmp_path / "anchors.json").read_text())
    assert len(saved) == 3
    monkeypatch.setattr(protocol, "_compute", lambda run: pytest.fail("recomputed a cached anchor"))
    again = protocol.AnchorCache(tmp_path / "anchors.json")
    assert protocol.anchors_for(yc, again).one == yc.get("final_funds")

    # a held-out world cannot be re-created without its secret: anchors missing, with the reason
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "another secret")
    a = protocol.anchors_for(yc, again)
    assert a.zero is None and a.one is None and "held-out seed" in a.note
    assert protocol.anchors_for(cfo, again).one == HUMAN_SCORE  # a constant needs no world
    assert protocol.anchors_for(yc, None).note == "anchors off"


# ---------------------------------------------------------------------------- the command
def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_report_command_writes_tables_plots_and_a_self_contained_page(runs: dict[str, Path], tmp_path: Path) -> None:
    unfinished = tmp_path / "inputs" / "half-done"
    shutil.copytree(runs["yc-greedy-1"], unfinished)
    (unfinished / "result.json").unlink()
    out = tmp_path / "out"
    args = ["report", str(runs["yc-heuristic-1"].parent), str(unfinished), "-o", str(out)]
    res = CliRunner().invoke(app, [*args, "--anchor-cache", str(tmp_path / "a.json")])
    assert res.exit_code == 0, res.output
    text = res.stdout
    for heading in ("CEO-Bench Table 3", "section 3.4", "YC-Bench results and Table 3", "EnterpriseArena Table 2"):
        assert heading in text
    assert f"{unfinished}: unfinished" in text and "every run" in text

    rows = {r["agent"]: r for r in _read_csv(out / "yc_table3.csv")}
    funds = [json.loads((runs[f"yc-heuristic-{s}"] / "result.json").read_text())["final_funds"] for s in (1, 2)]
    heuristic = rows["heuristic"]
    assert heuristic["n_runs"] == "2" and float(heuristic["Final funds ($)"]) == pytest.approx(sum(funds) / 2, rel=1e-5)
    half = t_quantile(0.975, 1) * abs(funds[0] - funds[1]) / math.sqrt(2) / math.sqrt(2)
    assert float(heuristic["Final funds ($) ci95_high"]) == pytest.approx(sum(funds) / 2 + half, rel=1e-5)
    assert float(heuristic["Normalised score"]) == pytest.approx(1.0)
    assert "half-done" not in (out / "yc_runs.csv").read_text()  # unfinished: in no table
    cfo = {r["agent"]: r for r in _read_csv(out / "cfo_table2_capital.csv")}
    assert float(cfo["prudent-cfo"]["Surv.%"]) == 100.0

    for png in ("ceo_cash", "ceo_tools", "ceo_customers_planner", "yc_funds", "yc_trust", "cfo_cash", "cfo_actions"):
        assert (out / f"{png}.png").stat().st_size > 1000, png
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "data:image/png;base64," in page
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert (out / "report.md").read_text().startswith("# bizbench report")


def test_report_command_errors_name_the_path(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["report", str(tmp_path / "nope"), "-o", str(tmp_path / "o"), "--no-anchors"])
    assert res.exit_code == 2 and "nope" in res.output and "not a directory" in res.output
    only = tmp_path / "only-unfinished"
    only.mkdir()
    (only / "config.json").write_text('{"env": "yc", "seed": 1}')
    res = CliRunner().invoke(app, ["report", str(only), "-o", str(tmp_path / "o"), "--no-anchors", "--no-plots"])
    assert res.exit_code == 1 and "unfinished" in res.output and "no finished run" in res.output


def test_the_cfo_tables_show_the_debt_the_score_net_of_it_and_a_legend_under_them(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    report = build_report([runs["cfo-prudent-1"], runs["cfo-greedy-equity-1"]], tmp_path, None, anchors=False)
    text = report.markdown()
    capital = text.split("### EnterpriseArena Table 2: overall performance and capital", 1)[1].split("###", 1)[0]
    assert "| Score net ($M) | Debt.Out ($M) |" in capital
    legend = [line for line in capital.splitlines() if line.startswith("- Columns: ")]
    assert len(legend) == 1 and "Surv.% = " in legend[0] and "Debt.Out ($M) = debt principal" in legend[0]
    every = text.split("every run", 1)[1]
    assert "- Columns: " in every and "Score net ($M) = " in every
    result = json.loads((runs["cfo-prudent-1"] / "result.json").read_text())
    row = {r["agent"]: r for r in _read_csv(tmp_path / "cfo_table2_capital.csv")}["prudent-cfo"]
    assert float(row["Debt.Out ($M)"]) == pytest.approx(result["debt_outstanding"] / 1e6, rel=1e-5)
    assert float(row["Score net ($M)"]) == pytest.approx(result["score_net_of_debt"] / 1e6, rel=1e-5)


def _per_run(out: Path, env: str) -> dict[str, dict[str, str]]:
    return {Path(r["run"]).name: r for r in _read_csv(out / f"{env}_runs.csv")}


def test_the_report_marks_every_figure_replay_did_not_verify(runs: dict[str, Path], tmp_path: Path) -> None:
    """Issue 16, finding 3: ``cash`` set to 2,000,000 on every line of a copy's metrics.jsonl
    moves its 4-week forecast error; replay names the file and the report marks the figure in
    every format, while the untouched run is verified and unmarked."""
    store = tmp_path / "verdicts"
    honest = shutil.copytree(runs["ceo-planner-1"], tmp_path / "runs" / "honest")
    forged = shutil.copytree(runs["ceo-planner-1"], tmp_path / "runs" / "forged")
    rows = [json.loads(line) for line in (forged / "metrics.jsonl").read_text().splitlines()]
    (forged / "metrics.jsonl").write_text("".join(json.dumps({**r, "cash": 2_000_000}) + "\n" for r in rows))
    for run in (honest, forged):
        save_verdict(replay_run(run), store)
    out = tmp_path / "out"
    report = build_report([tmp_path / "runs"], out, None, anchors=False, make_plots=False, verdicts=store)
    measured = {m.run.path.name: m for m in report.measured}
    ape = "forecast_ape_4wk_pct"
    assert measured["forged"].metrics[ape] != measured["honest"].metrics[ape]
    assert measured["honest"].verdict.verified and measured["honest"].unverified == frozenset()
    assert measured["forged"].verdict.status.startswith("replay failed: metrics.jsonl: line 1, field 'cash'")
    assert ape in measured["forged"].unverified
    # CSV: the verdict and the unverified figures are fields
    per_run = _per_run(out, "ceo")
    assert (per_run["honest"]["replay"], per_run["honest"]["unverified"]) == ("verified", "")
    assert per_run["forged"]["replay"] == "replay failed" and "4wk APE %" in per_run["forged"]["unverified"]
    skills = _read_csv(out / "ceo_skills.csv")[0]
    assert skills["n_verified"] == "1" and "4-week forecast error (%)" in skills["unverified"]
    # Markdown (stdout) and HTML: the forged run's figures carry the mark, the honest run's none
    for text in (report.markdown(), (out / "report.html").read_text()):
        rows = [line for line in text.splitlines() if "completed" in line]  # the every-run table's rows
        assert "†" in next(row for row in rows if "forged" in row and "replay failed" in row)
        assert "†" not in next(row for row in rows if "honest" in row and "verified" in row)
    # an edit after verification voids the verdict: every figure of the run is marked again
    ledger = (honest / "ledger.csv").read_text()
    (honest / "ledger.csv").write_text(ledger.replace("development", "marketing", 1))
    again = build_report([honest], tmp_path / "out2", None, anchors=False, make_plots=False, verdicts=store)
    assert again.measured[0].verdict.status == "changed since replay: ledger.csv"
    assert again.measured[0].unverified == frozenset(again.measured[0].metrics)


def test_a_verified_run_still_marks_the_figures_replay_cannot_check(runs: dict[str, Path], tmp_path: Path) -> None:
    """The rule-based ceo baseline's reads are not re-sent (ceo's replay rules): the tool calls
    a week counted from them are marked, its cash and survival are not."""
    store = tmp_path / "verdicts"
    assert save_verdict(replay_run(runs["ceo-rule-based-42"]), store)
    report = build_report([runs["ceo-rule-based-42"]], tmp_path, None, anchors=False, make_plots=False, verdicts=store)
    (m,) = report.measured
    assert m.verdict.verified and m.unverified == {"tools_per_week"}
    assert _per_run(tmp_path, "ceo")["ceo-rule-based-42"]["unverified"] == "Tools/wk"


def test_a_run_never_replayed_has_every_figure_marked(runs: dict[str, Path], tmp_path: Path) -> None:
    report = build_report([runs["cfo-prudent-1"]], tmp_path, None, anchors=False, make_plots=False)
    (m,) = report.measured
    assert m.verdict.status == "not replayed" and m.unverified == frozenset(m.metrics)
    assert any("0 of 1 runs verified" in note for note in report.notes)
    assert any("bizbench replay RUN" in note for note in report.notes)


def test_two_runs_get_the_widest_interval_and_a_chosen_confidence_its_own_quantile() -> None:
    # n = 2: mean 2, s = sqrt(2), t(0.975, 1) = 12.7062 -> half-width 12.7062 * sqrt(2) / sqrt(2) = 12.7062
    two = summarise([1.0, 3.0])
    assert (two.value, two.n) == (2.0, 2)
    assert two.half_width == pytest.approx(12.7062, abs=1e-4)
    assert (two.low, two.high) == (pytest.approx(-10.7062, abs=1e-4), pytest.approx(14.7062, abs=1e-4))
    # 90 %: t(0.95, 2) = 2.9200 (printed table), s = 1 -> 2.9200 / sqrt(3) = 1.6859
    assert summarise([1.0, 2.0, 3.0], confidence=0.90).half_width == pytest.approx(2.9200 / math.sqrt(3), abs=1e-4)


def test_a_nan_is_left_out_like_a_missing_value_and_one_run_has_no_interval_or_spread() -> None:
    assert summarise([1.0, math.nan, 3.0, None]) == Summary(2.0, pytest.approx(12.7062, abs=1e-4), 2)
    one = summarise([5.0])
    assert one == Summary(5.0, None, 1) and (one.low, one.high) == (None, None)
    assert summarise([4.0], "std") == Summary(None, None, 1)
    assert summarise([None, math.nan]) == Summary(None, None, 0) and summarise([]).low is None


def test_sum_max_and_min_take_every_run_with_no_interval() -> None:
    runs = [-5.0, -2.0, -9.0]
    assert summarise(runs, "sum") == Summary(-16.0, None, 3)
    assert summarise(runs, "max") == Summary(-2.0, None, 3)
    assert summarise(runs, "min") == Summary(-9.0, None, 3)
    assert summarise([2.0, 4.0, 9.0], "std") == Summary(pytest.approx(math.sqrt(13)), None, 3)  # var (9+1+16)/2


def test_runs_are_grouped_in_first_seen_order_and_each_column_combines_its_own_key() -> None:
    items = [("b", 1), ("a", 2), ("b", 3)]
    groups = group_runs(items, lambda it: (it[0],))
    assert list(groups.items()) == [(("b",), [("b", 1), ("b", 3)]), (("a",), [("a", 2)])]
    rows = [{"days": 10, "cash": 1.0}, {"days": 30}, {"days": 20, "cash": 3.0}]
    columns = [Column("days", "Days", agg="max"), Column("days", "Days", agg="sum"), Column("cash", "Cash", agg="min")]
    assert aggregate(rows, columns) == [Summary(30.0, None, 3), Summary(60.0, None, 3), Summary(1.0, None, 2)]


def test_a_figure_that_rounds_to_zero_is_shown_without_a_sign() -> None:
    from bizbench.core.reporting import Column

    column = Column("x", "x", fmt="{:,.3f}")
    assert [column.show(v) for v in (-0.0001, -0.0, 0.0004, -0.0006, -1234.5, -math.inf)] == [
        "0.000",
        "0.000",
        "0.000",
        "-0.001",
        "-1,234.500",
        "-inf",
    ]


def test_a_report_of_unfinished_runs_only_is_an_error_naming_what_it_wrote(tmp_path: Path) -> None:
    from bizbench.runner.episode import run_baseline

    run = tmp_path / "runs" / "cfo-killed"
    run_baseline("cfo", "prudent-cfo", 1, None, 2, run)
    (run / "result.json").unlink()  # as if killed before its end
    r = CliRunner().invoke(app, ["report", str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    said = " ".join(r.output.split())
    assert r.exit_code == 1 and "error: no finished run to report (wrote only " in said, r.output
    assert "report.html, report.md, CSV, PNG" not in said
