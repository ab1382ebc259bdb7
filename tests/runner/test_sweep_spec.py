"""Sweep files: validation errors that name the key, expansion into runs, stable run names."""

from __future__ import annotations

from pathlib import Path

import pytest
from sweep_helpers import cfo_script, scripted_cfo_block, spec_of, write_sweep

from bizbench.runner.sweep import SweepError, expand, load_sweep, parse_seeds, provider_of, sweep_file


def test_expansion_covers_env_x_preset_x_agent_x_seed_in_file_order(tmp_path: Path) -> None:
    spec = spec_of(
        tmp_path,
        """
[[runs]]
env = "cfo"
presets = ["paper", "random-macro"]
agents = ["prudent-cfo", "greedy-equity"]
seeds = "1-3"

[[runs]]
env = "yc"
agents = ["greedy"]
seeds = [5, 2, 5]
""",
    )
    runs = expand(spec)
    assert len(runs) == 2 * 2 * 3 + 2
    assert runs[0].name == "cfo-paper-prudent-cfo-seed1"
    assert runs[3].name == "cfo-paper-greedy-equity-seed1"
    assert runs[6].name == "cfo-random-macro-prudent-cfo-seed1"
    assert [r.name for r in runs[-2:]] == ["yc-default-greedy-seed5", "yc-default-greedy-seed2"]
    assert {r.kind for r in runs} == {"baseline"} and all(r.provider is None for r in runs)
    # Names are a pure function of the file: expanding again gives the same directories.
    names = [r.name for r in expand(spec)]
    assert names == [r.name for r in expand(load_sweep(tmp_path / "sweep.toml"))]


def _ceo_grid() -> str:
    return """
[[runs]]
env = "ceo"
preset = "no-surges"
agents = ["rule-based"]
seeds = 42
days = 120
db = false
options = { cash_floor = 100000.0 }
grid = { price_book = ["cheap", "mid"], target_rule = ["s1_only", "s1_then_s3"], spend_package = ["light", "heavy"] }
"""


def test_a_grid_of_agent_options_expands_to_every_combination(tmp_path: Path) -> None:
    runs = expand(spec_of(tmp_path, _ceo_grid()))
    assert len(runs) == 8
    assert runs[0].name == "ceo-no-surges-rule-based-100000-cheap-s1_only-light-seed42"
    assert runs[0].options == {"cash_floor": 100000.0, "price_book": "cheap", "target_rule": "s1_only",
                               "spend_package": "light"}  # fmt: skip
    assert runs[-1].options["price_book"] == "mid" and runs[-1].options["spend_package"] == "heavy"
    assert all(r.horizon == 120 and r.world == {"database": False} for r in runs)
    assert len({r.name for r in runs}) == 8


def test_models_with_labels_replicates_and_providers(tmp_path: Path) -> None:
    script = cfo_script(tmp_path)
    hot = 'label = "hot"\nsampling = { temperature = 1.0 }\nlimits = { max_turns = 3 }\n'
    body = f'[[runs]]\nenv = "cfo"\nseeds = "1-2"\nn = 2\nmodels = ["scripted:{script}"]\n'
    spec = spec_of(tmp_path, body + scripted_cfo_block(script, hot))
    runs = expand(spec)
    assert [r.name for r in runs[:4]] == [
        "cfo-paper-scripted-pass-seed1",
        "cfo-paper-scripted-pass-seed1-r2",
        "cfo-paper-scripted-pass-seed2",
        "cfo-paper-scripted-pass-seed2-r2",
    ]
    assert runs[4].name == "cfo-paper-hot-seed1"
    assert runs[4].model is not None and runs[4].model["limits"]["max_turns"] == 3
    assert runs[4].model["sampling"] == {"temperature": 1.0}
    assert {r.provider for r in runs} == {"scripted"}


def test_the_split_gives_default_seeds(tmp_path: Path) -> None:
    runs = expand(spec_of(tmp_path, '[[runs]]\nenv = "yc"\nagents = ["greedy"]\n'))
    assert [r.seed for r in runs] == list(range(1, 21))


