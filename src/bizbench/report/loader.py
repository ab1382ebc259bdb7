"""Run directories are read by :mod:`bizbench.core.runs` (the one reader); this module only keeps
the name ``bizbench report`` catches (:mod:`bizbench.cli_report`) until it imports
:class:`~bizbench.core.runs.RunDirError` itself."""

from __future__ import annotations

from bizbench.core.runs import RunDirError as ReportInputError

__all__ = ["ReportInputError"]
