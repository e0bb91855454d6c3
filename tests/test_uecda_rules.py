"""The rules of the UECda standard server that the engine has as options, each built by hand
from the rule text (``docs/experiments/2026-12-04-uecda-server-rules.md``) on the engine and
on the plain reference alike.

* ``runs_disjoint``: a run is beaten only by a run of the same length whose lowest card is
  above the old run's highest; in a revolution, whose highest is below the old run's lowest.
* ``run_revolution=5``: a run of five or more cards starts a revolution (at once, or at the end
  of the trick with ``revolution_timing="next_trick"``), a run of four does not.
* ``first_lead="three_of_diamonds"``: the holder of the 3 of diamonds leads the first deal.
* ``play_on_own``: the trick ends only when every player still in has passed, the last one to
  play too, who may play again on his own play; then he leads, or if he is out, the next seat
  holding cards.
* ``jack_back`` (11-back): a play holding a J (a set of Js, a joker standing for a J, a run
  through the J; not jokers alone) reverses the order until the trick ends; the order in force
  is revolution XOR 11-back, and it is observable.
* ``six_reverses`` (6-revers): a play holding a 6 reverses the direction of play for the rest
  of the deal; a second one turns it back.
* ``stalemate_passes=n``: the n-th pass in a row (across tricks; any play starts the count
  again) ends the deal, the players still in taking the places left in an order drawn from
  the game's seed (the same in both implementations, and again for the same seed).
* ``lead_may_pass`` (needs ``stalemate_passes``): the leader may pass on an empty pile; when
  all have passed the same leader leads again; those passes count toward a stalemate.
* ``first_lead_every_deal``: the first lead's rule (the holder of the 3 of diamonds) picks the
  leader of every deal, in the hands after the exchange, not the Bum.

The later ones are tables of steps on both implementations (``tests/test_variants.py``'s
``play``: an action by name, then the fields expected after it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_variants import EngineGame, NewGame, RefGame, expect, play

from agents import EasyAgent, HardAgent, NormalAgent
from president_env.core.cards import parse_hand
from president_env.core.engine import Engine, stalemate_seats
from president_env.core.rules import Rules
from president_env.testing.reference import ReferenceGame

CLUBS, SPADES = 0, 3


@pytest.fixture(params=["engine", "reference"])
def new_game(request: pytest.FixtureRequest) -> NewGame:
    """``new_game(rules, hands, seed=0)``: a game on the engine, then on the reference."""
    return EngineGame if request.param == "engine" else RefGame


def _after_run(rules: Rules, hands: list[str], suit: int, bottom: int, length: int
               ) -> tuple[Engine, np.ndarray, list[int]]:
    """Seat 0 leads a run; the legal actions of seat 1 (engine), and the reference's."""
    engine = Engine(rules)
    state = engine.init_from_hands(hands)
    ref = ReferenceGame(rules, hands=np.stack([parse_hand(h) for h in hands]))
    assert int(state.current[0]) == ref.current == 0  # nobody holds the 3c: seat 0 leads
    lead = engine.layout.run_action(suit, bottom, length)
    engine.step_inplace(state, [lead])
    ref.step(lead)
    mask = engine.legal_action_mask(state)[0]
    return engine, mask, sorted(ref.legal_actions())


def _runs_of(engine: Engine, mask: np.ndarray) -> set[str]:
    names = [engine.layout.name(int(a)) for a in np.flatnonzero(mask)]
    return {n for n in names if "run" in n}


@pytest.mark.parametrize("disjoint", [False, True])
def test_a_run_beats_a_run_only_from_above_its_top_card(disjoint: bool) -> None:
    rules = Rules(num_players=3, runs=True, runs_disjoint=disjoint)
    hands = ["4c 5c 6c Kd", "5s 6s 7s 8s 9s 10s", "Ah Ad"]
    engine, mask, ref = _after_run(rules, hands, CLUBS, 1, 3)  # 4-5-6 of clubs
    assert sorted(np.flatnonzero(mask).tolist()) == ref
    got = _runs_of(engine, mask)
    above = {"run 7-8-9 of spades", "run 8-9-10 of spades"}
    overlapping = {"run 5-6-7 of spades", "run 6-7-8 of spades"}
    assert got == (above if disjoint else above | overlapping)


