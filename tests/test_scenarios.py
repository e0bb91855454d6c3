"""Hand-built rule scenarios: one or more per rule of RULES.md sections 1-8 and 11.

Each scenario starts from given hands (``Engine.init_from_hands``) and is a table of steps:
``(action, expected)``, where ``action`` is an action name (``"pair of 9"``) or id and
``expected`` maps a field to its exact value *after* the action (see :data:`CHECKS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from president_env.core.actions import ActionLayout
from president_env.core.cards import (
    JOKER,
    NUM_CARDS,
    RANK_NAMES,
    Rank,
    Suit,
    format_hand,
    parse_card,
    parse_hand,
)
from president_env.core.engine import (
    PHASE_DONE,
    PHASE_EXCHANGE,
    PHASE_PLAY,
    Engine,
    State,
    deal_hands,
)
from president_env.core.rules import PRESETS, Rules, Scoring
from president_env.rewards import deal_rewards, reward_table

# ------------------------------------------------------------------------------ helpers


def start(r: Rules, hands: Sequence[str], seed: int = 0) -> tuple[Engine, State]:
    eng = Engine(r)
    return eng, eng.init_from_hands(list(hands), seed=seed)


def action_id(lay: ActionLayout, action: str | int) -> int:
    if isinstance(action, int):
        return action
    names = lay.names()
    if action not in names:
        raise KeyError(f"no action named {action!r}")
    return names.index(action)


def legal(eng: Engine, s: State) -> set[str]:
    return {eng.layout.name(int(a)) for a in np.flatnonzero(eng.legal_action_mask(s)[0])}


def pile(eng: Engine, s: State) -> str:
    """The top play in words: "empty", "pair of 9", "single joker", "run 5-6-7"."""
    kind, rank, size = int(s.pile_kind[0]), int(s.pile_rank[0]), int(s.pile_size[0])
    if kind == 0:
        return "empty"
    if kind == 1:
        return eng.layout.name(eng.layout.set_action(rank, size))
    if kind == 2:
        return eng.layout.name(eng.layout.jokers_action(size))
    return "run " + "-".join(RANK_NAMES[rank : rank + size])


def hands(s: State) -> list[str]:
    return [format_hand(h) for h in s.hands[0]]


def rewards(eng: Engine, s: State) -> list[float]:
    """The default (linear) rewards of the last step: non-zero on a step that ended a deal."""
    return deal_rewards(s, reward_table(eng.rules))[0].tolist()


CHECKS: dict[str, Callable[[Engine, State], Any]] = {
    "legal": legal,
    "pile": pile,
    "hands": lambda e, s: hands(s),
    "current": lambda e, s: int(s.current[0]),
    "passed": lambda e, s: [int(q) for q in np.flatnonzero(s.passed[0])],
    "revolution": lambda e, s: bool(s.revolution[0]),
    "place": lambda e, s: s.place[0].tolist(),
    "n_finished": lambda e, s: int(s.n_finished[0]),
    "last_player": lambda e, s: int(s.last_player[0]),
    "phase": lambda e, s: int(s.phase[0]),
    "title": lambda e, s: s.title[0].tolist(),
    "scores": lambda e, s: s.scores[0].tolist(),
    "deal": lambda e, s: int(s.deal[0]),
    "dealer": lambda e, s: int(s.dealer[0]),
    "deal_over": lambda e, s: bool(s.deal_over[0]),
    "rewards": lambda e, s: rewards(e, s),
    "to_return": lambda e, s: s.to_return[0].tolist(),
    "cards_left": lambda e, s: s.cards_left[0].tolist(),
    "played": lambda e, s: {
        (RANK_NAMES[r] if r < 13 else "JK"): int(n) for r, n in enumerate(s.played[0]) if n
    },
}

Step = tuple["str | int", dict[str, Any]]


def expect(eng: Engine, s: State, want: dict[str, Any], where: str = "") -> None:
    for key, value in want.items():
        got = CHECKS[key](eng, s)
        assert got == value, f"{where}{key}: got {got!r}, expected {value!r}"


def play(eng: Engine, s: State, steps: Sequence[Step]) -> State:
    """Take every step in turn and check the expected fields after it."""
    for i, (action, want) in enumerate(steps):
        a = action_id(eng.layout, action)
        s = eng.step(s, np.array([a]))
        expect(eng, s, want, where=f"step {i} ({action!r}): ")
    return s


def moves(eng: Engine, s: State, actions: Sequence[str | int]) -> State:
    """Take actions without checks (to reach a position)."""
    for action in actions:
        s = eng.step(s, np.array([action_id(eng.layout, action)]))
    return s


def best_cards(hand: np.ndarray, n: int) -> list[int]:
    """The ``n`` highest card ids of ``hand`` (the cards given in the exchange)."""
    out: list[int] = []
    for c in range(NUM_CARDS - 1, -1, -1):
        out += [c] * int(hand[c])
    return out[:n]


def names(cards: Sequence[int]) -> str:
    counts = np.zeros(NUM_CARDS, np.int8)
    for c in cards:
        counts[c] += 1
    return format_hand(counts)


def finish_first_deal_in_seat_order(r: Rules, seed: int = 0) -> tuple[Engine, State]:
    """A first deal that ends with places 0, 1, ..., P-1 by seat (the last seat is the Bum).

    Seat q holds one card (seat 0 the 3 of clubs, so it leads); the last seat holds two. Each
    seat plays its single card in turn and goes out.
    """
    p = r.num_players
    cards = ["3c", "4c", "5c", "6c", "7c", "8c", "9c", "10c"]
    given = cards[: p - 1] + [cards[p - 1] + " Jc"]
    eng, s = start(r, given, seed)
    for q in range(p - 1):
        s = eng.step(s, np.array([eng.layout.set_action(q, 1)]))
    assert s.title[0].tolist() == list(range(p))
    return eng, s


# ------------------------------------------------------------------------------ 1. cards, players


@pytest.mark.parametrize(
    "options, sizes, decks, jokers",
    [
        (dict(num_players=3), [18, 17, 17], 1, 0),
        (dict(num_players=4), [13, 13, 13, 13], 1, 0),
        (dict(num_players=5), [11, 11, 10, 10, 10], 1, 0),
        (dict(num_players=6), [9, 9, 9, 9, 8, 8], 1, 0),
        (dict(num_players=7), [15, 15, 15, 15, 15, 15, 14], 2, 0),
        (dict(num_players=8), [13] * 8, 2, 0),
        (dict(num_players=4, jokers=1), [14, 13, 13, 13], 1, 1),
        (dict(num_players=5, jokers=2), [11, 11, 11, 11, 10], 1, 2),
        (dict(num_players=7, jokers=2), [16, 16, 16, 15, 15, 15, 15], 2, 4),
        (dict(num_players=8, jokers=1), [14, 14, 13, 13, 13, 13, 13, 13], 2, 2),
        (dict(num_players=4, decks=2), [26] * 4, 2, 0),
        (dict(num_players=8, decks=1), [7, 7, 7, 7, 6, 6, 6, 6], 1, 0),
    ],
)
def test_the_whole_pack_is_dealt_from_seat_0(
    options: dict[str, Any], sizes: list[int], decks: int, jokers: int
) -> None:
    """3-8 players; one deck for 3-6, two for 7-8 (option decks); 0-2 jokers per deck; the
    first dealer is the last seat, so seat 0 gets the first card and the extra cards."""
    r = Rules(**options)
    eng = Engine(r)
    for seed in (0, 1, 12345):
        s = eng.init(np.array([seed]))
        assert s.cards_left[0].tolist() == sizes
        pack = s.hands[0].sum(axis=0)
        assert pack[:52].tolist() == [decks] * 52
        assert int(pack[JOKER]) == jokers
        assert int(s.dealer[0]) == r.num_players - 1
        assert np.array_equal(s.hands[0], deal_hands(r, seed, 0, r.num_players - 1))


@pytest.mark.parametrize("dealer, sizes", [(4, [11, 11, 10, 10, 10]), (1, [10, 10, 11, 11, 10])])
def test_dealing_starts_at_the_dealers_left(dealer: int, sizes: list[int]) -> None:
    r = Rules(num_players=5)
    h = deal_hands(r, 7, 0, dealer)
    assert h.sum(axis=1).tolist() == sizes
    assert h.sum(axis=0)[:52].tolist() == [1] * 52
    # Deals are seeded by (seed, deal number): the same pack order, dealt from another seat.
    assert np.array_equal(np.roll(deal_hands(r, 7, 0, 4), -(4 - dealer), axis=0), h)


def test_the_previous_bum_deals_the_next_deal() -> None:
    r = Rules(num_players=5, deals=2, exchange=False)
    eng, s = start(r, ["3c", "9c 10c", "4c", "5c", "6c"], seed=3)
    s = play(
        eng,
        s,
        [
            ("single 3", {"current": 1, "place": [0, -1, -1, -1, -1], "dealer": 4}),
            ("pass", {"current": 2}),
            ("single 4", {"current": 3}),
            ("single 5", {"current": 4}),
            # seat 1 is last: it deals the next deal (from its left) and leads it
            ("single 6", {"deal_over": True, "deal": 1, "title": [0, 4, 1, 2, 3], "dealer": 1,
                          "cards_left": [10, 10, 11, 11, 10], "current": 1,
                          "place": [-1] * 5, "phase": PHASE_PLAY}),
        ],
    )  # fmt: skip
    assert np.array_equal(s.hands[0], deal_hands(r, 3, 1, 1))


def test_rank_order_and_suits_do_not_matter() -> None:
    """Usual order 3 < 4 < ... < K < A < 2; a set is beaten by a set of a higher rank, whatever
    the suits."""
    eng, s = start(Rules(), ["3c 9d", "4c 8h 10s Ks Ah 2d", "5c", "6c"])
    s = play(
        eng,
        s,
        [
            ("single 9", {"current": 1, "legal": {"pass", "single 10", "single K", "single A",
                                                  "single 2"}}),
        ],
    )
    eng, s = start(Rules(), ["3c 9c 9d", "9h 9s 10c 10d 4c", "5c", "6c"])
    s = play(eng, s, [("pair of 9", {"legal": {"pass", "pair of 10"}})])
    eng, s = start(Rules(allow_equal=True), ["3c 9c 9d", "9h 9s 10c 10d 4c", "5c", "6c"])
    s = play(eng, s, [("pair of 9", {"legal": {"pass", "pair of 9", "pair of 10"}})])


def test_play_moves_left_skipping_players_who_are_out() -> None:
    eng, s = start(Rules(num_players=5), ["3c 3d", "4c", "5c 9c Qc", "6c 10c Kc", "7c Jc Ac"])
    play(
        eng,
        s,
        [
            ("single 3", {"current": 1}),
            ("single 4", {"current": 2, "place": [-1, 0, -1, -1, -1]}),
            ("single 5", {"current": 3}),
            ("single 6", {"current": 4}),
            ("single 7", {"current": 0}),
            ("pass", {"current": 2}),  # seat 1 is out: skipped
            ("single 9", {"current": 3}),
            ("single 10", {"current": 4}),
            ("single J", {"current": 0}),
            ("pass", {"current": 2}),
            ("pass", {"current": 3}),
            ("pass", {"current": 4, "pile": "empty"}),
        ],
    )


# ------------------------------------------------------------------------------ 2. plays


def test_sets_up_to_four_with_one_deck() -> None:
    eng, s = start(Rules(), ["3c Kc Kd Kh Ks", "4c", "5c", "6c"])
    assert legal(eng, s) == {"single 3", "single K", "pair of K", "three Ks", "four Ks"}


def test_sets_up_to_eight_with_two_decks() -> None:
    eng, s = start(
        Rules(num_players=7), ["3c Kc Kc Kd Kd Kh Kh Ks Ks", "4c", "5c", "6c", "7c", "8c", "9c"]
    )
    assert legal(eng, s) == {"single 3"} | {
        eng.layout.name(eng.layout.set_action(Rank.KING, n)) for n in range(1, 9)
    }
    assert "8 x K" in legal(eng, s)


def test_with_two_decks_a_set_of_six_follows_a_set_of_six_and_revolts() -> None:
    r = Rules(num_players=8, revolution=True, first_lead="seat0")
    eng, s = start(
        r,
        ["9c 9c 9d 9d 9h 9h 5c", "5d 5d 5h 5h 5s 5s Kc", "Kd Kd Kh Kh Ks Ks", "3c", "4c", "6c",
         "7c", "8c"],
    )  # fmt: skip
    play(
        eng,
        s,
        [
            ("6 x 9", {"revolution": True, "current": 1, "legal": {"pass", "6 x 5"}}),
            ("6 x 5", {"revolution": False, "current": 2, "legal": {"pass", "6 x K"}}),
        ],
    )


def test_sets_with_jokers_go_beyond_four() -> None:
    eng, s = start(Rules(jokers=2), ["3c Kc Kd Kh Ks JK JK", "4c", "5c", "6c"])
    assert legal(eng, s) == {
        "single 3", "pair of 3", "three 3s",
        "single K", "pair of K", "three Ks", "four Ks", "5 x K", "6 x K",
        "single joker", "2 jokers",
    }  # fmt: skip


def test_leading_any_set_but_no_pass() -> None:
    eng, s = start(Rules(), ["3c 3d 7h 2s", "4c", "5c", "6c"])
    assert legal(eng, s) == {"single 3", "pair of 3", "single 7", "single 2"}


def test_leading_runs_too_with_runs() -> None:
    eng, s = start(Rules(runs=True), ["3c 4c 5c 9h", "4d", "5d", "6d"])
    assert legal(eng, s) == {"single 3", "single 4", "single 5", "single 9", "run 3-4-5 of clubs"}


def test_following_needs_the_same_size_and_a_higher_rank() -> None:
    eng, s = start(Rules(), ["3c 7c 7d", "4c 4d 8c 8d 8h 9c 2c 2d", "5c", "6c"])
    play(
        eng,
        s,
        [
            ("pair of 7", {"current": 1, "legal": {"pass", "pair of 8", "pair of 2"}}),
            ("pair of 8", {"current": 2, "pile": "pair of 8",
                           "hands": ["3c", "4c 4d 8h 9c 2c 2d", "5c", "6c"]}),
        ],
    )  # fmt: skip


def test_splitting_a_set() -> None:
    eng, s = start(Rules(), ["3c 9c", "Kc Kd Kh 4c", "5c", "6c"])
    s = play(eng, s, [("single 9", {"legal": {"pass", "single K"}})])
    s = play(eng, s, [("single K", {"hands": ["3c", "4c Kd Kh", "5c", "6c"]})])
    eng, s = start(Rules(), ["3c 9c 9d", "Kc Kd Kh 4c", "5c", "6c"])
    play(
        eng,
        s,
        [
            ("pair of 9", {"legal": {"pass", "pair of K"}}),
            ("pair of K", {"hands": ["3c", "4c Kh", "5c", "6c"], "pile": "pair of K"}),
        ],
    )


def test_pass_is_always_legal_when_following() -> None:
    eng, s = start(Rules(), ["3c 5c", "4c 2c", "5d", "6d"])
    s = play(
        eng,
        s,
        [
            ("single 3", {"legal": {"pass", "single 4", "single 2"}}),
            ("pass", {"current": 2, "passed": [1], "legal": {"pass", "single 5"}}),
        ],
    )


HANDS_4 = ["3c 5c 9c", "4c 6c 10c", "7c 8c", "Jc Qc"]


def test_a_pass_costs_only_that_turn_without_pass_is_final() -> None:
    eng, s = start(Rules(), HANDS_4)
    play(
        eng,
        s,
        [
            ("single 3", {"current": 1}),
            ("pass", {"current": 2, "passed": [1]}),
            ("single 7", {"current": 3, "passed": []}),  # a play resets the passes
            ("pass", {"current": 0, "passed": [3]}),
            ("single 9", {"current": 1, "passed": []}),
            # seat 1 passed earlier in this trick and may play again
            ("single 10", {"current": 2, "pile": "single 10", "hands": ["5c", "4c 6c", "8c", "Jc Qc"]}),
        ],
    )  # fmt: skip


def test_a_pass_is_final_with_pass_is_final() -> None:
    eng, s = start(Rules(pass_is_final=True), HANDS_4)
    play(
        eng,
        s,
        [
            ("single 3", {"current": 1}),
            ("pass", {"current": 2, "passed": [1]}),
            ("single 7", {"current": 3, "passed": [1]}),
            ("pass", {"current": 0, "passed": [1, 3]}),
            # seats 1 and 3 are out of the trick: seat 2 is next after seat 0
            ("single 9", {"current": 2, "passed": [1, 3], "legal": {"pass"}}),
            # everyone but seat 0 has passed: seat 0 leads a new trick
            ("pass", {"current": 0, "passed": [], "pile": "empty", "last_player": -1}),
        ],
    )


def test_with_pass_is_final_a_player_going_out_after_all_others_passed_ends_the_trick() -> None:
    eng, s = start(Rules(pass_is_final=True), ["3c 9c", "6c", "7c Kc", "8c Qc"])
    play(
        eng,
        s,
        [
            ("single 3", {"current": 1}),
            ("pass", {"current": 2, "passed": [1]}),
            ("single 7", {"current": 3}),
            ("pass", {"current": 0, "passed": [1, 3]}),
            ("single 9", {"current": 2, "place": [0, -1, -1, -1], "legal": {"pass", "single K"}}),
            # seat 0 (last play) is out: its left neighbour leads the next trick
            ("pass", {"current": 1, "pile": "empty", "passed": []}),
        ],
    )


def test_the_trick_ends_when_all_others_passed_and_the_last_player_leads() -> None:
    eng, s = start(Rules(), HANDS_4)
    play(
        eng,
        s,
        [
            ("single 3", {"current": 1, "last_player": 0}),
            ("single 4", {"current": 2, "last_player": 1}),
            ("pass", {"current": 3, "pile": "single 4"}),
            ("pass", {"current": 0, "pile": "single 4"}),
            ("pass", {"current": 1, "pile": "empty", "passed": [], "last_player": -1,
                      "legal": {"single 6", "single 10"}}),
        ],
    )  # fmt: skip


def test_if_the_last_player_has_gone_out_the_next_seat_to_the_left_leads() -> None:
    eng, s = start(Rules(), ["3c 5c", "4c 6c", "7c 8c", "9c 10c"])
    s = moves(eng, s, ["single 3", "single 4", "single 7", "single 9", "pass", "pass", "pass"])
    expect(eng, s, {"current": 3, "pile": "empty"})
    play(
        eng,
        s,
        [
            ("single 10", {"current": 0, "place": [-1, -1, -1, 0], "legal": {"pass"}}),
            ("pass", {"current": 1}),
            ("pass", {"current": 2}),
            ("pass", {"current": 0, "pile": "empty", "legal": {"single 5"}}),
        ],
    )


def test_if_the_last_player_and_its_neighbour_are_out_the_next_holder_leads() -> None:
    eng, s = start(Rules(num_players=5), ["3c", "4c 5c", "6c Kc 10d", "7c Qc", "8c Ac"])
    play(
        eng,
        s,
        [
            ("single 3", {"current": 1, "place": [0, -1, -1, -1, -1]}),
            ("single 4", {"current": 2}),
            ("single 6", {"current": 3}),
            ("single 7", {"current": 4}),
            ("single 8", {"current": 1}),
            ("pass", {"current": 2}),
            ("single K", {"current": 3}),
            ("pass", {"current": 4}),
            ("single A", {"current": 1, "place": [0, -1, -1, -1, 1]}),
            ("pass", {"current": 2}),
            ("pass", {"current": 3}),
            # seat 4 made the last play and is out, so is seat 0: seat 1 leads
            ("pass", {"current": 1, "pile": "empty", "legal": {"single 5"}}),
        ],
    )


# --- clearing the pile


def test_a_set_of_2s_clears_the_pile_and_its_player_leads() -> None:
    hands4 = ["3c 2h 5c", "4c 6c", "7c 8c", "9c 10c"]
    eng, s = start(Rules(), hands4)
    play(
        eng,
        s,
        [
            ("single 3", {}),
            ("single 4", {}),
            ("pass", {}),
            ("pass", {"current": 0}),
            ("single 2", {"current": 0, "pile": "empty", "passed": [], "last_player": -1,
                          "legal": {"single 5"}}),
        ],
    )  # fmt: skip


def test_without_top_rank_clears_a_2_does_not_clear() -> None:
    eng, s = start(Rules(top_rank_clears=False), ["3c 2h 5c", "4c 6c", "7c 8c", "9c 10c"])
    s = moves(eng, s, ["single 3", "single 4", "pass", "pass"])
    play(eng, s, [("single 2", {"current": 1, "pile": "single 2", "legal": {"pass"}})])


def test_a_pair_of_2s_clears_too() -> None:
    eng, s = start(Rules(), ["3c 3d 2h 2s 5c", "4c 4d 6c", "7c 8c", "9c 10c"])
    play(
        eng,
        s,
        [
            ("pair of 3", {"current": 1}),
            ("pair of 4", {"current": 2}),
            ("pass", {}),
            ("pass", {"current": 0, "legal": {"pass", "pair of 2"}}),
            ("pair of 2", {"current": 0, "pile": "empty", "legal": {"single 5"}}),
        ],
    )


def test_during_a_revolution_a_set_of_3s_clears_and_2s_do_not() -> None:
    r = Rules(revolution=True, first_lead="seat0")
    eng, s = start(r, ["9c 9d 9h 9s 5c 4h", "3c 8d Jh", "3d 3h Ks", "2c 2d 6d"])
    play(
        eng,
        s,
        [
            ("four 9s", {"revolution": True, "current": 1, "pile": "four 9s", "legal": {"pass"}}),
            ("pass", {"current": 2}),
            ("pass", {"current": 3}),
            ("pass", {"current": 0, "pile": "empty", "revolution": True}),
            ("single 5", {"current": 1, "legal": {"pass", "single 3"}}),  # 8 and J are lower now
            ("single 3", {"current": 1, "pile": "empty", "revolution": True}),
            ("single 8", {"current": 2, "legal": {"pass", "single 3"}}),  # a K is lower now
            ("pass", {"current": 3, "legal": {"pass", "single 6"}}),
            ("single 6", {"current": 0, "legal": {"pass", "single 4"}}),
            ("pass", {"current": 1, "legal": {"pass"}}),
            ("pass", {"current": 2, "legal": {"pass", "single 3"}}),
            ("pass", {"current": 3, "pile": "empty"}),
            # a 2 is the lowest single now and does not clear
            ("single 2", {"current": 0, "pile": "single 2", "legal": {"pass", "single 4"}}),
        ],
    )


def test_eight_clears_a_set_of_8s() -> None:
    hands4 = ["3c 8c 8d Kc", "4c 9c 9d", "5c", "6c"]
    eng, s = start(Rules(eight_clears=True), hands4)
    play(eng, s, [("pair of 8", {"current": 0, "pile": "empty", "legal": {"single 3", "single K"}})])
    eng, s = start(Rules(), hands4)
    play(eng, s, [("pair of 8", {"current": 1, "pile": "pair of 8", "legal": {"pass", "pair of 9"}})])
    eng, s = start(Rules(eight_clears=True), ["3c 7c Kc", "4c 8c 9d", "5c", "6c"])
    play(eng, s, [("single 7", {"current": 1}), ("single 8", {"current": 1, "pile": "empty"})])


@pytest.mark.parametrize(
    "run, clears",
    [
        ("run 6-7-8 of hearts", True),
        ("run 7-8-9 of hearts", True),
        ("run 8-9-10 of hearts", True),
        ("run 5-6-7-8-9 of hearts", True),
        ("run 9-10-J of hearts", False),
        ("run 5-6-7 of hearts", False),
    ],
)
def test_eight_clears_a_run_through_the_8(run: str, clears: bool) -> None:
    eng, s = start(
        Rules(runs=True, eight_clears=True), ["3c 5h 6h 7h 8h 9h 10h Jh", "4c", "5c", "6c"]
    )
    s = play(eng, s, [(run, {"current": 0 if clears else 1})])
    assert pile(eng, s) == ("empty" if clears else "run " + run.split()[1])
    eng, s = start(Rules(runs=True), ["3c 5h 6h 7h 8h 9h 10h Jh", "4c", "5c", "6c"])
    play(eng, s, [(run, {"current": 1})])


def test_a_run_with_a_joker_in_the_8s_place_clears_with_eight_clears() -> None:
    eng, s = start(Rules(runs=True, eight_clears=True, jokers=1), ["3c 6h 7h JK", "4c", "5c", "6c"])
    play(eng, s, [("run 6-7-8 of hearts", {"current": 0, "pile": "empty", "hands": ["3c", "4c", "5c", "6c"]})])


def test_a_clearing_play_of_the_last_cards_lets_the_next_holder_lead() -> None:
    eng, s = start(Rules(), ["3c 2h", "4c 5c", "6c 7c", "8c 9c"])
    play(
        eng,
        s,
        [
            ("single 3", {}),
            ("single 4", {}),
            ("single 6", {}),
            ("single 8", {"current": 0}),
            ("single 2", {"current": 1, "pile": "empty", "place": [0, -1, -1, -1],
                          "legal": {"single 5"}}),
        ],
    )  # fmt: skip


def test_clearing_with_last_cards_skips_players_who_are_out() -> None:
    eng, s = start(Rules(num_players=5), ["3c 5d", "4c Kd", "2h", "6c", "7c"])
    play(
        eng,
        s,
        [
            ("single 3", {"current": 1}),
            ("single 4", {"current": 2}),
            ("pass", {"current": 3}),
            ("single 6", {"current": 4, "place": [-1, -1, -1, 0, -1]}),
            ("single 7", {"current": 0, "place": [-1, -1, -1, 0, 1]}),
            ("pass", {"current": 1}),
            ("pass", {"current": 2}),
            # seat 2 clears with its last card; seats 3 and 4 are out: seat 0 leads
            ("single 2", {"current": 0, "pile": "empty", "place": [-1, -1, 2, 0, 1],
                          "legal": {"single 5"}, "phase": PHASE_PLAY}),
        ],
    )  # fmt: skip


def test_four_2s_clear_and_start_a_revolution() -> None:
    r = Rules(revolution=True, first_lead="seat0")
    eng, s = start(r, ["2c 2d 2h 2s 5c", "3c 8d", "4d Ks", "Jc Qd"])
    play(
        eng,
        s,
        [
            ("four 2s", {"current": 0, "pile": "empty", "revolution": True,
                         "legal": {"single 5"}}),
            ("single 5", {"current": 1, "legal": {"pass", "single 3"}}),
        ],
    )  # fmt: skip


def test_four_3s_only_start_a_revolution() -> None:
    r = Rules(revolution=True, first_lead="seat0")
    eng, s = start(r, ["3c 3d 3h 3s 5c", "4c 8d", "4d Ks", "Jc Qd"])
    play(eng, s, [("four 3s", {"current": 1, "pile": "four 3s", "revolution": True, "legal": {"pass"}})])


# --- going out


def test_going_out_mid_trick_and_the_deal_ends_when_one_player_holds_cards() -> None:
    eng, s = start(Rules(), ["3c", "4c", "5c", "6c 7c"])
    play(
        eng,
        s,
        [
            ("single 3", {"place": [0, -1, -1, -1], "n_finished": 1, "current": 1,
                          "pile": "single 3", "phase": PHASE_PLAY, "deal_over": False}),
            ("single 4", {"place": [0, 1, -1, -1], "current": 2, "pile": "single 4"}),
            # the deal ends at once, mid-trick, with seat 3 still holding two cards
            ("single 5", {"place": [0, 1, 2, 3], "n_finished": 4, "phase": PHASE_DONE,
                          "current": -1, "deal_over": True, "title": [0, 1, 2, 3],
                          "rewards": [1.0, pytest.approx(1 / 3), pytest.approx(-1 / 3), -1.0],
                          "cards_left": [0, 0, 0, 2]}),
        ],
    )  # fmt: skip


def test_going_out_on_a_follow_in_any_order() -> None:
    eng, s = start(Rules(), ["3c 9c", "4c 5c", "8c", "7c Kc"])
    play(
        eng,
        s,
        [
            ("single 3", {}),
            ("single 5", {}),
            ("single 8", {"place": [-1, -1, 0, -1], "current": 3}),
            ("single K", {"current": 0}),
            ("pass", {"current": 1}),
            ("pass", {"current": 3, "pile": "empty"}),
            ("single 7", {"place": [-1, -1, 0, 1], "current": 0}),
            ("single 9", {"place": [2, 3, 0, 1], "phase": PHASE_DONE}),
        ],
    )


# ------------------------------------------------------------------------------ 3. jokers


def test_a_joker_is_wild_in_a_set() -> None:
    eng, s = start(Rules(jokers=1), ["3c 9h JK", "4c 10c 10d", "5c", "6c"])
    expect(
        eng,
        s,
        {"legal": {"single 3", "pair of 3", "single 9", "pair of 9", "single joker"}},
    )
    play(
        eng,
        s,
        [
            ("pair of 9", {"hands": ["3c", "4c 10c 10d", "5c", "6c"], "pile": "pair of 9",
                           "played": {"9": 1, "JK": 1}, "legal": {"pass", "pair of 10"}}),
        ],
    )  # fmt: skip


@pytest.mark.parametrize("clears", [True, False])
def test_a_joker_alone_is_the_highest_single_in_the_usual_order(clears: bool) -> None:
    r = Rules(jokers=1, allow_equal=True, top_rank_clears=clears)
    eng, s = start(r, ["3c Ac 2c", "4c 2d JK", "5c 2s", "6c"])
    s = play(
        eng,
        s,
        [
            ("single A", {"legal": {"pass", "single 2", "single joker"}}),
            ("single joker", {"current": 2, "pile": "single joker", "legal": {"pass"}}),
            ("pass", {"current": 3, "legal": {"pass"}}),
            ("pass", {"current": 0, "legal": {"pass"}}),
            ("pass", {"current": 1, "pile": "empty"}),
        ],
    )
    if not clears:  # a 2 does not end the trick: the joker can still beat it
        eng, s = start(r, ["3c Ac 2c", "4c 2d JK", "5c 2s", "6c"])
        play(eng, s, [("single 2", {"current": 1, "legal": {"pass", "single 2", "single joker"}})])


@pytest.mark.parametrize("clears", [True, False])
def test_a_joker_alone_is_the_highest_single_during_a_revolution(clears: bool) -> None:
    r = Rules(jokers=1, revolution=True, first_lead="seat0", top_rank_clears=clears)
    hands4 = ["9c 9d 9h 9s 4c 3d", "3c JK 5d", "3h 3s", "Kc"]
    eng, s = start(r, hands4)
    s = moves(eng, s, ["four 9s", "pass", "pass", "pass"])
    expect(eng, s, {"revolution": True, "current": 0})
    play(
        eng,
        s,
        [
            ("single 4", {"current": 1, "legal": {"pass", "single 3", "single joker"}}),
            ("single joker", {"current": 2, "pile": "single joker", "legal": {"pass"}}),
        ],
    )
    eng, s = start(r, hands4)
    s = moves(eng, s, ["four 9s", "pass", "pass", "pass"])
    if clears:  # the 3 (top rank in a revolution) clears before the joker could beat it
        play(eng, s, [("single 3", {"current": 0, "pile": "empty"})])
    else:
        play(
            eng,
            s,
            [
                ("single 3", {"current": 1, "pile": "single 3", "legal": {"pass", "single joker"}}),
                ("single joker", {"current": 2, "legal": {"pass"}}),
            ],
        )


def test_a_set_of_jokers_only_is_the_highest_set_of_its_size() -> None:
    r = Rules(jokers=2, top_rank_clears=False)
    eng, s = start(r, ["3c 2c 2d Ac Ad", "4c JK JK Kc Kd Kh", "5c 5d", "6c 6d"])
    s = play(
        eng,
        s,
        [
            ("pair of A", {"legal": {"pass", "2 jokers"}}),  # a pair of K is lower
            ("pass", {}),
            ("pass", {}),
            ("pass", {"current": 0}),
            ("pair of 2", {"current": 1, "legal": {"pass", "2 jokers"}}),
            ("2 jokers", {"current": 2, "pile": "2 jokers", "legal": {"pass"},
                          "hands": ["3c", "4c Kc Kd Kh", "5c 5d", "6c 6d"]}),
        ],
    )  # fmt: skip
    eng, s = start(r, ["3c Kc Kd Kh 4d", "4c JK JK", "5c 5d", "6c 6d"])
    play(eng, s, [("three Ks", {"current": 1, "legal": {"pass"}})])  # no 3 jokers


def test_a_set_of_jokers_only_beats_sets_during_a_revolution() -> None:
    r = Rules(jokers=2, revolution=True, first_lead="seat0")
    eng, s = start(r, ["9c 9d 9h 9s 4c 4d", "5c JK JK 3c 3d", "Qc", "Kc"])
    s = moves(eng, s, ["four 9s", "pass", "pass", "pass"])
    play(
        eng,
        s,
        [
            ("pair of 4", {"current": 1, "legal": {"pass", "pair of 3", "2 jokers"}}),
            ("2 jokers", {"current": 2, "pile": "2 jokers", "revolution": True}),
        ],
    )


def test_three_of_a_kind_and_a_joker_are_four_for_a_revolution() -> None:
    r = Rules(jokers=1, revolution=True, first_lead="seat0")
    eng, s = start(r, ["9c 9d 9h JK 5c", "4c 4d 4h 4s", "Qc Qd Qh Qs", "3c"])
    assert "four 9s" in legal(eng, s)
    play(
        eng,
        s,
        [
            ("four 9s", {"revolution": True, "hands": ["5c", "4c 4d 4h 4s", "Qc Qd Qh Qs", "3c"],
                         "pile": "four 9s", "legal": {"pass", "four 4s"}}),
            ("four 4s", {"revolution": False, "legal": {"pass", "four Qs"}}),
        ],
    )  # fmt: skip


def test_four_jokers_alone_start_a_revolution_and_do_not_clear() -> None:
    r = Rules(decks=2, jokers=2, revolution=True, first_lead="seat0")
    eng, s = start(r, ["JK JK JK JK 5c", "Kc Kd Kh Ks 8c", "Qc", "3c"])
    play(
        eng,
        s,
        [
            ("4 jokers", {"revolution": True, "current": 1, "pile": "4 jokers", "legal": {"pass"}}),
            ("pass", {"current": 2}),
        ],
    )


# ------------------------------------------------------------------------------ 4. revolution


def test_revolution_at_once_counter_revolution_and_again() -> None:
    r = Rules(revolution=True, first_lead="seat0")
    eng, s = start(
        r,
        [
            "7c 7d 7h 7s 3c",
            "9c 9d 9h 9s 5c 5d 5h 5s",
            "8c 8d 8h 8s Kc Kd Kh Ks",
            "10c 10d 10h 10s 6c 6d 6h 6s",
        ],
    )
    play(
        eng,
        s,
        [
            # four 7s in the usual order: a revolution at once; four 9s are higher usually
            ("four 7s", {"revolution": True, "current": 1, "legal": {"pass", "four 5s"}}),
            ("pass", {"current": 2, "legal": {"pass"}}),
            ("pass", {"current": 3, "legal": {"pass", "four 6s"}}),
            ("pass", {"current": 0, "pile": "empty", "revolution": True}),
        ],
    )
    eng, s = start(
        r,
        [
            "7c 7d 7h 7s 3c Jd",
            "9c 9d 9h 9s 5c 5d 5h 5s",
            "8c 8d 8h 8s Kc Kd Kh Ks",
            "10c 10d 10h 10s 6c 6d 6h 6s",
        ],
    )
    s = play(
        eng,
        s,
        [
            ("single 3", {"current": 1, "revolution": False}),
            ("pass", {}),
            ("pass", {}),
            ("pass", {"current": 0}),
        ],
    )
    s = play(
        eng,
        s,
        [
            ("four 7s", {"revolution": True, "pile": "four 7s"}),
            # judged in the order in effect: 5s are higher than 7s now
            ("four 5s", {"revolution": False, "current": 2, "pile": "four 5s",
                         "legal": {"pass", "four 8s", "four Ks"}}),
            # the counter-revolution: the usual order again
            ("four 8s", {"revolution": True, "current": 3, "legal": {"pass", "four 6s"}}),
            ("four 6s", {"revolution": False, "current": 0, "pile": "four 6s", "legal": {"pass"}}),
            # a revolution does not clear the pile
            ("pass", {"current": 1, "pile": "four 6s", "legal": {"pass", "four 9s"}}),
        ],
    )  # fmt: skip


def test_a_new_deal_starts_in_the_usual_order() -> None:
    r = Rules(num_players=3, revolution=True, first_lead="seat0", deals=2, exchange=False)
    eng, s = start(r, ["9c 9d 9h 9s", "4d 6d", "4c 5c"])
    play(
        eng,
        s,
        [
            ("four 9s", {"place": [0, -1, -1], "revolution": True, "current": 1}),
            ("pass", {"current": 2}),
            ("pass", {"current": 1, "pile": "empty", "revolution": True}),
            ("single 4", {"current": 2, "legal": {"pass"}}),
            ("pass", {"current": 1, "pile": "empty"}),
            ("single 6", {"deal_over": True, "deal": 1, "revolution": False, "title": [0, 1, 2],
                          "current": 2, "pile": "empty", "phase": PHASE_PLAY}),
        ],
    )  # fmt: skip


def test_the_exchange_uses_the_usual_order_after_a_deal_in_revolution() -> None:
    r = Rules(num_players=3, revolution=True, first_lead="seat0", deals=2)
    eng, s = start(r, ["9c 9d 9h 9s", "4d 6d", "4c 5c"], seed=11)
    s = moves(eng, s, ["four 9s", "pass", "pass", "single 4", "pass"])
    assert bool(s.revolution[0])
    s = moves(eng, s, ["single 6"])
    dealt = deal_hands(r, 11, 1, dealer=2)
    best = best_cards(dealt[2], 2)
    assert format_hand(s.received[0, 0]) == names(best)
    assert format_hand(s.gave[0, 2]) == names(best)
    assert not bool(s.revolution[0])


def test_a_run_never_starts_a_revolution() -> None:
    r = Rules(runs=True, revolution=True)
    eng, s = start(r, ["3c 4c 5c 6c 7c 9h", "3d 4d 5d 6d 7d 8d", "Kh", "Qh"])
    play(
        eng,
        s,
        [
            ("run 3-4-5-6-7 of clubs", {"revolution": False, "current": 1,
                                        "legal": {"pass", "run 4-5-6-7-8 of diamonds"}}),
            ("run 4-5-6-7-8 of diamonds", {"revolution": False, "current": 2}),
        ],
    )  # fmt: skip


# ------------------------------------------------------------------------------ 5. runs


def test_a_run_is_one_suit_and_consecutive_ranks() -> None:
    eng, s = start(Rules(runs=True), ["3c 5h 6h 7c 8h", "4c", "5c", "6c"])
    assert legal(eng, s) == {"single 3", "single 5", "single 6", "single 7", "single 8"}
    eng, s = start(Rules(runs=True), ["3c 5h 6h 7h 8h", "4c", "5c", "6c"])
    runs = {a for a in legal(eng, s) if a.startswith("run")}
    assert runs == {"run 5-6-7 of hearts", "run 6-7-8 of hearts", "run 5-6-7-8 of hearts"}


def test_runs_do_not_wrap_around() -> None:
    eng, s = start(Rules(runs=True), ["3c Kh Ah 2h 3h 4h", "4c", "5c", "6c"])
    assert legal(eng, s) == {
        "single 3", "pair of 3", "single 4", "single K", "single A", "single 2",
        "run K-A-2 of hearts",
    }  # fmt: skip


def test_k_a_2_is_the_highest_run_of_three_and_runs_never_clear() -> None:
    hands4 = ["3c Qs Ks As", "Kh Ah 2h 4c", "Kd Ad 2d 5c", "6c"]
    eng, s = start(Rules(runs=True, allow_equal=False), hands4)
    s = moves(eng, s, ["single 3", "pass", "pass", "pass"])
    play(
        eng,
        s,
        [
            ("run Q-K-A of spades", {"current": 1, "legal": {"pass", "run K-A-2 of hearts"}}),
            # a run ending on the 2 does not clear the pile
            ("run K-A-2 of hearts", {"current": 2, "pile": "run K-A-2", "legal": {"pass"}}),
        ],
    )
    eng, s = start(Rules(runs=True, allow_equal=True), hands4)
    s = moves(eng, s, ["single 3", "pass", "pass", "pass", "run Q-K-A of spades"])
    s = moves(eng, s, ["run K-A-2 of hearts"])
    expect(eng, s, {"current": 2, "legal": {"pass", "run K-A-2 of diamonds"}})


def test_runs_have_no_upper_length_limit() -> None:
    eng, s = start(
        Rules(runs=True), ["3c 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah 2h", "4c", "5c", "6c"]
    )
    runs = {a for a in legal(eng, s) if a.startswith("run")}
    assert len(runs) == 66
    play(
        eng,
        s,
        [("run 3-4-5-6-7-8-9-10-J-Q-K-A-2 of hearts", {"pile": "run 3-4-5-6-7-8-9-10-J-Q-K-A-2",
                                                       "hands": ["3c", "4c", "5c", "6c"],
                                                       "current": 1, "legal": {"pass"}})],
    )  # fmt: skip


def test_runs_take_only_runs_of_the_same_length_and_sets_only_sets() -> None:
    hand1 = "8h 9h 10h Jh 9c 9d 4s"
    eng, s = start(Rules(runs=True), ["3c 5c 6c 7c 7s 7d", hand1, "5d", "6d"])
    play(
        eng,
        s,
        [("run 5-6-7 of clubs", {"legal": {"pass", "run 8-9-10 of hearts", "run 9-10-J of hearts"}})],
    )
    eng, s = start(Rules(runs=True), ["3c 5c 6c 7c 7s 7d", hand1, "5d", "6d"])
    play(eng, s, [("pair of 7", {"legal": {"pass", "pair of 9"}})])
    eng, s = start(Rules(runs=True), ["3c 4c 5c 6c 7s", hand1, "5d", "6d"])
    play(eng, s, [("run 3-4-5-6 of clubs", {"legal": {"pass", "run 8-9-10-J of hearts"}})])


@pytest.mark.parametrize(
    "allow_equal, answers",
    [
        (False, {"pass", "run 6-7-8 of diamonds"}),
        (True, {"pass", "run 6-7-8 of diamonds", "run 5-6-7 of diamonds", "run 5-6-7 of hearts"}),
    ],
)
def test_a_run_beats_a_run_with_a_lower_top_card(allow_equal: bool, answers: set[str]) -> None:
    r = Rules(runs=True, allow_equal=allow_equal)
    eng, s = start(r, ["3c 5c 6c 7c", "4d 5d 6d 7d 8d 5h 6h 7h", "9s", "10s"])
    play(eng, s, [("run 5-6-7 of clubs", {"legal": answers})])


@pytest.mark.parametrize(
    "allow_equal, answers",
    [
        (False, {"pass", "run 4-5-6 of diamonds"}),
        (True, {"pass", "run 4-5-6 of diamonds", "run 5-6-7 of diamonds"}),
    ],
)
def test_during_a_revolution_runs_compare_their_bottom_card(
    allow_equal: bool, answers: set[str]
) -> None:
    r = Rules(runs=True, revolution=True, first_lead="seat0", allow_equal=allow_equal)
    eng, s = start(r, ["10c 10d 10h 10s 5c 6c 7c", "4d 5d 6d 7d 8d", "9s", "Js"])
    s = moves(eng, s, ["four 10s", "pass", "pass", "pass"])
    expect(eng, s, {"revolution": True, "current": 0})
    play(eng, s, [("run 5-6-7 of clubs", {"legal": answers, "revolution": True})])


def test_a_joker_fills_any_place_in_a_run() -> None:
    eng, s = start(Rules(runs=True, jokers=1), ["3c 6h 7h JK", "4c", "5c", "6c"])
    assert legal(eng, s) == {
        "single 3", "pair of 3", "single 6", "pair of 6", "single 7", "pair of 7",
        "single joker", "run 5-6-7 of hearts", "run 6-7-8 of hearts",
    }  # fmt: skip
    play(
        eng,
        s,
        [("run 5-6-7 of hearts", {"hands": ["3c", "4c", "5c", "6c"], "pile": "run 5-6-7",
                                  "played": {"6": 1, "7": 1, "JK": 1}})],
    )  # fmt: skip
    eng, s = start(Rules(runs=True, jokers=1), ["3c 5h 7h JK", "4c", "5c", "6c"])
    assert {a for a in legal(eng, s) if a.startswith("run")} == {"run 5-6-7 of hearts"}


def test_a_run_holds_at_least_one_natural_card() -> None:
    r = Rules(runs=True, decks=2, jokers=2)  # four jokers
    eng, s = start(r, ["3c JK JK JK", "4c", "5c", "6c"])
    runs = {a for a in legal(eng, s) if a.startswith("run")}
    assert runs == {"run 3-4-5 of clubs", "run 3-4-5-6 of clubs"}
    assert "3 jokers" in legal(eng, s)


# ------------------------------------------------------------------------------ 6. exchange


def _seed_where(r: Rules, dealer: int, want: Callable[[str], bool]) -> int:
    """The first seed whose second deal gives ``dealer`` (the Bum) a hand that ``want``s."""
    for seed in range(20_000):
        if want(format_hand(deal_hands(r, seed, 1, dealer)[dealer])):
            return seed
    raise AssertionError("no such seed")


def _holds(hand: str, *cards: str) -> bool:
    return set(cards) <= set(hand.split())


def test_the_bum_gives_the_two_best_cards_and_the_vice_bum_one() -> None:
    r = Rules(deals=2)
    seed = 5
    eng, s = finish_first_deal_in_seat_order(r, seed)
    dealt = deal_hands(r, seed, 1, dealer=3)
    gift2, gift1 = best_cards(dealt[3], 2), best_cards(dealt[2], 1)
    want = dealt.copy()
    for c in gift2:
        want[3, c] -= 1
        want[0, c] += 1
    want[2, gift1[0]] -= 1
    want[1, gift1[0]] += 1
    expect(eng, s, {"phase": PHASE_EXCHANGE, "current": 0, "to_return": [2, 1, 0, 0],
                    "deal": 1, "revolution": False, "pile": "empty"})  # fmt: skip
    assert np.array_equal(s.hands[0], want)
    assert format_hand(s.received[0, 0]) == format_hand(s.gave[0, 3]) == names(gift2)
    assert format_hand(s.received[0, 1]) == format_hand(s.gave[0, 2]) == names(gift1)
    assert s.gave[0, :2].sum() == 0 and s.received[0, 2:].sum() == 0
    assert legal(eng, s) == {f"give {c}" for c in format_hand(want[0]).split()}


def test_equal_ranks_give_the_higher_suit_first() -> None:
    r = Rules(deals=2)
    seed = _seed_where(r, 3, lambda h: _holds(h, "2c", "2d", "2s") and "2h" not in h.split())
    eng, s = finish_first_deal_in_seat_order(r, seed)
    assert format_hand(s.received[0, 0]) == "2d 2s"
    assert "2c" in format_hand(s.hands[0, 3]).split()


def test_jokers_are_the_best_cards_in_the_exchange() -> None:
    r = Rules(deals=2, jokers=1)
    seed = _seed_where(r, 3, lambda h: _holds(h, "JK", "2s", "2h"))
    eng, s = finish_first_deal_in_seat_order(r, seed)
    assert format_hand(s.received[0, 0]) == "2s JK"
    assert "give JK" in legal(eng, s)


def test_returned_cards_are_chosen_one_at_a_time_then_the_bum_leads() -> None:
    r = Rules(deals=2)
    seed = 21
    eng, s = finish_first_deal_in_seat_order(r, seed)
    president, vice = s.hands[0, 0].copy(), s.hands[0, 1].copy()
    got = [int(c) for c in np.flatnonzero(s.received[0, 0])]
    lowest = int(np.flatnonzero(president)[0])
    vice_card = int(np.flatnonzero(vice)[-1])
    bum_before = s.hands[0, 3].copy()
    s = play(
        eng,
        s,
        [
            (eng.layout.give_action(lowest), {"phase": PHASE_EXCHANGE, "current": 0,
                                              "to_return": [1, 1, 0, 0]}),
            # any card may be returned, also one just received
            (eng.layout.give_action(got[0]), {"phase": PHASE_EXCHANGE, "current": 1,
                                              "to_return": [0, 1, 0, 0]}),
            (eng.layout.give_action(vice_card), {"phase": PHASE_PLAY, "current": 3,
                                                 "to_return": [0, 0, 0, 0], "pile": "empty"}),
        ],
    )  # fmt: skip
    assert s.hands[0, 3, lowest] == bum_before[lowest] + 1
    assert s.hands[0, 3, got[0]] == bum_before[got[0]] + 1
    assert s.hands[0, 0, lowest] == president[lowest] - 1
    assert s.gave[0, 0].sum() == 2 and s.received[0, 3].sum() == 2
    assert s.gave[0, 1, vice_card] == 1 and s.received[0, 2, vice_card] == 1
    assert s.cards_left[0].tolist() == [13, 13, 13, 13]
    names_ = legal(eng, s)
    assert "pass" not in names_ and not any(n.startswith("give") for n in names_)
    assert names_ == {
        eng.layout.name(int(a)) for a in np.flatnonzero(eng.legal_action_mask(s)[0])
    }


def test_three_players_exchange_only_two_cards() -> None:
    r = Rules(num_players=3, deals=2)
    eng, s = finish_first_deal_in_seat_order(r, 2)
    expect(eng, s, {"to_return": [2, 0, 0], "current": 0, "cards_left": [20, 17, 15]})
    assert s.gave[0, 1].sum() == 0 and s.received[0, 1].sum() == 0
    a, b = (int(c) for c in np.flatnonzero(s.hands[0, 0])[:2])
    play(
        eng,
        s,
        [
            (eng.layout.give_action(a), {"current": 0, "to_return": [1, 0, 0]}),
            (eng.layout.give_action(b), {"current": 2, "phase": PHASE_PLAY,
                                         "cards_left": [18, 17, 17]}),
        ],
    )  # fmt: skip


def test_with_five_players_the_middle_player_exchanges_nothing() -> None:
    r = Rules(num_players=5, deals=2)
    eng, s = finish_first_deal_in_seat_order(r, 4)
    dealt = deal_hands(r, 4, 1, dealer=4)
    expect(eng, s, {"to_return": [2, 1, 0, 0, 0], "current": 0})
    assert format_hand(s.received[0, 0]) == names(best_cards(dealt[4], 2))
    assert format_hand(s.received[0, 1]) == names(best_cards(dealt[3], 1))
    assert s.gave[0, 2].sum() == 0 and s.received[0, 2].sum() == 0
    assert np.array_equal(s.hands[0, 2], dealt[2])


def test_without_exchange_no_cards_change_hands_and_the_bum_leads() -> None:
    r = Rules(deals=2, exchange=False)
    eng, s = finish_first_deal_in_seat_order(r, 8)
    expect(eng, s, {"phase": PHASE_PLAY, "current": 3, "to_return": [0, 0, 0, 0]})
    assert np.array_equal(s.hands[0], deal_hands(r, 8, 1, dealer=3))
    assert s.gave.sum() == 0 and s.received.sum() == 0
    assert "pass" not in legal(eng, s)


# ------------------------------------------------------------------------------ 7. first lead


def test_the_holder_of_the_3_of_clubs_leads_and_need_not_play_it() -> None:
    eng, s = start(Rules(), ["4c 9d", "5c", "3c 9c", "6c"])
    expect(eng, s, {"current": 2, "legal": {"single 3", "single 9"}})
    play(eng, s, [("single 9", {"current": 3, "hands": ["4c 9d", "5c", "3c", "6c"]})])


def test_with_two_decks_the_first_seat_holding_a_3_of_clubs_leads() -> None:
    eng, s = start(Rules(num_players=7), ["4c", "5c", "6c", "3c 9c", "7c", "3c", "8c"])
    expect(eng, s, {"current": 3})


def test_if_nobody_holds_the_3_of_clubs_seat_0_leads() -> None:
    eng, s = start(Rules(), ["4c", "5c", "3d 6c", "7c"])
    expect(eng, s, {"current": 0, "legal": {"single 4"}})


@pytest.mark.parametrize("r", [Rules(first_lead="seat0"), Rules.preset("cardverse")])
def test_seat0_leads_with_first_lead_seat0(r: Rules) -> None:
    eng, s = start(r, ["4c 9d", "5c", "3c 9c", "6c"])
    expect(eng, s, {"current": 0, "legal": {"single 4", "single 9"}})


@pytest.mark.parametrize("players", [3, 5, 7])
def test_seeded_first_deals_are_led_by_the_first_holder_of_the_3_of_clubs(players: int) -> None:
    for first_lead in ("three_of_clubs", "seat0"):
        eng = Engine(Rules(num_players=players, first_lead=first_lead))
        s = eng.init(np.arange(40))
        holders = np.argmax(s.hands[:, :, 0] > 0, axis=1)
        want = holders if first_lead == "three_of_clubs" else np.zeros(40)
        assert s.current.tolist() == want.tolist()


# ------------------------------------------------------------------------------ 8. titles, scores


def _play_to_deal_end(eng: Engine, s: State, rng: np.random.Generator) -> State:
    """Random legal actions until a deal ends."""
    for _ in range(5000):
        a = eng.sample_random(eng.legal_action_mask(s), rng)
        s = eng.step(s, a)
        if s.deal_over[0]:
            return s
    raise AssertionError("the deal did not end")


def test_titles_are_the_places_of_the_previous_deal() -> None:
    r = Rules(num_players=6, deals=2, exchange=False)
    eng, s = start(r, ["3c 9c Kc", "4c", "5c", "6c Qc", "7c", "8c"])
    assert s.title[0].tolist() == [-1] * 6
    s = moves(eng, s, ["single 3", "single 4", "single 5", "single 6", "single 7", "single 8"])
    # places so far: seat 1 first, then 2, 4, 5 (3 and 0 hold cards): seat 0 is next
    expect(eng, s, {"place": [-1, 0, 1, -1, 2, 3], "current": 0})
    s = play(eng, s, [("single 9", {"current": 3}), ("single Q", {"deal": 1})])
    # seat 3 went out fifth: seat 0 is the Bum
    expect(eng, s, {"title": [5, 0, 1, 4, 2, 3], "place": [-1] * 6, "current": 0, "dealer": 0})


@pytest.mark.parametrize(
    "players, scoring, points",
    [
        (4, "places", [4, 3, 2, 1]),
        (3, "places", [3, 2, 1]),
        (6, "places", [6, 5, 4, 3, 2, 1]),
        (4, "president_vp", [2, 1, 0, 0]),
        (5, "president_vp", [2, 1, 0, 0, 0]),
        (3, "president_vp", [2, 0, 0]),  # no Vice-President with 3 players
        (4, "tally", [1, 0, 0, 0]),
        (3, "tally", [1, 0, 0]),
    ],
)
def test_scoring_per_deal_and_over_deals(
    players: int, scoring: Scoring, points: list[int]
) -> None:
    r = Rules(num_players=players, scoring=scoring, deals=2)
    eng, s = finish_first_deal_in_seat_order(r, 1)
    expect(eng, s, {"scores": points, "deal": 1, "phase": PHASE_EXCHANGE})
    linear = [1 - 2 * q / (players - 1) for q in range(players)]
    assert rewards(eng, s) == pytest.approx(linear)
    s = _play_to_deal_end(eng, s, np.random.default_rng(0))
    assert s.phase[0] == PHASE_DONE and s.current[0] == -1
    second = [points[q] for q in s.place[0]]
    assert s.scores[0].tolist() == [a + b for a, b in zip(points, second)]
    assert s.title[0].tolist() == s.place[0].tolist()
    assert rewards(eng, s) == pytest.approx([linear[q] for q in s.place[0]])
    assert not eng.legal_action_mask(s).any()
    # final standings: by cumulative score, ties broken by the last deal's place
    scores, last = s.scores[0].tolist(), s.place[0].tolist()
    order = sorted(range(players), key=lambda q: (-scores[q], last[q]))
    assert eng.standings(s)[0].tolist() == [order.index(q) for q in range(players)]


@pytest.mark.parametrize("deals", [1, 2, 5])
def test_the_game_ends_after_deals_deals(deals: int) -> None:
    r = Rules(num_players=4, deals=deals)
    eng = Engine(r)
    s = eng.init(np.array([17]))
    rng = np.random.default_rng(1)
    for d in range(deals):
        assert s.deal[0] == d and s.phase[0] != PHASE_DONE
        s = _play_to_deal_end(eng, s, rng)
    assert s.phase[0] == PHASE_DONE
    assert int(s.scores[0].sum()) == deals * (4 + 3 + 2 + 1)


def test_the_target_score_ends_the_game_once_the_deal_is_completed() -> None:
    r = Rules(scoring="president_vp", target_score=2, deals=10)
    eng, s = start(r, ["3c", "4c", "5c", "6c 7c"])
    play(
        eng,
        s,
        [
            # seat 0 will be President (2 points) but the deal is played out first
            ("single 3", {"phase": PHASE_PLAY, "scores": [0, 0, 0, 0], "place": [0, -1, -1, -1]}),
            ("single 4", {"phase": PHASE_PLAY}),
            ("single 5", {"phase": PHASE_DONE, "scores": [2, 1, 0, 0], "deal": 0, "current": -1,
                          "deal_over": True}),
        ],
    )  # fmt: skip


@pytest.mark.parametrize("scoring, target", [("president_vp", 5), ("places", 9), ("tally", 2)])
def test_the_game_ends_at_the_first_deal_end_reaching_the_target(
    scoring: Scoring, target: int
) -> None:
    r = Rules(scoring=scoring, target_score=target, deals=50)
    eng = Engine(r)
    for seed in range(3):
        s = eng.init(np.array([seed]))
        rng = np.random.default_rng(seed)
        while True:
            s = _play_to_deal_end(eng, s, rng)
            reached = int(s.scores[0].max()) >= target
            assert (s.phase[0] == PHASE_DONE) == reached
            if reached:
                break
        assert int(s.scores[0].max()) < target + (4 if scoring == "places" else 2)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_plays_one_deal_by_default(name: str) -> None:
    r = Rules.preset(name)
    eng = Engine(r)
    s = eng.init(np.array([3]))
    s = _play_to_deal_end(eng, s, np.random.default_rng(3))
    assert s.phase[0] == PHASE_DONE and s.deal[0] == 0
    assert r.target_score is None


# ------------------------------------------------------------------------------ 11. decisions


def test_a_set_of_2s_with_a_joker_clears_like_a_pair_of_2s() -> None:
    eng, s = start(Rules(jokers=1), ["3c 2h JK 5c", "4c", "5d", "6c"])
    play(eng, s, [("pair of 2", {"current": 0, "pile": "empty", "hands": ["3c 5c", "4c", "5d", "6c"]})])
    r = Rules(jokers=1, revolution=True, first_lead="seat0")
    eng, s = start(r, ["9c 9d 9h 9s 3h JK 5c", "4c", "5d", "6c"])
    s = moves(eng, s, ["four 9s", "pass", "pass", "pass"])
    play(eng, s, [("pair of 3", {"current": 0, "pile": "empty", "revolution": True})])


def test_a_jokers_only_set_never_clears() -> None:
    eng, s = start(Rules(jokers=2, eight_clears=True), ["3c JK JK", "4c", "5d", "6c"])
    play(eng, s, [("2 jokers", {"current": 1, "pile": "2 jokers", "legal": {"pass"}})])


@pytest.mark.parametrize("allow_equal", [False, True])
def test_a_jokers_only_set_follows_an_equal_one_only_with_allow_equal(allow_equal: bool) -> None:
    r = Rules(decks=2, jokers=2, allow_equal=allow_equal)
    eng, s = start(r, ["3c JK JK", "JK JK 4c", "5d", "6c"])
    answers = {"pass", "2 jokers"} if allow_equal else {"pass"}
    play(eng, s, [("2 jokers", {"current": 1, "legal": answers})])
    eng, s = start(Rules(jokers=2, allow_equal=allow_equal), ["3c JK", "JK 4c", "5d", "6c"])
    answers = {"pass", "single joker"} if allow_equal else {"pass"}
    play(eng, s, [("single joker", {"current": 1, "legal": answers})])


def test_when_more_naturals_are_held_the_lowest_suits_are_played() -> None:
    eng, s = start(Rules(runs=True), ["3c 5c 5h 6h 7h", "4c", "4d", "4h"])
    s = play(eng, s, [("single 5", {"hands": ["3c 5h 6h 7h", "4c", "4d", "4h"]})])
    s = moves(eng, s, ["pass", "pass", "pass"])
    assert "run 5-6-7 of hearts" in legal(eng, s)
    eng, s = start(Rules(num_players=7), ["3c 9c 9c 9d", "4c", "5c", "6c", "7c", "8c", "10c"])
    play(eng, s, [("pair of 9", {"hands": ["3c 9d", "4c", "5c", "6c", "7c", "8c", "10c"]})])


def test_given_hands_need_not_make_up_the_pack_but_must_fit_in_it() -> None:
    eng = Engine(Rules())
    s = eng.init_from_hands(["5c", "6c", "7c", "8c"])
    assert s.cards_left[0].tolist() == [1, 1, 1, 1]
    with pytest.raises(ValueError, match="pack holds"):
        eng.init_from_hands(["5c", "5c", "7c", "8c"])
    with pytest.raises(ValueError, match="pack holds"):
        eng.init_from_hands(["5c JK", "6c", "7c", "8c"])
    with pytest.raises(ValueError, match="at least one card"):
        eng.init_from_hands(["5c", "", "7c", "8c"])
    with pytest.raises(ValueError, match="4 hands"):
        eng.init_from_hands(["5c", "6c", "7c"])
    with pytest.raises(ValueError):
        eng.init_from_hands(["5x", "6c", "7c", "8c"])


def test_card_ids_in_the_tests_match_the_encoding() -> None:
    assert parse_card("3c") == 0 and parse_card("2s") == 51 and parse_card("JK") == JOKER
    assert parse_hand("10h Ts")[Rank.TEN * 4 + Suit.HEARTS] == 1
    assert parse_hand("10h Ts")[Rank.TEN * 4 + Suit.SPADES] == 1


# ------------------------------------------------------------------------------ shared helpers


def test_take_cards_is_the_documented_choice_of_cards_for() -> None:
    """The engine's one statement of the cards an action takes equals ActionLayout.cards_for."""
    from president_env.core._kernels import take_cards

    for r in (Rules(runs=True, jokers=2), Rules(num_players=7, jokers=1, runs=True, deals=2)):
        eng = Engine(r)
        rng = np.random.default_rng(3)
        state = eng.init(rng.integers(0, 2**32, 8))
        out = np.empty(NUM_CARDS, np.int64)
        lay = eng.layout
        for hand in state.hands.reshape(-1, NUM_CARDS):
            for a in range(lay.num_actions):
                try:
                    want = lay.cards_for(a, hand)
                except ValueError:
                    continue  # the hand cannot make this play
                take_cards(hand, int(lay.kind[a]), int(lay.rank[a]), int(lay.size[a]),
                           int(lay.suit[a]), int(lay.card[a]), out)
                assert out.tolist() == want.tolist(), lay.name(a)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_advance_is_step_then_mask_then_observation(preset: str) -> None:
    eng = Engine(Rules.preset(preset, deals=2))
    rng = np.random.default_rng(5)
    for seed in range(3):
        one, ref = eng.init([seed]), eng.init([seed])
        mask = np.empty(eng.num_actions, np.int8)
        obs = np.empty(eng.obs_size, np.float32)
        cur = eng.advance(one, -1, mask, obs)
        while True:
            assert cur == int(ref.current[0])
            assert mask.tolist() == eng.legal_action_mask(ref)[0].astype(np.int8).tolist()
            assert obs.tolist() == eng.observe(ref, [max(cur, 0)])[0].tolist()
            if cur < 0:
                break
            a = int(rng.choice(np.flatnonzero(mask)))
            eng.step_inplace(ref, [a])
            cur = eng.advance(one, a, mask, obs)
            assert one.equals(ref)
    with pytest.raises(ValueError, match="one game"):
        eng.advance(eng.init([0, 1]), -1, mask, obs)
