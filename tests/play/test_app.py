"""The play page's server (bizbench/play/app.py, docs/play.md): only its player reaches it, nothing hidden leaves it."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bizbench.core.envs import list_envs
from bizbench.core.jsonio import read_jsonl
from bizbench.play.app import MAX_BODY_BYTES, PlayServer
from bizbench.play.game import Game
from bizbench.runner.check import find_hidden

ENVS = [spec.id for spec in list_envs()]
SEED = 918_273_645  # distinctive: found if it leaks


class Client:
    """Requests to a play server as a page (or anyone else on the machine) would send them."""

    def __init__(self, server: PlayServer) -> None:
        self.server = server
        self.bodies: list[tuple[str, str]] = []  # every response body, for the hidden-value scan

    def send(
        self, path: str, body: Any = None, token: str | None = "", host: str | None = None, raw: bytes | None = None
    ) -> tuple[int, dict[str, Any], Any]:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["X-Bizbench-Token"] = token or self.server.token
        if host is not None:
            headers["Host"] = host
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.server.port}{path}", data=data, headers=headers, method="POST" if data else "GET"
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                status, text, head = r.status, r.read().decode(), dict(r.headers)
        except urllib.error.HTTPError as e:
            status, text, head = e.code, e.read().decode(), dict(e.headers)
        self.bodies.append((f"{path} -> {status}", text))
        return status, head, json.loads(text) if head.get("content-type", "").startswith("application/json") else text


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Game, Client]]:
    game = Game("cfo", 3, out=tmp_path / "run", name="tester", horizon=3)
    server = PlayServer(game).start()
    try:
        yield game, Client(server)
    finally:
        server.stop()
        game.close()


def test_the_api_answers_only_with_the_games_token(served: tuple[Game, Client]) -> None:
    _, client = served
    for token in (None, "wrong"):
        status, _, body = client.send("/api/state", token=token)
        assert status == 403 and "token" in body["error"]
        status, _, _ = client.send("/api/call", {"tool": "pass", "args": {}}, token=token)
        assert status == 403
    assert not read_jsonl(client.server.game.path / "actions.jsonl")  # nothing reached the world
    assert client.send("/api/state")[0] == 200


def test_a_token_of_any_bytes_is_refused_with_the_security_headers(served: tuple[Game, Client]) -> None:
    """A non-ASCII token made the comparison raise: a 500 without the headers (found by an attacker)."""
    _, client = served
    conn = http.client.HTTPConnection("127.0.0.1", client.server.port, timeout=30)
    conn.putrequest("GET", "/api/state", skip_host=True)
    conn.putheader("Host", f"127.0.0.1:{client.server.port}")
    conn.putheader("X-Bizbench-Token", "\xe9".encode("latin-1"))
    conn.endheaders()
    response = conn.getresponse()
    assert response.status == 403 and "frame-ancestors 'none'" in response.getheader("content-security-policy", "")


def test_a_request_for_another_host_is_refused(served: tuple[Game, Client]) -> None:
    """A page elsewhere that rebinds its own name to 127.0.0.1 cannot reach the game."""
    _, client = served
    status, _, body = client.send("/api/state", host="evil.example:80")
    assert status == 403 and "own address" in body["error"]
    assert client.send("/api/state", host=f"localhost:{client.server.port}")[0] == 200


def test_every_response_forbids_framing_and_other_origins(served: tuple[Game, Client]) -> None:
    _, client = served
    for path in ("/", "/api/game"):
        _, headers, _ = client.send(path)
        policy = headers["content-security-policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("raw", "status", "problem"),
    [
        (b"{not json", 400, "not JSON"),
        (b"[1, 2]", 400, "JSON object"),
        (b'{"tool": 3, "args": {}}', 400, '{"tool"'),
        (b'{"tool": "pass", "args": [], "x": 1}', 400, '{"tool"'),
        # Python's json reads these; an answer holding them could not be sent, breaking the page for good
        (b'{"tool": "save_note", "args": {"content": NaN}}', 400, "no NaN"),
        (b'{"tool": "save_note", "args": {"content": "\\ud800"}}', 400, "UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, 400, "not JSON"),  # deeper than Python's json can read
    ],
)
def test_a_malformed_body_is_refused_and_changes_nothing(
    served: tuple[Game, Client], raw: bytes, status: int, problem: str
) -> None:
    game, client = served
    before = game.episode.state_digest()
    got, _, body = client.send("/api/call", raw=raw)
    assert got == status and problem in body["error"]
    assert game.episode.state_digest() == before and not read_jsonl(game.path / "actions.jsonl")


def test_a_body_over_the_limit_is_refused_before_it_is_read(served: tuple[Game, Client]) -> None:
    """The server answers 413 from the declared length without reading the body (the client then
    sends nothing: a client still sending when the server answers gets a broken pipe)."""
    game, client = served
    conn = http.client.HTTPConnection("127.0.0.1", client.server.port, timeout=30)
    conn.putrequest("POST", "/api/call", skip_host=True)
    conn.putheader("Host", f"127.0.0.1:{client.server.port}")
    conn.putheader("X-Bizbench-Token", client.server.token)
    conn.putheader("Content-Length", str(MAX_BODY_BYTES + 1))
    conn.endheaders()
    response = conn.getresponse()
    assert response.status == 413 and "over" in json.loads(response.read())["error"]
    assert not read_jsonl(game.path / "actions.jsonl")


def test_a_bad_value_is_the_envs_own_error_and_changes_nothing(served: tuple[Game, Client]) -> None:
    game, client = served
    before = game.episode.state_digest()
    _, _, answer = client.send("/api/call", {"tool": "fund_raising_request", "args": {"type": "equity", "amount": -1}})
    assert answer["ok"] is False and "'amount'" in answer["error"]
    assert game.episode.state_digest() == before


def test_the_page_and_its_files_are_served_from_the_package(served: tuple[Game, Client]) -> None:
    _, client = served
    status, headers, page = client.send("/", token=None)
    assert status == 200 and headers["content-type"].startswith("text/html") and "play.js" in page
    assert client.send("/static/play.js", token=None)[0] == 200
    assert client.send("/static/../game.py", token=None)[0] == 404


@pytest.mark.parametrize("env_id", ENVS)
def test_no_response_holds_a_hidden_value(env_id: str, tmp_path: Path) -> None:
    """Every answer of a played game, scanned for the seed and the env's hidden values
    (``hidden_values``, which change as the world runs: gathered after every turn)."""
    game = Game(env_id, SEED, out=tmp_path / "run", name="tester", horizon=2)
    server = PlayServer(game).start()
    client = Client(server)
    env = game.episode.session.env
    hidden: list[Any] = [SEED]
    try:
        client.send("/", token=None)
        _, _, info = client.send("/api/game")
        for _turn in range(2):
            hidden += [v for v in getattr(env, "hidden_values", list)() if not isinstance(v, bool)]
            for tool in info["tools"]:
                args: dict[str, Any] = {} if not tool["schema"].get("required") else {"no_such_argument": 1}
                client.send("/api/call", {"tool": tool["name"], "args": args})
                client.send("/api/state")
            if info["memory"]["editable"]:
                client.send("/api/memory", {"text": "notes"})
            client.send("/api/end-turn", {})
        client.send("/api/finish", {})
        client.send("/api/state")
    finally:
        server.stop()
        game.close()
    assert len(client.bodies) > 2 * len(info["tools"])
    assert not find_hidden(hidden, client.bodies)
    assert "preset_hash" not in "".join(text for _, text in client.bodies)


def test_bizbench_play_serves_a_game_and_bizbench_resume_serves_it_again(tmp_path: Path) -> None:
    """As a person runs it: the URL is printed, the game is played through it, Ctrl-C keeps the
    game, and bizbench resume puts the same game back on a page."""
    run = tmp_path / "run"
    env = {**os.environ, "DISPLAY": "", "WAYLAND_DISPLAY": ""}

    printed: list[str] = []

    def serve(*argv: str) -> tuple[subprocess.Popen[str], str, str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bizbench.entry", *argv, "--no-browser"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            printed.append(line)
            if line.startswith("open http://"):
                url = line.split()[1]
                return proc, url.split("/?t=")[0], url.split("/?t=")[1]
        raise AssertionError(f"no URL printed: {proc.communicate()}")

    def stop(proc: subprocess.Popen[str]) -> str:
        """Ctrl-C, and what the command printed after its URL (read through the same buffer)."""
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0  # Ctrl-C is how a person stops serving, not a failure
        assert proc.stdout is not None
        return proc.stdout.read()

    def send(base: str, token: str, path: str, body: Any = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(base + path, data=data, headers={"X-Bizbench-Token": token})
        with urllib.request.urlopen(request, timeout=30) as r:
            return dict(json.loads(r.read()))

    proc, base, token = serve("play", "cfo", "--seed", "4", "--name", "ada", "--out", str(run), "--horizon", "4")
    try:
        assert send(base, token, "/api/call", {"tool": "check_cash_in_bank", "args": {}})["ok"]
        send(base, token, "/api/end-turn", {})
    finally:
        out = stop(proc)
    assert f"continue it with: bizbench resume {run}" in out and not (run / "result.json").exists()

    proc, base, token = serve("resume", str(run))
    try:
        state = send(base, token, "/api/state")
        assert (state["turn"], len(state["history"])) == (1, 2)
        assert send(base, token, "/api/finish", {})["result"]["ended_by"] == "stopped"
    finally:
        out = stop(proc)
    assert "the game is over (stopped): score 0.00" in out  # a game stopped early counts 0
    assert "resumed at month 1 (turn 1): 2 recorded calls sent again, the same record\n" in printed
    result = json.loads((run / "result.json").read_text())
    assert (result["ended_by"], result["agent"]) == ("stopped", "human:ada")


def test_the_browser_is_opened_without_the_token_on_any_command_line(tmp_path: Path) -> None:
    """Every account reads every command line (ps): the browser gets a page of this user's only,
    which sends it on to the game's URL (found by an attacker: the token was on the browser's)."""
    seen = tmp_path / "browser-argv"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "$@" > {seen}\nexec sleep 3\n')
    browser.chmod(0o755)
    env = {**os.environ, "DISPLAY": ":0", "BROWSER": str(browser)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bizbench.entry", "play", "cfo", "--out", str(tmp_path / "run"), "--name", "ada"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    url = next(line.split()[1] for line in proc.stdout if line.startswith("open http://"))
    try:
        for _ in range(200):
            if seen.exists() and seen.read_text().strip():
                break
            time.sleep(0.05)
        argv = seen.read_text().strip()
        token = url.split("?t=")[1]
        assert token not in argv and argv.startswith("file://")
        launcher = Path(urllib.request.url2pathname(argv[len("file://") :]))
        assert oct(launcher.stat().st_mode & 0o777) == "0o600" and url in launcher.read_text()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    assert not launcher.exists()