@pytest.mark.parametrize("disjoint", [False, True])
def test_in_a_revolution_a_run_beats_only_from_below_its_lowest_card(disjoint: bool) -> None:
    rules = Rules(num_players=3, runs=True, revolution=True, runs_disjoint=disjoint)
    hands = ["8c 9c 10c Kd", "3s 4s 5s 6s 7s 8s", "Ah Ad"]
    engine = Engine(rules)
    state = engine.init_from_hands(hands)
    state.revolution[:] = True
    ref = ReferenceGame(rules, hands=np.stack([parse_hand(h) for h in hands]))
    assert int(state.current[0]) == ref.current == 0  # nobody holds the 3c: seat 0 leads
    ref.revolution = True
    lead = engine.layout.run_action(CLUBS, 5, 3)  # 8-9-10 of clubs
    engine.step_inplace(state, [lead])
    ref.step(lead)
    mask = engine.legal_action_mask(state)[0]
    assert sorted(np.flatnonzero(mask).tolist()) == sorted(ref.legal_actions())
    below = {"run 3-4-5 of spades", "run 4-5-6 of spades", "run 5-6-7 of spades"}
    overlapping = {"run 6-7-8 of spades"}
    assert _runs_of(engine, mask) == (below if disjoint else below | overlapping)


@pytest.mark.parametrize(("length", "option", "revolts"),
                         [(5, 5, True), (6, 5, True), (4, 5, False), (5, None, False)])
def test_a_long_run_starts_a_revolution(length: int, option: int | None, revolts: bool) -> None:
    """Seat 0 leads a run from the 4c; a lower run of seat 1's (from the 3s) beats it only in
    the revolution that run started."""
    rules = Rules(num_players=3, runs=True, revolution=True, run_revolution=option)
    hands = ["4c 5c 6c 7c 8c 9c Kd", "3s 4s 5s 6s 7s 8s 9s", "Ah Ad"]
    engine, mask, ref_legal = _after_run(rules, hands, CLUBS, 1, length)
    ref = ReferenceGame(rules, hands=np.stack([parse_hand(h) for h in hands]))
    ref.step(engine.layout.run_action(CLUBS, 1, length))
    assert ref.revolution == revolts
    assert sorted(np.flatnonzero(mask).tolist()) == ref_legal
    lower = engine.layout.name(engine.layout.run_action(SPADES, 0, length))
    assert (lower in _runs_of(engine, mask)) == revolts


def test_a_long_run_revolts_at_the_end_of_the_trick_with_next_trick() -> None:
    rules = Rules(num_players=3, runs=True, revolution=True, run_revolution=5,
                  revolution_timing="next_trick")
    hands = ["4c 5c 6c 7c 8c Kd", "3s 4s 5s 6s 7s 9s", "Ah Ad"]
    engine = Engine(rules)
    state = engine.init_from_hands(hands)
    engine.step_inplace(state, [engine.layout.run_action(CLUBS, 1, 5)])
    assert not state.revolution[0] and state.pending[0]


@pytest.mark.parametrize(("lead", "seat"), [("three_of_diamonds", 2), ("three_of_clubs", 1),
                                            ("seat0", 0)])
def test_the_holder_of_the_three_of_diamonds_leads(lead: str, seat: int) -> None:
    rules = Rules(num_players=4, first_lead=lead)  # type: ignore[arg-type]
    hands = ["5c 9h", "3c 4c", "3d 8s", "Kd Ks"]
    state = Engine(rules).init_from_hands(hands)
    ref = ReferenceGame(rules, hands=np.stack([parse_hand(h) for h in hands]))
    assert int(state.current[0]) == ref.current == seat
    nobody = ["5c 9h", "3c 4c", "6d 8s", "Kd Ks"]  # no 3 of diamonds: seat 0
    if lead == "three_of_diamonds":
        assert int(Engine(rules).init_from_hands(nobody).current[0]) == 0


def test_the_last_player_may_play_on_his_own_play(new_game: NewGame) -> None:
    """Seats 1 and 2 pass on seat 0's king: seat 0 is asked again, may beat its own king,
    and the trick ends only when seat 0 passes too (the others stay passed: pass_is_final)."""
    rules = Rules(num_players=3, pass_is_final=True, play_on_own=True)
    g = new_game(rules, ["5c Kd Ad 2d", "4c 6h", "7s 8s"])
    play(g, [
        ("single K", {"current": 1}),
        ("pass", {"current": 2}),
        ("pass", {"current": 0, "pile": "single K", "passed": [1, 2],
                  "legal": {"pass", "single A", "single 2"}}),
        ("single A", {"current": 0, "pile": "single A", "last_player": 0, "passed": [1, 2]}),
        ("pass", {"current": 0, "pile": "empty", "passed": [],
                  "legal": {"single 5", "single 2"}}),
    ])