def test_two_runs_with_one_name_are_refused(tmp_path: Path) -> None:
    script = cfo_script(tmp_path)
    spec = spec_of(tmp_path, f'[[runs]]\nenv = "cfo"\nseeds = 1\nmodels = ["scripted:{script}", "scripted:{script}"]\n')
    with pytest.raises(SweepError, match="both named 'cfo-paper-scripted-pass-seed1'.*distinct label"):
        expand(spec)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[[runs]]\nenv = "cfo"\nagents = ["prudent-cfo"]\nsedes = "1-2"\n', r"runs\[0\]\.sedes: unknown key"),
        ('[[runs]]\nenv = "cfo"\npresets = ["papr"]\nagents = ["prudent-cfo"]\n', r"runs\[0\]: unknown cfo preset"),
        ('[[runs]]\nenv = "cfx"\nagents = ["x"]\n', r"runs\[0\]\.env: unknown env 'cfx'"),
        ('[[runs]]\nenv = "cfo"\nagents = ["prudent-cfo"]\nseeds = "3-1"\n', r"runs\[0\]\.seeds: .*backwards"),
        ('[[runs]]\nenv = "cfo"\n', r"runs\[0\]: give agents"),
        ('[[runs]]\nenv = "yc"\nagents = ["greedy"]\noptions = { a = 1 }\n', r"runs\[0\]: the yc greedy .*option a"),
        ('[[runs]]\nenv = "yc"\nagents = ["greedy"]\nn = 3\n', r"runs\[0\]: n > 1 repeats model runs"),
        ('split = "final"\n[[runs]]\nenv = "yc"\nagents = ["greedy"]\n', r"split: Input should be 'dev' or 'test'"),
        ('[limits]\nconcurrency = { opnai = 2 }\n[[runs]]\nenv = "yc"\nagents = ["greedy"]\n',
         r"limits\.concurrency: .*unknown provider 'opnai'"),
        ('[[runs]]\nenv = "cfo"\nmodels = [{ model = "openai/x", sampling = { temperature = 9 } }]\n',
         r"runs\[0\]\.models\[0\]\.sampling: .*temperature=9"),
        ('[[runs]]\nenv = "cfo"\nmodels = [{ model = "openai/x", limits = { max_turns = 0 } }]\n',
         r"runs\[0\]\.models\[0\]\.limits\.max_turns"),
        ("max_dollars = -1\n[[runs]]\nenv = 'yc'\nagents = ['greedy']\n", r"max_dollars: Input should be greater"),
        ("", r"runs: Field required"),
    ],
)  # fmt: skip
def test_validation_errors_name_the_bad_key(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(SweepError, match=message):
        spec_of(tmp_path, body)


def test_unreadable_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(SweepError, match="cannot read the sweep file"):
        load_sweep(tmp_path / "missing.toml")
    with pytest.raises(SweepError, match="not valid TOML"):
        load_sweep(write_sweep(tmp_path, "[[runs]\n"))


def test_seed_ranges_and_providers() -> None:
    assert parse_seeds("1-3,7,2") == [1, 2, 3, 7]
    assert parse_seeds(4) == [4]
    for bad in ("a-b", [1, -2], True, []):
        with pytest.raises(ValueError, match="seeds"):
            parse_seeds(bad)
    assert provider_of("openai/gpt-5.5") == "openai"
    assert provider_of("openai-compatible/qwen3:8b@http://localhost:8000/v1") == "openai-compatible"
    assert provider_of("scripted:/tmp/a.jsonl") == "scripted"


def test_command_line_overrides_are_validated_like_the_file(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, '[[runs]]\nenv = "cfo"\npresets = ["paper"]\nagents = ["prudent-cfo"]\nseeds = 1\n')
    spec = sweep_file(path, out=str(tmp_path / "elsewhere"), max_dollars=3.5)
    assert spec.out == str(tmp_path / "elsewhere") and spec.max_dollars == 3.5
    assert expand(spec) == expand(load_sweep(path))
    with pytest.raises(SweepError, match="max_dollars: Input should be greater than 0"):
        sweep_file(path, max_dollars=-1.0)
