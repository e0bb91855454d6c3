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

The later ones are tables of steps on both implementations (``tests/test_variants.py``'s
``play``: an action by name, then the fields expected after it).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_variants import EngineGame, NewGame, RefGame, play

from agents import HardAgent
from president_env.core.cards import parse_hand
from president_env.core.engine import Engine
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


def test_the_options_need_runs_and_revolution() -> None:
    with pytest.raises(ValueError, match="runs_disjoint"):
        Rules(runs_disjoint=True)
    with pytest.raises(ValueError, match="run_revolution"):
        Rules(runs=True, run_revolution=5)
