"""Debian's chromium driven by Playwright, for the tests of the pages bizbench serves or writes
(the viewer, the play page): ``needs_chromium`` skips a module with the reason when Playwright or
chromium is missing (``make test`` installs chromium with apt-get when it runs as root; see the
Makefile's ``browser`` target), and ``launch()`` gives a headless browser."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None  # type: ignore[assignment]

CHROMIUM = shutil.which(os.environ.get("BIZBENCH_CHROMIUM") or "chromium") or shutil.which("chromium-browser")
REASON = (
    "Playwright is not installed (pip install -e '.[dev]')"
    if sync_playwright is None
    else "chromium is not installed (make browser, or apt-get install chromium, as root)"
    if CHROMIUM is None
    else None
)
needs_chromium = pytest.mark.skipif(REASON is not None, reason=str(REASON))


@contextmanager
def launch() -> Iterator[Any]:
    """A headless chromium (Playwright's Browser), closed on exit."""
    assert sync_playwright is not None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()
