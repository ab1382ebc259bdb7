import subprocess
import sys

import pytest
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


def test_a_model_flag_given_to_a_baseline_is_an_error_naming_it(tmp_path):
    """The flags of a model in the seat mean nothing to a baseline: refused before anything runs."""
    for flags, named in (
        (["--harness", "cli-chat", "--max-turns", "3"], "--harness, --max-turns"),
        (["--temperature", "1"], "--temperature"),
    ):
        r = runner.invoke(
            app, ["run", "cfo", "--agent", "prudent-cfo", "--horizon", "1", "--out", str(tmp_path / "r"), *flags]
        )
        assert r.exit_code == 2 and f"{named}: options of a model in the seat (--model)" in " ".join(r.output.split())
        assert not (tmp_path / "r").exists()
    r = runner.invoke(
        app, ["run", "cfo", "--agent", "my_agents:Careful", "--temperature", "0.3", "--out", str(tmp_path / "r")]
    )
    assert (
        r.exit_code == 2
        and "--temperature: options of a model in the seat (--model), not of an agent class"
        in " ".join(r.output.split())
    )
    r = runner.invoke(app, ["run", "ceo", "--model", "scripted:x.jsonl", "--no-db", "--out", str(tmp_path / "r")])
    assert r.exit_code == 2 and "--db/--no-db" in r.output and not (tmp_path / "r").exists()


def test_a_scripted_model_checks_its_sampling_and_prices_as_a_live_one_does(tmp_path):
    from bizbench.agents.models.factory import make_model

    script = tmp_path / "s.jsonl"
    script.write_text('{"content": "hi"}\n')
    assert make_model(f"scripted:{script}", {"temperature": 0.5}).sampling == {"temperature": 0.5}  # recorded
    bad = (({"temperature": 9}, None), ({"reasoning_effort": "bogus"}, None), ({}, str(tmp_path / "nope.toml")))
    for sampling, prices in bad:
        with pytest.raises(ValueError):
            make_model(f"scripted:{script}", sampling, prices=prices)


def test_an_env_without_an_upper_bound_says_so_and_which_env_has_one():
    r = runner.invoke(app, ["upper-bound", "cfo"])
    assert r.exit_code == 2 and "env 'cfo' has no upper bound module; ceo has one" in " ".join(r.output.split())
    assert "No module named" not in r.output
