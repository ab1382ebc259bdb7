"""The seat generator (core/seat.py) over every registered env: the SDK, the shell client and the docs come
from the registry and a short declaration, the same way for each env (docs/seats.md). Live seats are
tested per env (tests/ceo/test_isolation.py, tests/yc/test_shell_isolation.py, tests/cfo/test_cfo_seat.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bizbench.core.envs import get_env, list_envs
from bizbench.core.sdkgen import function_name
from bizbench.core.seat import MARKER, Seat, SeatError, render_template, seat_of

SEATED = [spec.id for spec in list_envs() if spec.seat is not None]


def test_every_builtin_env_has_a_seat() -> None:
    assert {"ceo", "yc", "cfo"} <= set(SEATED)
    packages = {seat_of(env).package for env in SEATED}
    runtime_dirs = {seat_of(env).runtime_dir for env in SEATED}
    assert len(packages) == len(runtime_dirs) == len(SEATED)  # seats of two envs never collide


@pytest.mark.parametrize("env_id", SEATED)
def test_the_workspace_is_generated_from_the_registry(env_id: str, tmp_path: Path) -> None:
    seat = seat_of(env_id)
    registry = get_env(env_id).env_class.registry
    files = seat.write_workspace(tmp_path)
    rel = {p.relative_to(tmp_path).as_posix() for p in files.files}
    assert {"bin/bizbench", f"{seat.package}/__init__.py", f"{seat.package}/_runtime.py", "docs/README.md"} <= rel
    assert {f"docs/tools/{name}.json" for name in registry.names()} <= rel
    assert (f"{seat.runtime_dir}/site/sitecustomize.py" in rel) and os.access(tmp_path / "bin" / "bizbench", os.X_OK)
    assert (tmp_path / "bin").stat().st_mode & 0o022 == 0  # read-only in the sandbox, not writable here either
    probe = (
        f"import inspect, json, {seat.package} as api\n"
        "print(json.dumps({n: list(inspect.signature(getattr(api, n)).parameters)\n"
        "    for n in api.__all__ if callable(getattr(api, n)) and not isinstance(getattr(api, n), type)}))\n"
        f"assert issubclass(api.{seat.error}, Exception)\n"
    )
    env = {"PATH": "/usr/bin:/bin", f"{seat.prefix}_PORT": "1"}  # never contacted
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    want = {function_name(s.name): [p.name for p in s.params] for s in registry.specs()}
    assert json.loads(proc.stdout) == {**want, "call": ["tool", "args"], "game_status": [], "observation": []}
    readme = (tmp_path / "docs" / "README.md").read_text()
    assert seat.command_prefix() in readme and seat.package in readme
    text = " ".join(p.read_text() for p in files.files)
    assert "import bizbench" not in text and "from bizbench" not in text


@pytest.mark.parametrize("env_id", SEATED)
def test_the_shell_client_is_one_template(env_id: str, tmp_path: Path) -> None:
    """Every env's bin/bizbench is the same program; only its block of constants differs."""
    seat = seat_of(env_id)
    source = seat.client_source()
    assert source.startswith("#!/usr/bin/env -S python3 -I -S\n")
    assert f'ENV_ID = "{env_id}"' in source and f'RUNTIME_DIR = "{seat.runtime_dir}"' in source
    other = seat_of(next(e for e in SEATED if e != env_id)).client_source()

    def outside_constants(text: str) -> tuple[str, str]:
        head, _, rest = text.partition("# --- seat constants:")
        return head, rest.partition("# --- end of seat constants ---")[2]

    assert outside_constants(source) == outside_constants(other)
    client = tmp_path / "bizbench"
    client.write_text(source)
    for argv, needle in (
        ([env_id, "--session", str(tmp_path), "x"], f"No {env_id} session"),
        (["other", "--session", str(tmp_path), "x"], f"usage: bizbench {env_id} --session DIR"),
        ([env_id, "--session", str(tmp_path), "sim", "init"], "host created this session"),
    ):
        proc = subprocess.run([sys.executable, "-I", "-S", str(client), *argv], capture_output=True, text=True)
        assert proc.returncode == 1 and needle in json.loads(proc.stdout)["error"], proc.stdout


