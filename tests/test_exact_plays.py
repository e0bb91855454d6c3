"""``exact_plays``: each play names its exact cards, as on the UECda standard server
(``docs/experiments/2026-12-04-uecda-server-rules.md`` section 2), built by hand from the rule
text on the engine and on the plain reference alike.

* A set is any non-empty choice of the suits held of one rank, alone or with the joker in the
  row of a suit the set lacks (the joker may stand in for a card held, which stays in hand);
  with all four suits, the joker stands in the fifth row.
* A run names its suit, its places and the joker's place (again it may stand in for a card
  held).
* Following compares as before (size, rank, kind): the suits only matter with ``lock``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents import HardAgent, make_agent
from president_env.core import take_cards
from president_env.core.actions import ActionLayout
from president_env.core.cards import format_hand, parse_hand
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine
from president_env.core.rules import PRESETS, Rules
from president_env.render.words import describe_pile
from president_env.testing.reference import ReferenceGame

UECDA: dict[str, Any] = dict(num_players=5, jokers=1, runs=True, exact_plays=True)


class Both:
    """One game on the engine and on the reference, stepped together by action name."""

    def __init__(self, rules: Rules, hands: list[str]) -> None:
        self.engine = Engine(rules)
        self.state = self.engine.init_from_hands(hands)
        self.ref = ReferenceGame(rules, hands=np.stack([parse_hand(h) for h in hands]))
        self.layout = self.engine.layout

    def legal(self) -> set[str]:
        """Names of the legal actions; the engine's and the reference's are the same."""
        mask = self.engine.legal_action_mask(self.state)[0]
        assert np.flatnonzero(mask).tolist() == self.ref.legal_actions()
        return {self.layout.name(int(a)) for a in np.flatnonzero(mask)}

    def play(self, name: str) -> None:
        action = self.layout.names().index(name)
        self.engine.step_inplace(self.state, [action])
        self.ref.step(action)
        assert self.state.hands[0].tolist() == self.ref.hands.tolist()

    def hand(self, seat: int) -> str:
        return format_hand(self.state.hands[0, seat])


def test_the_layout_names_each_set_by_its_suits_and_the_jokers_row() -> None:
    lay = ActionLayout(Rules(**UECDA))
    assert lay.set_stride == 44  # 15 choices of suits, 28 with the joker in a row, 1 of five
    assert lay.num_actions == 1 + 13 * 44 + 1 + 4 * 484  # pass, sets, joker, runs
    names = lay.names()
    assert len(set(names)) == len(names)
    assert lay.name(lay.exact_set_action(6, 0b0101)) == "pair of 9 (9c 9h)"
    assert lay.name(lay.exact_set_action(6, 0b0001, 3)) == "pair of 9 (9c JKs)"
    assert lay.name(lay.exact_set_action(6, 0b1111, 4)) == "5 x 9 (9c 9d 9h 9s JK)"
    assert lay.name(lay.run_action(2, 2, 3, 1)) == "run 5-JK-7 of hearts"
    assert lay.name(lay.set_action(6, 2)) == "pair of 9 (9c 9d)"  # the lowest suits
    plain = ActionLayout(Rules(num_players=5, runs=True, exact_plays=True))  # no joker
    assert plain.set_stride == 15 and len(plain.runs) == 4 * 66


@pytest.mark.parametrize("name", sorted(set(PRESETS) - {"uecda"}))
def test_every_preset_keeps_its_layout(name: str) -> None:
    """exact_plays is off in every preset but ``uecda``: the sets stay one action per rank and
    size."""
    lay = ActionLayout(Rules.preset(name))
    assert lay.set_stride == lay.max_set and set(lay.run_jokers) <= {-1}
    assert (lay.suit[lay.kind == 1] == -1).all() and (lay.card[lay.kind == 1] == -1).all()


def test_a_set_takes_the_suits_it_names() -> None:
    game = Both(Rules(**UECDA), ["9c 9d 9h Ks", "5c", "5d", "5h", "5s"])
    sets = {n for n in game.legal() if "9" in n}
    # 7 choices of suits; the joker is not held: none with it
    assert sets == {"single 9 (9c)", "single 9 (9d)", "single 9 (9h)", "pair of 9 (9c 9d)",
                    "pair of 9 (9c 9h)", "pair of 9 (9d 9h)", "three 9s (9c 9d 9h)"}
    game.play("pair of 9 (9d 9h)")
    assert game.hand(0) == "9c Ks"  # not the lowest suits: the ones named


def test_the_joker_stands_in_a_row_the_set_lacks_even_for_a_card_held() -> None:
    game = Both(Rules(**UECDA), ["9c 9d JK Ks", "5c", "5d", "5h", "5s"])
    pairs = {n for n in game.legal() if n.startswith("pair of 9")}
    assert pairs == {"pair of 9 (9c 9d)", "pair of 9 (9c JKd)", "pair of 9 (9c JKh)",
                     "pair of 9 (9c JKs)", "pair of 9 (9d JKc)", "pair of 9 (9d JKh)",
                     "pair of 9 (9d JKs)"}
    game.play("pair of 9 (9c JKd)")  # the joker in the diamonds' row; the 9d stays
    assert game.hand(0) == "9d Ks"
    assert int(game.state.pile_size[0]) == game.ref.pile_size == 2


def test_the_joker_beside_four_suits_stands_in_the_fifth_row() -> None:
    game = Both(Rules(**UECDA), ["9c 9d 9h 9s JK", "5c", "5d", "5h", "5s"])
    names = game.legal()
    assert "5 x 9 (9c 9d 9h 9s JK)" in names
    assert sum(n.startswith("four 9s") for n in names) == 1 + 4  # 4 naturals, or 3 + the joker
    game.play("5 x 9 (9c 9d 9h 9s JK)")
    assert int(game.state.hands[0, 0].sum()) == 0


def test_a_run_names_the_jokers_place_and_keeps_the_card_it_stands_in_for() -> None:
    game = Both(Rules(**UECDA), ["4h 5h 6h JK Kc", "3d", "3h", "3s", "4s"])
    runs = {n for n in game.legal() if n.startswith("run")}
    assert runs == {"run 4-5-6 of hearts", "run JK-5-6 of hearts", "run 4-JK-6 of hearts",
                    "run 4-5-JK of hearts", "run JK-4-5 of hearts", "run 5-6-JK of hearts",
                    "run JK-4-5-6 of hearts", "run 4-5-6-JK of hearts"}
    game.play("run 4-JK-6 of hearts")
    assert game.hand(0) == "5h Kc"


def test_following_a_set_any_suits_of_its_size_and_a_higher_rank() -> None:
    game = Both(Rules(**UECDA), ["9c 9d Ks", "10c 10h 10s 8d 8s", "5d", "5h", "5s"])
    game.play("pair of 9 (9c 9d)")
    follow = game.legal() - {"pass"}
    assert follow == {"pair of 10 (10c 10h)", "pair of 10 (10c 10s)", "pair of 10 (10h 10s)"}


def test_exact_plays_needs_one_deck_one_joker_and_runs_of_one_suit() -> None:
    for bad in (dict(decks=2), dict(jokers=2), dict(runs=True, runs_mixed_suits=True),
                dict(num_players=8)):
        with pytest.raises(ValueError, match="exact_plays"):
            Rules(**{**UECDA, "runs": False, **bad})
    with pytest.raises(ValueError, match="exact sets need exact_plays"):
        ActionLayout(Rules()).exact_set_action(0, 1)


def test_the_engine_takes_the_cards_the_layout_names() -> None:
    """take_cards (compiled) and cards_for agree on every exact play of random hands."""
    lay = ActionLayout(Rules(**UECDA, run_joker_ends=True))
    rng = np.random.default_rng(5)
    out = np.zeros(53, np.int8)
    for _ in range(20):
        hand = np.zeros(53, np.int8)
        hand[rng.choice(53, 20, replace=False)] = 1
        for a in range(1, lay.give_base):
            try:
                want = lay.cards_for(a, hand)
            except ValueError:
                continue
            take_cards(hand, lay.kind[a], lay.rank[a], lay.size[a], lay.suit[a], lay.card[a], out)
            assert out.tolist() == want.tolist(), lay.name(a)


@pytest.mark.parametrize("agent", ["easy", "normal", "hard"])
def test_the_agents_play_the_same_cards_as_without_exact_plays(agent: str) -> None:
    """Without jokers and runs an agent's choices depend on ranks and sizes alone; among the
    exact sets of one rank and size it takes the lowest suits, as the engine's plain layout
    does: every game goes card for card the same."""
    plain = Rules(num_players=5, deals=2, revolution=True)
    exact = plain.replace(exact_plays=True)
    ends = []
    for rules in (plain, exact):
        engine = Engine(rules)
        state = engine.init(np.arange(8))
        seats = [make_agent(agent, rules, seed=s) for s in range(5)]
        trace = []
        while not (state.phase == PHASE_DONE).all():
            obs, mask = engine.observe(state), engine.legal_action_mask(state)
            actions = np.full(8, -1, np.int64)
            for b in np.flatnonzero(state.phase != PHASE_DONE):
                seat = int(state.current[b])
                actions[b] = seats[seat].act_batch(obs[b:b + 1], mask[b:b + 1])[0]
            trace.append(state.hands.copy())
            engine.step_inplace(state, actions)
        ends.append((trace, state.scores.copy()))
    assert len(ends[0][0]) == len(ends[1][0])
    assert all((a == b).all() for a, b in zip(ends[0][0], ends[1][0]))
    assert (ends[0][1] == ends[1][1]).all()


# ---------------------------------------------------------------------------- lock (section 6)
LOCK = dict(UECDA, lock=True)


def _lock_state(game: Both) -> tuple[int, bool]:
    """(pile_suits, locked) of the engine, checked equal to the reference's."""
    got = int(game.state.pile_suits[0]), bool(game.state.locked[0])
    assert got == (game.ref.pile_suits, game.ref.locked)
    return got


