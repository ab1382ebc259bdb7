"""Red-team tests of the ceo seat: real Python in the sandbox against a live ``bizbench serve``.

The server runs as a subprocess (``--preset horizon-50``, seed 918273, a tmp workspace);
every attack runs inside :func:`bizbench.core.sandbox.run_in_sandbox` exactly as an agent's
code would. docs/principles.md principle 3: nothing hidden (the seed above all) reaches the agent.
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bizbench.core.sandbox import python_in_sandbox, run_in_sandbox, sandbox_unavailable_reason
from bizbench.core.seat import launch_serve, seat_of
from bizbench.envs.ceo.tools import registry

SEED = 918273  # distinctive digits: they must never appear anywhere the agent can read
REASON = sandbox_unavailable_reason()
needs_sandbox = pytest.mark.skipif(REASON is not None, reason=f"no sandbox on this host: {REASON}")
SEAT = seat_of("ceo")
sandbox_options = SEAT.sandbox_options
write_workspace = SEAT.write_workspace


@dataclass
class Live:
    ws: Path
    run: Path
    proc: subprocess.Popen[bytes]
    port: int

    def agent(self, code: str, timeout: float = 60, with_env: bool = True) -> Any:
        """Run agent Python in the sandbox; its stdout must end with one JSON line."""
        opts = sandbox_options() if with_env else {"readonly": sandbox_options()["readonly"]}
        r = python_in_sandbox(self.ws, code, timeout, **opts)
        assert not r.timed_out
        lines = r.stdout.strip().splitlines()
        assert r.returncode == 0 and lines, f"rc={r.returncode}\nstdout={r.stdout}\nstderr={r.stderr}"
        return json.loads(lines[-1])

    def tamper(self) -> list[dict[str, Any]]:
        path = self.run / "tamper.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def start_server(base: Path, *extra: str) -> tuple[Path, Path, subprocess.Popen[bytes], int]:
    ws, run = base / "ws", base / "run"
    proc = launch_serve("ceo", SEED, ws, run, "--preset", "horizon-50", "--port", "0", *extra, cwd=base)
    return ws, run, proc, int(json.loads(SEAT.connection_path(ws).read_text())["port"])


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    if REASON is not None:
        pytest.skip(f"no sandbox on this host: {REASON}")
    ws, run, proc, port = start_server(tmp_path_factory.mktemp("iso"))
    yield Live(ws, run, proc, port)
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)


def kinds(live: Live) -> set[str]:
    return {row["kind"] for row in live.tamper()}


# ---------------------------------------------------------------------------- it works
@needs_sandbox
def test_sdk_works_with_no_setup(live: Live) -> None:
    code = "import json, novamind_api as nm\nprint(json.dumps(nm.get_vars()))"
    assert live.agent(code)["current_day"] == 0
    assert live.agent(code, with_env=False)["current_day"] == 0  # socket found next to the package


@needs_sandbox
def test_sdk_from_a_subdirectory_and_over_tcp(live: Live, tmp_path: Path) -> None:
    (live.ws / "notes").mkdir(exist_ok=True)
    (live.ws / "notes" / "s.py").write_text("import json, novamind_api as nm\nprint(json.dumps(nm.get_status()))\n")
    r = python_in_sandbox(live.ws, Path("notes/s.py"), 60, **sandbox_options())
    assert r.returncode == 0 and json.loads(r.stdout)["cash"] > 0, r.stderr
    # not sandboxed: TCP via NOVAMIND_API_PORT from anywhere
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(live.ws), "NOVAMIND_API_PORT": str(live.port)}
    code = "import json, novamind_api as nm; print(json.dumps(nm.get_vars()))"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert json.loads(out.stdout)["current_day"] == 0, out.stderr


@needs_sandbox
def test_workspace_layout(live: Live) -> None:
    assert (live.ws / "novamind_api" / "__init__.py").exists()
    assert (live.ws / "docs" / "tools.md").exists() and (live.ws / "docs" / "README.md").exists()
    assert {p.stem for p in (live.ws / "docs" / "tools").glob("*.json")} == set(registry.names())
    info = json.loads((live.ws / ".novamind" / "connection.json").read_text())
    assert info["socket"] == ".novamind/api.sock" and info["port"] == live.port
    config = json.loads((live.run / "config.json").read_text())
    assert config["seed"] == SEED and not (live.ws / "config.json").exists()


# ---------------------------------------------------------------------------- the engine
@needs_sandbox
def test_engine_import_fails_and_is_logged(live: Live) -> None:
    code = """
import importlib, json, subprocess, sys
out = {}
for stmt in ["import bizbench", "import bizbench.envs.ceo.world", "importlib.import_module('bizbench')"]:
    try:
        exec(stmt)
        out[stmt] = "imported"
    except ImportError as e:
        out[stmt] = type(e).__name__