@pytest.mark.parametrize("env_id", SEATED)
def test_sandbox_options(env_id: str) -> None:
    seat = seat_of(env_id)
    opts = seat.sandbox_options()
    assert opts["readonly"] == (seat.runtime_dir, "bin")
    assert opts["env"]["PATH"].startswith("/workspace/bin:")
    assert opts["env"][f"{seat.prefix}_SOCKET"] == f"/workspace/{seat.runtime_dir}/api.sock"
    assert seat.socket_path(Path("ws")) == Path("ws").absolute() / seat.runtime_dir / "api.sock"


def test_render_template_checks_its_constants() -> None:
    src = (
        '"""doc"""\n# --- seat constants: x ---\nA = 1\nB = "b"\n# --- end of seat constants ---\nclass APIError: ...\n'
    )
    out = render_template(src, {"A": 2, "B": 'q"uote'}, {"APIError": "FooError"})
    assert 'A = 2\nB = "q\\"uote"\n' in out and "class FooError" in out and "APIError" not in out
    with pytest.raises(ValueError, match="constants are A, B"):
        render_template(src, {"A": 2})
    with pytest.raises(ValueError, match="no block"):
        render_template("x = 1\n", {})


def test_a_seat_declaration_is_checked() -> None:
    for bad in ({"package": "not-a-name"}, {"error": "1Error"}, {"runtime_dir": "a/b"}, {"runtime_dir": "bin"}):
        with pytest.raises(ValueError):
            Seat(**{"env": "x", "package": "x_api", "title": "X", "runtime_dir": ".x", **bad})  # type: ignore[arg-type]


def test_the_console_script_answers_any_env_without_typer_or_numpy(tmp_path: Path) -> None:
    """`bizbench cfo --session DIR ...` takes the fast path: no typer, rich or numpy in the client."""
    code = (
        "import sys; sys.argv = ['bizbench', 'cfo', '--session', sys.argv[1], 'observation']\n"
        "from bizbench import entry\n"
        "try:\n    entry.main()\nexcept SystemExit as e:\n    rc = e.code\n"
        "heavy = [m for m in ('typer', 'rich', 'numpy', 'pydantic') if m in sys.modules]\n"
        "print('LOADED', heavy, rc, file=sys.stderr)\n"
    )
    env = dict(os.environ, BIZBENCH_STATE_DIR=str(tmp_path / "state"))
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s")], capture_output=True, text=True, env=env)
    assert "LOADED [] 1" in proc.stderr, proc.stderr
    assert "No cfo session" in json.loads(proc.stdout)["error"]


def _snapshot(root: Path) -> dict[str, tuple[int, int, bytes]]:
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        out[p.relative_to(root).as_posix()] = (st.st_uid, st.st_mode, b"" if p.is_dir() else p.read_bytes())
    return out


