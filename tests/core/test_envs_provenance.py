import pytest

from bizbench.core.envs import ENVS, EnvSpec, get_env, list_envs
from bizbench.core.provenance import git_commit, provenance


def test_env_registry():
    spec = get_env("ceo")
    assert spec == EnvSpec(
        "ceo",
        "CEO-Bench (NovaMind SaaS)",
        "bizbench.envs.ceo",
        "Run a subscription AI-software company for 500 days",
    )
    assert "ceo" in ENVS
    assert [e.id for e in list_envs()] == sorted(ENVS)
    with pytest.raises(KeyError, match="registered: ceo"):
        get_env("nope")


def test_provenance(tmp_path):
    p = provenance()
    assert p["bizbench"] == "0.1.0"
    assert set(p) >= {"bizbench", "git_commit", "python", "numpy", "platform"}
    assert p["git_commit"] is None or len(p["git_commit"]) == 40
    assert git_commit(tmp_path) is None  # not a git repo
