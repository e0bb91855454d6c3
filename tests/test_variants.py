"""Hand-built scenarios of the further variants: RULES.md section 12, every bullet.

The same style as ``tests/test_scenarios.py``: each scenario starts from given hands and is a
table of steps ``(action, expected)``, an action name (``"four 9s"``, ``"run 5-6-7"``,
``"ask 2s"``) or id, and the exact value of fields *after* it (see :data:`CHECKS`), the legal
actions by name among them.

Every scenario runs on the batched engine and, once it implements the variants, on the plain
reference (:class:`~president_env.testing.reference.ReferenceGame`): the ``new_game`` fixture
gives both through one small interface (:class:`Game`), so a scenario states the rule once.

Deals after the first (the President's asks) use ``Rules(deals=2, ...)``: the first deal is
played out from given hands so that seat 0 is President and the last seat the Bum, and the
second deal is the seeded one (seeds are chosen for the Bum's hand), as in the exchange
scenarios of ``tests/test_scenarios.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import pytest
from test_scenarios import action_id, best_cards

from president_env.core.actions import ActionLayout
from president_env.core.cards import NUM_NATURAL, RANK_NAMES, card_name, format_hand, parse_card
from president_env.core.engine import Engine, State, deal_hands
from president_env.core.rules import RevolutionTiming, Rules
from president_env.testing import compare
from president_env.testing import reference_uecda as dealing_module  # the reference deals here
from president_env.testing.reference import ReferenceGame

# ------------------------------------------------------------------------------ two implementations

NEW_FIELDS = ("pending", "row_rank", "row_count", "asks_left", "asked", "ask_held")
"""The State fields of section 12 (the reference keeps attributes of the same names)."""


class Game(Protocol):
    """One game on either implementation: legal actions by name, a step, a view of its state."""

    rules: Rules
    layout: ActionLayout

    def legal(self) -> set[str]: ...

    def step(self, action: str | int) -> None: ...

    def view(self) -> dict[str, Any]: ...


def _plain(value: Any) -> Any:
    return value.tolist() if isinstance(value, np.ndarray) else value


class EngineGame:
    """A batch of one game on the compiled engine."""

    def __init__(self, rules: Rules, hands: Sequence[str], seed: int = 0) -> None:
        self.rules = rules
        self.eng = Engine(rules)
        self.layout = self.eng.layout
        self.state: State = self.eng.init_from_hands(list(hands), seed=seed)

    def legal(self) -> set[str]:
        mask = self.eng.legal_action_mask(self.state)[0]
        return {self.layout.name(int(a)) for a in np.flatnonzero(mask)}

    def step(self, action: str | int) -> None:
        a = action_id(self.layout, action)
        self.state = self.eng.step(self.state, np.array([a]))

    def view(self) -> dict[str, Any]:
        out = compare.engine_view(self.state, 0)
        for name in NEW_FIELDS:
            out[name] = _plain(getattr(self.state, name)[0])
        return out

    def redeal(self, hands: Sequence[str]) -> None:
        """Start the current (later) deal again from given hands: the exchange included.

        No play reaches some positions of a later deal (a Bum holding one card), so this runs
        the engine's own start of a deal on the hands given."""
        from president_env.core._kernels import _deal, parse_hands

        assert int(self.state.deal[0]) > 0
        self.state.hands[:] = parse_hands(self.rules, list(hands))
        _deal.start_deal(self.eng._rp, self.state.arrays(), 0, False)


class RefGame:
    """One game on the plain reference."""

    def __init__(self, rules: Rules, hands: Sequence[str], seed: int = 0) -> None:
        self.rules = rules
        self.ref = ReferenceGame(rules, hands=compare.as_hands(list(hands)), seed=seed)
        self.layout = self.ref.layout

    def legal(self) -> set[str]:
        return {self.layout.name(a) for a in self.ref.legal_actions()}

    def step(self, action: str | int) -> None:
        self.ref.step(action_id(self.layout, action))

    def view(self) -> dict[str, Any]:
        out = compare.reference_view(self.ref)
        for name in NEW_FIELDS:
            out[name] = _plain(getattr(self.ref, name))
        return out


def _reference_has_variants() -> bool:
    game = ReferenceGame(Rules(revolution=True, revolution_timing="next_trick"))
    return all(hasattr(game, name) for name in NEW_FIELDS)


NewGame = Callable[..., Game]


@pytest.fixture(params=["engine", "reference"])
def new_game(request: pytest.FixtureRequest) -> NewGame:
    """``new_game(rules, hands, seed=0)``: a game on the engine, then on the reference."""
    if request.param == "engine":
        return EngineGame
    if not _reference_has_variants():
        pytest.skip("the reference does not implement the section 12 variants yet")
    return RefGame


# ------------------------------------------------------------------------------ checks


def pile(g: Game) -> str:
    """The top play in words: "empty", "pair of 9", "2 jokers", "run 5-6-7"."""
    v = g.view()
    kind, rank, size = v["pile_kind"], v["pile_rank"], v["pile_size"]
    if kind == 0:
        return "empty"
    if kind == 1:
        return g.layout.name(g.layout.set_action(rank, size))
    if kind == 2:
        return g.layout.name(g.layout.jokers_action(size))
    return "run " + "-".join(RANK_NAMES[rank : rank + size])


def _cards(view_rows: Any) -> list[str]:
    return [format_hand(np.asarray(row)) for row in view_rows]


def _asked(v: dict[str, Any]) -> list[str | None]:
    return [card_name(c) if c >= 0 else None for c in v["asked"]]


def _row(v: dict[str, Any]) -> tuple[str | None, int]:
    """The row of singles (western): its rank's name (None: no row) and its count."""
    r = v["row_rank"]
    return (RANK_NAMES[r] if r >= 0 else None, v["row_count"])


def _viewed(fn: Callable[[dict[str, Any]], Any]) -> Callable[[Game], Any]:
    return lambda g: fn(g.view())


