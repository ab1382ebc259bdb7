"""The viewer page in a real headless browser: Debian's chromium driven by Playwright.

Skipped with the reason when Playwright or chromium is missing (``make test`` installs
chromium with apt-get when it runs as root; see the Makefile's ``browser`` target).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bizbench.report.viewer import write_viewer
from chromium import launch, needs_chromium

from .viewer_runs import XSS, recorded_runs

pytestmark = needs_chromium
SCREENSHOT = Path("/tmp/viewer_screenshot.png")


@pytest.fixture(scope="module")
def runs() -> dict[str, Path]:
    return recorded_runs()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launch() as b:
        yield b


class Viewer:
    """A page of the viewer, recording console errors, page errors, dialogs and non-file requests."""

    def __init__(self, browser: Any, index: Path, hash: str = "") -> None:
        self.problems: list[str] = []
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.page.on("console", lambda m: m.type in ("error", "warning") and self.problems.append(m.text))
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss()))
        self.page.on("request", self._request)
        self.page.goto(index.as_uri() + hash)
        self.page.wait_for_selector("#columns .column")

    def _request(self, request: Any) -> None:
        if not request.url.startswith(("file:", "data:")):
            self.problems.append(f"request to {request.url}")

    def label(self) -> str:
        return str(self.page.inner_text("#period-label"))

    def texts(self, selector: str) -> list[str]:
        return [str(t) for t in self.page.locator(selector).all_inner_texts()]

    def close(self) -> None:
        self.page.close()


def view(runs: dict[str, Path], names: list[str], out: Path) -> Path:
    return write_viewer([runs[n] for n in names], out)


@pytest.mark.parametrize("name", ["ceo", "yc", "cfo", "cfo_model", "yc_model", "ceo_model"])
def test_every_kind_of_run_loads_without_errors_or_requests(
    browser: Any, runs: dict[str, Path], tmp_path: Path, name: str
) -> None:
    v = Viewer(browser, view(runs, [name], tmp_path))
    unit = {"ceo": "Week 1", "yc": "Turn 1", "cfo": "Month 0"}[name.split("_")[0]]
    assert v.label().startswith(unit)
    assert v.page.locator("#charts svg").count() >= 2 and v.page.locator("#charts svg path").count() >= 2
    assert v.page.locator(".column").count() == 1
    v.page.click("#next")
    assert not v.label().startswith(unit)
    assert v.problems == []
    v.close()


def test_the_selector_changes_the_shown_week_and_its_actions(
    browser: Any, runs: dict[str, Path], tmp_path: Path
) -> None:
    v = Viewer(browser, view(runs, ["ceo"], tmp_path))
    band = v.page.locator("#charts svg rect").first

    def shown() -> tuple[str, set[str], str | None]:
        return v.label(), set(v.texts(".actions .at")), band.get_attribute("x")

    week1 = shown()
    assert week1[0].startswith("Week 1 (days 0–7)") and week1[1] == {"day 0"}
    v.page.click("#next")
    week2 = shown()
    assert week2[0].startswith("Week 2 (days 7–14)") and week2[1] == {"day 7"} and week2[2] != week1[2]
    v.page.select_option("#period", "3")
    assert shown()[0].startswith("Week 4 (days 21–28)") and shown()[1] == {"day 21"}
    v.page.locator("#slider").fill("2")
    assert shown()[0].startswith("Week 3") and shown()[1] == {"day 14"}
    v.page.click("#prev")
    assert shown()[:2] == week2[:2]
    v.page.locator("h1").click()
    v.page.keyboard.press("ArrowLeft")
    assert shown()[:2] == week1[:2] and v.page.is_disabled("#prev")
    # every panel names its series, even a lone one: the customer group, each plan's price
    legends = v.texts("#charts .legend")
    assert any("subscribers S1" in text for text in legends) and any("A" in t and "C" in t for t in legends)
    # the metrics of the week's end and an action's arguments on demand
    assert "cash" in v.page.inner_text(".panel table.metrics")
    v.page.locator(".actions summary").first.click()
    assert '"A": 12' in v.page.locator(".actions .detail pre").first.inner_text()
    assert v.problems == []
    v.close()

    deep = Viewer(browser, tmp_path / "index.html", "#week=3")  # a link to a week
    assert deep.label().startswith("Week 3") and deep.problems == []
    deep.close()


def test_agent_text_renders_as_text(browser: Any, runs: dict[str, Path], tmp_path: Path) -> None:
    v = Viewer(browser, view(runs, ["cfo_model"], tmp_path))
    v.page.click("#next")
    body = v.page.inner_text("#columns")
    assert "Planning month 1. " + XSS in body and f"month 1 {XSS}" in body  # reply and note, verbatim
    assert v.page.locator("img").count() == 0 and v.page.locator("script").count() == 2
    v.page.locator(".actions summary").first.click()
    assert XSS in v.page.locator(".actions .detail pre").first.inner_text()
    assert "Notes" in v.page.inner_text("#columns") or "notes" in v.page.inner_text("#columns")
    for month in (2, 3):  # the notepad rebuilt from its deltas, newest note first, month by month
        v.page.click("#next")
        notepad = v.page.locator(".panel pre").last.inner_text()
        assert notepad.count("(month ") == month + 1 and notepad.index(f"month {month} ") < notepad.index("month 0 ")
    assert v.problems == []  # in particular no alert dialog
    v.close()


def test_two_runs_side_by_side(browser: Any, runs: dict[str, Path], tmp_path: Path) -> None:
    v = Viewer(browser, view(runs, ["cfo", "cfo_model"], tmp_path))
    assert v.page.locator(".column").count() == 2
    overlay = v.page.locator("#charts svg").first
    assert overlay.locator("path").count() == 2  # both cash curves in one chart
    assert "runs overlaid" in v.page.inner_text("#charts figcaption")
    v.page.select_option("#period", "2")
    assert v.texts(".column .period-name") == ["Month 2", "Month 2"]
    left, right = (v.page.locator(".column").nth(i) for i in range(2))
    assert "access_financial_docs" in left.inner_text() and "book_closing" in right.inner_text()
    assert "Planning month 2" in right.inner_text() and "actions only" in left.inner_text()
    v.page.select_option("#period", "100")  # past the model run's last month
    assert "has no month 100" in right.inner_text() and "Month 100" in left.inner_text()
    v.page.select_option("#period", "3")
    png = tmp_path / "compare.png"
    v.page.screenshot(path=str(png), full_page=True)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    shutil.copy(png, SCREENSHOT)
    assert v.problems == []
    v.close()
