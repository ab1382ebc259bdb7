"""The play page (src/bizbench/play/static/) in a real headless browser: Debian's chromium driven
by Playwright, against a real game served on loopback (docs/play.md, issue 17).

Each test plays a game through the page as a person would (forms, buttons, the keyboard) and
checks what the page shows against the run directory: the figures equal result.json, the game
replays verified, and a refused call changes nothing. Screenshots are saved in the test's
directory and, when ``$BIZBENCH_ARTIFACTS`` is set, there too (test artifacts).

Skipped with the reason when Playwright or chromium is missing (``make test`` installs
chromium with apt-get when it runs as root; see the Makefile's ``browser`` target).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bizbench.play.app import PlayServer
from bizbench.play.game import Game
from bizbench.runner.replay import replay_run
from chromium import launch, needs_chromium

pytestmark = needs_chromium

XSS = '<img src=x onerror="document.body.dataset.pwned=1">'


def money(value: float) -> str:
    """A dollar amount as the page writes it ($1,234,567, or with cents when it has some)."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    return f"{sign}${value:,.0f}" if float(value).is_integer() else f"{sign}${value:,.2f}"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launch() as b:
        yield b


class Played:
    """A game served on loopback and its page in the browser, recording what went wrong in the
    page (console errors, page errors, unexpected dialogs, requests to any other origin)."""

    def __init__(
        self, browser: Any, env: str, horizon: int, tmp_path: Path, width: int = 1280, height: int = 800, n: int = 0
    ) -> None:
        self.env = env
        self.tmp_path = tmp_path
        self.run = tmp_path / f"{env}-run-{n}"
        self.game = Game(env, 3, out=self.run, name="tester", horizon=horizon)
        self.server = PlayServer(self.game).start()
        self.origin = f"http://127.0.0.1:{self.server.port}/"
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.confirm: bool | None = None  # the answer to the next confirm(); None: a dialog is a problem
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.page.on("console", lambda m: m.type in ("error", "warning") and self.problems.append(m.text))
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("dialog", self._dialog)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(self.server.url)
        self.page.wait_for_selector("body[data-ready]")
        self.closed = False

    def _dialog(self, dialog: Any) -> None:
        if self.confirm is None:
            self.problems.append(f"dialog: {dialog.message}")
            dialog.dismiss()
        elif self.confirm:
            dialog.accept()
        else:
            dialog.dismiss()

    # ------------------------------------------------------------------ acting through the page
    def idle(self) -> None:
        self.page.wait_for_selector("body:not([data-busy])", state="attached")

    def tool(self, name: str) -> Any:
        """The tool's <details>, opened."""
        details = self.page.locator(f'details.tool[data-tool="{name}"]')
        if details.get_attribute("open") is None:
            details.locator("summary").click()
        return details

    def field(self, tool: str, *path: str) -> Any:
        """The input of the field at ``path`` of the tool's form (nested by data-name)."""
        node = self.tool(tool).locator("form > .fields")
        for name in path:
            node = node.locator(f'[data-name="{name}"]').first
        return node.locator("input, select, textarea").first

    def fill(self, tool: str, values: dict[tuple[str, ...] | str, Any]) -> None:
        for path, value in values.items():
            control = self.field(tool, *((path,) if isinstance(path, str) else path))
            if control.evaluate("n => n.tagName") == "SELECT":
                control.select_option(label=str(value))
            else:
                control.fill(str(value))

    def call(self, tool: str, values: dict[tuple[str, ...] | str, Any] | None = None) -> Any:
        """Fill the tool's form, submit it, wait for the page; returns the form."""
        self.fill(tool, values or {})
        form = self.tool(tool).locator("form")
        form.locator("button[type=submit]").click()
        self.idle()
        return form

    def answer_ok(self, form: Any) -> None:
        assert form.locator(".form-error").is_hidden(), form.locator(".form-error").inner_text()
        assert form.locator(".answer-box .answer").count() == 1

    def end_turn(self, keyboard: bool = False) -> None:
        turn = self.game.state()["turn"]
        if keyboard:
            self.page.keyboard.press("Alt+n")
        else:
            self.page.click("#end-turn")
        self.idle()
        assert self.game.state()["turn"] == turn + 1 or self.game.state()["finished"]

    def text(self, selector: str) -> str:
        return str(self.page.inner_text(selector)).strip()

    def shot(self, name: str, full_page: bool = True) -> None:
        paths = [self.tmp_path / f"{name}.png"]
        artifacts = os.environ.get("BIZBENCH_ARTIFACTS")
        if artifacts:
            (Path(artifacts) / "play").mkdir(parents=True, exist_ok=True)
            paths.append(Path(artifacts) / "play" / f"{name}.png")
        for path in paths:
            self.page.screenshot(path=str(path), full_page=full_page)

    # ------------------------------------------------------------------ checks
    def accepted(self) -> int:
        return sum(1 for h in self.game.history if h["ok"])

    def unchanged(self) -> tuple[int, int, str]:
        """What a refused call must leave as it was: the turn, the accepted calls, the world."""
        return self.game.state()["turn"], self.accepted(), self.game.episode.state_digest()

    def check_clean(self) -> None:
        assert self.problems == []
        assert [u for u in self.requests if not u.startswith(self.origin)] == []
        assert self.page.evaluate("document.body.dataset.pwned") is None

    def check_result(self) -> dict[str, Any]:
        """The page's figures of a finished game equal result.json's."""
        self.page.wait_for_selector("#banner:not([hidden])")
        result = json.loads((self.run / "result.json").read_text())
        state = self.game.state()
        assert state["finished"] and self.text("#banner h2") == "The game is over"
        assert self.text("#result-score") == f"{result['score']:,.2f}"
        # the header shows the score reports count: 0 for a game stopped early or bankrupt (docs/reports.md)
        counted = result["score"] if result["completed"] and not result["bankrupt"] else 0.0
        assert self.text("#score") == f"{counted:,.2f}" == f"{state['score']:,.2f}"
        assert self.page.locator("#result-report").count() == (counted != result["score"])
        assert self.text("#result-cash") == money(result["final_cash"])
        assert self.text("#result-ended") == result["ended_by"]
        assert self.text("#result-bankrupt") == ("yes" if result["bankrupt"] else "no")
        assert self.text("#turn") == str(state["turn"])
        unit = result["unit"] + ("s" if result["horizon"] != 1 else "")
        assert self.text("#elapsed") == f"{state['elapsed']} / {result['horizon']} {unit}"
        assert self.text("#result-survived") == f"{result['survived']} / {result['horizon']} {unit}"
        assert self.page.locator("#history li.h").count() == state["history_total"]
        assert self.page.is_disabled("#end-turn") and self.page.is_disabled("#stop")
        return result

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.page.close()
            self.server.stop()
            self.game.close()