CHECKS: dict[str, Callable[[Game], Any]] = {
    "legal": lambda g: g.legal(),
    "pile": pile,
    "hands": _viewed(lambda v: _cards(v["hands"])),
    "current": _viewed(lambda v: v["current"]),
    "passed": _viewed(lambda v: [q for q, p in enumerate(v["passed"]) if p]),
    "revolution": _viewed(lambda v: bool(v["revolution"])),
    "pending": _viewed(lambda v: bool(v["pending"])),
    "row": _viewed(_row),
    "place": _viewed(lambda v: v["place"]),
    "last_player": _viewed(lambda v: v["last_player"]),
    "phase": _viewed(lambda v: v["phase"]),
    "title": _viewed(lambda v: v["title"]),
    "deal": _viewed(lambda v: v["deal"]),
    "dealer": _viewed(lambda v: v["dealer"]),
    "deal_over": _viewed(lambda v: bool(v["deal_over"])),
    "to_return": _viewed(lambda v: v["to_return"]),
    "cards_left": _viewed(lambda v: [int(sum(h)) for h in v["hands"]]),
    "asks_left": _viewed(lambda v: v["asks_left"]),
    "asked": _viewed(_asked),
    "ask_held": _viewed(lambda v: v["ask_held"]),
    "received": _viewed(lambda v: _cards(v["received"])),
    "gave": _viewed(lambda v: _cards(v["gave"])),
    "played": _viewed(
        lambda v: {(RANK_NAMES[r] if r < 13 else "JK"): n for r, n in enumerate(v["played"]) if n},
    ),
}

Step = tuple["str | int", dict[str, Any]]


def expect(g: Game, want: dict[str, Any], where: str = "") -> None:
    for key, value in want.items():
        got = CHECKS[key](g)
        assert got == value, f"{where}{key}: got {got!r}, expected {value!r}"


def play(g: Game, steps: Sequence[Step]) -> None:
    """Take every step in turn and check the expected fields after it."""
    for i, (action, want) in enumerate(steps):
        assert action_id(g.layout, action) in {
            action_id(g.layout, n) for n in g.legal()
        }, f"step {i} ({action!r}) is not legal: {sorted(g.legal())}"
        g.step(action)
        expect(g, want, where=f"step {i} ({action!r}): ")


def moves(g: Game, actions: Sequence[str | int]) -> None:
    """Take actions without checks (to reach a position)."""
    for action in actions:
        g.step(action)


def runs_of(g: Game) -> set[str]:
    return {a for a in g.legal() if a.startswith("run")}


# ------------------------------------------------------------------------------ 12. options


@pytest.mark.parametrize(
    "options, parent",
    [
        (dict(revolution_timing="next_trick"), "revolution"),
        (dict(western_revolution=True), "revolution"),
        (dict(runs_mixed_suits=True), "runs"),
        (dict(max_run_length=5), "runs"),
        (dict(president_asks=True), "exchange"),
        (dict(president_asks=True, deals=3, exchange=False), "exchange"),
    ],
)
def test_a_refinement_is_refused_without_its_parent(options: dict[str, Any], parent: str) -> None:
    with pytest.raises(ValueError, match=parent):
        Rules(**options)


def test_the_variants_are_off_by_default_and_combine() -> None:
    r = Rules()
    values = (r.revolution_timing, r.western_revolution, r.bombs, r.runs_mixed_suits,
              r.max_run_length, r.president_asks)  # fmt: skip
    assert values == ("immediate", False, None, False, None, False)
    every = Rules(revolution=True, revolution_timing="next_trick", western_revolution=True,
                  bombs=4, runs=True, runs_mixed_suits=True, max_run_length=5, deals=2,
                  president_asks=True, jokers=2, allow_equal=True, pass_is_final=True)  # fmt: skip
    g = EngineGame(every, ["3c 4d 5h 6s 7c 8d 9h 9s 9c 9d JK", "4c", "5c", "6c"])
    assert "run 3-4-5-6-7" in g.legal() and "5 x 9" in g.legal()
    assert "run 3-4-5-6-7-8" not in g.layout.names()


# ------------------------------------------------------------------------------ 12. timing

NT: dict[str, Any] = dict(revolution=True, revolution_timing="next_trick", first_lead="seat0")


def test_next_trick_a_revolution_is_pending_until_all_others_pass(new_game: NewGame) -> None:
    g = new_game(
        Rules(**NT),
        ["9c 9d 9h 9s 5c 6h", "10c 10d 10h 10s 3c", "4c 4d 4s 4h Kc", "Jc Qd"],
    )
    expect(g, {"pending": False, "revolution": False})
    play(
        g,
        [
            # the order does not change in this trick: four 10s (not four 4s) are higher
            ("four 9s", {"pending": True, "revolution": False, "current": 1, "pile": "four 9s",
                         "legal": {"pass", "four 10s"}}),
            ("pass", {"current": 2, "pending": True, "legal": {"pass"}}),
            ("pass", {"current": 3, "pending": True, "legal": {"pass"}}),
            # the trick ends: the pending revolution takes effect
            ("pass", {"current": 0, "pile": "empty", "pending": False, "revolution": True,
                      "legal": {"single 5", "single 6"}}),
            ("single 5", {"current": 1, "legal": {"pass", "single 3"}}),
        ],
    )  # fmt: skip


def test_next_trick_two_revolutions_in_one_trick_cancel(new_game: NewGame) -> None:
    hands = ["9c 9d 9h 9s 5c", "10c 10d 10h 10s 3c", "Kc", "Qc"]
    g = new_game(Rules(**NT), hands)
    play(
        g,
        [
            ("four 9s", {"pending": True, "legal": {"pass", "four 10s"}}),
            ("four 10s", {"pending": False, "revolution": False, "current": 2,
                          "pile": "four 10s", "legal": {"pass"}}),
            ("pass", {"current": 3}),
            ("pass", {"current": 0, "legal": {"pass"}}),
            ("pass", {"current": 1, "pile": "empty", "pending": False, "revolution": False,
                      "legal": {"single 3"}}),
            ("single 3", {"current": 2, "legal": {"pass", "single K"}}),  # the usual order
        ],
    )  # fmt: skip
    # immediately, the four 9s reverse the order at once: the four 10s are lower
    g = new_game(Rules(revolution=True, first_lead="seat0"), hands)
    play(g, [("four 9s", {"revolution": True, "pending": False, "legal": {"pass"}})])


def test_next_trick_a_clearing_play_is_judged_in_the_old_order(new_game: NewGame) -> None:
    """Four 2s on four 9s: still the top rank (they clear), and a second revolution play."""
    g = new_game(Rules(**NT), ["9c 9d 9h 9s 5c", "2c 2d 2h 2s 3c", "Kc", "Qc"])
    play(
        g,
        [
            ("four 9s", {"pending": True, "legal": {"pass", "four 2s"}}),
            ("four 2s", {"pile": "empty", "current": 1, "pending": False, "revolution": False,
                         "legal": {"single 3"}}),
        ],
    )  # fmt: skip