def test_without_play_on_own_the_trick_ends_when_the_others_have_passed(
        new_game: NewGame) -> None:
    rules = Rules(num_players=3, pass_is_final=True)
    g = new_game(rules, ["5c Kd Ad 2d", "4c 6h", "7s 8s"])
    play(g, [("single K", {}), ("pass", {}),
             ("pass", {"current": 0, "pile": "empty", "passed": []})])


def test_a_trick_won_by_a_player_gone_out_goes_to_the_next_seat_holding_cards(
        new_game: NewGame) -> None:
    rules = Rules(num_players=4, pass_is_final=True, play_on_own=True)
    g = new_game(rules, ["Kd", "4c 6h", "7s 8s", "5h 9h"])
    play(g, [
        ("single K", {"current": 1, "place": [0, -1, -1, -1]}),
        ("pass", {"current": 2}),
        ("pass", {"current": 3}),
        ("pass", {"current": 1, "pile": "empty", "passed": []}),
    ])


@pytest.mark.parametrize(("mine", "choice"), [
    ("3c 3d 3h Qc Qd Qh Qs 5h 7d 9s Kc", "pass"),  # it keeps its four queens whole
    ("3c 3d 3h 9s 9h 9c 2c 2d", "three 9s"),  # then the 2s hold, and it goes out
])
def test_hard_plays_on_its_own_play_only_for_the_hand_left(mine: str, choice: str) -> None:
    """On its own three 3s, the others passed for good, Hard weighs only the hand left: a play
    there takes no lead from anyone (no bonus for it), so it does not break four queens."""
    rules = Rules(num_players=3, pass_is_final=True, play_on_own=True)
    engine = Engine(rules)
    state = engine.init_from_hands([mine, "4c 6h 7c 8d 10c Jd Ks", "7s 8s 10h Jh 5s Ah"])
    names = engine.layout.names()
    for move in ("three 3s", "pass", "pass"):
        engine.step_inplace(state, [names.index(move)])
    assert int(state.current[0]) == 0 and int(state.last_player[0]) == 0
    act = HardAgent(rules).act(engine.observe(state)[0], engine.legal_action_mask(state)[0])
    assert names[act] == choice


def _jack_back(g: object) -> bool:
    """The engine's or the reference's 11-back flag."""
    return bool(g.state.jack_back[0]) if isinstance(g, EngineGame) else g.ref.jack_back  # type: ignore[attr-defined]


def test_a_jack_reverses_the_order_until_the_trick_ends(new_game: NewGame) -> None:
    rules = Rules(num_players=3, jack_back=True)
    g = new_game(rules, ["5c 6c 10c", "Jd 3d Kd", "4h 9h Qh 2h"])
    play(g, [
        ("single 5", {"current": 1, "legal": {"pass", "single J", "single K"}}),
        ("single J", {"current": 2, "revolution": False,
                      "legal": {"pass", "single 4", "single 9"}}),  # below the J now
        ("single 9", {"current": 0, "legal": {"pass", "single 6"}}),
        ("pass", {"current": 1, "legal": {"pass", "single 3"}}),
        ("pass", {"current": 2, "pile": "empty", "legal": {"single 4", "single Q", "single 2"}}),
    ])
    assert not _jack_back(g)
    play(g, [("single 4", {"legal": {"pass", "single 6", "single 10"}})])  # the usual order


@pytest.mark.parametrize("on", [True, False])
def test_a_joker_standing_for_a_jack_reverses_too(new_game: NewGame, on: bool) -> None:
    rules = Rules(num_players=3, jokers=1, jack_back=on)
    g = new_game(rules, ["5c 5d 10c", "Jd JK Kd", "4h 4s Qh Qs"])
    play(g, [("pair of 5", {}), ("pair of J", {})])
    assert _jack_back(g) == on
    assert g.legal() == ({"pass", "pair of 4"} if on else {"pass", "pair of Q"})


