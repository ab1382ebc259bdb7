"""A scripted stand-in for a named numpy random stream, shared by the mechanic tests: the draws
are chosen by hand, so the expected numbers are computed on paper, and the calls it records pin
which draws a mechanic makes, with which arguments, in which order (the stream's alignment)."""

from __future__ import annotations

from typing import Any

import numpy as np


class ScriptedStream:
    """A stand-in for one named random stream: each draw method (``integers``, ``random``,
    ``permutation``, ``triangular`` ...) returns the next value scripted under its name (a list comes
    back as an array) and records ``(name, *arguments)`` in ``calls``; ``shuffle`` reverses in place."""

    def __init__(self, **draws: list[Any]) -> None:
        self.draws = {name: list(values) for name, values in draws.items()}
        self.calls: list[tuple[Any, ...]] = []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self.draws:
            raise AttributeError(name)

        def draw(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, *args, *kwargs.values()))
            value = self.draws[name].pop(0)
            return np.array(value) if isinstance(value, list) else value

        return draw

    def shuffle(self, a: np.ndarray) -> None:
        self.calls.append(("shuffle", a.tolist()))
        a[:] = a[::-1].copy()