@pytest.fixture
def play(browser: Any, tmp_path: Path) -> Iterator[Callable[..., Played]]:
    games: list[Played] = []

    def start(env: str, horizon: int, **kw: Any) -> Played:
        games.append(Played(browser, env, horizon, tmp_path, n=len(games), **kw))
        return games[-1]

    yield start
    for g in games:
        g.close()


def replays(p: Played) -> bool:
    p.close()
    return bool(replay_run(p.run).ok)


# ---------------------------------------------------------------------- whole games
def test_three_ceo_weeks_played_through_the_forms_end_as_result_json_says(play: Callable[..., Played]) -> None:
    p = play("ceo", 21)
    assert p.text("#title") == p.game.info()["title"] and p.text("#end-turn") == "Next week (no forecasts)"
    assert p.page.locator("#observation pre.dashboard").inner_text().startswith("=== Week 0 Dashboard")
    assert p.text("#cash") == "$1,000,000" and p.text("#score") == "–"

    form = p.call("set_prices", {"A": 29, "B": 79, "C": 199})
    p.answer_ok(form)
    assert p.game.history[-1]["args"] == {"A": 29, "B": 79, "C": 199}

    form = p.call("query", {"sql": "SELECT COUNT(*) AS customers, MAX(created_day) AS newest FROM customers"})
    p.answer_ok(form)
    table = form.locator(".answer table.data")
    assert table.locator("thead th").all_inner_texts() == ["customers", "newest"]
    assert table.locator("tbody tr").count() == 1 and table.locator("tbody td").first.inner_text() == "0"

    form = p.call("post_social_media", {"content": f"NovaMind is live {XSS}"})
    p.answer_ok(form)
    entry = p.page.locator("#history li.h").first  # newest first
    assert entry.locator(".h-tool").inner_text() == "post_social_media"
    assert "NovaMind is live <img src=x onerror=" in entry.locator(".h-args").inner_text()

    forecasts = {}
    for i, key in enumerate(["cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk"]):
        for what, value in (("point", 990_000 - i * 10_000), ("lower", 900_000 - i * 50_000), ("upper", 1_010_000)):
            forecasts[("predictions", key, what)] = value
    p.page.click('.end-tool[data-tool="next_week"]')  # the End-the-turn area opens the form
    assert p.page.evaluate("document.activeElement.name") == "rationale"
    form = p.call("next_week", {"rationale": "Prices set; watching the first week.", **forecasts})
    p.answer_ok(form)
    assert p.game.state()["turn"] == 1 and p.text("#turn") == "1"
    assert form.locator(".answer pre.block").inner_text().startswith("=== Week 1 Dashboard")
    assert p.page.locator("#observation pre.dashboard").inner_text().startswith("=== Week 1 Dashboard")
    sent = next(h for h in p.game.history if h["tool"] == "next_week")
    assert sent["ok"] and sent["args"]["predictions"]["cash_26wk"] == {
        "point": 960_000,
        "lower": 750_000,
        "upper": 1_010_000,
    }
    assert p.page.locator('#charts [data-chart="cash"] circle').count() == 2
    p.shot("ceo-week-1")

    p.end_turn()
    p.end_turn(keyboard=True)  # Alt+N
    result = p.check_result()
    assert p.text("#cash") == money(result["final_cash"]) and result["ended_by"] == "completed"
    p.shot("ceo-finished")
    p.check_clean()
    assert replays(p)