@pytest.mark.parametrize(("row", "locks"), [("JKh", True), ("JKd", False)])
def test_the_jokers_row_decides_whether_a_set_locks(row: str, locks: bool) -> None:
    """The rule text's example: H7+S7 on the field, then S9 + joker in row H locks; S9 +
    joker in row D doesn't. Then only pairs of hearts and spades may follow, if locked."""
    game = Both(Rules(**LOCK), ["7h 7s Kc", "9s JK 4c", "10d 10h 10s 4d", "5d", "5h"])
    game.play("pair of 7 (7h 7s)")
    assert _lock_state(game) == (0b1100, False)  # a lead does not lock
    game.play(f"pair of 9 (9s {row})")
    assert _lock_state(game) == ((0b1100, True) if locks else (0b1010, False))
    pairs = {n for n in game.legal() if n.startswith("pair")}
    assert pairs == ({"pair of 10 (10h 10s)"} if locks else
                     {"pair of 10 (10d 10h)", "pair of 10 (10d 10s)", "pair of 10 (10h 10s)"})
    obs = game.engine.observe(game.state)[0]
    block = obs[game.engine.obs_layout.slices["lock"]]
    assert block.tolist() == ([0, 0, 1, 1, 0, 1] if locks else [0, 1, 0, 1, 0, 0])


