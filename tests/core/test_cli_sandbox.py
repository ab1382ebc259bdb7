"""``bizbench sandbox WORKSPACE -- CMD`` and ``bizbench serve ENV --exec CMD``: the agent in the sandbox of its
seat, where the run directory and the server's command line (the seed) are out of sight (issue 16)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lemonade_helpers import ENV, SEED, bizbench
from typer.testing import CliRunner

from bizbench.cli import app
from bizbench.core import sandbox
from bizbench.core.sandbox import SANDBOX_UID
from bizbench.core.seat import MARKER, launch_serve, seat_of

REASON = sandbox.sandbox_unavailable_reason()
needs_sandbox = pytest.mark.skipif(REASON is not None, reason=f"no sandbox on this host: {REASON}")
SEAT = seat_of(ENV)
SHELL = SEAT.command_prefix()

#: what a process sees of the others and of the run directory, as JSON (stdlib only: it runs
#: on the host and in the sandbox alike)
PROBE = """
import json, os, subprocess, sys
seen = {"proc": []}
for pid in filter(str.isdigit, os.listdir("/proc")):
    for name in ("cmdline", "environ"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as f:
                seen["proc"].append(f.read().replace(b"\\0", b" ").decode(errors="replace"))
        except OSError:
            pass
seen["ps"] = subprocess.run(["ps", "-e", "-ww", "-o", "args"], capture_output=True, text=True).stdout
try:
    seen["run_dir"] = sorted(os.listdir(sys.argv[1]))
except OSError as e:
    seen["run_dir"] = type(e).__name__
print(json.dumps(seen))
"""


def serve_argv(ws: Path, run: Path, *options: str) -> list[str]:
    argv = [sys.executable, "-c", "from bizbench.entry import main; main()", "serve", ENV, "--seed", str(SEED)]
    return [*argv, "--workspace", str(ws), "--run-dir", str(run), *options]


def result(run: Path) -> dict[str, Any]:
    return json.loads((run / "result.json").read_text())


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, Path, subprocess.Popen[bytes]]]:
    """A seat served without --exec (the workspace holds the probe); stopped at the end."""
    ws, run = tmp_path / "ws", tmp_path / "run"
    ws.mkdir()
    (ws / "probe.py").write_text(PROBE)
    proc = launch_serve(ENV, SEED, ws, run, "--horizon", "3")
    try:
        yield ws, run, proc
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)


def assert_nothing_of_the_host(seen: dict[str, Any], run: Path) -> None:
    texts = [*seen["proc"], seen["ps"]]
    assert not [t for t in texts if str(SEED) in t or f"serve {ENV}" in t]
    assert seen["run_dir"] == "FileNotFoundError"


# ---------------------------------------------------------------------------- the attack on the host
def test_serving_without_exec_warns_that_the_agent_is_not_isolated(tmp_path: Path) -> None:
    proc = launch_serve(ENV, SEED, tmp_path / "ws", tmp_path / "run")
    proc.send_signal(signal.SIGTERM)
    _, said = proc.communicate(timeout=60)
    warning = said.decode()
    assert "not isolated" in warning and "--exec" in warning and "bizbench sandbox" in warning


def test_the_server_runs_in_a_cgroup_of_its_own_with_its_stated_limits(served: tuple[Path, Path, Any]) -> None:
    from bizbench.core.cgroups import SERVER_PREFIX
    from bizbench.core.server import SERVER_MEMORY_LIMIT, SERVER_PIDS_LIMIT

    _, run, proc = served
    said = (run / "server.log").read_text()
    if "server limits: not limited" in said:
        pytest.skip(f"no cgroup here: {said}")
    assert f"server limits: cgroup: {SERVER_MEMORY_LIMIT >> 20} MiB, {SERVER_PIDS_LIMIT} processes" in said
    assert SERVER_PREFIX in Path(f"/proc/{proc.pid}/cgroup").read_text()


def test_a_process_on_the_host_sees_the_seed_and_reads_the_run_directory(served: tuple[Path, Path, Any]) -> None:
    """The issue's finding, reproduced: why an agent must not run on the host (the probe works)."""
    ws, run, _ = served
    seen = json.loads(subprocess.run([sys.executable, str(ws / "probe.py"), str(run)], capture_output=True).stdout)
    assert any(str(SEED) in t and "serve" in t for t in seen["proc"]) and str(SEED) in seen["ps"]
    assert "config.json" in seen["run_dir"]


# ---------------------------------------------------------------------------- bizbench sandbox
@needs_sandbox
def test_from_bizbench_sandbox_no_serve_process_seed_or_run_directory_is_visible(
    served: tuple[Path, Path, Any],
) -> None:
    ws, run, _ = served
    done = bizbench("sandbox", str(ws), "--", "python3", "probe.py", str(run))
    assert done.returncode == 0, done.stderr
    assert_nothing_of_the_host(json.loads(done.stdout), run)


@needs_sandbox
def test_bizbench_sandbox_reaches_the_seat_and_passes_the_commands_exit_status(
    served: tuple[Path, Path, Any],
) -> None:
    ws, _, _ = served
    code = f"import {SEAT.package} as api, sys; print(api.get_status()['day']); sys.exit(4)"
    done = bizbench("sandbox", str(ws), "--", "python3", "-c", code)
    assert (done.returncode, done.stdout.strip()) == (4, "0")
    assert bizbench("sandbox", "--timeout", "1", str(ws), "--", "sleep", "30").returncode == 124


@needs_sandbox
def test_bizbench_sandbox_refuses_a_workspace_no_server_serves(tmp_path: Path) -> None:
    done = bizbench("sandbox", str(tmp_path), "--", "true")
    assert done.returncode == 2 and "not a served workspace" in done.stderr and "bizbench serve" in done.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="planting a file of another uid needs root")