def test_a_yc_month_accepts_assigns_dispatches_and_resumes_until_it_has_passed(play: Callable[..., Played]) -> None:
    p = play("yc", 1)
    assert p.text("#end-turn") == "sim resume" and p.text("#cash") == "$200,000"

    form = p.call("market_browse", {"domain": "research"})
    p.answer_ok(form)
    tasks = form.locator(".answer table.data")
    assert tasks.locator("thead th").first.inner_text() == "task_id"
    task = tasks.locator("tbody tr td").first.inner_text()
    assert task.startswith("Task-")

    p.answer_ok(p.call("task_accept", {"task_id": task}))
    form = p.call("employee_list")
    employees = form.locator(".answer table.data tbody tr td:first-child").all_inner_texts()
    assert employees[0] == "Emp_1"

    p.fill("task_assign", {"task_id": task})
    assign = p.tool("task_assign")
    for employee in employees[:2]:
        assign.get_by_role("button", name="Add employees item").click()
        assign.locator('[data-name="employees"] li.row input').last.fill(employee)
    form = p.call("task_assign")
    p.answer_ok(form)
    p.answer_ok(p.call("task_dispatch", {"task_id": task}))
    assert [h["tool"] for h in p.game.history if h["ok"] and h["tool"].startswith("task_")] == [
        "task_accept",
        "task_assign",
        "task_dispatch",
    ]
    assert p.game.history[-2]["args"] == {"task_id": task, "employees": employees[:2]}

    p.page.fill("#memory", f"took {task} with {employees[0]}")
    p.page.click("#memory-save")
    p.idle()
    assert p.game.history[-1]["tool"] == "scratchpad_write" and p.game.history[-1]["ok"]
    assert p.page.input_value("#memory") == f"took {task} with {employees[0]}"
    assert p.text("#memory-label") == "scratchpad"
    p.shot("yc-dispatched")

    for _ in range(60):
        if p.game.state()["finished"]:
            break
        p.end_turn()
    result = p.check_result()
    assert result["ended_by"] == "completed" and p.text("#cash") == money(result["final_cash"])
    assert p.page.locator("#history li.h .h-tool", has_text="sim_resume").count() >= 1
    p.shot("yc-finished")
    p.check_clean()
    assert replays(p)


