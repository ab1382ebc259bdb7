"""Running sweeps: skip finished runs, continue unfinished ones, record failures, the dollar cap,
provider concurrency, the dev/test split, a scripted-model sweep through the CLI."""

from __future__ import annotations

import csv
import json
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest
import typer
from sweep_helpers import FakeBackend, cfo_script, scripted_cfo_block, spec_of, write_sweep
from typer.testing import CliRunner

from bizbench.cli_sweep import sweep
from bizbench.core.rng import SECRET_ENV, secret_id
from bizbench.runner import sweep as sw
from bizbench.runner.sweep_spec import Concurrency

YC_TWO_AGENTS = """
[[runs]]
env = "yc"
agents = ["greedy", "heuristic"]
seeds = "1-2"
"""


def rows(out: Path) -> dict[str, dict[str, str]]:
    with (out / "summary.csv").open() as f:
        return {r["name"]: r for r in csv.DictReader(f)}


def test_a_failed_run_is_recorded_and_the_sweep_goes_on_then_finished_runs_are_skipped(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, YC_TWO_AGENTS)
    out = tmp_path / "out"
    out.mkdir()
    for blocked in ("yc-default-greedy-seed2", "yc-default-heuristic-seed2"):
        (out / blocked).write_text("a file where the run directory should go")  # these two runs fail
    seen: list[str] = []
    state = sw.run_sweep(spec, "inline", on_update=lambda st, name: seen.append(f"{name}:{st.rows[name]['status']}"))
    assert state.counts() == {"done": 2, "failed": 2}
    summary = rows(out)
    assert summary["yc-default-greedy-seed1"]["status"] == "done"
    assert summary["yc-default-greedy-seed1"]["final_funds"] != ""
    broken = summary["yc-default-heuristic-seed2"]
    assert broken["status"] == "failed" and "FileExistsError" in broken["error"]
    full = json.loads((out / "summary.json").read_text())
    assert full["finished"] is True and full["split"] == "dev" and full["counts"] == {"done": 2, "failed": 2}
    tb = next(r for r in full["runs"] if r["name"] == "yc-default-greedy-seed2")["traceback"]
    assert "Traceback" in tb
    assert len(seen) == 4
    result = json.loads((out / "yc-default-greedy-seed1" / "result.json").read_text())
    mtime = (out / "yc-default-greedy-seed1" / "result.json").stat().st_mtime_ns

    again = sw.run_sweep(spec, "inline")
    assert again.counts() == {"skipped": 2, "failed": 2}  # the failures are tried again
    assert again.rows["yc-default-greedy-seed1"]["final_funds"] == result["final_funds"]
    assert (out / "yc-default-greedy-seed1" / "result.json").stat().st_mtime_ns == mtime


def test_an_agent_class_that_cannot_be_imported_stops_the_sweep_before_it_starts(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, '[[runs]]\nenv = "yc"\nagents = ["greedy", "no_such_module:Agent"]\nseeds = 1\n')
    with pytest.raises(sw.SweepError, match="cannot import 'no_such_module'"):
        sw.run_sweep(spec, "inline")
    assert not (tmp_path / "out" / "yc-default-greedy-seed1").exists()


def test_an_unfinished_run_is_resumed_when_resume_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = spec_of(tmp_path, '[[runs]]\nenv = "yc"\nagents = ["greedy"]\nseeds = 1\n')
    run_dir = tmp_path / "out" / "yc-default-greedy-seed1"
    run_dir.mkdir(parents=True)
    (run_dir / "config.json").write_text("{}")
    calls: list[Path] = []

    def resume_run(path: Path, trust_agent_code: bool) -> dict[str, Any]:
        calls.append(Path(path))
        return {"final_funds": 1.0, "seed_secret_id": None}

    monkeypatch.setitem(sys.modules, "bizbench.runner.resume", types.SimpleNamespace(resume_run=resume_run))
    state = sw.run_sweep(spec, "inline")
    assert calls == [run_dir]
    assert state.rows["yc-default-greedy-seed1"]["status"] == "done"
    assert state.rows["yc-default-greedy-seed1"]["note"] == "resumed"