def test_the_lock_holds_until_the_trick_ends() -> None:
    game = Both(Rules(**LOCK), ["5h Kc Ac", "6h 4c", "7h 8h 7s", "3d", "3s"])
    game.play("single 5 (5h)")
    game.play("single 6 (6h)")
    assert _lock_state(game) == (0b0100, True)
    assert {n for n in game.legal() if n != "pass"} == {"single 7 (7h)", "single 8 (8h)"}
    game.play("single 8 (8h)")
    for _ in range(4):  # the other four pass: seat 2 leads a new trick, unlocked
        game.play("pass")
    assert int(game.state.current[0]) == game.ref.current == 2
    assert _lock_state(game) == (0, False)
    assert "single 7 (7s)" in game.legal()


def test_a_lone_joker_ignores_the_lock_and_clears_it() -> None:
    game = Both(Rules(**LOCK), ["5h Kc", "6h 4c", "JK 9s 9d", "3d", "3s"])
    game.play("single 5 (5h)")
    game.play("single 6 (6h)")
    assert _lock_state(game) == (0b0100, True)
    assert {n for n in game.legal() if n != "pass"} == {"single joker"}  # no heart held
    game.play("single joker")
    assert _lock_state(game) == (0, False)


def test_runs_lock_by_their_suit() -> None:
    game = Both(Rules(**LOCK), ["3h 4h 5h Kc", "6h 7h 8h 6s 7s 8s", "9h 10h Jh 9s 10s Js",
                                "3d", "3s"])
    game.play("run 3-4-5 of hearts")
    game.play("run 6-7-8 of hearts")
    assert _lock_state(game) == (0b0100, True)
    assert {n for n in game.legal() if n.startswith("run")} == {"run 9-10-J of hearts"}