def test_a_run_through_the_jack_reverses_and_a_second_jack_turns_back(new_game: NewGame) -> None:
    rules = Rules(num_players=3, runs=True, jack_back=True)
    g = new_game(rules, ["7c 8c 9c 4c", "9d 10d Jd 3d", "4h 5h 6h 10h Jh Qh"])
    play(g, [("run 7-8-9 of clubs", {"current": 1})])  # no J: the usual order
    assert not _jack_back(g)
    play(g, [("run 9-10-J of diamonds", {"current": 2,
                                         "legal": {"pass", "run 4-5-6 of hearts"}})])
    assert _jack_back(g)
    play(g, [("pass", {"current": 0}), ("pass", {"current": 1, "pile": "empty"})])
    assert not _jack_back(g)


def test_four_jacks_end_a_revolution_but_not_the_reversed_order_of_the_trick(
        new_game: NewGame) -> None:
    """Four Js both end the revolution and start an 11-back: the trick keeps the reversed
    order, the next one has the usual order."""
    rules = Rules(num_players=3, revolution=True, jack_back=True)
    g = new_game(rules, ["Kc Kd Kh Ks 6c", "Jc Jd Jh Js 7c", "4c 4d 4h 4s 9h Qh"])
    play(g, [("four Ks", {"revolution": True}),
             ("four Js", {"revolution": False, "legal": {"pass", "four 4s"}})])
    assert _jack_back(g)
    play(g, [("pass", {}), ("pass", {"pile": "empty", "current": 1})])
    assert not _jack_back(g)
    play(g, [("single 7", {"legal": {"pass", "single 9", "single Q"}})])


def test_jokers_alone_never_reverse_the_order() -> None:
    rules = Rules(num_players=3, jokers=1, jack_back=True)
    engine = Engine(rules)
    state = engine.init_from_hands(["5c 6c", "JK 3d", "4h 9h"])
    names = engine.layout.names()
    engine.step_inplace(state, [names.index("single 5")])
    engine.step_inplace(state, [names.index("single joker")])
    assert not state.jack_back[0]


def test_the_order_in_force_is_observed() -> None:
    rules = Rules(num_players=3, jack_back=True)
    engine = Engine(rules)
    state = engine.init_from_hands(["5c 6c", "Jd 3d", "4h 9h"])
    names = engine.layout.names()
    block = engine.obs_layout.slices["jack_back"]
    assert engine.observe(state)[0, block].tolist() == [0.0]
    for move in ("single 5", "single J"):
        engine.step_inplace(state, [names.index(move)])
    assert engine.observe(state)[0, block].tolist() == [1.0]
    off = Engine(Rules(num_players=3)).obs_layout  # size 0 without the option
    assert off.slices["jack_back"] == slice(block.start, block.start)
    assert off.size == engine.obs_layout.size - 1


def test_hard_takes_the_trick_with_a_three_when_a_jack_has_made_it_the_top_card() -> None:
    """After a J and a 4 (11-back), the 3 is the highest card of the trick: it holds for sure,
    which Hard sees only through the jack_back block of its observation."""
    rules = Rules(num_players=3, jack_back=True, first_lead="seat0")
    engine = Engine(rules)
    state = engine.init_from_hands(["Jd 5c 6c 7c Kd", "4d 9d 10c Qd Ks", "3c 3h 3s 8s 2d"])
    names = engine.layout.names()
    for move in ("single J", "single 4"):
        engine.step_inplace(state, [names.index(move)])
    act = HardAgent(rules).act(engine.observe(state)[0], engine.legal_action_mask(state)[0])
    assert names[act] == "single 3"


def test_after_a_jack_easy_plays_the_lowest_card_in_the_order_in_force_normal_its_lowest() -> None:
    """After a J (11-back) only cards below the J follow, and the weakest of them in the order
    in force is the 10: Easy plays it. Normal keeps to the order after the trick and sheds its
    4 (in this trick the strongest card but one that it holds); without the option both
    would have to beat the J from above."""
    rules = Rules(num_players=3, jack_back=True, first_lead="seat0")
    engine = Engine(rules)
    state = engine.init_from_hands(["Jd 5c 6c 7c Kd", "4d 9d 10c Qd Ks", "3c 3h 3s 8s 2d"])
    names = engine.layout.names()
    engine.step_inplace(state, [names.index("single J")])
    obs, mask = engine.observe(state)[0], engine.legal_action_mask(state)[0]
    assert {names[a] for a in np.flatnonzero(mask)} == {"pass", "single 4", "single 9",
                                                        "single 10"}
    assert names[EasyAgent(rules).act(obs, mask)] == "single 10"
    assert names[NormalAgent(rules).act(obs, mask)] == "single 4"