@pytest.mark.parametrize("env_id", ["yc", "cfo"])
def test_serving_a_users_folder_refuses_instead_of_changing_or_deleting_their_files(
    env_id: str, tmp_path: Path
) -> None:
    """docs/seats.md: a user's folder is never chowned, chmodded or cleaned; the refusal names the path."""
    seat = seat_of(env_id)
    ws = tmp_path / "W"
    (ws / "docs" / "tools").mkdir(parents=True)
    (ws / seat.runtime_dir).mkdir()
    (ws / "docs" / "tools" / "notes.json").write_text("{}")
    (ws / "instructions.md").write_text("mine\n")
    (ws / seat.runtime_dir).chmod(0o777)
    before = _snapshot(ws)
    cmd = [sys.executable, "-m", "bizbench.cli", "serve", env_id, "--seed", "5"]
    cmd += ["--workspace", str(ws), "--run-dir", str(tmp_path / "R")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    message = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and seat.runtime_dir in message and "was not made by a seat" in message, message
    assert _snapshot(ws) == before and not (tmp_path / "R").exists()
    os.rmdir(ws / seat.runtime_dir)  # without the runtime dir: the user's instructions.md is named
    if seat.instructions is not None:
        with pytest.raises(SeatError, match="instructions.md exists and is not the seat's"):
            seat.write_workspace(ws)
        os.remove(ws / "instructions.md")
    before = _snapshot(ws)
    seat.write_workspace(ws)  # nothing of the user's in the way: their notes.json stays
    assert (ws / "docs" / "tools" / "notes.json").read_text() == "{}"
    assert all(_snapshot(ws)[k] == v for k, v in before.items() if k != "docs/tools" and k != "docs")


@pytest.mark.parametrize("env_id", ["yc", "cfo"])
def test_a_workspace_the_seat_prepared_is_served_again_even_after_a_write_cut_short(
    env_id: str, tmp_path: Path
) -> None:
    seat = seat_of(env_id)
    seat.write_workspace(tmp_path)
    marker = json.loads((tmp_path / seat.runtime_dir / MARKER).read_text())
    assert "bin/bizbench" in marker["files"] and "bin" in marker["dirs"] and seat.runtime_dir in marker["dirs"]
    (tmp_path / "bin" / ".bizbench.0123456789ab.tmp").write_text("cut short")  # a crash mid-write
    (tmp_path / "docs" / "tools" / "notes.json").write_text("{}")  # the agent's own file: kept
    seat.write_workspace(tmp_path)
    assert os.listdir(tmp_path / "bin") == ["bizbench"] and (tmp_path / "docs" / "tools" / "notes.json").exists()
    (tmp_path / "bin" / "mytool").write_text("x")  # not a seat's file: refused
    with pytest.raises(SeatError, match="mytool"):
        seat.write_workspace(tmp_path)


@pytest.mark.parametrize("env_id", SEATED)
def test_the_seat_writes_each_file_once_and_an_env_document_cannot_replace_a_generated_one(
    env_id: str, tmp_path: Path
) -> None:
    from bizbench.core.sdkgen import sdk_paths

    seat = seat_of(env_id)
    seat.write_workspace(tmp_path)
    files = json.loads((tmp_path / seat.runtime_dir / MARKER).read_text())["files"]
    assert len(files) == len(set(files)) and "docs/tools.md" in files
    registry = get_env(env_id).env_class.registry
    with pytest.raises(ValueError, match="tools.md"):
        sdk_paths(registry, seat.package, runtime_dir=seat.runtime_dir, extra_docs=["tools.md"])


@pytest.mark.parametrize("env_id", SEATED)
def test_a_host_session_refuses_the_workspace_of_a_served_seat_and_writes_nothing_there(
    env_id: str, tmp_path: Path
) -> None:
    """A second world in the seat's folder would answer beside the served one (docs/seats.md)."""
    ws = tmp_path / "ws"
    seat_of(env_id).write_workspace(ws)
    before = _snapshot(ws)
    env = dict(os.environ, BIZBENCH_STATE_DIR=str(tmp_path / "state"))
    (ws / "notes").mkdir()
    for where, words in (
        (ws, ["sim", "init", "--seed", "1"]),
        (ws, ["observation"]),
        (ws / "notes", ["sim", "init", "--seed", "1"]),  # inside it, the agent's own folder
        (ws / seat_of(env_id).runtime_dir, ["sim", "init", "--seed", "1"]),  # beside the marker
    ):
        cmd = [sys.executable, "-m", "bizbench.entry", env_id, "--session", str(where), *words]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 1 and "workspace of a served seat" in json.loads(proc.stdout)["error"]
    assert _snapshot(ws) == {**before, "notes": _snapshot(tmp_path)["ws/notes"]} and not (tmp_path / "state").exists()


@pytest.mark.parametrize("env_id", ["yc", "ceo"])
def test_the_seat_marker_lives_in_the_runtime_directory_out_of_the_agents_reach(env_id: str, tmp_path: Path) -> None:
    seat = seat_of(env_id)
    seat.write_workspace(tmp_path)
    assert (tmp_path / seat.runtime_dir / MARKER).is_file() and not (tmp_path / MARKER).exists()
    (tmp_path / MARKER).write_text('{"files": ["my_notes.md"], "dirs": []}')  # an agent's forgery: not read
    (tmp_path / "my_notes.md").write_text("mine")
    seat.write_workspace(tmp_path)  # served again from the real marker
    assert (tmp_path / "my_notes.md").read_text() == "mine" and (tmp_path / MARKER).read_text().startswith('{"files"')
