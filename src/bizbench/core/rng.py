"""Named, independent random streams derived from one integer seed (docs/principles.md principle 4).

Every stochastic component draws from its own stream, keyed by a stable name::

    rng = RngStreams(42)
    demand = rng.get("demand").normal(size=10)

The stream for ``name`` is ``PCG64(SeedSequence(entropy=seed, spawn_key=(crc32(name),)))``,
so it depends only on the seed and the name: not on the process, on Python's hash
randomisation, nor on which other streams were created before it.

Held-out evaluation: with a secret (``$BIZBENCH_SEED_SECRET``, read by the runner, never by a
world), an env draws its world from :func:`world_entropy` = HMAC-SHA256(secret, seed) instead
of the public seed, so nobody who lacks the secret can rebuild a world from its seed (e.g. by
brute-forcing small seeds against what the agent sees). Results record only
:func:`secret_id`, a fingerprint that tells two secrets apart without revealing either.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import zlib
from typing import Any

import numpy as np

__all__ = [
    "SECRET_ENV",
    "RngStreams",
    "secret_for_split",
    "secret_from_env",
    "secret_id",
    "stream_for",
    "world_entropy",
]

SECRET_ENV = "BIZBENCH_SEED_SECRET"


def world_entropy(seed: int, secret: str | None = None) -> int:
    """The integer a world is drawn from: the seed itself, or a 128-bit HMAC of it under ``secret``."""
    if secret is None:
        return seed
    if not secret:
        raise ValueError("the seed secret must not be empty")
    digest = hmac.new(secret.encode("utf-8"), f"bizbench-world:{seed}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:16], "big")


def secret_id(secret: str | None) -> str | None:
    """A short public fingerprint of ``secret`` (None without one), recorded in results."""
    if secret is None:
        return None
    return hashlib.sha256(f"bizbench-secret:{secret}".encode()).hexdigest()[:12]


def secret_from_env() -> str | None:
    """The evaluation secret from ``$BIZBENCH_SEED_SECRET`` (None when unset or empty)."""
    return os.environ.get(SECRET_ENV) or None


def secret_for_split(split: str) -> str | None:
    """The secret a world of ``split`` is drawn under (docs/sweeps.md): none for ``dev`` (the
    public worlds, whatever the shell holds); ``$BIZBENCH_SEED_SECRET`` for ``test`` (the
    held-out worlds), which is refused without it (ValueError)."""
    if split == "dev":
        return None
    if split != "test":
        raise ValueError(f"split must be 'dev' or 'test', got {split!r}")
    secret = secret_from_env()
    if secret is None:
        raise ValueError(f"the test split plays the held-out worlds: set ${SECRET_ENV} to the benchmark's secret")
    return secret


def stream_for(seed: int, name: str) -> np.random.Generator:
    """Return a fresh generator for ``(seed, name)``; stable across processes."""
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    key = zlib.crc32(name.encode("utf-8"))
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(key,))
    return np.random.Generator(np.random.PCG64(ss))


class RngStreams:
    """A lazily created, cached set of named numpy generators sharing one seed."""

    def __init__(self, seed: int) -> None:
        if not isinstance(seed, int | np.integer) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.seed = int(seed)
        self._streams: dict[str, np.random.Generator] = {}

    def get(self, name: str) -> np.random.Generator:
        """The generator for ``name`` (created on first use, then cached)."""
        gen = self._streams.get(name)
        if gen is None:
            gen = stream_for(self.seed, name)
            self._streams[name] = gen
        return gen

    __getitem__ = get

    def names(self) -> list[str]:
        """Names of the streams created so far (sorted)."""
        return sorted(self._streams)

    def get_state(self) -> dict[str, Any]:
        """JSON-serialisable snapshot: stream name -> ``bit_generator.state``."""
        return {name: _jsonable(gen.bit_generator.state) for name, gen in sorted(self._streams.items())}

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore streams from :meth:`get_state` output (creating them as needed)."""
        for name, st in state.items():
            self.get(name).bit_generator.state = st

    def __repr__(self) -> str:
        return f"RngStreams(seed={self.seed}, streams={self.names()})"


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return obj