def test_a_six_reverses_the_direction_of_play_for_the_rest_of_the_deal(
        new_game: NewGame) -> None:
    rules = Rules(num_players=4, six_reverses=True)
    g = new_game(rules, ["6c 4c 10c", "5d 7d Jd", "5h 8h Qh", "4s 9s Ks"])
    play(g, [
        ("single 6", {"current": 3}),  # now to the right
        ("single 9", {"current": 2}),
        ("single Q", {"current": 1}),
        ("pass", {"current": 0}),
        ("pass", {"current": 3}),
        ("single K", {"current": 2}),
        ("pass", {"current": 1}),
        ("pass", {"current": 0}),
        ("pass", {"current": 3, "pile": "empty"}),  # seat 3 leads; play still goes right
        ("single 4", {"current": 2}),
    ])


def test_a_second_six_turns_the_direction_back_and_a_run_through_six_counts(
        new_game: NewGame) -> None:
    rules = Rules(num_players=4, runs=True, six_reverses=True)
    g = new_game(rules, ["4c 5c 6c Ac", "5d 6d 7d 2d", "8h 9h 10h 3h", "9s 10s Js 4s"])
    play(g, [
        ("run 4-5-6 of clubs", {"current": 3}),  # a run through the 6: to the right
        ("run 9-10-J of spades", {"current": 2}),
        ("pass", {"current": 1}),
        ("pass", {"current": 0}),
        ("pass", {"current": 3, "pile": "empty"}),
        ("single 4", {"current": 2}),
        ("pass", {"current": 1}),
        ("single 6", {"current": 2}),  # turned back: to the left again
    ])


def test_the_direction_is_observed_with_six_reverses() -> None:
    rules = Rules(num_players=4, six_reverses=True)
    engine = Engine(rules)
    state = engine.init_from_hands(["6c 4c 10c", "5d 7d Jd", "5h 8h Qh", "4s 9s Ks"])
    block = engine.obs_layout.slices["direction"]
    names = engine.layout.names()
    assert engine.observe(state)[0, block].tolist() == [0.0]
    engine.step_inplace(state, [names.index("single 6")])
    assert engine.observe(state)[0, block].tolist() == [1.0] and state.six_reversed[0]


def _places(order: list[int], finished: dict[int, int]) -> list[int]:
    """Places when the seats not in ``finished`` (seat: place) take the places left in
    ``order``."""
    place = [finished.get(q, -1) for q in range(len(order))]
    for q in order:
        if place[q] < 0:
            place[q] = len(finished)
            finished = {**finished, q: len(finished)}
    return place


def test_passes_in_a_row_end_the_deal_with_the_places_left_drawn_from_the_seed(
        new_game: NewGame) -> None:
    """Seat 0 goes out; the three others pass in a row: the deal ends, seat 0 first, the
    others in the order drawn from the game's seed (not the same for every seed)."""
    rules = Rules(num_players=4, stalemate_passes=3)
    orders = set()
    for seed in range(6):
        g = new_game(rules, ["Kd", "5c 9d", "4h 8h", "6s 7s"], seed)
        order = stalemate_seats(seed, 0, 4)
        orders.add(tuple(order))
        play(g, [
            ("single K", {"place": [0, -1, -1, -1], "current": 1}),
            ("pass", {}),
            ("pass", {}),
            ("pass", {"phase": "done", "place": _places(order, {0: 0}), "deal_over": True}),
        ])
    assert len(orders) > 1


def test_a_play_starts_the_count_of_passes_again(new_game: NewGame) -> None:
    rules = Rules(num_players=3, stalemate_passes=3, play_on_own=True)
    g = new_game(rules, ["5c 9c Kd", "6d 10d", "7h Jh"], 7)
    play(g, [("single 5", {}), ("pass", {})])
    assert g.view()["pass_run"] == 1
    play(g, [("single 7", {"current": 0})])
    assert g.view()["pass_run"] == 0
    play(g, [("pass", {}), ("pass", {"current": 2, "phase": "play"}),
             ("pass", {"phase": "done", "place": _places(stalemate_seats(7, 0, 3), {})})])