def test_a_run_killed_before_its_config_is_set_aside_and_run_again(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, '[[runs]]\nenv = "yc"\nagents = ["greedy"]\nseeds = 1\n')
    out = tmp_path / "out"
    run_dir = out / "yc-default-greedy-seed1"
    run_dir.mkdir(parents=True)
    (run_dir / "tamper.jsonl").write_text("")  # killed before config.json was written
    for n in (1, 2):
        state = sw.run_sweep(spec, "inline")
        assert state.rows[run_dir.name]["status"] == "done"
        assert "moved aside" in state.rows[run_dir.name]["note"]
        assert (out / f"{run_dir.name}.incomplete-{n}" / "tamper.jsonl").is_file()
        assert (run_dir / "result.json").is_file()
        for f in run_dir.iterdir():  # the next kill lands before config.json again
            if f.name != "tamper.jsonl":
                f.unlink()


def test_the_dollar_cap_stops_new_runs_and_says_which_did_not_start(tmp_path: Path) -> None:
    script = cfo_script(tmp_path)
    body = f'max_dollars = 1.0\n[[runs]]\nenv = "cfo"\nseeds = "1-6"\nmodels = ["scripted:{script}"]\n'
    spec = spec_of(tmp_path, body)
    backend = FakeBackend(slots=1, cost=0.4)
    state = sw.run_sweep(spec, backend)
    assert backend.submitted == [f"cfo-paper-scripted-pass-seed{s}" for s in (1, 2, 3)]  # 0.4, 0.8, then 1.2 >= 1
    assert state.counts() == {"done": 3, "not_started": 3}
    assert state.spent == pytest.approx(1.2)
    summary = rows(tmp_path / "out")
    note = summary["cfo-paper-scripted-pass-seed6"]["note"]
    assert summary["cfo-paper-scripted-pass-seed6"]["status"] == "not_started"
    assert "max_dollars" in note and "$1.20" in note and "$1.00" in note
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["spent_usd"] == pytest.approx(1.2)


def test_runs_in_flight_reserve_their_own_cap(tmp_path: Path) -> None:
    """Six slots, runs capped at $0.40 each, a $1.00 sweep: at most two run at once, so the
    total stays within the cap plus what the runs in flight reserved."""
    script = cfo_script(tmp_path)
    model = f'[[runs.models]]\nmodel = "scripted:{script}"\nlimits = {{ max_dollars = 0.4 }}\n'
    spec = spec_of(tmp_path, f'max_dollars = 1.0\n[[runs]]\nenv = "cfo"\nseeds = "1-12"\n{model}')
    backend = FakeBackend(slots=6, cost=0.4)
    state = sw.run_sweep(spec, backend)
    assert backend.peak_total <= 2
    assert state.spent <= 1.0 + 2 * 0.4 and state.counts()["not_started"] >= 8


def test_finished_runs_count_toward_the_cap(tmp_path: Path) -> None:
    script = cfo_script(tmp_path)
    body = f'max_dollars = 2.0\n[[runs]]\nenv = "cfo"\nseeds = "1-3"\nmodels = ["scripted:{script}"]\n'
    spec = spec_of(tmp_path, body)
    done = tmp_path / "out" / "cfo-paper-scripted-pass-seed1"
    done.mkdir(parents=True)
    (done / "result.json").write_text(json.dumps({"cost_usd": 2.5, "seed_secret_id": None}))
    backend = FakeBackend(slots=2)
    state = sw.run_sweep(spec, backend)
    assert backend.submitted == []
    assert state.counts() == {"skipped": 1, "not_started": 2}


