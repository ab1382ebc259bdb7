"""The whole suite sees the lemonade stand, the plug-in env of ``tests/plugin_env`` (docs/envs.md).

It is registered the way a user registers an env of their own, for this process and every
process it starts (sweep workers, ``bizbench resume``, ``serve``): its directory goes on
``sys.path`` and ``$PYTHONPATH``, and ``lemonade.spec:SPEC`` into ``$BIZBENCH_ENVS``. Nothing
under ``src/`` names it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PLUGIN_DIR = str(Path(__file__).resolve().parent / "plugin_env")
LEMONADE = "lemonade.spec:SPEC"


def _prepend(var: str, value: str, sep: str) -> None:
    items = [v for v in os.environ.get(var, "").split(sep) if v]
    if value not in items:
        os.environ[var] = sep.join([value, *items])


if PLUGIN_DIR not in sys.path:
    sys.path.insert(0, PLUGIN_DIR)
_prepend("PYTHONPATH", PLUGIN_DIR, os.pathsep)
_prepend("BIZBENCH_ENVS", LEMONADE, ",")