@pytest.mark.parametrize("timing", ["immediate", "next_trick"])
def test_four_2s_clear_and_start_a_revolution_under_both_timings(
    new_game: NewGame, timing: RevolutionTiming
) -> None:
    r = Rules(revolution=True, revolution_timing=timing, first_lead="seat0")
    g = new_game(r, ["2c 2d 2h 2s 5c", "3c 8d", "4d Ks", "Jc Qd"])
    play(
        g,
        [
            ("four 2s", {"current": 0, "pile": "empty", "revolution": True, "pending": False,
                         "legal": {"single 5"}}),
            ("single 5", {"current": 1, "legal": {"pass", "single 3"}}),
        ],
    )  # fmt: skip


def test_next_trick_the_change_applies_before_the_next_leader_is_found(
    new_game: NewGame,
) -> None:
    """Western: the four 9s were seat 0's last cards; play still goes to the left in their
    trick, and the leader of the next is found to the right (seat 3, not seat 1)."""
    r = Rules(western_revolution=True, **NT)
    g = new_game(r, ["9c 9d 9h 9s", "Kc Qc", "Jc 10c", "4c 6c"])
    play(
        g,
        [
            ("four 9s", {"place": [0, -1, -1, -1], "pending": True, "revolution": False,
                         "current": 1, "legal": {"pass"}}),
            ("pass", {"current": 2}),
            ("pass", {"current": 3}),
            ("pass", {"pending": False, "revolution": True, "current": 3, "pile": "empty",
                      "legal": {"single 4", "single 6"}}),
            ("single 6", {"current": 2, "legal": {"pass"}}),  # to the right, 10 and J lower
        ],
    )  # fmt: skip


@pytest.mark.parametrize("western", [False, True])
def test_next_trick_nothing_is_pending_in_a_new_deal(new_game: NewGame, western: bool) -> None:
    """The four 9s start a (pending) revolution and end the deal: the next deal starts with
    nothing pending, in the usual order, to the left."""
    r = Rules(num_players=3, deals=2, exchange=False, western_revolution=western, **NT)
    g = new_game(r, ["3c", "9c 9d 9h 9s Ac", "4c Kc"], seed=4)
    moves(g, ["single 3", "single A", "pass"])
    expect(g, {"current": 1, "pile": "empty", "place": [0, -1, -1]})
    play(
        g,
        [
            ("four 9s", {"deal_over": True, "deal": 1, "title": [0, 1, 2], "dealer": 2,
                         "current": 2, "pending": False, "revolution": False,
                         "phase": "play", "pile": "empty"}),
        ],
    )  # fmt: skip
    lowest = min(g.legal(), key=lambda a: action_id(g.layout, a))  # a single of the lowest rank
    assert lowest.startswith("single")
    play(g, [(lowest, {"current": 0, "pending": False, "revolution": False})])


# ------------------------------------------------------------------------------ 12. western

WEST: dict[str, Any] = dict(revolution=True, western_revolution=True, first_lead="seat0")


def test_western_a_revolution_and_a_counter_revolution_turn_the_direction(
    new_game: NewGame,
) -> None:
    g = new_game(Rules(**WEST), ["9c 9d 9h 9s 5c", "Kc Qc", "Jc 10c", "4c 4d 4h 4s 6c"])
    play(
        g,
        [
            ("four 9s", {"revolution": True, "current": 3, "legal": {"pass", "four 4s"}}),
            # the counter-revolution: the usual order and direction again
            ("four 4s", {"revolution": False, "current": 0, "legal": {"pass"}}),
            ("pass", {"current": 1, "legal": {"pass"}}),
            ("pass", {"current": 2, "legal": {"pass"}}),
            ("pass", {"current": 3, "pile": "empty", "legal": {"single 6"}}),
            ("single 6", {"current": 0}),
        ],
    )


def test_western_the_next_leader_after_the_winner_went_out_is_to_the_right(
    new_game: NewGame,
) -> None:
    g = new_game(Rules(**WEST), ["9c 9d 9h 9s", "Kc Qc", "Jc 10c", "4c 6c"])
    play(
        g,
        [
            ("four 9s", {"revolution": True, "place": [0, -1, -1, -1], "current": 3}),
            ("pass", {"current": 2}),
            ("pass", {"current": 1}),
            ("pass", {"current": 3, "pile": "empty", "legal": {"single 4", "single 6"}}),
            ("single 6", {"current": 2}),
        ],
    )


def test_western_the_next_player_skips_those_out_to_the_right(new_game: NewGame) -> None:
    r = Rules(num_players=5, **WEST)
    g = new_game(r, ["9c 9d 9h 9s 3d", "Kc Qc", "Jc 10c", "4c 6c", "5c"])
    moves(g, ["single 3", "pass", "pass", "pass", "single 5", "pass", "pass", "pass", "pass"])
    expect(g, {"current": 0, "pile": "empty", "place": [-1, -1, -1, -1, 0]})
    play(g, [("four 9s", {"revolution": True, "current": 3})])  # seat 4 is out: skipped


def test_western_dealing_the_exchange_and_the_lead_do_not_turn(new_game: NewGame) -> None:
    """A deal ends in a Western revolution (play to the right); the next is dealt from the
    dealer's left, the President and then the Vice-President return cards, the Bum leads, and
    play goes to the left."""
    r = Rules(deals=2, **WEST)
    seed = 6
    g = new_game(r, ["9c 9d 9h 9s", "4c", "5c", "6c 7c"], seed=seed)
    play(
        g,
        [
            ("four 9s", {"revolution": True, "current": 3}),
            ("pass", {"current": 2}),
            ("pass", {"current": 1}),
            ("pass", {"current": 3, "pile": "empty"}),
            ("single 6", {"current": 2, "legal": {"pass", "single 5"}}),
            ("single 5", {"current": 1, "place": [0, -1, 1, -1]}),
            ("single 4", {"deal_over": True, "deal": 1, "title": [0, 2, 1, 3], "dealer": 3,
                          "revolution": False, "phase": "exchange", "current": 0,
                          "to_return": [2, 0, 1, 0]}),
        ],
    )  # fmt: skip
    dealt = deal_hands(r, seed, 1, 3).astype(np.int64)
    want = dealt.copy()
    for src, dst, n in ((3, 0, 2), (1, 2, 1)):
        for c in best_cards(dealt[src], n):
            want = _moved(want, src, dst, c)
    expect(g, {"hands": _text(want)})
    low = [card_name(int(c)) for c in np.flatnonzero(want[0])[:2]]
    vice = card_name(int(np.flatnonzero(want[2])[0]))
    play(
        g,
        [
            (f"give {low[0]}", {"current": 0}),
            (f"give {low[1]}", {"current": 2}),
            (f"give {vice}", {"current": 3, "phase": "play"}),
        ],
    )
    lowest = min(g.legal(), key=lambda a: action_id(g.layout, a))
    play(g, [(lowest, {"current": 0, "revolution": False})])


