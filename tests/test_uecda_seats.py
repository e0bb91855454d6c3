"""The UECda server's seat change as ``Rules(reseat_every=n)``, built by hand from the rule text
(``docs/experiments/2026-12-04-uecda-server-rules.md`` §1, §10) on the engine and on the plain
reference alike.

* At games 1, 1 + n, 1 + 2n, ... (the server's ``game % RULE_SEKIGAE_NUM == 1``, counted from
  1; our deals 0, n, 2n, ...) the seat order is drawn at random (here from the game's seed:
  ``engine.seat_order``), and kept until the next drawing. The players keep their numbers:
  their classes (titles) and points (scores) follow them to their new seats.
* Everything that goes "to the next seat" goes round the table in that order: play, the end of
  a trick, the deal (one card at a time from the initial person's seat), the dealer.
* The observation counts seats round the table ("seat k" is the k-th seat to my left).
* ``RULE_SEKIGAE_NUM`` of 1 never changes the seats (``n % 1`` is never 1): the option refuses
  1 (and 0, negatives, non-integers) rather than guess.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_uecda_match import _to_deal
from test_variants import EngineGame, NewGame, RefGame

from president_env.core.engine import Engine, deal_hands, initial_seat, seat_order
from president_env.core.observe import ObservationLayout
from president_env.core.one_game import OneGame
from president_env.core.rules import Rules
from president_env.records import GameRecorder, check, record_from_json
from president_env.testing.reference import ReferenceGame

FIVE = Rules(num_players=5, jokers=1, reseat_every=2)
"""The server's table, its seats drawn every second deal."""
HANDS = ["3c 9h Kd", "4c 5d 6h", "7c 8d Ts", "Jc Qd 2h", "5c 6d 7h"]
"""Three cards each: nobody goes out in the first trick."""


@pytest.fixture(params=["engine", "reference"])
def new_game(request: pytest.FixtureRequest) -> NewGame:
    """``new_game(rules, hands, seed=0)``: a game on the engine, then on the reference."""
    return EngineGame if request.param == "engine" else RefGame


def _seats(seat_of: list[int]) -> list[int]:
    """The player in each seat, from seat 0, of a seat per player."""
    return [seat_of.index(s) for s in range(len(seat_of))]


def test_the_seed_draws_a_seat_order_that_is_no_turn_of_the_table() -> None:
    """(What the scenarios below rely on: seed 0 seats players 4, 3, 0, 2, 1 from seat 0, an
    order that no rotation of 0, 1, 2, 3, 4 gives; the draw repeats; later draws differ.)"""
    assert seat_order(0, 0, 5) == seat_order(0, 0, 5) == [4, 3, 0, 2, 1]
    orders = {tuple(seat_order(seed, deal, 5)) for seed in range(10) for deal in (0, 2, 4)}
    assert len(orders) >= 20 and all(sorted(o) == [0, 1, 2, 3, 4] for o in orders)


def test_play_goes_round_the_table_in_seat_order(new_game: NewGame) -> None:
    """Player 0 (the 3 of clubs) leads; the others are asked in seat order from his seat, and
    when all have passed he leads again."""
    g = new_game(FIVE, HANDS, 0)
    seats = seat_order(0, 0, 5)
    assert _seats(g.view()["seat_of"]) == seats
    assert g.view()["current"] == 0
    g.step("single 3")
    after = seats.index(0)
    for i in range(1, 5):
        assert g.view()["current"] == seats[(after + i) % 5]  # 0 -> 2 -> 1 -> 4 -> 3
        g.step("pass")
    v = g.view()
    assert v["current"] == 0 and v["pile_kind"] == 0  # a new trick, led by player 0


def test_without_the_option_play_goes_by_player_number(new_game: NewGame) -> None:
    g = new_game(FIVE.replace(reseat_every=None), HANDS, 0)
    assert g.view()["seat_of"] == [0, 1, 2, 3, 4]
    g.step("single 3")
    assert g.view()["current"] == 1
    g.step("pass")
    assert g.view()["current"] == 2


@pytest.mark.parametrize("deal_from", ["dealer_left", "president"])
def test_the_first_deal_goes_round_the_table(deal_from: str) -> None:
    """Deal 0: one card at a time in seat order, from the player in seat 0 (``"president"``:
    from the drawn initial player); the same shuffle as without the option, seat s holding
    what seat s holds there."""
    rules = FIVE.replace(deal_from=deal_from)
    seeds = list(range(12))
    state = Engine(rules).init(seeds)
    for b, seed in enumerate(seeds):
        seats = seat_order(seed, 0, 5)
        assert _seats(state.seat_of[b].tolist()) == seats
        first = 0 if deal_from == "dealer_left" else seats.index(initial_seat(seed, 0, 5))
        by_seat = [state.hands[b, seats[(first + i) % 5]].tolist() for i in range(5)]
        assert by_seat == deal_hands(rules, seed, 0, 4).tolist()  # (dealt from seat 0)
        assert [sum(h) for h in by_seat] == [11, 11, 11, 10, 10]
        assert int(state.dealer[b]) == seats[(first - 1) % 5]
        ref = ReferenceGame(rules, seed=seed)
        assert ref.hands.tolist() == state.hands[b].tolist()
        assert (ref.seat_of, ref.dealer, ref.current) == (
            state.seat_of[b].tolist(), int(state.dealer[b]), int(state.current[b]))