def test_provider_concurrency_limits_model_runs_and_not_baselines(tmp_path: Path) -> None:
    script = cfo_script(tmp_path)
    spec = spec_of(
        tmp_path,
        f"""
[limits]
concurrency = {{ scripted = 1 }}

[[runs]]
env = "cfo"
seeds = "1-4"
agents = ["prudent-cfo"]
models = ["scripted:{script}", {{ model = "scripted:{script}", label = "other" }}]
""",
    )
    backend = FakeBackend(slots=3)
    state = sw.run_sweep(spec, backend)
    assert state.counts() == {"done": 12}
    assert backend.peak["scripted"] == 1 and backend.peak_total == 3  # baselines fill the other slots
    assert backend.submitted[:4] == [f"cfo-paper-prudent-cfo-seed{s}" for s in (1, 2, 3, 4)]
    unlimited = FakeBackend(slots=3)
    sw.run_sweep(spec.model_copy(update={"limits": Concurrency()}), unlimited)
    assert unlimited.peak["scripted"] == 3


def test_the_test_split_refuses_to_run_without_the_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SECRET_ENV, raising=False)
    path = write_sweep(tmp_path, 'split = "test"\n[[runs]]\nenv = "yc"\nagents = ["greedy"]\nseeds = 1\n')
    with pytest.raises(sw.SweepError, match=f"set \\${SECRET_ENV}"):
        sw.run_sweep(sw.load_sweep(path), "inline")
    assert not (tmp_path / "out").exists()
    app = typer.Typer()
    app.command()(sweep)
    res = CliRunner().invoke(app, [str(path)])
    assert res.exit_code == 2 and SECRET_ENV in res.output


def test_test_runs_carry_the_secret_and_dev_runs_never_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_ENV, "sweep-test-secret")
    test = sw.run_sweep(
        spec_of(tmp_path, 'split = "test"\n[[runs]]\nenv = "yc"\nagents = ["greedy"]\nseeds = 1\n'), "inline"
    )
    run = test.rows["yc-default-greedy-seed1"]
    assert run["status"] == "done" and run["seed_secret_id"] == secret_id("sweep-test-secret")
    # The same out directory holds test worlds now: a dev sweep will not mistake them for its own.
    dev = sw.run_sweep(spec_of(tmp_path, '[[runs]]\nenv = "yc"\nagents = ["greedy"]\nseeds = 1\n'), "inline")
    assert dev.rows["yc-default-greedy-seed1"]["status"] == "failed"
    assert "another seed secret" in dev.rows["yc-default-greedy-seed1"]["error"]
    (tmp_path / "dev").mkdir()
    fresh = sw.run_sweep(spec_of(tmp_path / "dev", '[[runs]]\nenv = "yc"\nagents = ["greedy"]\nseeds = 1\n'), "inline")
    assert fresh.rows["yc-default-greedy-seed1"]["status"] == "done"
    assert fresh.rows["yc-default-greedy-seed1"]["seed_secret_id"] is None  # the public world, secret or not
    assert os.environ[SECRET_ENV] == "sweep-test-secret"  # ... and this process keeps its secret


