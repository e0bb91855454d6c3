"""The UECda server's match level as options, each built by hand from the rule text
(``docs/experiments/2026-12-04-uecda-server-rules.md`` §1, §9, §10) on the engine and on the
plain reference alike.

* ``deal_from="president"``: the cards go one at a time in seat order from the "initial
  person", the previous game's daifugo (our President), so he and the next two seats get 11
  of the 53 cards and the last two 10; in a game without classes (the first) the initial person
  is drawn at random (from the game's seed).
* ``title_reset_every=n``: games n, 2n, ... (from 0; the server's ``(game - 1) %
  FLASH_MIBUN_NUMBER == 0`` from 1) are class-reset games: the classes count for nothing,
  nobody exchanges, the initial person is drawn at random and the D3's holder leads; the
  points go on adding up, and the next game has the classes of the reset game. (The engine's
  ``title`` keeps the last deal's places in view: the rewards of the step that ended it read
  them.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_variants import EngineGame, NewGame, RefGame

from president_env.core.engine import Engine, deal_hands, initial_seat, seat_order
from president_env.core.rules import Rules
from president_env.testing.reference import ReferenceGame

FIVE = Rules(num_players=5, jokers=1)
"""The server's table: 5 players, 53 cards."""


@pytest.fixture(params=["engine", "reference"])
def new_game(request: pytest.FixtureRequest) -> NewGame:
    """``new_game(rules, hands, seed=0)``: a game on the engine, then on the reference."""
    return EngineGame if request.param == "engine" else RefGame


def _in_turn(hands: np.ndarray, first: int) -> list[list[int]]:
    """The hands of a deal dealt from seat ``first``, relabelled so that row i is the hand of
    the i-th seat to get a card (first, first + 1, ...)."""
    p = len(hands)
    return [hands[(first + i) % p].tolist() for i in range(p)]


def _to_deal(g: Any, deal: int) -> dict[str, Any]:
    """Play the lowest legal action (by name) until deal ``deal``'s play starts; its view."""
    while True:
        v = g.view()
        if v["deal"] == deal and v["phase"] == "play":
            return v
        g.step(sorted(g.legal())[0])


def test_the_first_deal_goes_from_a_seat_drawn_from_the_seed() -> None:
    """11/11/11/10/10 from the initial person, in seat order: the hands are those of the usual
    deal (from seat 0, with the same shuffle) turned round to start at that seat."""
    seeds = list(range(20))
    rules = FIVE.replace(deal_from="president")
    state = Engine(rules).init(seeds)
    usual = Engine(FIVE).init(seeds)
    firsts = set()
    for b, seed in enumerate(seeds):
        first = initial_seat(seed, 0, 5)
        firsts.add(first)
        hands = state.hands[b]
        assert [int(hands[(first + i) % 5].sum()) for i in range(5)] == [11, 11, 11, 10, 10]
        assert _in_turn(hands, first) == usual.hands[b].tolist()  # (the usual deal: from seat 0)
        assert int(state.dealer[b]) == (first - 1) % 5
        ref = ReferenceGame(rules, seed=seed)
        assert ref.hands.tolist() == hands.tolist() and ref.dealer == int(state.dealer[b])
        assert ref.current == int(state.current[b])  # (the 3 of clubs' holder leads)
    assert len(firsts) >= 3  # drawn, not a fixed seat
    again = Engine(rules).init(seeds)
    assert again.hands.tolist() == state.hands.tolist()  # a seed repeats its deal


@pytest.mark.parametrize("deal_from", ["president", "dealer_left"])
def test_a_later_deal_goes_from_the_president(new_game: NewGame, deal_from: str) -> None:
    """The second deal: the President (dealer_left: the Bum's left) and the next two seats
    get 11 cards, the first of them the first card of the shuffle."""
    rules = FIVE.replace(deals=2, exchange=False, deal_from=deal_from)
    g = new_game(rules, ["Ac 8h", "5h 5s", "3h 7d", "3d 3c", "9s 2d"], 5)
    v = _to_deal(g, 1)
    president, bum = v["title"].index(0), v["title"].index(4)
    first = president if deal_from == "president" else (bum + 1) % 5
    hands = np.array(v["hands"])
    assert [int(hands[(first + i) % 5].sum()) for i in range(5)] == [11, 11, 11, 10, 10]
    shuffle = deal_hands(rules, 5, 1, 4)  # deal 1's shuffle dealt from seat 0: in turn
    assert _in_turn(hands, first) == shuffle.tolist()
    assert v["dealer"] == (first - 1) % 5
    assert president != (bum + 1) % 5  # (so the two rules deal differently here)