def test_twelve_cfo_months_check_close_the_books_raise_and_pass_to_the_end(play: Callable[..., Played]) -> None:
    p = play("cfo", 12)
    assert p.page.locator("#cash-box").is_hidden()  # a month's message shows no money
    form = p.call("check_cash_in_bank")
    p.answer_ok(form)
    cash = p.game.history[-1]["text"]
    assert "15000000" in cash
    assert p.page.locator('#charts [data-chart="cash"] li').inner_text() == "cash: $15,000,000"

    p.page.click('.end-tool[data-tool="book_closing"]')  # no arguments: called at once
    p.idle()
    assert p.game.state()["turn"] == 1 and p.game.history[-1]["tool"] == "book_closing"

    p.page.click('.end-tool[data-tool="fund_raising_request"]')
    form = p.call("fund_raising_request", {"type": "debt", "amount": 2_000_000})
    p.answer_ok(form)
    assert p.game.history[-1]["args"] == {"type": "debt", "amount": 2_000_000}
    assert p.game.state()["turn"] == 2
    p.shot("cfo-raised")

    for _ in range(10):
        p.end_turn()
    result = p.check_result()
    assert result["ended_by"] == "completed" and result["survived"] == 12
    assert [h["tool"] for h in p.game.history].count("pass") == 10
    p.shot("cfo-finished")
    p.check_clean()
    assert replays(p)


def test_stopping_the_game_asks_first_and_shows_the_stopped_result(play: Callable[..., Played]) -> None:
    p = play("cfo", 12)
    p.confirm = False
    p.page.click("#stop")
    p.idle()
    assert not p.game.state()["finished"] and p.page.locator("#banner").is_hidden()
    p.confirm = True
    p.page.click("#stop")
    p.idle()
    result = p.check_result()
    assert result["ended_by"] == "stopped" and p.text("#score") == "0.00" and p.text("#result-report") == "0.00"
    assert "before its horizon" in p.text("#result-note")
    p.check_clean()
    assert replays(p)


# ---------------------------------------------------------------------- refused calls
def test_a_bad_price_shows_the_envs_error_and_changes_nothing(play: Callable[..., Played]) -> None:
    p = play("ceo", 21)
    before = p.unchanged()
    form = p.call("set_prices", {"A": -5, "B": 49})
    error = form.locator(".form-error")
    assert error.is_visible()
    assert (
        "Invalid arguments for tool 'set_prices': argument 'A': expected a value >= 0.0, got -5" in error.inner_text()
    )
    beside = p.tool("set_prices").locator('[data-name="A"] .field-error')
    assert beside.inner_text() == "A: expected a value >= 0.0, got -5"
    assert p.tool("set_prices").locator('[data-name="B"] .field-error').count() == 0
    assert p.field("set_prices", "A").input_value() == "-5" and p.field("set_prices", "B").input_value() == "49"
    assert p.unchanged() == before
    assert p.game.history[-1]["ok"] is False and p.text("#turn") == "0"
    assert p.page.locator("#history li.h.err").count() == 1
    p.shot("ceo-refused", full_page=False)

    # corrected, the same form goes through and the error is gone
    p.field("set_prices", "A").fill("5")
    p.field("set_prices", "A").press("Enter")  # Enter submits
    p.idle()
    p.answer_ok(form)
    assert p.tool("set_prices").locator(".field-error").count() == 0
    assert p.accepted() == before[1] + 1
    p.check_clean()