def test_western_four_singles_in_a_row_with_passes_between_them(new_game: NewGame) -> None:
    r = Rules(allow_equal=True, **WEST)
    g = new_game(r, ["5c 3c Kc", "5d 7c", "5h 8c", "5s 9c"])
    expect(g, {"row": (None, 0)})
    play(
        g,
        [
            ("single 5", {"row": ("5", 1), "current": 1}),
            ("pass", {"row": ("5", 1), "current": 2, "passed": [1]}),
            ("single 5", {"row": ("5", 2), "current": 3, "passed": []}),
            ("single 5", {"row": ("5", 3), "current": 0}),
            ("pass", {"row": ("5", 3), "current": 1, "revolution": False}),
            # the fourth in a row, by anyone: a revolution, the count starts again; play turns
            # to the right of seat 1
            ("single 5", {"row": (None, 0), "revolution": True, "current": 0,
                          "pile": "single 5", "legal": {"pass", "single 3"}}),
        ],
    )  # fmt: skip


def test_western_a_single_of_another_rank_starts_a_new_row(new_game: NewGame) -> None:
    r = Rules(allow_equal=True, **WEST)
    g = new_game(r, ["5c 6c 3c", "5d 6d 4c", "6h 8c", "6s 9c"])
    play(
        g,
        [
            ("single 5", {"row": ("5", 1)}),
            ("single 5", {"row": ("5", 2)}),
            ("single 6", {"row": ("6", 1), "revolution": False}),
            ("single 6", {"row": ("6", 2), "current": 0}),
            ("single 6", {"row": ("6", 3), "current": 1}),
            ("single 6", {"row": (None, 0), "revolution": True, "current": 0,
                          "legal": {"pass", "single 3"}}),
        ],
    )  # fmt: skip


def test_western_a_lone_joker_breaks_the_row_and_pairs_never_count(new_game: NewGame) -> None:
    r = Rules(allow_equal=True, jokers=1, **WEST)
    g = new_game(r, ["5c 3c", "5d 7c", "JK 8c", "5s 9c"])
    play(
        g,
        [
            ("single 5", {"row": ("5", 1)}),
            ("single 5", {"row": ("5", 2)}),
            ("single joker", {"row": (None, 0), "revolution": False, "current": 3,
                              "legal": {"pass"}}),
            ("pass", {"row": (None, 0)}),
        ],
    )  # fmt: skip
    # four 5s played as two pairs are not four singles; the end of a trick ends a row
    g = new_game(r, ["5c 5d 3c Kc", "5h 5s 7c", "8c 8d", "9c"])
    play(
        g,
        [
            ("pair of 5", {"row": (None, 0)}),
            ("pair of 5", {"row": (None, 0), "revolution": False, "current": 2}),
            ("pass", {}),
            ("pass", {}),
            ("pass", {"current": 1, "pile": "empty", "row": (None, 0)}),
        ],
    )
    g = new_game(r, ["5c 5d 3c Kc", "5h 5s 7c", "8c 8d", "9c"])
    moves(g, ["single 5", "single 5", "pass", "pass", "pass"])
    expect(g, {"current": 1, "pile": "empty", "row": (None, 0)})
    play(g, [("single 5", {"row": ("5", 1)})])  # not the third in a row: a new trick


def test_western_with_two_decks_the_eighth_single_in_a_row_revolts_again(
    new_game: NewGame,
) -> None:
    r = Rules(decks=2, allow_equal=True, **WEST)
    g = new_game(r, ["5c 5c 3c", "5d 5d 4c", "5h 5h 6c", "5s 5s 7c"])
    play(
        g,
        [
            ("single 5", {"current": 1}),
            ("single 5", {"current": 2}),
            ("single 5", {"current": 3, "row": ("5", 3)}),
            ("single 5", {"revolution": True, "row": (None, 0), "current": 2}),
            ("single 5", {"current": 1, "row": ("5", 1)}),
            ("single 5", {"current": 0, "row": ("5", 2)}),
            ("single 5", {"current": 3, "row": ("5", 3)}),
            ("single 5", {"revolution": False, "row": (None, 0), "current": 0,
                          "hands": ["3c", "4c", "6c", "7c"], "legal": {"pass"}}),
        ],
    )  # fmt: skip


def test_western_row_with_next_trick_is_pending_and_a_clear_applies_it(new_game: NewGame) -> None:
    r = Rules(allow_equal=True, western_revolution=True, **NT)
    hands = ["5c 2h 7c Kc", "5d 9c", "5h 10c", "5s Jc"]
    g = new_game(r, hands)
    play(
        g,
        [
            ("single 5", {}),
            ("single 5", {}),
            ("single 5", {"row": ("5", 3)}),
            # pending: still the usual order and direction in this trick
            ("single 5", {"row": (None, 0), "pending": True, "revolution": False,
                          "current": 0, "legal": {"pass", "single 7", "single K", "single 2"}}),
            # the 2 clears (the old order): the change takes effect as the trick ends
            ("single 2", {"pile": "empty", "pending": False, "revolution": True,
                          "current": 0}),
            ("single K", {"current": 3, "legal": {"pass", "single J"}}),  # to the right
        ],
    )  # fmt: skip
    # immediately: the fourth 5 turns play to the right of seat 3 at once
    g = new_game(Rules(allow_equal=True, **WEST), hands)
    moves(g, ["single 5", "single 5", "single 5"])
    play(g, [("single 5", {"revolution": True, "pending": False, "current": 2})])