def test_a_scripted_model_sweep_through_the_cli(tmp_path: Path) -> None:
    script = cfo_script(tmp_path)
    path = write_sweep(tmp_path, scripted_cfo_block(script, "limits = { max_turns = 2 }\n"))
    app = typer.Typer()
    app.command()(sweep)
    runner = CliRunner()
    dry = runner.invoke(app, [str(path), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "cfo-paper-scripted-pass-seed2-r2" in dry.output and "new" in dry.output
    res = runner.invoke(app, [str(path), "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert "4 done" in res.output
    summary = rows(tmp_path / "out")
    assert sorted(summary) == [f"cfo-paper-scripted-pass-seed{s}{r}" for s in (1, 2) for r in ("", "-r2")]
    for row in summary.values():
        assert row["status"] == "done" and row["ended_by"] == "max_turns" and row["turns"] == "2"
        assert row["completed"] == "False"  # done, but short of its horizon: a failed run in the report
        assert row["incomplete_reason"].startswith("max_turns: ") and row["headline_score"] == "0.0"
    result = json.loads((tmp_path / "out" / "cfo-paper-scripted-pass-seed1-r2" / "result.json").read_text())
    assert result["model"] == "scripted:pass.jsonl" and result["tokens"]["input_tokens"] == 2 * 120
    assert (tmp_path / "out" / "cfo-paper-scripted-pass-seed1-r2" / "trajectory.jsonl").is_file()


def test_unusable_models_and_agents_stop_the_sweep_before_it_starts(tmp_path: Path) -> None:
    bad = [
        ('[[runs]]\nenv = "yc"\nagents = ["greedyy"]\nseeds = 1\n', r"agents: unknown yc baseline 'greedyy'"),
        ('[[runs]]\nenv = "ceo"\nagents = ["do-nothing"]\noptions = { price_book = "mid" }\n', "takes no option"),
        ('[[runs]]\nenv = "cfo"\nmodels = ["scripted:/nonexistent/x.jsonl"]\n', r"runs\[0\]\.models\[0\]: cannot read"),
        ('[[runs]]\nenv = "cfo"\nmodels = [{ model = "scripted:x", harness = "chat" }]\n', "unknown harness 'chat'"),
    ]
    for body, message in bad:
        with pytest.raises(sw.SweepError, match=message):
            sw.run_sweep(spec_of(tmp_path, body), FakeBackend(slots=1))


PROBE_AGENTS = """
import os


class Crash:
    def run(self, env):
        os._exit(3)


class Threads:
    def run(self, env):
        with open("threads.txt", "w") as f:
            f.write(os.environ.get("OPENBLAS_NUM_THREADS", "unset"))
"""


def test_a_worker_that_dies_fails_its_run_and_fresh_processes_take_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "probe_agents.py").write_text(PROBE_AGENTS)
    monkeypatch.chdir(tmp_path)  # a module:Class agent is imported from the working directory
    for var in sw.THREAD_VARS:
        monkeypatch.delenv(var, raising=False)
    body = '[[runs]]\nenv = "yc"\nagents = ["probe_agents:Crash", "probe_agents:Threads", "greedy"]\nseeds = 1\n'
    state = sw.run_sweep(spec_of(tmp_path, body), "local", workers=1)
    assert state.rows["yc-default-Crash-seed1"]["status"] == "failed"
    assert state.rows["yc-default-Crash-seed1"]["error"].startswith("worker lost: BrokenProcessPool")
    assert state.rows["yc-default-greedy-seed1"]["status"] == "done"
    # Workers start with one thread per numeric library; the sweep's own environment is left as it was.
    assert (tmp_path / "threads.txt").read_text() == "1"
    assert not any(var in os.environ for var in sw.THREAD_VARS)


class InterruptedBackend(FakeBackend):
    """Two runs end, then the sweep is interrupted (Ctrl-C) while the third runs."""

    def wait(self) -> list[tuple[Any, dict[str, Any]]]:
        if len(self.submitted) > 2:
            raise KeyboardInterrupt
        return super().wait()


def test_an_interrupted_sweep_leaves_a_summary_of_what_is_done(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, '[[runs]]\nenv = "cfo"\nagents = ["prudent-cfo"]\nseeds = "1-5"\n')
    with pytest.raises(KeyboardInterrupt):
        sw.run_sweep(spec, InterruptedBackend(slots=1))
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["finished"] is False
    assert summary["counts"] == {"done": 2, "interrupted": 1, "pending": 2}
    assert rows(tmp_path / "out")["cfo-paper-prudent-cfo-seed3"]["status"] == "interrupted"


def test_a_killed_model_run_of_a_sweep_resumes_from_its_record(tmp_path: Path) -> None:
    """The sweep records the model string, so `bizbench resume` can rebuild the client."""
    script = cfo_script(tmp_path)
    spec = spec_of(tmp_path, f'[[runs]]\nenv = "cfo"\nseeds = 1\nmodels = ["scripted:{script}"]\n')
    first = sw.run_sweep(spec, "inline")
    run_dir = tmp_path / "out" / "cfo-paper-scripted-pass-seed1"
    expected = {k: v for k, v in json.loads((run_dir / "result.json").read_text()).items() if k != "wall_seconds"}
    assert json.loads((run_dir / "config.json").read_text())["model_spec"] == f"scripted:{script}"
    (run_dir / "result.json").unlink()
    lines = (run_dir / "trajectory.jsonl").read_text().splitlines(keepends=True)
    (run_dir / "trajectory.jsonl").write_text("".join(lines[: len(lines) // 2]))
    again = sw.run_sweep(spec, "inline")
    assert first.rows[run_dir.name]["status"] == again.rows[run_dir.name]["status"] == "done"
    assert again.rows[run_dir.name]["note"] == "resumed"
    result = json.loads((run_dir / "result.json").read_text())
    assert {k: v for k, v in result.items() if k not in ("wall_seconds", "provenance")} == {
        k: v for k, v in expected.items() if k != "provenance"
    }


def _children(pid: int) -> set[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _sweep_with_two_workers(tmp_path: Path, body: str) -> tuple[Any, set[int]]:
    """``bizbench sweep`` of ``body`` in its own process, once both its workers run: (process, workers)."""
    import subprocess
    import time

    sweep_file = write_sweep(tmp_path, body)
    proc = subprocess.Popen(
        [sys.executable, "-m", "bizbench.cli", "sweep", str(sweep_file), "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline and len(workers) < 2:
        workers = {c for c in _children(proc.pid) if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text()}
        time.sleep(0.1)
    assert len(workers) == 2, "the sweep did not start its workers"
    return proc, workers


def test_workers_end_when_the_sweep_is_killed(tmp_path: Path) -> None:
    """A sweep killed with SIGKILL leaves no worker writing run directories behind it."""
    import signal
    import time

    body = '[[runs]]\nenv = "ceo"\nagents = ["rule-based"]\nseeds = "1-2"\ndb = false\n'
    proc, workers = _sweep_with_two_workers(tmp_path, body)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers)


def test_an_interrupted_sweep_stops_its_runs_with_it_and_says_so(tmp_path: Path) -> None:
    """SIGINT to the sweep alone: its workers stop too (the runs are 'interrupted', as the summary
    says, and the next sweep resumes them), rather than finishing after the sweep has exited."""
    import signal
    import time

    proc, workers = _sweep_with_two_workers(tmp_path, '[[runs]]\nenv = "ceo"\nagents = ["rule-based"]\nseeds = "1-2"\n')
    time.sleep(1.0)  # the runs have begun
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) != 0
    assert not any(_alive(w) for w in workers)
    summary = rows(tmp_path / "out")
    assert {row["status"] for row in summary.values()} == {"interrupted"}
    assert not any((tmp_path / "out" / name / "result.json").exists() for name in summary)


@pytest.mark.parametrize(
    ("recorded", "trusted"),
    [
        ({"agent": "openai/gpt-x", "model_spec": "openai/gpt-x"}, True),
        ({"agent": "openai/gpt-x", "model_spec": "openai-compatible/m@http://attacker/v1"}, False),
        ({"agent": "planted:Agent"}, False),
    ],
)
def test_a_sweep_trusts_only_its_own_agent_when_it_resumes_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recorded: dict[str, str], trusted: bool
) -> None:
    (tmp_path / "config.json").write_text(json.dumps(recorded))
    seen: list[bool] = []

    def resume_run(path: Path, trust_agent_code: bool) -> dict[str, Any]:
        seen.append(trust_agent_code)
        return {}

    monkeypatch.setitem(sys.modules, "bizbench.runner.resume", types.SimpleNamespace(resume_run=resume_run))
    sw.continue_unfinished(tmp_path, "openai/gpt-x")
    assert seen == [trusted]


def test_runs_made_with_other_settings_stop_the_sweep_naming_what_changed(tmp_path: Path) -> None:
    """A run's name carries no horizon, options, harness or sampling: a changed file must not count
    the old runs as its own (skipped) or finish them with their old settings (resumed)."""
    script = cfo_script(tmp_path)
    model = scripted_cfo_block(script, "sampling = { temperature = 0.5 }\nlimits = { max_turns = 1 }\n")
    baseline = '\n[[runs]]\nenv = "cfo"\nagents = ["prudent-cfo"]\nseeds = "1"\nhorizon = 3\n'
    first = sw.run_sweep(spec_of(tmp_path, baseline + model), "inline")
    assert first.counts() == {"done": 5}
    assert sw.run_sweep(spec_of(tmp_path, baseline + model), "inline").counts() == {"skipped": 5}  # the same file
    for changed, needle in (
        (baseline.replace("horizon = 3", "horizon = 2") + model, "horizon 3, not 2"),
        (baseline + model.replace("max_turns = 1", "max_turns = 2"), "limits {"),
        (baseline + model + 'harness = "cli-chat"\n', "harness 'react-json', not 'cli-chat'"),
    ):
        spec = spec_of(tmp_path, changed)
        with pytest.raises(sw.SweepError, match="other settings") as caught:
            sw.run_sweep(spec, "inline")
        assert needle in str(caught.value), str(caught.value)
    app = typer.Typer()
    app.command()(sweep)
    path = write_sweep(tmp_path, baseline.replace("horizon = 3", "horizon = 2"))
    dry = CliRunner().invoke(app, [str(path), "--dry-run"])
    said = "".join(dry.output.split())  # the console wraps long lines
    assert dry.exit_code == 2 and "cfo-paper-prudent-cfo-seed1:horizon3,not2" in said, dry.output


def test_the_summary_shows_the_runs_going_before_any_ends(tmp_path: Path) -> None:
    """A sweep killed while its first runs go leaves them 'running' in summary.csv, not 'pending'."""
    spec = spec_of(tmp_path, '[[runs]]\nenv = "cfo"\nagents = ["prudent-cfo"]\nseeds = "1-3"\n')
    seen: list[dict[str, str]] = []

    class Peeking(FakeBackend):
        def wait(self) -> list[Any]:
            seen.append({name: row["status"] for name, row in rows(tmp_path / "out").items()})
            return super().wait()

    sw.run_sweep(spec, Peeking(slots=2))
    assert seen[0] == {
        "cfo-paper-prudent-cfo-seed1": "running",
        "cfo-paper-prudent-cfo-seed2": "running",
        "cfo-paper-prudent-cfo-seed3": "pending",
    }


def test_settings_are_compared_as_they_act_not_as_they_are_written(tmp_path: Path) -> None:
    """The world options' defaults, an older run's horizon in its world config, unset limits: the same
    run either way. A live model's sampling is compared; a scripted one's replies do not depend on it."""
    runs = sw.expand(spec_of(tmp_path, '[[runs]]\nenv = "ceo"\nagents = ["rule-based"]\nseeds = "1"\ndb = true\n'))
    (run,) = runs
    ceo = tmp_path / "ceo"
    ceo.mkdir()
    config = {"env": "ceo", "horizon": 500, "agent_options": {}}
    (ceo / "config.json").write_text(json.dumps(config))  # no world_options: the default database
    assert sw.recorded_changes(run, ceo) == []
    old = {"env": "ceo", "agent_options": {}, "config": {"horizon_days": 500}}  # run format 1: no horizon key
    (ceo / "config.json").write_text(json.dumps(old))
    assert sw.recorded_changes(run, ceo) == []
    body = '[[runs]]\nenv = "cfo"\nseeds = "1"\n[[runs.models]]\nmodel = "openai/gpt-x"\n'
    body += "sampling = { temperature = 0.5 }\n"
    (model_run,) = sw.expand(spec_of(tmp_path, body))
    made = {"env": "cfo", "horizon": 132, "harness": "react-json", "harness_options": {"context_turns": None}}
    made |= {"limits": {"max_dollars": None, "max_tokens": None, "max_turns": None}, "prices": None}
    cfo = tmp_path / "cfo"
    cfo.mkdir()
    (cfo / "config.json").write_text(json.dumps({**made, "sampling": {"temperature": 0.5}}))
    assert sw.recorded_changes(model_run, cfo) == []
    (cfo / "config.json").write_text(json.dumps({**made, "sampling": {"temperature": 0.7}}))
    assert sw.recorded_changes(model_run, cfo) == ["sampling {'temperature': 0.7}, not {'temperature': 0.5}"]
