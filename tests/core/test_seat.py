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
from bizbench.core.seat import Seat, render_template, seat_of

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