def test_western_with_pass_is_final_a_passed_player_stays_out(new_game: NewGame) -> None:
    r = Rules(allow_equal=True, pass_is_final=True, **WEST)
    g = new_game(r, ["5c 5h 3c Kc", "5d 4c", "5s 6c", "7c 8c"])
    play(
        g,
        [
            ("single 5", {"current": 1}),
            ("single 5", {"current": 2}),
            ("single 5", {"current": 3, "row": ("5", 3)}),
            ("pass", {"current": 0, "passed": [3], "row": ("5", 3)}),
            # the fourth: play turns to the right, where seat 3 has passed
            ("single 5", {"revolution": True, "current": 2, "passed": [3], "legal": {"pass"}}),
            ("pass", {"current": 1, "passed": [2, 3], "legal": {"pass", "single 4"}}),
            ("pass", {"current": 0, "pile": "empty", "passed": [], "revolution": True}),
        ],
    )  # fmt: skip


# ------------------------------------------------------------------------------ 12. bombs


@pytest.mark.parametrize(
    "bombs, jokers, hand1, answers, bomb",
    [
        (4, 0, "5c 5d 5h 5s 3d", {"pass", "four 5s"}, "four 5s"),
        (5, 1, "5c 5d 5h 5s JK 3d", {"pass", "single joker", "5 x 5"}, "5 x 5"),
    ],
)
def test_a_bomb_goes_on_a_single_of_a_higher_rank_and_clears(
    new_game: NewGame, bombs: int, jokers: int, hand1: str, answers: set[str], bomb: str
) -> None:
    g = new_game(Rules(bombs=bombs, jokers=jokers), ["3c Kc Qc", hand1, "6c", "7c"])
    moves(g, ["single 3", "pass", "pass", "pass"])
    play(
        g,
        [
            ("single K", {"current": 1, "legal": answers}),
            (bomb, {"current": 1, "pile": "empty", "passed": [], "last_player": -1,
                    "legal": {"single 3"}, "hands": ["Qc", "3d", "6c", "7c"]}),
        ],
    )  # fmt: skip


def test_a_bomb_goes_on_a_bigger_set_of_a_higher_rank(new_game: NewGame) -> None:
    g = new_game(Rules(bombs=4), ["Kc Kd Kh 3c", "4c 4d 4h 4s 6c", "7c", "8c"])
    play(
        g,
        [
            ("three Ks", {"current": 1, "legal": {"pass", "four 4s"}}),
            ("four 4s", {"current": 1, "pile": "empty", "legal": {"single 6"}}),
        ],
    )
    # bombs of 5 with two decks: four Ks stay on the pile (no bomb), five 4s go on them
    g = new_game(Rules(decks=2, bombs=5), ["Kc Kd Kh Ks 3c", "4c 4c 4d 4d 4h 6c", "7c", "8c"])
    play(
        g,
        [
            ("four Ks", {"current": 1, "pile": "four Ks", "legal": {"pass", "5 x 4"}}),
            ("5 x 4", {"current": 1, "pile": "empty", "legal": {"single 6"}}),
        ],
    )


def test_a_bomb_goes_on_a_longer_run(new_game: NewGame) -> None:
    r = Rules(runs=True, bombs=4)
    g = new_game(r, ["3c 4c 5c 6c 7c 9d", "Jc Jd Jh Js 8h", "7h", "8c"])
    play(
        g,
        [
            ("run 3-4-5-6-7 of clubs", {"current": 1, "legal": {"pass", "four Js"}}),
            ("four Js", {"current": 1, "pile": "empty", "legal": {"single 8"}}),
        ],
    )


def test_a_bomb_goes_on_a_jokers_only_set_and_a_jokers_only_bomb_clears(
    new_game: NewGame,
) -> None:
    g = new_game(Rules(jokers=2, bombs=4), ["JK JK 3c", "4c 4d 4h 4s 6c", "7c", "8c"])
    play(
        g,
        [
            ("2 jokers", {"current": 1, "pile": "2 jokers", "legal": {"pass", "four 4s"}}),
            ("four 4s", {"current": 1, "pile": "empty", "legal": {"single 6"}}),
        ],
    )
    # four jokers alone: a bomb too, on a single 3, and it clears (unlike section 11)
    r = Rules(decks=2, jokers=2, bombs=4)
    g = new_game(r, ["3c 9c", "JK JK JK JK 6c", "7c", "8c"])
    play(
        g,
        [
            ("single 3", {"current": 1, "legal": {"pass", "single 6", "single joker", "four 6s",
                                                  "5 x 6", "4 jokers"}}),
            ("4 jokers", {"current": 1, "pile": "empty", "legal": {"single 6"},
                          "played": {"3": 1, "JK": 4}}),
        ],
    )  # fmt: skip


def test_a_bomb_may_lead_and_clears_at_once(new_game: NewGame) -> None:
    g = new_game(Rules(bombs=4, first_lead="seat0"), ["5c 5d 5h 5s 3c", "4c", "6c", "7c"])
    expect(g, {"legal": {"single 3", "single 5", "pair of 5", "three 5s", "four 5s"}})
    play(g, [("four 5s", {"current": 0, "pile": "empty", "legal": {"single 3"}})])
    r = Rules(decks=2, jokers=2, bombs=4)
    g = new_game(r, ["3c JK JK JK JK", "4c", "6c", "7c"])
    play(g, [("4 jokers", {"current": 0, "pile": "empty", "legal": {"single 3"}})])


def test_a_bomb_of_the_last_cards_lets_the_next_holder_lead(new_game: NewGame) -> None:
    g = new_game(Rules(bombs=4), ["Kc 3c", "5c 5d 5h 5s", "6c", "7c"])
    moves(g, ["single 3"])
    play(
        g,
        [
            ("four 5s", {"place": [-1, 0, -1, -1], "pile": "empty", "current": 2,
                         "legal": {"single 6"}}),
        ],
    )  # fmt: skip


@pytest.mark.parametrize("timing", ["immediate", "next_trick"])
def test_a_western_bomb_of_the_last_cards_lets_the_holder_to_the_right_lead(
    new_game: NewGame, timing: RevolutionTiming
) -> None:
    r = Rules(bombs=4, revolution_timing=timing, **WEST)
    g = new_game(r, ["3c Kc", "5c 5d 5h 5s", "6c", "7c"])
    moves(g, ["single K"])
    play(
        g,
        [
            ("four 5s", {"place": [-1, 0, -1, -1], "pile": "empty", "revolution": True,
                         "pending": False, "current": 0, "legal": {"single 3"}}),
            ("single 3", {"current": 3}),
        ],
    )  # fmt: skip


