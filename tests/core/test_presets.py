import hashlib
import json

import pytest
from fixtures_pkg import ToyConfig

from bizbench.core.presets import deep_merge, list_presets, load_preset, load_preset_file

PKG = "fixtures_pkg"


def test_list_presets():
    assert list_presets(PKG) == ["base", "broken", "cycle_a", "cycle_b", "short", "shorter"]


def test_load_base_and_hash():
    cfg, h = load_preset(PKG, "base", ToyConfig)
    assert isinstance(cfg, ToyConfig)
    assert cfg.description == "Base toy preset"
    assert cfg.tags == ["a", "b"]
    blob = json.dumps(cfg.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    assert h == hashlib.sha256(blob.encode()).hexdigest()
    assert load_preset(PKG, "base", ToyConfig)[1] == h


def test_extends_deep_merge():
    cfg, h = load_preset(PKG, "short", ToyConfig)
    assert cfg.horizon_days == 10
    assert cfg.description == "Short horizon"
    assert cfg.tags == ["c"]  # lists replace
    assert cfg.pricing.pro == 80.0 and cfg.pricing.basic == 10.0  # tables merge
    assert cfg.start_cash == 1000.0
    assert h != load_preset(PKG, "base", ToyConfig)[1]
    cfg2, _ = load_preset(PKG, "shorter", ToyConfig)  # two levels
    assert cfg2.horizon_days == 5 and cfg2.pricing.pro == 80.0
    assert cfg2.description == "Short horizon"


def test_unknown_preset_lists_available():
    with pytest.raises(ValueError, match=r"unknown preset 'nope'.*available: base, broken"):
        load_preset(PKG, "nope", ToyConfig)


def test_validation_error_names_preset_and_field():
    with pytest.raises(ValueError, match=r"preset 'broken' is invalid: horizon_days"):
        load_preset(PKG, "broken", ToyConfig)


def test_cycle_detected():
    with pytest.raises(ValueError, match="cycle"):
        load_preset(PKG, "cycle_a", ToyConfig)


def test_deep_merge():
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    assert deep_merge(base, {"a": {"c": [3]}, "e": 2}) == {"a": {"b": 1, "c": [3]}, "d": 1, "e": 2}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1}


def test_load_preset_file(tmp_path):
    (tmp_path / "mine.toml").write_text('extends = "short"\nstart_cash = 5.0\n')
    cfg, _ = load_preset_file(tmp_path / "mine.toml", ToyConfig, package=PKG)
    assert cfg.start_cash == 5.0 and cfg.horizon_days == 10

    (tmp_path / "local_base.toml").write_text("horizon_days = 42\n")
    (tmp_path / "child.toml").write_text('extends = "local_base"\n[pricing]\nbasic = 1.0\n')
    cfg, _ = load_preset_file(tmp_path / "child.toml", ToyConfig, package=PKG)
    assert cfg.horizon_days == 42 and cfg.pricing.basic == 1.0

    (tmp_path / "bad.toml").write_text('extends = "missing"\n')
    with pytest.raises(ValueError, match="missing"):
        load_preset_file(tmp_path / "bad.toml", ToyConfig, package=PKG)
    with pytest.raises(ValueError, match="not found"):
        load_preset_file(tmp_path / "nofile.toml", ToyConfig)
    (tmp_path / "extra.toml").write_text("colour = 'red'\n")
    with pytest.raises(ValueError, match="colour"):
        load_preset_file(tmp_path / "extra.toml", ToyConfig)