p = subprocess.run([sys.executable, "-I", "-c", "import bizbench"], capture_output=True, text=True)
out["python -I"] = p.returncode
print(json.dumps(out))
"""
    out = live.agent(code)
    assert out.pop("python -I") == 1  # no hook, but nothing to import either
    assert set(out.values()) == {"ModuleNotFoundError"}
    rows = [r for r in live.tamper() if r["kind"] == "import_engine"]
    assert rows and rows[-1]["source"] == "sandbox" and "bizbench" in rows[-1]["detail"]


# ---------------------------------------------------------------------------- the host
@needs_sandbox
def test_host_files_and_server_process_are_invisible(live: Live) -> None:
    code = f"""
import glob, json, os
seen = {{}}
for path in ["/work", "/root/.pyenv/..", {str(live.run)!r}, "/proc/1/environ", "/proc/1/cmdline", "/home"]:
    try:
        is_dir = os.path.isdir(path)
        seen[path] = sorted(os.listdir(path)) if is_dir else open(path, "rb").read().decode(errors="replace")
    except OSError as e:
        seen[path] = "ERR " + type(e).__name__
cmdlines = []
for f in glob.glob("/proc/[0-9]*/cmdline"):
    if f == f"/proc/{{os.getpid()}}/cmdline":
        continue  # this script's own command line (it holds this code)
    try:
        cmdlines.append(open(f, "rb").read().replace(b"\\0", b" ").decode())
    except OSError:
        pass
seen["cmdlines"] = cmdlines
print(json.dumps(seen))
"""
    seen = live.agent(code)
    assert seen["/work"].startswith("ERR") and seen["/home"].startswith("ERR")
    assert seen[str(live.run)].startswith("ERR")
    assert seen["/root/.pyenv/.."] == [".pyenv"]  # only the Python installation's path
    assert seen["/proc/1/environ"].startswith("ERR") and seen["/proc/1/cmdline"].startswith("ERR")
    assert not any("serve" in c or "bizbench" in c or "pytest" in c for c in seen["cmdlines"]), seen["cmdlines"]
    assert len(seen["cmdlines"]) <= 1  # at most the sandbox's own processes
    assert {"proc_access", "host_path_access"} <= kinds(live)


@needs_sandbox
def test_seed_appears_nowhere(live: Live) -> None:
    cmd = (
        "ps auxww; env; id; hostname; cat /proc/self/mountinfo; "
        "for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ; do tr '\\0' ' ' < $f; echo; done; "
        "cat .novamind/connection.json; grep -r . /workspace /etc /tmp 2>/dev/null | head -c 20000000; "
        "python3 -c 'import novamind_api as nm, json; print(json.dumps(nm.get_vars()), nm.game_status())'"
    )
    r = run_in_sandbox(live.ws, ["bash", "-c", cmd], 60, output_limit=10_000_000, **sandbox_options())
    text = r.stdout + r.stderr
    assert "current_day" in text and "mountinfo" not in r.stderr
    assert str(SEED) not in text
    for path in live.ws.rglob("*"):  # everything in the workspace, host side
        if path.is_file():
            assert str(SEED).encode() not in path.read_bytes(), path


@needs_sandbox
def test_network_unreachable_except_the_socket(live: Live) -> None:
    code = f"""
import json, socket, novamind_api as nm
out = {{}}
for addr in [("127.0.0.1", {live.port}), ("8.8.8.8", 53)]:
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect(addr)
        out[str(addr)] = "connected"
    except OSError as e:
        out[str(addr)] = "ERR " + type(e).__name__
out["sdk"] = nm.get_vars()["current_day"]
print(json.dumps(out))
"""
    out = live.agent(code)
    assert out.pop("sdk") == 0
    assert all(v.startswith("ERR") for v in out.values()), out


# ---------------------------------------------------------------------------- bad calls
@needs_sandbox
def test_bad_calls_get_clean_errors_and_are_logged(live: Live) -> None:
    code = """
import json, novamind_api as nm
attempts = {
    "unknown": lambda: nm.call("drop_all_tables"),
    "huge": lambda: nm.post_social_media(content="x" * 10_000_000),
    "nan": lambda: nm.set_daily_spend(operations=float("nan")),
    "inf": lambda: nm.set_prices(A=float("inf")),
    "negative": lambda: nm.set_daily_spend(development=-5.0),
    "wrong_type": lambda: nm.set_capacity_tier(tier="max"),
}
out = {}
for name, fn in attempts.items():
    try:
        fn()
        out[name] = "accepted"
    except nm.NovaMindAPIError as e:
        out[name] = str(e)