@pytest.mark.parametrize("timing", ["immediate", "next_trick"])
def test_a_bomb_revolts_in_effect_from_the_next_trick(
    new_game: NewGame, timing: RevolutionTiming
) -> None:
    r = Rules(revolution=True, revolution_timing=timing, bombs=4, first_lead="seat0")
    g = new_game(r, ["Kc 3d", "5c 5d 5h 5s 8c", "9c", "4c Ac"])
    play(
        g,
        [
            ("single K", {"current": 1, "legal": {"pass", "four 5s"}}),
            ("four 5s", {"current": 1, "pile": "empty", "revolution": True, "pending": False,
                         "legal": {"single 8"}}),
            ("single 8", {"current": 2, "legal": {"pass"}}),
            ("pass", {"current": 3, "legal": {"pass", "single 4"}}),
        ],
    )  # fmt: skip


@pytest.mark.parametrize("final", [False, True])
def test_with_pass_is_final_a_player_who_passed_cannot_bomb(
    new_game: NewGame, final: bool
) -> None:
    r = Rules(bombs=4, pass_is_final=final)
    g = new_game(r, ["3c Kc Qc", "5c 5d 5h 5s 4c", "6c 9c", "7c 8c"])
    play(
        g,
        [
            ("single 3", {"legal": {"pass", "single 4", "single 5", "four 5s"}}),
            ("pass", {"current": 2, "passed": [1]}),
            ("single 6", {"current": 3}),
            ("single 7", {"current": 0}),
        ],
    )
    if not final:
        play(g, [("single K", {"current": 1, "legal": {"pass", "four 5s"}})])
        return
    play(
        g,
        [
            ("single K", {"current": 2, "passed": [1], "legal": {"pass"}}),
            ("pass", {"current": 3, "legal": {"pass"}}),
            ("pass", {"current": 0, "pile": "empty", "passed": []}),
        ],
    )


# ------------------------------------------------------------------------------ 12. mixed runs

MIXED: dict[str, Any] = dict(runs=True, runs_mixed_suits=True)


def test_mixed_runs_are_one_action_per_ranks(new_game: NewGame) -> None:
    g = new_game(Rules(**MIXED), ["3c 5h 6d 7c 9s", "4c", "5c", "6c"])
    assert sum(n.startswith("run") for n in g.layout.names()) == 66
    assert not any(" of " in n for n in g.layout.names() if n.startswith("run"))
    expect(g, {"legal": {"single 3", "single 5", "single 6", "single 7", "single 9",
                         "run 5-6-7"}})  # fmt: skip
    play(g, [("run 5-6-7", {"hands": ["3c 9s", "4c", "5c", "6c"], "pile": "run 5-6-7",
                            "current": 1, "legal": {"pass"}})])  # fmt: skip
    # jokers fill any place, but a run holds at least one natural card
    g = new_game(Rules(decks=2, jokers=2, **MIXED), ["3c JK JK JK", "4c", "5c", "6c"])
    assert runs_of(g) == {"run 3-4-5", "run 3-4-5-6"}


@pytest.mark.parametrize(
    "run, left, played",
    [
        ("run 5-6-7", "3c 5h 6s 7h JK", {"5": 1, "6": 1, "7": 1}),
        ("run 4-5-6", "3c 5h 6s 7c 7h", {"5": 1, "6": 1, "JK": 1}),
        ("run 5-6-7-8", "3c 5h 6s 7h", {"5": 1, "6": 1, "7": 1, "JK": 1}),
        ("run 3-4-5-6-7", "5h 6s 7h", {"3": 1, "5": 1, "6": 1, "7": 1, "JK": 1}),
    ],
)
def test_a_mixed_run_takes_the_lowest_suit_held_and_jokers_for_missing_ranks(
    new_game: NewGame, run: str, left: str, played: dict[str, int]
) -> None:
    g = new_game(Rules(jokers=1, **MIXED), ["3c 5h 5c 6s 6d 7h 7c JK", "4c", "5d", "6c"])
    assert runs_of(g) == {
        "run 3-4-5", "run 4-5-6", "run 5-6-7", "run 6-7-8",
        "run 3-4-5-6", "run 4-5-6-7", "run 5-6-7-8", "run 3-4-5-6-7",
    }  # fmt: skip
    play(g, [(run, {"hands": [left, "4c", "5d", "6c"], "played": played})])


@pytest.mark.parametrize(
    "allow_equal, answers",
    [
        (False, {"pass", "run 6-7-8", "run 7-8-9"}),
        (True, {"pass", "run 5-6-7", "run 6-7-8", "run 7-8-9"}),
    ],
)
def test_a_mixed_run_follows_a_run_with_a_lower_top_card(
    new_game: NewGame, allow_equal: bool, answers: set[str]
) -> None:
    r = Rules(allow_equal=allow_equal, **MIXED)
    g = new_game(r, ["3c 5c 6c 7c", "4h 5d 6d 7s 8h 9c Kd", "Qs", "10s"])
    play(
        g,
        [
            ("run 5-6-7", {"current": 1, "legal": answers}),
            ("run 6-7-8", {"hands": ["3c", "4h 5d 9c Kd", "Qs", "10s"], "pile": "run 6-7-8",
                           "current": 2, "legal": {"pass"}}),
        ],
    )  # fmt: skip


def test_a_mixed_run_through_the_8_clears_with_eight_clears(new_game: NewGame) -> None:
    r = Rules(eight_clears=True, **MIXED)
    g = new_game(r, ["3c 7h 8c 9d", "4c", "5c", "6c"])
    play(g, [("run 7-8-9", {"current": 0, "pile": "empty", "legal": {"single 3"}})])
    g = new_game(r, ["3c 5h 6d 7d", "4c", "5c", "6c"])
    play(g, [("run 5-6-7", {"current": 1, "pile": "run 5-6-7"})])


def test_during_a_revolution_mixed_runs_compare_their_bottom_card(new_game: NewGame) -> None:
    r = Rules(revolution=True, first_lead="seat0", **MIXED)
    g = new_game(r, ["10c 10d 10h 10s 5c 6d 7h", "4d 5h 6s 7c 8d", "9s", "Js"])
    moves(g, ["four 10s", "pass", "pass", "pass"])
    expect(g, {"revolution": True, "current": 0})
    play(g, [("run 5-6-7", {"current": 1, "legal": {"pass", "run 4-5-6"}})])


# ------------------------------------------------------------------------------ 12. run length


