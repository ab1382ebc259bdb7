import json
import os
import subprocess
import sys

import numpy as np
import pytest

from bizbench.core.rng import RngStreams, stream_for

_SNIPPET = (
    "import json; from bizbench.core.rng import RngStreams; "
    "r = RngStreams(123); print(json.dumps(r.get('demand').random(5).tolist()))"
)


def test_same_seed_and_name_identical_across_processes():
    outs = [
        subprocess.run(
            [sys.executable, "-c", _SNIPPET],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(i)},
        ).stdout
        for i in (1, 2)
    ]
    assert outs[0] == outs[1]
    here = RngStreams(123).get("demand").random(5).tolist()
    assert json.loads(outs[0]) == here


def test_different_names_and_seeds_differ():
    r = RngStreams(7)
    a = r.get("a").random(8)
    b = r.get("b").random(8)
    assert not np.allclose(a, b)
    c = RngStreams(8).get("a").random(8)
    assert not np.allclose(a, c)


def test_creation_order_irrelevant():
    r1 = RngStreams(5)
    r1.get("x")
    r1.get("y").random(100)
    x1 = r1.get("x").random(4)
    r2 = RngStreams(5)
    x2 = r2.get("x").random(4)
    assert np.array_equal(x1, x2)


def test_cached_and_matches_stream_for():
    r = RngStreams(3)
    assert r.get("a") is r.get("a")
    assert r["a"] is r.get("a")
    assert np.array_equal(RngStreams(3).get("a").random(3), stream_for(3, "a").random(3))
    assert r.names() == ["a"]


def test_state_round_trip_json():
    r = RngStreams(11)
    r.get("a").random(10)
    r.get("b").integers(0, 100, 3)
    state = json.loads(json.dumps(r.get_state()))
    expected_a = r.get("a").random(5)
    expected_b = r.get("b").normal(size=5)
    r2 = RngStreams(11)
    r2.set_state(state)
    assert np.array_equal(r2.get("a").random(5), expected_a)
    assert np.array_equal(r2.get("b").normal(size=5), expected_b)


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_bad_seed_rejected(bad):
    with pytest.raises(ValueError):
        RngStreams(bad)


# ---------------------------------------------------------------------------- held-out seeds
def test_world_entropy_is_the_seed_without_a_secret_and_an_hmac_with_one() -> None:
    from bizbench.core.rng import secret_id, world_entropy

    assert world_entropy(7) == 7
    a, b = world_entropy(7, "s3cret"), world_entropy(7, "s3cret")
    assert a == b and a != 7 and a.bit_length() > 64
    assert world_entropy(8, "s3cret") != a and world_entropy(7, "other") != a
    assert secret_id(None) is None and secret_id("s3cret") == secret_id("s3cret") != secret_id("other")
    assert "s3cret" not in (secret_id("s3cret") or "")
    with pytest.raises(ValueError):
        world_entropy(7, "")


def test_a_secret_gives_every_env_a_different_world_that_the_secret_reproduces() -> None:
    from bizbench.envs.cfo.env import CfoEnv
    from bizbench.envs.yc.env import YcEnv

    for make in (
        lambda s: YcEnv.from_preset("default", 3, secret=s),
        lambda s: CfoEnv.from_preset("paper", 3, secret=s),
    ):
        public, held_out, again = make(None), make("k1"), make("k1")
        assert held_out.state_digest() == again.state_digest() != public.state_digest()
        assert held_out.result()["seed_secret_id"] and public.result()["seed_secret_id"] is None
