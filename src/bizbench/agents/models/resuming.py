"""The model of a resumed run: the recorded replies first, then the live model.

``bizbench resume`` rebuilds a killed run by re-executing it from its first step on a fresh
world (same seed, same config). Every reply the killed run had already received is answered
from its ``trajectory.jsonl`` (with its recorded tokens and cost, so the meters of the resumed
run equal an uninterrupted one and no paid call is made twice); once the record is used up,
the live client takes over. A request that no longer matches the record raises
:class:`~bizbench.agents.models.base.ResumeDivergence`: the run stays unfinished.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bizbench.agents.models.base import ModelClient, ModelError, ModelReply, ResumeDivergence
from bizbench.agents.models.replay import ReplayModel

__all__ = ["ResumingModel"]


class ResumingModel:
    """``record`` (a run directory's trajectory) answers first, then ``live``."""

    def __init__(self, record: str | Path, live: ModelClient) -> None:
        self.recorded = ReplayModel(record)
        self.live = live
        self.name = live.name
        self.sampling: dict[str, Any] = dict(live.sampling)
        skip = getattr(live, "skip", None)
        if callable(skip):  # a scripted model continues where the record ends
            skip(self.reused)

    @property
    def reused(self) -> int:
        """How many recorded replies this run replays."""
        return len(self.recorded.events)

    @property
    def mismatches(self) -> list[dict[str, Any]]:
        """Requests whose size differed from the record (kept in result.json like a replay's)."""
        return list(self.recorded.mismatches) + list(getattr(self.live, "mismatches", None) or [])

    def __getattr__(self, name: str) -> Any:  # price_known, unpriced, dropped: the live client's
        return getattr(self.__dict__["live"], name)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        if self.recorded.calls >= self.reused:
            return self.live.complete(messages, tools)
        index = self.recorded.calls
        try:
            return self.recorded.complete(messages, tools)
        except ModelError as e:
            if self.recorded.events[index]["kind"] == "model_error":
                raise  # the killed run had ended on this failure: so does the resumed one
            raise ResumeDivergence(f"resume: {e}") from None