@pytest.mark.parametrize(("mine", "stale", "choice"), [
    ("7h 4h 4d 8s 9h 10s Js Qs", 2, "pass"),  # behind: a random place is better
    ("7h 4h 4d 8s 9h 10s Js Qs", None, "single 7"),  # (without the rule it plays on)
    ("Ah Ac Kh", 2, "single K"),  # ahead: it keeps the deal going
])
def test_hard_stalls_the_deal_only_when_it_is_behind(mine: str, stale: int | None,
                                                     choice: str) -> None:
    """Seat 1 passed on seat 0's 5: Hard's pass would be the second in a row, which ends the
    deal with the places drawn at random."""
    rules = Rules(num_players=3, stalemate_passes=stale)
    engine = Engine(rules)
    state = engine.init_from_hands(["5c 9c Kd Ad 3d", "6d 10d Qd 4s", mine])
    names = engine.layout.names()
    for move in ("single 5", "pass"):
        engine.step_inplace(state, [names.index(move)])
    act = HardAgent(rules).act(engine.observe(state)[0], engine.legal_action_mask(state)[0])
    assert names[act] == choice


def test_the_leader_may_pass_and_leads_again_when_all_have_passed(new_game: NewGame) -> None:
    rules = Rules(num_players=3, stalemate_passes=20, lead_may_pass=True)
    g = new_game(rules, ["5c 9c", "6d 10d", "7h Jh"])
    play(g, [
        ("pass", {"current": 1, "pile": "empty", "passed": [0],
                  "legal": {"pass", "single 6", "single 10"}}),
        ("pass", {"current": 2, "passed": [0, 1]}),
        ("pass", {"current": 0, "pile": "empty", "passed": [], "legal": {"pass", "single 5",
                                                                        "single 9"}}),
    ])
    assert g.view()["pass_run"] == 3


@pytest.mark.parametrize("final", [True, False])
def test_a_leader_who_passed_is_out_of_the_trick_when_passes_are_final(
        new_game: NewGame, final: bool) -> None:
    rules = Rules(num_players=3, stalemate_passes=20, lead_may_pass=True, pass_is_final=final)
    g = new_game(rules, ["5c 9c", "6d 10d", "7h Jh"])
    play(g, [("pass", {}), ("single 6", {"current": 2}), ("pass", {})])
    if final:  # seat 0 and seat 2 have passed: seat 1 wins the trick and leads
        expect_view = {"current": 1, "pile": "empty"}
    else:  # the 6 brought seat 0 back
        expect_view = {"current": 0, "pile": "single 6", "legal": {"pass", "single 9"}}
    expect(g, expect_view)


def test_passes_of_leaders_stall_the_deal(new_game: NewGame) -> None:
    rules = Rules(num_players=3, stalemate_passes=3, lead_may_pass=True)
    g = new_game(rules, ["5c 9c", "6d 10d", "7h Jh"], 5)
    play(g, [("pass", {}), ("pass", {}),
             ("pass", {"phase": "done", "place": _places(stalemate_seats(5, 0, 3), {})})])


def test_lead_may_pass_needs_stalemate_passes() -> None:
    with pytest.raises(ValueError, match="lead_may_pass.*stalemate_passes"):
        Rules(lead_may_pass=True)
    assert Rules(lead_may_pass=True, stalemate_passes=20).record_length == 52 * 21 + 21


def _to_second_deal(g: object) -> dict[str, Any]:
    """Play the lowest legal action (by name) until the second deal's play starts; its view."""
    while True:
        v = g.view()  # type: ignore[attr-defined]
        if v["deal"] == 1 and v["phase"] == "play":
            return v
        g.step(sorted(g.legal())[0])  # type: ignore[attr-defined]


@pytest.mark.parametrize("exchange", [True, False])
@pytest.mark.parametrize("every", [True, False])
def test_the_three_of_diamonds_leads_every_deal_after_the_exchange(
        new_game: NewGame, exchange: bool, every: bool) -> None:
    rules = Rules(num_players=4, deals=2, exchange=exchange, first_lead="three_of_diamonds",
                  first_lead_every_deal=every)
    g = new_game(rules, ["3d 5c 9c", "3c 6d 10d", "7h Jh Kh", "4s 8s Qs"], 11)
    v = _to_second_deal(g)
    holder = next(q for q in range(4) if v["hands"][q][1] > 0)  # (card 1: the 3 of diamonds)
    assert v["current"] == (holder if every else v["title"].index(3))  # (else the Bum)
    if exchange:  # the exchange happened, and the leader is found in the hands after it
        assert sum(map(sum, v["received"])) == 6


def test_the_options_need_runs_and_revolution() -> None:
    with pytest.raises(ValueError, match="runs_disjoint"):
        Rules(runs_disjoint=True)
    with pytest.raises(ValueError, match="run_revolution"):
        Rules(runs=True, run_revolution=5)