def test_without_lock_the_same_plays_do_not_lock_and_lock_needs_exact_plays() -> None:
    game = Both(Rules(**UECDA), ["5h Kc Ac", "6h 4c", "7h 8h 7s", "3d", "3s"])
    game.play("single 5 (5h)")
    game.play("single 6 (6h)")
    assert _lock_state(game) == (0, False)
    assert "single 7 (7s)" in game.legal()
    with pytest.raises(ValueError, match="lock=True refines exact_plays"):
        Rules(lock=True)


@pytest.mark.parametrize(("moves", "sure"), [
    (("single 5 (5h)", "single 9 (9h)"), True),  # locked to hearts already
    (("single 5 (5c)", "single 9 (9h)"), True),  # the ace of hearts locks it
    (("single 5 (5c)", "single 9 (9d)"), False),  # no lock: the 2s out beat the ace
])
def test_hard_knows_that_only_the_locked_suit_beats_its_play(moves: tuple[str, ...],
                                                               sure: bool) -> None:
    """Hard holds the ace and 2 of hearts and the 4 of clubs; the opponents hold the 2s of
    spades and clubs. In a trick locked to hearts only the 2 of hearts, its own, could beat
    the ace: the ace holds for sure, after which the 2 holds and only the 4 is left to lose
    (the chain bonus). Hard sees the lock only through its observation's lock block: with the
    block blanked it scores the ace as it does where nothing locks."""
    rules = Rules(num_players=3, exact_plays=True, lock=True, first_lead="seat0")
    engine = Engine(rules)
    state = engine.init_from_hands(["5h 5c As 2s 6c", "9h 9d Ad 2c 8c", "Ah 2h 4c"])
    names = engine.layout.names()
    for move in moves:
        engine.step_inplace(state, [names.index(move)])
    obs, mask = engine.observe(state)[0], engine.legal_action_mask(state)[0]
    hard = HardAgent(rules)
    scores = hard.action_scores(obs, mask)
    ace, two = names.index("single A (Ah)"), names.index("single 2 (2h)")
    bonus = hard.weights["chain"] / 2
    assert (scores[ace] > max(scores[two], scores[0]) + bonus) == sure
    blind = obs.copy()
    blind[engine.obs_layout.slices["lock"]] = 0.0
    unseen = hard.action_scores(blind, mask)[ace]
    assert unseen < scores[ace] - bonus if sure else unseen == scores[ace]


# ------------------------------------------------------------- the 3 of spades (section 5)
@pytest.mark.parametrize("option", [True, False])
def test_the_three_of_spades_alone_beats_a_lone_joker_and_clears(option: bool) -> None:
    rules = Rules(**LOCK, spade_three_beats_joker=option)
    game = Both(rules, ["5h Kc", "6h 4c", "JK 9d", "3s 3h 10c", "4s"])
    game.play("single 5 (5h)")
    game.play("single 6 (6h)")  # locked to hearts
    game.play("single joker")  # ignores and clears the lock
    legal = game.legal()
    assert legal == ({"pass", "single 3 (3s)"} if option else {"pass"})
    if option:
        game.play("single 3 (3s)")
        assert int(game.state.pile_kind[0]) == game.ref.pile_kind == 0  # cleared
        assert int(game.state.current[0]) == game.ref.current == 3  # the 3s' player leads


@pytest.mark.parametrize(("mine", "option", "sure"), [
    ("JK 3s", True, True),  # it holds the 3 of spades itself
    ("JK 4c", True, False),  # the 3 of spades is out: it may answer the joker
    ("JK 4c", False, True),  # nothing beats a lone joker
])
def test_hard_knows_that_the_three_of_spades_may_beat_its_joker(mine: str, option: bool,
                                                                 sure: bool) -> None:
    """On a king, Hard's lone joker takes the trick; it holds for sure (and the last card then
    goes out: the chain bonus) unless an opponent may answer it with the 3 of spades."""
    rules = Rules(num_players=3, jokers=1, exact_plays=True, first_lead="seat0",
                  spade_three_beats_joker=option)
    engine = Engine(rules)
    others = "3c 3d 3h 5c 6c" if "3s" in mine else "3c 3d 3s 5c 6c"
    state = engine.init_from_hands(["Kc 7d 8d", others, mine])
    names = engine.layout.names()
    for move in ("single K (Kc)", "pass"):
        engine.step_inplace(state, [names.index(move)])
    hard = HardAgent(rules)
    scores = hard.action_scores(engine.observe(state)[0], engine.legal_action_mask(state)[0])
    joker = names.index("single joker")
    assert (scores[joker] > scores[0] + hard.weights["chain"] / 2) == sure


