import pytest

from bizbench.core.envs import BUILT_IN, get_env, list_envs
from bizbench.core.provenance import git_commit, provenance


def test_the_registry_finds_every_built_in_env_by_id_and_names_them_for_an_unknown_one():
    spec = get_env("ceo")
    assert (spec.id, spec.package, spec.unit, spec.default_preset) == ("ceo", "bizbench.envs.ceo", "day", "default")
    assert {e.id for e in list_envs()} >= set(BUILT_IN)
    with pytest.raises(KeyError, match="registered: .*ceo"):
        get_env("nope")


def test_provenance(tmp_path):
    p = provenance()
    assert p["bizbench"] == "0.1.0"
    assert set(p) >= {"bizbench", "git_commit", "python", "numpy", "platform"}
    assert p["git_commit"] is None or len(p["git_commit"]) == 40
    assert git_commit(tmp_path) is None  # not a git repo