def test_runs_longer_than_the_limit_are_no_action(new_game: NewGame) -> None:
    g = new_game(Rules(runs=True, max_run_length=4), ["3c 3h 4h 5h 6h 7h", "4c", "5c", "6c"])
    assert sum(n.startswith("run") for n in g.layout.names()) == 4 * (11 + 10)
    assert "run 3-4-5-6-7 of hearts" not in g.layout.names()
    expect(
        g,
        {"legal": {"single 3", "pair of 3", "single 4", "single 5", "single 6", "single 7",
                   "run 3-4-5 of hearts", "run 4-5-6 of hearts", "run 5-6-7 of hearts",
                   "run 3-4-5-6 of hearts", "run 4-5-6-7 of hearts"}},
    )  # fmt: skip
    # mixed suits: the same limit
    r = Rules(runs=True, runs_mixed_suits=True, max_run_length=3)
    g = new_game(r, ["3c 4d 5h 6s", "4c", "5c", "6c"])
    assert sum(n.startswith("run") for n in g.layout.names()) == 11
    assert runs_of(g) == {"run 3-4-5", "run 4-5-6"}


@pytest.mark.parametrize(
    "limit, runs",
    [
        (None, {"run 4-5-6 of hearts", "run 5-6-7 of hearts", "run 6-7-8 of hearts",
                "run 4-5-6-7 of hearts", "run 5-6-7-8 of hearts"}),
        (3, {"run 4-5-6 of hearts", "run 5-6-7 of hearts", "run 6-7-8 of hearts"}),
    ],
)  # fmt: skip
def test_jokers_count_in_the_length_of_a_run(
    new_game: NewGame, limit: int | None, runs: set[str]
) -> None:
    r = Rules(runs=True, jokers=1, max_run_length=limit)
    g = new_game(r, ["5h 6h 7h JK", "4c", "5c", "6c"])
    assert runs_of(g) == runs


def test_shorter_runs_lead_and_follow_as_usual(new_game: NewGame) -> None:
    g = new_game(Rules(runs=True, max_run_length=3), ["3c 4c 5c 6c 9d", "5h 6h 7h 8h", "Qc", "Kc"])
    expect(g, {"legal": {"single 3", "single 4", "single 5", "single 6", "single 9",
                         "run 3-4-5 of clubs", "run 4-5-6 of clubs"}})  # fmt: skip
    play(
        g,
        [
            ("run 4-5-6 of clubs", {"current": 1, "pile": "run 4-5-6",
                                    "legal": {"pass", "run 5-6-7 of hearts",
                                              "run 6-7-8 of hearts"}}),
            ("run 6-7-8 of hearts", {"current": 2, "hands": ["3c 9d", "5h", "Qc", "Kc"]}),
        ],
    )  # fmt: skip


def test_with_a_limit_a_run_through_the_8_still_clears(new_game: NewGame) -> None:
    r = Rules(runs=True, max_run_length=3, eight_clears=True)
    g = new_game(r, ["3c 6h 7h 8h 9h", "4c", "5c", "6c"])
    assert runs_of(g) == {"run 6-7-8 of hearts", "run 7-8-9 of hearts"}
    play(g, [("run 7-8-9 of hearts", {"current": 0, "pile": "empty",
                                      "legal": {"single 3", "single 6"}})])  # fmt: skip


# ------------------------------------------------------------------------------ 12. asks

ASKS: dict[str, Any] = dict(deals=2, president_asks=True)
ALL_ASKS = {f"ask {card_name(c)}" for c in range(NUM_NATURAL)}


def finish_first_deal(new_game: NewGame, r: Rules, seed: int) -> Game:
    """A first deal that ends with places 0, 1, ..., P-1 by seat (the last seat is the Bum)."""
    p = r.num_players
    cards = ["3c", "4c", "5c", "6c", "7c", "8c", "9c", "10c"]
    g = new_game(r, cards[: p - 1] + [cards[p - 1] + " Jc"], seed=seed)
    for q in range(p - 1):
        g.step(f"single {RANK_NAMES[q]}")
    expect(g, {"title": list(range(p)), "deal": 1})
    return g


def _seed_where(r: Rules, want: Callable[[list[str]], bool]) -> int:
    """The first seed whose second deal gives the Bum (the last seat) a hand that ``want``s."""
    bum = r.num_players - 1
    for seed in range(20_000):
        if want(format_hand(deal_hands(r, seed, 1, bum)[bum]).split()):
            return seed
    raise AssertionError("no such seed")


def _gifts_of_vice_bum(r: Rules, seed: int) -> tuple[np.ndarray, str]:
    """The second deal's hands after the Vice-Bum's gift (4+ players), and that gift."""
    p = r.num_players
    hands = deal_hands(r, seed, 1, p - 1).astype(np.int64)
    gift = best_cards(hands[p - 2], 1)[0] if p >= 4 else -1
    if gift >= 0:
        hands[p - 2, gift] -= 1
        hands[1, gift] += 1
    return hands, card_name(gift) if gift >= 0 else ""


def _moved(hands: np.ndarray, src: int, dst: int, card: int) -> np.ndarray:
    out = hands.copy()
    out[src, card] -= 1
    out[dst, card] += 1
    return out


def _text(hands: np.ndarray) -> list[str]:
    return [format_hand(h) for h in hands]


def test_the_president_asks_twice_held_cards_go_else_the_best(new_game: NewGame) -> None:
    r = Rules(**ASKS)
    seed = _seed_where(r, lambda h: "Ac" in h and "2s" not in h)
    g = finish_first_deal(new_game, r, seed)
    hands, vice_gift = _gifts_of_vice_bum(r, seed)
    # the Vice-Bum's best card went to the Vice-President; the Bum's cards did not move
    expect(g, {"phase": "exchange", "current": 0, "asks_left": 2, "asked": [None, None],
               "ask_held": [-1, -1], "to_return": [0, 1, 0, 0], "hands": _text(hands),
               "received": ["", vice_gift, "", ""], "gave": ["", "", vice_gift, ""],
               "legal": ALL_ASKS})  # fmt: skip
    hands = _moved(hands, 3, 0, parse_card("Ac"))
    best = best_cards(hands[3], 1)[0]
    after = _moved(hands, 3, 0, best)
    got = format_hand(np.bincount([parse_card("Ac"), best], minlength=53))
    play(
        g,
        [
            ("ask Ac", {"phase": "exchange", "current": 0, "asks_left": 1,
                        "asked": ["Ac", None], "ask_held": [1, -1], "hands": _text(hands),
                        "to_return": [0, 1, 0, 0], "legal": ALL_ASKS,
                        "received": ["Ac", vice_gift, "", ""]}),
            # the 2 of spades is not there: the Bum's best card goes instead
            ("ask 2s", {"phase": "exchange", "current": 0, "asks_left": 0,
                        "asked": ["Ac", "2s"], "ask_held": [1, 0], "hands": _text(after),
                        "to_return": [2, 1, 0, 0], "received": [got, vice_gift, "", ""],
                        "gave": ["", "", vice_gift, got],
                        "legal": {f"give {c}" for c in format_hand(after[0]).split()}}),
        ],
    )  # fmt: skip


