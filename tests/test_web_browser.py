"""The web app in a real browser: Debian's headless Chromium driven by Playwright.

A human seat plays a whole 4-player ``standard`` game against Hard by clicking cards and
buttons, and the page's final places equal the engine's; a record is stepped to its end and
back to the start; illegal clicks are refused. ``WRITE_SCREENSHOTS=1`` also writes the README's
screenshots (``docs/img/web_game.png``, ``docs/img/web_replay.png``).

Needs Debian's ``chromium`` (``apt-get install chromium``); Playwright's own browser download
is not used. Without it the tests FAIL, saying how to install it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents import make_agent
from apps.web.server import background_server, create_app
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.records import GameRecord, GameRecorder, top_probs

pytestmark = pytest.mark.slow

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parent.parent
SHOTS = os.environ.get("WRITE_SCREENSHOTS") == "1"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if path is None:
        pytest.fail("the browser tests need Debian's chromium: run `sudo apt-get install -y "
                    "chromium` (expected at /usr/bin/chromium)", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=ARGS)
        yield b
        b.close()


def policy_record(seed: int = 4) -> GameRecord:
    """A 4-player standard game: seat 0 the shipped checkpoint (its top action probabilities
    recorded), the others Hard."""
    import torch

    from agents import pretrained
    from agents.policy import load_policy

    rules = Rules.preset("standard")
    net, _, _ = load_policy(pretrained.path("ppo"), rules)
    engine = Engine(rules)
    hard = make_agent("hard", rules, 1)
    state = engine.init([seed])
    rec = GameRecorder(rules, state, players=["ppo", "hard", "hard", "hard"])
    while state.phase[0] != 2:
        mask, obs = engine.legal_action_mask(state), engine.observe(state)
        seat = int(state.current[0])
        probs = None
        if seat == 0:
            with torch.no_grad():
                logits, _ = net(torch.as_tensor(obs), torch.as_tensor(mask))
            p = torch.softmax(logits, -1)[0].numpy()
            a, probs = int(np.argmax(p)), top_probs(p, k=3)
        else:
            a = int(hard.act_batch(obs, mask)[0])
        rec.add(seat, a, probs)
        engine.step_inplace(state, np.array([a]))
    return rec.finish(state)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, GameRecord]]:
    folder = tmp_path_factory.mktemp("records")
    record = policy_record()
    record.save(folder / "policy_vs_hard.json")
    app = create_app(save_dir=tmp_path_factory.mktemp("games"), records=[folder])
    with background_server(app) as url:
        yield url, app, record


def open_page(browser: Any, url: str) -> Any:
    page = browser.new_page(viewport={"width": 1360, "height": 820})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page


def start_game(page: Any, seed: int, speed: int = 0) -> None:
    page.select_option("#f-preset", "standard")
    page.fill("#f-players", "4")
    page.fill("#f-seat", "0")
    page.dispatch_event("#f-seat", "input")
    for sel in page.query_selector_all("#f-opponents select"):
        sel.select_option("hard")
    page.fill("#f-seed", str(seed))
    page.eval_on_selector("#speed", f"(e) => {{ e.value = '{speed}'; e.dispatchEvent(new Event('input')); }}")
    page.click("#start")
    page.wait_for_selector("body[data-busy='0'][data-ply]")


def wait_move(page: Any, ply: str) -> None:
    page.wait_for_function(
        f"document.body.dataset.busy === '0' && document.body.dataset.ply !== '{ply}'")


def click_play(page: Any, action: dict[str, Any]) -> None:
    """Select the action's cards in the hand by clicking them, then click its Play button."""
    used: set[str] = set()
    for c in action["cards"]:
        for card in page.query_selector_all(f"#hand .card[data-card='{c}']"):
            i = card.get_attribute("data-index")
            if i not in used:
                used.add(i)
                card.click()
                break
    page.click(f"#matches button[data-action='{action['id']}']")


def illegal_selection(page: Any, legal: list[dict[str, Any]]) -> list[int] | None:
    """Indices of two hand cards that make no legal play (two different ranks), if any."""
    hand = page.evaluate("window.president.game.state.hand")
    keys = {a["key"] for a in legal}
    for i in range(len(hand)):
        for j in range(i + 1, len(hand)):
            if hand[i] // 4 != hand[j] // 4 and f"{hand[i]},{hand[j]}" not in keys:
                return [i, j]
    return None


def check_illegal_clicks(page: Any, legal: list[dict[str, Any]]) -> None:
    """An illegal selection cannot be sent, and a forged move is refused with a message."""
    ply = page.evaluate("document.body.dataset.ply")
    pair = illegal_selection(page, legal)
    assert pair is not None
    for i in pair:
        page.click(f"#hand .card[data-index='{i}']")
    assert page.is_disabled("#play-selected")
    assert "not a legal play" in page.inner_text("#hint")
    page.click("#play-selected", force=True)  # a click on the disabled button does nothing
    illegal = next(a for a in range(1, 60) if a not in {x["id"] for x in legal})
    page.evaluate(f"sendMove({illegal})")  # forged: the server refuses it
    page.wait_for_selector("#error:not([hidden])")
    assert "Move refused" in page.inner_text("#error") and "not legal" in page.inner_text("#error")
    assert page.evaluate("document.body.dataset.ply") == ply
    page.click("#clear")
    page.click("#error-close")


