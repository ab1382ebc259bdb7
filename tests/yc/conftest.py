"""Fixtures for the yc tests (helpers live in ``yc_helpers.py``, importable because pytest puts
this directory on ``sys.path`` for its test modules)."""

from __future__ import annotations

import pytest
from yc_helpers import make_env

from bizbench.envs.yc.config import YcConfig, load_config
from bizbench.envs.yc.env import YcEnv


@pytest.fixture(scope="session")
def cfg() -> YcConfig:
    return load_config("default")[0]


@pytest.fixture
def env() -> YcEnv:
    return make_env()
