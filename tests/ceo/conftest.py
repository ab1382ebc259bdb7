"""Shared fixtures for the CEO-Bench mechanic tests (``test_mech_*.py``).

Mechanic tests build tiny worlds by hand: a :class:`WorldState` of the default preset, a few
customers appended as column values, settings arrays set directly, then one mechanic call.
Expected values are computed in the tests with plain ``math`` from the spec
(the CEO-Bench paper Appendix A and docs/reference-notes.md (CEO-Bench part)), never with the
module's own helpers.

``FakeRng`` replaces a numpy Generator with scripted draws so a stochastic mechanic can be
checked against its formula exactly. Each method pops from its own queue:

* ``random``  -> the uniform [0, 1) value itself
* ``normal``  -> a standard-normal z; returns ``loc + scale * z``
* ``uniform`` -> a unit u; returns ``low + (high - low) * u``
* ``lognormal`` -> a standard-normal z; returns ``exp(mean + sigma * z)``
* ``poisson`` -> the count itself (the requested ``lam`` is recorded in ``poisson_lams``)
* ``choice``  -> first ``size`` elements of ``a`` (no queue)

A queue entry may be a scalar (one draw) or an array matching the requested shape (consumed
whole). Running out of scripted draws fails the test.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bizbench.envs.ceo.config import CeoConfig, load_config
from bizbench.envs.ceo.world.customers import SUBSCRIBED
from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.state import WorldState

GROUP_IDS = (
    ("S1", "S2", "S3", "E1", "E2", "E3")
    + tuple(f"D_S{i:02d}" for i in range(1, 11))
    + tuple(f"D_E{i:02d}" for i in range(1, 11))
)
G = {gid: i for i, gid in enumerate(GROUP_IDS)}
WEEKLY = (1.0, 1.1, 1.15, 1.1, 1.0, 0.6, 0.6)  # reference-notes §2.6


class FakeRng:
    """Scripted stand-in for ``numpy.random.Generator`` (see module docstring)."""

    def __init__(self, **queues: Any) -> None:
        names = ("random", "normal", "uniform", "lognormal", "poisson")
        unknown = set(queues) - set(names)
        if unknown:
            raise KeyError(f"unknown FakeRng queues: {sorted(unknown)}")
        self.queues: dict[str, list[Any]] = {n: list(queues.get(n, ())) for n in names}
        self.calls: list[str] = []
        self.poisson_lams: list[np.ndarray] = []

    def remaining(self, name: str) -> int:
        return len(self.queues[name])

    def _pop(self, name: str, shape: tuple[int, ...]) -> Any:
        q = self.queues[name]
        if shape == ():
            if not q:
                raise AssertionError(f"FakeRng: no scripted '{name}' draw left")
            return float(q.pop(0))
        if q and isinstance(q[0], list | tuple | np.ndarray):
            arr = np.asarray(q.pop(0), dtype=np.float64)
            if arr.shape != shape:
                raise AssertionError(f"FakeRng: '{name}' wants shape {shape}, scripted {arr.shape}")
            return arr
        n = int(np.prod(shape))
        if len(q) < n:
            raise AssertionError(f"FakeRng: '{name}' wants {n} draws, {len(q)} scripted")
        vals = [float(q.pop(0)) for _ in range(n)]
        return np.asarray(vals, dtype=np.float64).reshape(shape)

    @staticmethod
    def _shape(size: Any, *params: Any) -> tuple[int, ...]:
        if size is not None:
            return tuple(int(s) for s in np.atleast_1d(size))
        return np.broadcast(*[np.asarray(p) for p in params]).shape

    def random(self, size: Any = None) -> Any:
        self.calls.append("random")
        return self._pop("random", self._shape(size, 0.0))

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        self.calls.append("normal")
        shape = self._shape(size, loc, scale)
        z = self._pop("normal", shape)
        out = np.asarray(loc, dtype=np.float64) + np.asarray(scale, dtype=np.float64) * z
        return float(out) if shape == () else out

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        self.calls.append("uniform")
        shape = self._shape(size, low, high)
        u = self._pop("uniform", shape)
        lo, hi = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
        out = lo + (hi - lo) * u
        return float(out) if shape == () else out

    def lognormal(self, mean: Any = 0.0, sigma: Any = 1.0, size: Any = None) -> Any:
        self.calls.append("lognormal")
        shape = self._shape(size, mean, sigma)
        z = self._pop("lognormal", shape)
        out = np.exp(np.asarray(mean, dtype=np.float64) + np.asarray(sigma, dtype=np.float64) * z)
        return float(out) if shape == () else out

    def poisson(self, lam: Any = 1.0, size: Any = None) -> Any:
        self.calls.append("poisson")
        self.poisson_lams.append(np.array(lam, dtype=np.float64, copy=True))
        shape = self._shape(size, lam)
        out = self._pop("poisson", shape)
        return int(out) if shape == () else out.astype(np.int64)

    def choice(self, a: Any, size: Any = None, replace: bool = True) -> Any:
        self.calls.append("choice")
        arr = np.asarray(a)
        return arr[: (1 if size is None else int(size))]


@pytest.fixture(scope="session")
def cfg() -> CeoConfig:
    return load_config("default")[0]


@pytest.fixture(scope="session")
def params(cfg: CeoConfig) -> Params:
    return Params.from_config(cfg)


@pytest.fixture
def state(cfg: CeoConfig) -> WorldState:
    return WorldState(config=cfg, seed=1)


@pytest.fixture
def add_customer():
    """``add(state, **columns) -> index``: one customer, subscribed unless told otherwise."""

    def add(st: WorldState, **cols: Any) -> int:
        cols.setdefault("status", SUBSCRIBED)
        return int(st.customers.append(1, cols)[0])

    return add


@pytest.fixture(scope="session")
def fake_rng() -> type[FakeRng]:
    """The :class:`FakeRng` class: ``fake_rng(random=[...], normal=[...], ...)``."""
    return FakeRng


@pytest.fixture(scope="session")
def gidx() -> dict[str, int]:
    """Group id -> index in the default preset's group order."""
    return dict(G)


@pytest.fixture(scope="session")
def weekly() -> tuple[float, ...]:
    """W(d) by d mod 7 (reference-notes §2.6), typed out independently of the preset."""
    return WEEKLY