def test_a_seat_marker_planted_by_the_agent_does_not_make_a_served_workspace(tmp_path: Path) -> None:
    marker = tmp_path / SEAT.runtime_dir / MARKER
    marker.parent.mkdir()
    marker.write_text(json.dumps({"env": ENV, "files": [], "dirs": []}))
    os.chown(marker, SANDBOX_UID, SANDBOX_UID)  # what the sandboxed agent can write in its workspace
    done = CliRunner().invoke(app, ["sandbox", str(tmp_path), "--", "true"])
    assert done.exit_code == 2 and "not a served workspace" in done.output


# ---------------------------------------------------------------------------- serve --exec
@needs_sandbox
def test_from_serve_exec_no_serve_process_seed_or_run_directory_is_visible(tmp_path: Path) -> None:
    ws, run = tmp_path / "ws", tmp_path / "run"
    ws.mkdir()
    (ws / "probe.py").write_text(PROBE)
    agent = f"{SHELL} get_status > status.json && python3 probe.py {run}"
    done = subprocess.run(serve_argv(ws, run, "--exec", agent), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "not isolated" not in done.stderr
    assert_nothing_of_the_host(json.loads(done.stdout), run)
    assert json.loads((ws / "status.json").read_text())["day"] == 0  # the seat was the agent's
    assert result(run)["ended_by"] == "agent_exit" and not result(run)["completed"]


@needs_sandbox
@pytest.mark.parametrize(
    ("agent", "options", "ended_by", "status"),
    [
        ("exit 3", (), "agent_error", 1),
        ("sleep 30", ("--exec-timeout", "1"), "agent_timeout", 0),
        (f"{SHELL} end_day && {SHELL} end_day && sleep 600", (), "episode_end", 0),
    ],
)
def test_the_run_ends_with_the_agents_exit_or_the_episode(
    tmp_path: Path, agent: str, options: tuple[str, ...], ended_by: str, status: int
) -> None:
    run = tmp_path / "run"
    argv = serve_argv(tmp_path / "ws", run, "--horizon", "2", "--exec", agent, *options)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)  # an episode's end kills the agent
    assert (done.returncode, result(run)["ended_by"]) == (status, ended_by), done.stderr
    assert result(run)["completed"] == (ended_by == "episode_end")


@needs_sandbox
def test_a_stop_request_to_serve_kills_the_agents_sandbox(tmp_path: Path) -> None:
    run, marker = tmp_path / "run", "sleep 600.25"
    proc = subprocess.Popen(serve_argv(tmp_path / "ws", run, "--exec", marker), stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not _processes_running(marker):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the agent did not start within 60 s"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert result(run)["ended_by"] == "signal" and not _processes_running(marker)


def _processes_running(cmdline: str) -> bool:
    found = False
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            found |= Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").strip() == cmdline.encode()
        except OSError:
            continue
    return found


def test_exec_fails_naming_the_reason_when_the_sandbox_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "sandbox_unavailable_reason", lambda: "unshare is not installed")
    ws, run = tmp_path / "ws", tmp_path / "run"
    argv = ["serve", ENV, "--seed", "1", "--workspace", str(ws), "--run-dir", str(run), "--exec", "true"]
    for done in (CliRunner().invoke(app, argv), CliRunner().invoke(app, ["sandbox", str(ws), "--", "true"])):
        assert done.exit_code == 2 and "sandbox" in done.output and "unshare is not installed" in done.output
    assert not ws.exists() and not run.exists()