def _view_at(g: Any, deal: int, phase: str) -> dict[str, Any]:
    """Play the lowest legal action (by name) until deal ``deal`` is in ``phase``; its view."""
    while True:
        v = g.view()
        if v["deal"] == deal and v["phase"] == phase:
            return v
        g.step(sorted(g.legal())[0])


@pytest.mark.parametrize("deal_from", ["president", "dealer_left"])
def test_every_second_deal_starts_as_the_first(new_game: NewGame, deal_from: str) -> None:
    rules = FIVE.replace(deals=4, first_lead="three_of_diamonds", deal_from=deal_from,
                         title_reset_every=2)
    g = new_game(rules, ["Ac 8h", "5h 5s", "3h 7d", "3d 3c", "9s 2d"], 5)
    one = _view_at(g, 1, "exchange")  # deal 1: titles from deal 0, and the exchange
    assert sorted(one["title"]) == [0, 1, 2, 3, 4]
    assert sum(map(sum, one["gave"])) == 3  # (the Bum's two best, the Vice-Bum's best)
    two = _view_at(g, 2, "play")  # deal 2: a class reset
    assert sorted(two["title"]) == [0, 1, 2, 3, 4]  # (deal 1's places, still in view)
    assert sum(map(sum, two["gave"])) == sum(map(sum, two["received"])) == 0  # no exchange
    diamond = next(q for q in range(5) if two["hands"][q][1] > 0)  # (card 1: the 3 of diamonds)
    assert two["current"] == diamond
    first = initial_seat(5, 2, 5) if deal_from == "president" else 0  # (dealer P-1 as deal 0)
    assert two["dealer"] == (first - 1) % 5
    hands = np.array(two["hands"])
    assert [int(hands[(first + i) % 5].sum()) for i in range(5)] == [11, 11, 11, 10, 10]
    assert sum(two["scores"]) == 2 * 15  # (5 + 4 + 3 + 2 + 1 a deal, still adding up)
    three = _view_at(g, 3, "exchange")  # deal 3: the titles of the reset deal, the exchange
    assert sorted(three["title"]) == [0, 1, 2, 3, 4]
    assert sum(map(sum, three["gave"])) == 3


def test_a_reset_every_deal_means_no_exchange(new_game: NewGame) -> None:
    """``title_reset_every=1``: every deal starts as the first (the 3 of clubs' holder leads
    deal after deal, not the Bum)."""
    rules = FIVE.replace(deals=3, title_reset_every=1)
    g = new_game(rules, ["Ac 8h", "5h 5s", "3h 7d", "3d 3c", "9s 2d"], 5)
    for deal in (1, 2):
        v = _view_at(g, deal, "play")
        assert sorted(v["title"]) == [0, 1, 2, 3, 4] and sum(map(sum, v["received"])) == 0
        assert v["current"] == next(q for q in range(5) if v["hands"][q][0] > 0)  # (the 3c)
        assert v["dealer"] == 4


def test_a_match_of_the_preset_deals_and_leads_as_the_server(new_game: NewGame) -> None:
    """``Rules.preset("uecda", deals=2)``: the second game is dealt 11/11/11/10/10 from the
    daifugo round the table (seats drawn at game 1, as the server's every 3 games), the
    exchange keeps those counts, and the D3's holder leads after it."""
    rules = Rules.preset("uecda", deals=2)
    assert (rules.first_lead_every_deal, rules.deal_from, rules.title_reset_every,
            rules.reseat_every) == (True, "president", 100, 3)
    g = new_game(rules, ["Ac 8h", "5h 5s", "3h 7d", "3d 3c", "9s 2d"], 5)
    v = _view_at(g, 1, "play")
    seats = seat_order(5, 0, 5)
    assert v["seat_of"] == [seats.index(q) for q in range(5)]
    first = seats.index(v["title"].index(0))  # the daifugo's seat
    hands = np.array(v["hands"])
    by_seat = [int(hands[seats[(first + i) % 5]].sum()) for i in range(5)]
    assert by_seat == [11, 11, 11, 10, 10]
    assert sum(map(sum, v["received"])) == 6  # (2 + 1 given, 2 + 1 returned)
    assert v["current"] == next(q for q in range(5) if hands[q][1] > 0)  # (the 3 of diamonds)


def test_deal_from_takes_only_its_choices() -> None:
    with pytest.raises(ValueError, match="deal_from must be 'dealer_left' or 'president'"):
        Rules(deal_from="daifugo")  # type: ignore[arg-type]
