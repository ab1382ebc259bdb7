import subprocess
import sys

from typer.testing import CliRunner

from bizbench.cli import app

runner = CliRunner()


def test_help():
    r = runner.invoke(app, ["--help"])
    assert r.exit_code == 0
    for cmd in ("envs", "presets", "version"):
        assert cmd in r.output


def test_envs_and_version():
    r = runner.invoke(app, ["envs"])
    assert r.exit_code == 0 and "ceo" in r.output
    r = runner.invoke(app, ["version"])
    assert r.exit_code == 0 and "0.1.0" in r.output


def test_presets_unknown_env():
    r = runner.invoke(app, ["presets", "nope"])
    assert r.exit_code == 2


def test_import_is_light():
    code = (
        "import sys, bizbench.cli; "
        "heavy = [m for m in ('numpy', 'matplotlib', 'pydantic', 'bizbench.envs.ceo') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "numpy" not in out.stdout and "matplotlib" not in out.stdout
    assert "bizbench.envs" not in out.stdout
