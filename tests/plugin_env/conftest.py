"""Fixtures of the lemonade plug-in tests. ``tests/conftest.py`` has already registered the env
(``$BIZBENCH_ENVS=lemonade.spec:SPEC``, ``tests/plugin_env`` on the paths) as a user would;
helpers live in ``lemonade_helpers.py``."""

from __future__ import annotations

import pytest
from lemonade_helpers import ENV

from bizbench.core.env import EnvSpec


@pytest.fixture
def spec() -> EnvSpec:
    from bizbench.core.envs import get_env

    return get_env(ENV)