def test_an_error_inside_a_map_is_shown_beside_its_row_and_the_json_toggle_edits_the_arguments(
    play: Callable[..., Played],
) -> None:
    p = play("ceo", 21)
    ad = p.tool("set_targeted_ad_spend")
    spend = ad.locator('[data-name="targeted_spend"]').first
    spend.get_by_role("button", name="Add targeted_spend entry").click()
    spend.locator("input.map-key").first.fill("social_media")
    row = spend.locator("li.map-row").first
    row.get_by_role("button", name="Add value entry").click()
    row.locator("li.map-row input.map-key").fill("S1")
    row.locator("li.map-row input[type=number]").fill("-1")
    before = p.unchanged()
    form = p.call("set_targeted_ad_spend")
    assert "argument 'targeted_spend.social_media.S1'" in form.locator(".form-error").inner_text()
    inner = row.locator("li.map-row").first
    assert (
        inner.locator(".field-error").inner_text().startswith("targeted_spend.social_media.S1: expected a value >= 0.0")
    )
    assert p.unchanged() == before

    ad.locator("button.json-toggle").click()
    raw = ad.locator("textarea.raw")
    assert json.loads(raw.input_value()) == {"targeted_spend": {"social_media": {"S1": -1}}}
    raw.fill(json.dumps({"targeted_spend": {"social_media": {"S1": 100, "S2": 50}, "search_ads": {"S3": 25}}}))
    ad.locator("button.json-toggle").click()  # back to the form, rebuilt from the JSON
    assert spend.locator(":scope > .sub > ol > li.map-row").count() == 2
    form = p.call("set_targeted_ad_spend")
    p.answer_ok(form)
    assert p.game.history[-1]["args"] == {
        "targeted_spend": {"social_media": {"S1": 100, "S2": 50}, "search_ads": {"S3": 25}}
    }

    ad.locator("button.json-toggle").click()
    raw.fill("{not json")
    form.locator("button[type=submit]").click()
    assert "not JSON" in form.locator(".form-error").inner_text()
    assert p.game.history[-1]["args"]["targeted_spend"]["search_ads"] == {"S3": 25}  # nothing was sent
    p.check_clean()


# ---------------------------------------------------------------------- layout, keyboard, untrusted text
def test_the_page_has_two_columns_at_1280_and_one_on_a_narrow_screen(play: Callable[..., Played]) -> None:
    wide = play("cfo", 12)
    main, side = (wide.page.locator(s).bounding_box() for s in ("#col-main", "#col-side"))
    assert side["x"] > main["x"] + main["width"] - 1 and abs(side["y"] - main["y"]) < 2
    wide.answer_ok(wide.call("check_cash_in_bank"))
    wide.page.click('.end-tool[data-tool="book_closing"]')
    wide.idle()
    wide.answer_ok(wide.call("check_cash_in_bank"))
    assert wide.page.locator('#charts [data-chart="cash"] circle').count() == 2
    wide.page.evaluate("window.scrollTo(0, 0)")
    wide.shot("play-cfo", full_page=False)  # docs/play.md's picture
    wide.check_clean()
    wide.close()

    narrow = play("cfo", 12, width=420, height=900)
    main, side = (narrow.page.locator(s).bounding_box() for s in ("#col-main", "#col-side"))
    assert abs(side["x"] - main["x"]) < 2 and side["y"] >= main["y"] + main["height"]
    assert narrow.page.evaluate("document.documentElement.scrollWidth") <= 420
    narrow.shot("play-cfo-narrow", full_page=False)
    narrow.check_clean()


def test_the_keyboard_alone_reaches_the_end_turn_button_and_every_field_has_a_label(
    play: Callable[..., Played],
) -> None:
    p = play("cfo", 12)
    assert "Alt+N" in (p.page.get_attribute("#end-turn", "title") or "")
    for _ in range(12):
        p.page.keyboard.press("Tab")
        if p.page.evaluate("document.activeElement.id") == "end-turn":
            break
    assert p.page.evaluate("document.activeElement.id") == "end-turn"
    outline = p.page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("", "none")
    p.page.keyboard.press("Enter")
    p.idle()
    assert p.game.state()["turn"] == 1 and p.game.history[-1]["tool"] == "pass"
    unlabeled = p.page.evaluate(
        """[...document.querySelectorAll('input, select, textarea')]
             .filter(n => !n.labels || n.labels.length === 0).map(n => n.outerHTML)"""
    )
    assert unlabeled == []
    p.check_clean()