def test_seats_are_drawn_every_n_deals_and_players_keep_their_scores(new_game: NewGame) -> None:
    """``reseat_every=2`` over 5 deals: the seats of deal 0 stay in deal 1, deals 2 and 4 draw
    again (3 keeps 2's); the Bum (by number) deals and the first card goes to his left in the
    new order; the scores of each player go on adding up."""
    rules = FIVE.replace(deals=5, exchange=False)
    g = new_game(rules, HANDS, 3)
    scores = [0] * 5
    for deal in range(1, 5):
        v = _to_deal(g, deal)
        seats = seat_order(3, deal - deal % 2, 5)
        assert _seats(v["seat_of"]) == seats
        bum = v["title"].index(4)
        assert v["dealer"] == bum
        left = seats.index(bum) + 1
        assert [sum(v["hands"][seats[(left + i) % 5]]) for i in range(5)] == [11, 11, 11, 10, 10]
        assert all(v["scores"][q] - scores[q] == 5 - v["title"][q] for q in range(5))
        scores = list(v["scores"])
    assert seat_order(3, 0, 5) != seat_order(3, 2, 5) != seat_order(3, 4, 5)


def test_the_three_of_diamonds_leads_and_seat0_means_the_first_seat(new_game: NewGame) -> None:
    """``first_lead="seat0"``: the player in seat 0 (not player 0) leads."""
    g = new_game(FIVE.replace(first_lead="seat0"), HANDS, 0)
    assert g.view()["current"] == seat_order(0, 0, 5)[0] == 4


def test_the_observation_counts_seats_round_the_table() -> None:
    """Seat k of player ``me`` is the k-th seat to his left in the drawn order: cards left,
    the player to act, and the record's movers, for every observer."""
    rules = FIVE.replace(observation="record")
    g = EngineGame(rules, HANDS, 0)
    g.step("single 3")
    g.step("pass")  # player 2 passes (seat 3), player 1 (seat 4) is to act
    seats, lay = seat_order(0, 0, 5), ObservationLayout(rules)
    for me in range(5):
        k = lay.split(g.eng.observe(g.state, [me]))
        mine = seats.index(me)
        in_seat = [seats[(mine + j) % 5] for j in range(5)]
        assert k["cards_left"][0].tolist() == [3 - (q == 0) for q in in_seat]
        assert int(np.argmax(k["current"][0])) == in_seat.index(1)
        movers = k["record"][0, 1:5:2].tolist()  # seat k + 1 of the two moves, newest first
        assert movers == [in_seat.index(2) + 1, in_seat.index(0) + 1]


def test_one_game_and_a_batch_and_a_seed_repeat_the_seats() -> None:
    """The one-game path (:class:`OneGame`) plays the batch's game exactly, seats included,
    over 4 deals; the same seed gives the same game again."""
    rules = Rules.preset("uecda", deals=4, reseat_every=2)
    eng = Engine(rules)
    batch = eng.init([11])
    one = OneGame(eng, eng.init([11]))
    rng = np.random.default_rng(0)
    orders = set()
    while not batch.terminated.all():
        a = eng.sample_random(eng.legal_action_mask(batch), rng)
        eng.step_inplace(batch, a)
        one.step(int(a[0]))
        assert batch.equals(one.state)
        orders.add(tuple(batch.seat_of[0].tolist()))
    assert len(orders) == 2  # (drawn at deals 0 and 2)
    again = eng.init([11])
    assert again.seat_of.tolist() == eng.init([11]).seat_of.tolist()


def test_a_record_of_a_reseated_game_replays_to_the_same_state() -> None:
    """A record keeps the option and the seed; the replay draws the same seats again."""
    rules = FIVE.replace(deals=3)
    eng = Engine(rules)
    state = eng.init([5])
    recorder = GameRecorder(rules, state)
    rng = np.random.default_rng(1)
    while not state.terminated.all():
        a = eng.sample_random(eng.legal_action_mask(state), rng)
        recorder.add(int(state.current[0]), int(a[0]))
        eng.step_inplace(state, a)
    record = record_from_json(recorder.finish(state).to_json())
    assert record.rules.reseat_every == 2 and record.hands is None
    assert check(record).equals(state)


@pytest.mark.parametrize("value", [1, 0, -3, True, 2.5, "3", 10_001])
def test_reseat_every_refuses_what_makes_no_sense(value: Any) -> None:
    """1 would be "never" at the server and "every deal" in a plain reading: refused, as are
    0, negatives, bools, floats and strings; the message says what is allowed and why."""
    with pytest.raises(ValueError, match=r"reseat_every must be None or an integer from 2 to "
                                         r"10000, got .* takes 1 for never: that is None\)"):
        Rules(reseat_every=value)