def test_after_the_asks_the_president_returns_two_then_the_vice_one(new_game: NewGame) -> None:
    r = Rules(**ASKS)
    seed = 3
    g = finish_first_deal(new_game, r, seed)
    moves(g, ["ask 3c", "ask 3c"])
    v = g.view()
    president, vice = np.asarray(v["hands"][0]), np.asarray(v["hands"][1])
    low, high = (card_name(int(c)) for c in np.flatnonzero(president)[[0, -1]])
    vice_card = card_name(int(np.flatnonzero(vice)[0]))
    play(
        g,
        [
            (f"give {low}", {"phase": "exchange", "current": 0, "to_return": [1, 1, 0, 0]}),
            (f"give {high}", {"phase": "exchange", "current": 1, "to_return": [0, 1, 0, 0],
                              "legal": {f"give {c}" for c in format_hand(vice).split()}}),
            (f"give {vice_card}", {"phase": "play", "current": 3, "to_return": [0, 0, 0, 0],
                                   "pile": "empty", "asks_left": 0,
                                   "cards_left": [13, 13, 13, 13]}),
        ],
    )  # fmt: skip
    v = g.view()
    assert _cards(v["gave"])[0] == format_hand(np.bincount(
        [parse_card(low), parse_card(high)], minlength=53))  # fmt: skip


def test_asking_the_same_card_twice(new_game: NewGame) -> None:
    r = Rules(**ASKS)
    seed = _seed_where(r, lambda h: "2c" in h)
    g = finish_first_deal(new_game, r, seed)
    hands, _ = _gifts_of_vice_bum(r, seed)
    hands = _moved(hands, 3, 0, parse_card("2c"))
    after = _moved(hands, 3, 0, best_cards(hands[3], 1)[0])
    play(
        g,
        [
            ("ask 2c", {"asked": ["2c", None], "ask_held": [1, -1], "hands": _text(hands)}),
            # one deck: the 2 of clubs is gone, so the best card goes
            ("ask 2c", {"asked": ["2c", "2c"], "ask_held": [1, 0], "hands": _text(after),
                        "asks_left": 0, "to_return": [2, 1, 0, 0]}),
        ],
    )  # fmt: skip


def test_with_two_decks_asking_twice_takes_both_copies(new_game: NewGame) -> None:
    r = Rules(decks=2, jokers=1, **ASKS)
    seed = _seed_where(r, lambda h: h.count("Kd") == 2)
    g = finish_first_deal(new_game, r, seed)
    hands, vice_gift = _gifts_of_vice_bum(r, seed)
    assert "ask joker" in g.legal() and g.legal() == ALL_ASKS | {"ask joker"}
    kd = parse_card("Kd")
    play(
        g,
        [
            ("ask Kd", {"asked": ["Kd", None], "ask_held": [1, -1],
                        "hands": _text(_moved(hands, 3, 0, kd))}),
            ("ask Kd", {"asked": ["Kd", "Kd"], "ask_held": [1, 1],
                        "hands": _text(_moved(_moved(hands, 3, 0, kd), 3, 0, kd)),
                        "received": ["Kd Kd", vice_gift, "", ""], "to_return": [2, 1, 0, 0]}),
        ],
    )  # fmt: skip


def test_asking_for_the_joker(new_game: NewGame) -> None:
    r = Rules(num_players=3, jokers=1, **ASKS)
    seed = _seed_where(r, lambda h: "JK" in h)
    g = finish_first_deal(new_game, r, seed)
    hands, _ = _gifts_of_vice_bum(r, seed)
    expect(g, {"current": 0, "to_return": [0, 0, 0], "asks_left": 2,
               "legal": ALL_ASKS | {"ask joker"}, "hands": _text(hands)})  # fmt: skip
    hands = _moved(hands, 2, 0, parse_card("JK"))
    play(
        g,
        [
            ("ask joker", {"asked": ["JK", None], "ask_held": [1, -1], "hands": _text(hands)}),
            # three players: no Vice; the President alone returns two
            ("ask 3c", {"to_return": [2, 0, 0], "asks_left": 0}),
        ],
    )


def test_a_bum_holding_one_card_is_asked_once(
    new_game: NewGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No seeded deal gives a Bum one card: the second deal's hands are given."""
    r = Rules(num_players=4, **ASKS)
    second = ["3c 4c 5c", "6c 7c 8c", "9c 10c 2d", "Kh"]
    given = compare.as_hands(second)
    assert given is not None

    def fake_deal(rules: Rules, seed: int, deal_no: int, dealer: int) -> np.ndarray:
        return given.copy() if deal_no == 1 else deal_hands(rules, seed, deal_no, dealer)

    monkeypatch.setattr(dealing_module, "deal_hands", fake_deal)
    g = finish_first_deal(new_game, r, 0)
    if isinstance(g, EngineGame):
        g.redeal(second)
    expect(g, {"phase": "exchange", "current": 0, "asks_left": 1, "to_return": [0, 1, 0, 0],
               "hands": ["3c 4c 5c", "6c 7c 8c 2d", "9c 10c", "Kh"],
               "legal": ALL_ASKS})  # fmt: skip
    play(
        g,
        [
            ("ask 2s", {"asks_left": 0, "asked": ["2s", None], "ask_held": [0, -1],
                        "to_return": [1, 1, 0, 0], "current": 0,
                        "hands": ["3c 4c 5c Kh", "6c 7c 8c 2d", "9c 10c", ""],
                        "legal": {"give 3c", "give 4c", "give 5c", "give Kh"}}),
            ("give 3c", {"current": 1, "to_return": [0, 1, 0, 0]}),
            ("give 6c", {"phase": "play", "current": 3, "hands": ["4c 5c Kh", "7c 8c 2d",
                                                                  "6c 9c 10c", "3c"]}),
        ],
    )  # fmt: skip