def test_a_whole_game_by_clicking(browser: Any, server: Any) -> None:
    url, app, _ = server
    page = open_page(browser, url)
    start_game(page, seed=21)
    turn = 0
    while page.evaluate("document.body.dataset.phase") != "over":
        legal = page.evaluate("window.president.game.legal")
        ply = page.evaluate("document.body.dataset.ply")
        plays = [a for a in legal if a["id"] != 0]
        if turn == 1:
            check_illegal_clicks(page, legal)
        if SHOTS and turn == 3 and plays:
            shoot_game(page, plays)
        if not plays:
            page.click("#pass")
        elif turn % 3 == 2:  # sometimes the list of named plays
            page.click(f"#legal button[data-action='{plays[0]['id']}']")
        else:
            click_play(page, plays[0])
        wait_move(page, ply)
        turn += 1
    game_id = page.evaluate("window.president.game.id")
    game = app.state.store.games[game_id]
    standings = game.engine.standings(game.state)[0]
    rows = page.query_selector_all("#final-places tr[data-seat]")
    shown = {int(r.get_attribute("data-seat")): int(r.get_attribute("data-place")) for r in rows}
    assert shown == {s: int(standings[s]) for s in range(4)}
    heading = page.inner_text("#final h2")
    assert f"you finished {['1st', '2nd', '3rd', '4th'][int(standings[0])]}" in heading
    assert game.over and not page.errors


def shoot_game(page: Any, plays: list[dict[str, Any]]) -> None:
    """The README's game screenshot: a legal play selected, its button offered."""
    best = max(plays, key=lambda a: len(a["cards"]))
    for c in best["cards"]:
        page.click(f"#hand .card[data-card='{c}']:not(.selected)")
    page.wait_for_timeout(200)
    page.screenshot(path=str(ROOT / "docs/img/web_game.png"))
    page.click("#clear")


def test_replay_to_the_end_and_back(browser: Any, server: Any) -> None:
    url, _, record = server
    page = open_page(browser, url)
    page.click("#tab-replay")
    page.select_option("#r-list", "policy_vs_hard.json")
    page.click("#r-open")
    page.wait_for_selector("#r-step[data-index='0']")
    n = len(record.steps)
    assert page.inner_text("#r-step") == f"step 0 of {n}"
    hands = page.query_selector_all("#r-seats .seat")
    assert len(hands) == 4 and len(page.query_selector_all("#r-seats .card")) == 52
    shot = False
    for k, step in enumerate(record.steps):
        page.click("#r-next")
        page.wait_for_selector(f"#r-step[data-index='{k + 1}']")
        assert f"seat {step.seat}" in page.inner_text("#r-move")
        if step.probs:
            top = page.inner_text(f"#r-seats .seat[data-seat='{step.seat}'] .top")
            assert f"{step.probs[0][1] * 100:.1f}%" in top
        if SHOTS and k >= 24 and step.seat == 0 and step.probs and not shot:
            shot = True
            page.screenshot(path=str(ROOT / "docs/img/web_replay.png"))
    page.click("#r-next")  # past the end: stays
    assert page.inner_text("#r-step") == f"step {n} of {n}"
    assert "Deal over" in page.inner_text("#r-move")
    for k in range(n, 0, -1):
        page.click("#r-prev")
        page.wait_for_selector(f"#r-step[data-index='{k - 1}']")
    assert "the hands as dealt" in page.inner_text("#r-move")
    assert len(page.query_selector_all("#r-seats .card")) == 52 and not page.errors


def test_a_bad_upload_is_shown(browser: Any, server: Any, tmp_path: Path) -> None:
    url, _, record = server
    page = open_page(browser, url)
    page.click("#tab-replay")
    bad = tmp_path / "bad.json"
    bad.write_text(record.to_json()[:300])
    page.set_input_files("#r-file", str(bad))
    page.wait_for_selector("#error:not([hidden])")
    assert "Record refused" in page.inner_text("#error")
    assert "not valid JSON" in page.inner_text("#error")


def test_two_tabs_play_separate_games(browser: Any, server: Any) -> None:
    """Two tabs of one browser (one context, so one cookie jar and one localStorage) keep a
    game each: a move in one leaves the other as it was, and a reload finds its own game."""
    url, app, _ = server
    context = browser.new_context(viewport={"width": 1360, "height": 820})
    try:
        tabs = []
        for seed in (31, 32):
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector("body[data-ready='1']")
            start_game(page, seed=seed)
            tabs.append(page)
        ids = [t.evaluate("window.president.game.id") for t in tabs]
        assert ids[0] != ids[1] and set(ids) <= set(app.state.store.games)
        other_ply = tabs[1].evaluate("document.body.dataset.ply")
        other_hand = tabs[1].evaluate("window.president.game.state.hand")
        ply = tabs[0].evaluate("document.body.dataset.ply")
        legal = tabs[0].evaluate("window.president.game.legal")
        plays = [a for a in legal if a["id"] != 0]
        if plays:
            click_play(tabs[0], plays[0])
        else:
            tabs[0].click("#pass")
        wait_move(tabs[0], ply)
        tabs[1].reload()
        tabs[1].wait_for_selector("body[data-ready='1'][data-busy='0'][data-ply]")
        assert tabs[1].evaluate("window.president.game.id") == ids[1]
        assert tabs[1].evaluate("document.body.dataset.ply") == other_ply
        assert tabs[1].evaluate("window.president.game.state.hand") == other_hand
        tabs[0].reload()
        tabs[0].wait_for_selector("body[data-ready='1'][data-busy='0'][data-ply]")
        assert tabs[0].evaluate("window.president.game.id") == ids[0]
        assert tabs[0].evaluate("document.body.dataset.ply") != ply
    finally:
        context.close()