def test_the_three_of_spades_beats_a_lone_joker_lead_not_a_single() -> None:
    game = Both(Rules(**UECDA, spade_three_beats_joker=True), ["JK 9d", "3s 3h", "4s", "4d",
                                                                "4h"])
    game.play("single joker")
    assert game.legal() == {"pass", "single 3 (3s)"}
    game.play("single 3 (3s)")
    assert game.hand(1) == "3h"
    game2 = Both(Rules(**UECDA, spade_three_beats_joker=True), ["9d Kc", "3s 3h", "4s", "4d",
                                                                 "4h"])
    game2.play("single 9 (9d)")
    assert "single 3 (3s)" not in game2.legal()
    with pytest.raises(ValueError, match="refines exact_plays"):
        Rules(jokers=1, spade_three_beats_joker=True)


# ------------------------------------------------------------- the joker beyond a run's end
ENDS = dict(UECDA, run_joker_ends=True)


def test_the_joker_extends_a_run_below_the_three_or_above_the_two() -> None:
    lay = ActionLayout(Rules(**ENDS))
    assert len(lay.runs) == 4 * (484 + 24)  # 12 lengths from below the 3, 12 beyond the 2
    assert lay.name(lay.run_action(0, -1, 3, 0)) == "run JK-3-4 of clubs"
    assert lay.name(lay.run_action(0, 9, 5, 4)) == "run Q-K-A-2-JK of clubs"
    assert lay.name(lay.run_action(2, -1, 14, 0)) == "run JK-" + "-".join(
        ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]) + " of hearts"
    game = Both(Rules(**ENDS), ["3h 4h JK Kc", "Ah 2h 4c", "5s", "5d", "5c"])
    assert {n for n in game.legal() if n.startswith("run")} == {"run JK-3-4 of hearts",
                                                                 "run 3-4-JK of hearts"}
    off = Both(Rules(**UECDA), ["3h 4h JK Kc", "Ah 2h 4c", "5s", "5d", "5c"])
    assert {n for n in off.legal() if n.startswith("run")} == {"run 3-4-JK of hearts"}


@pytest.mark.parametrize("disjoint", [False, True])
def test_a_run_from_below_the_three_ranks_lowest(disjoint: bool) -> None:
    """JK-3-4 is the weakest 3-card run: 3-4-5 beats it (it shares ranks: not with
    ``runs_disjoint``), 5-6-7 beats it either way."""
    rules = Rules(**ENDS, runs_disjoint=disjoint)
    game = Both(rules, ["3h 4h JK Kc", "3s 4s 5s 6s 7s", "5d", "5c", "6d"])
    game.play("run JK-3-4 of hearts")
    assert game.hand(0) == "Kc"
    assert int(game.state.pile_rank[0]) == game.ref.pile_rank == -1
    follow = {n for n in game.legal() if n.startswith("run")}
    assert follow == ({"run 5-6-7 of spades"} if disjoint else
                      {"run 3-4-5 of spades", "run 4-5-6 of spades", "run 5-6-7 of spades"})
    obs = game.engine.observe(game.state)[0]
    split = game.engine.obs_layout.split(obs)
    assert split["pile_rank"].sum() == 0 and split["pile_size"][0] == 3
    assert describe_pile(rules, game.state).startswith("run JK-3-4, played by seat 0")


def test_nothing_follows_a_run_beyond_the_two_but_a_joker_eight_cuts() -> None:
    rules = Rules(**ENDS, eight_clears=True)
    game = Both(rules, ["Ah 2h JK 7c", "Qs Ks As 4c", "5d", "5c", "6d"])
    game.play("run A-2-JK of hearts")
    assert {n for n in game.legal() if n.startswith("run")} == set()
    cut = Both(rules, ["7h 9h JK Kc", "Qs Ks As 4c", "5d", "5c", "6d"])
    cut.play("run 7-JK-9 of hearts")  # the joker stands for the 8: the pile clears
    assert int(cut.state.pile_kind[0]) == cut.ref.pile_kind == 0
    assert int(cut.state.current[0]) == cut.ref.current == 0