def test_untrusted_text_is_shown_as_text_never_as_markup(play: Callable[..., Played]) -> None:
    p = play("ceo", 21)
    p.page.fill("#memory", f"plan: {XSS}")
    p.page.click("#memory-save")
    p.idle()
    assert (p.run / "MEMORY.md").read_text() == f"plan: {XSS}"
    form = p.call("get_group_insights", {"group_id": XSS})
    assert XSS in form.locator(".form-error").inner_text() or form.locator(".answer").count() == 1
    p.page.locator("#history li.h details").first.locator("summary").click()
    assert XSS in p.page.locator("#history li.h").first.inner_text()
    assert p.page.locator("#history img, .tool img, #memory-panel img, #observation img").count() == 0
    p.page.reload()
    p.page.wait_for_selector("body[data-ready]")
    assert p.page.input_value("#memory") == f"plan: {XSS}"
    p.check_clean()


def test_lists_of_objects_are_sent_as_built_and_a_missing_argument_is_marked_beside_its_field(
    play: Callable[..., Played],
) -> None:
    p = play("ceo", 21)
    deal = p.tool("send_enterprise_deal")
    deals = deal.locator('[data-name="deals"]').first
    deals.get_by_role("button", name="Add deals item").click()
    item = deals.locator("li.row").first
    item.locator('[data-name="customer_id"] input').fill("812")
    for plan, price in (("B", "95"), ("C", "140.5")):
        item.get_by_role("button", name="Add offerings item").click()
        offer = item.locator('[data-name="offerings"] li.row').last
        offer.locator('[data-name="plan"] select').select_option(label=plan)
        offer.locator('[data-name="price_per_seat"] input').fill(price)
    before = p.unchanged()
    form = p.call("send_enterprise_deal")
    sent = p.game.history[-1]
    assert sent["tool"] == "send_enterprise_deal"
    assert sent["args"] == {
        "deals": [
            {
                "customer_id": 812,
                "offerings": [{"plan": "B", "price_per_seat": 95}, {"plan": "C", "price_per_seat": 140.5}],
            }
        ]
    }
    assert not sent["ok"] and form.locator(".form-error").is_visible() and p.unchanged() == before

    form = p.call("set_capacity_tier")  # its one argument is required and left empty
    assert "argument 'tier': required argument is missing" in form.locator(".form-error").inner_text()
    assert p.tool("set_capacity_tier").locator('[data-name="tier"] [aria-invalid="true"]').count() == 1
    assert p.unchanged() == before
    p.check_clean()


@pytest.mark.parametrize("env_id", ["ceo", "yc", "cfo"])
def test_every_tools_form_shows_only_its_own_words(play: Callable[..., Played], env_id: str) -> None:
    """No form carries a stray text node (a null appended to the DOM is the text 'null')."""
    p = play(env_id, 1)
    stray = p.page.evaluate(
        """[...document.querySelectorAll('form')].flatMap(f => [...f.childNodes]
             .filter(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim())
             .map(n => f.getAttribute('aria-label') + ': ' + n.textContent))"""
    )
    assert stray == []
    p.check_clean()


def test_saving_the_cfo_notepad_twice_adds_two_notes_never_a_dump_of_the_notes(play: Callable[..., Played]) -> None:
    """Saving adds a note (save_note): the notes are shown apart and the box starts empty again."""
    p = play("cfo", 12)
    assert p.text("#memory-label") == "Add to the notes"
    for text in ("first note", "second note"):
        p.page.fill("#memory", text)
        p.page.click("#memory-save")
        p.idle()
        assert p.page.input_value("#memory") == ""
    assert [n["content"] for n in p.game.episode.env.notes.notes] == ["first note", "second note"]
    assert "second note" in p.text("#memory-now")
    p.page.click("#memory-save")  # an empty box adds nothing: the env refuses an empty note
    p.idle()
    assert len(p.game.episode.env.notes.notes) == 2
    p.check_clean()