out["after"] = nm.get_vars()["current_day"]
out["spend"] = nm.get_status()["spend"]
print(json.dumps(out))
"""
    out = live.agent(code)
    assert out["unknown"].startswith("Unknown tool: drop_all_tables")
    assert "too large" in out["huge"]
    assert "finite" in out["nan"] and "finite" in out["inf"]
    assert "development" in out["negative"] and ">= 0" in out["negative"]
    assert "tier" in out["wrong_type"]
    assert out["after"] == 0  # the server keeps answering
    # the refused NaN and negative spends left the spend as the world starts (issue 18: this was
    # `operations == operations`, which a NaN fails but any other wrong value passes)
    assert (out["spend"]["development"], out["spend"]["operations"]) == (0.0, 0.0)
    assert {"unknown_tool", "oversized_request", "non_finite"} <= kinds(live)
    assert live.proc.poll() is None


# ---------------------------------------------------------------------------- SDK drift, CLI
def test_sdk_has_every_tool_with_its_signature(tmp_path: Path) -> None:
    write_workspace(tmp_path)
    probe = (
        "import inspect, json, novamind_api as nm\n"
        "print(json.dumps({n: [[p.name, p.kind.name, None if p.default is p.empty else repr(p.default)]\n"
        "    for p in inspect.signature(getattr(nm, n)).parameters.values()]\n"
        "    for n in nm.__all__ if callable(getattr(nm, n)) and not isinstance(getattr(nm, n), type)}))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "NOVAMIND_API_PORT": "1"}  # never contacted
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert set(got) == set(registry.names()) | {"call", "game_status", "observation"}
    for spec in registry.specs():
        fn_params = [p for p in inspect.signature(spec.fn).parameters.values()][1:]
        want = [[p.name, "POSITIONAL_OR_KEYWORD", None if p.default is p.empty else repr(p.default)] for p in fn_params]
        assert got[spec.name] == want, spec.name
    text = (tmp_path / "novamind_api" / "__init__.py").read_text()
    assert "bizbench" not in text.replace("# ", "") and "seed" not in text.lower()


def test_tools_cli_json_lists_every_tool() -> None:
    cmd = [sys.executable, "-m", "bizbench.cli", "tools", "ceo", "--format", "json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    tools = json.loads(proc.stdout)
    assert [t["name"] for t in tools] == registry.names()
    assert all(set(t) == {"name", "description", "category", "mutates", "parameters"} for t in tools)
    assert all(t["parameters"]["type"] == "object" for t in tools)
    md = subprocess.run([*cmd[:-1], "markdown"], capture_output=True, text=True, check=True).stdout
    assert all(f"`{n}`" in md for n in registry.names())


def test_tools_cli_unknown_env() -> None:
    proc = subprocess.run([sys.executable, "-m", "bizbench.cli", "tools", "nope"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""


# ---------------------------------------------------------------------------- lifecycle
@needs_sandbox
def test_server_stops_at_the_end_of_the_episode(tmp_path: Path) -> None:
    ws, run, proc, _ = start_server(tmp_path, "--days", "7")
    try:
        code = """
import json, novamind_api as nm
band = {"point": 1e6, "lower": 0.0, "upper": 2e6}
out = nm.next_week(rationale="hold", predictions={k: band for k in ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")})
print(json.dumps({"day": out.get("day"), "dashboard": "Dashboard" in json.dumps(out)}))
"""
        r = python_in_sandbox(ws, code, 120, **sandbox_options())
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout.splitlines()[-1]) == {"day": 7, "dashboard": True}
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    result = json.loads((run / "result.json").read_text())
    assert result["ended_by"] == "episode_end" and result["days_survived"] == result["horizon_days"] == 7
    assert result["final_cash"] is not None and result["bankrupt"] is False
    assert not (ws / ".novamind" / "api.sock").exists()


def test_serve_refuses_a_workspace_path_with_the_seed(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "bizbench.cli", "serve", "ceo", "--seed", str(SEED)]
    cmd += ["--workspace", str(tmp_path / f"ws-{SEED}"), "--run-dir", str(tmp_path / "run")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "seed" in proc.stderr
    cmd[-3:] = [str(tmp_path / "ws"), "--run-dir", str(tmp_path / "ws" / "run")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "must not contain" in proc.stderr


@needs_sandbox
def test_sigterm_writes_the_run_directory(tmp_path: Path) -> None:
    ws, run, proc, _ = start_server(tmp_path)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 0
    result = json.loads((run / "result.json").read_text())
    assert result["ended_by"] == "signal" and result["days_survived"] == 0 and result["final_cash"] > 0
    assert (run / "tamper.jsonl").exists() and os.path.exists(run / "config.json")
