"""What the players see of the further variants (``RULES.md`` section 12): the observation
blocks, the text and the pictures of the table, and game records.

* The six blocks appended after ``deal`` have size 0 when their option is off (the default
  observation is unchanged) and, with their option, hold exactly the public state: a pending
  revolution, the direction of play, the row of singles, the President's asks.
* Nothing hidden: shuffling the cards that the other seats hold among them (each keeps its
  count) does not change a seat's observation, under every new option.
* The text and the picture show what is new only with its option.
* Records of games with asks and suitless runs round-trip through JSON and replay.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from president_env.core.actions import Kind
from president_env.core.cards import NUM_CARDS, NUM_RANKS, RANK_NAMES, card_name
from president_env.core.engine import PHASE_DONE, PHASE_EXCHANGE, Engine, State
from president_env.core.observe import ObsBlock, ObservationLayout
from president_env.core.rules import Rules
from president_env.records import (
    GameRecord,
    GameRecorder,
    record_from_dict,
    record_from_json,
    replay,
)
from president_env.records.format import LATER_OPTIONS
from president_env.render import render_table
from president_env.render.picture import HEADER_H, MARGIN, PANEL_H, draw_table

NEW_BLOCKS = ("pending", "direction", "row", "asks_left", "asked", "ask_held", "lock")
UECDA_OPTIONS = ("runs_disjoint", "run_revolution", "play_on_own", "jack_back",
                 "six_reverses", "stalemate_passes", "exact_plays", "lock",
                 "spade_three_beats_joker", "run_joker_ends", "lead_may_pass",
                 "first_lead_every_deal", "deal_from", "title_reset_every",
                 "reseat_every")
"""The UECda server's options, which the ``all`` variants leave off."""

VARIANTS: dict[str, Rules] = {
    "next_trick": Rules(  # two decks: random players seldom hold and play four of a kind
        decks=2, jokers=1, allow_equal=True, revolution=True, revolution_timing="next_trick"
    ),
    "western": Rules(allow_equal=True, revolution=True, western_revolution=True),
    "bombs": Rules(jokers=2, revolution=True, bombs=4),
    "mixed_runs": Rules(runs=True, jokers=1, runs_mixed_suits=True),
    "max_run": Rules(runs=True, max_run_length=4),
    "asks": Rules(num_players=5, deals=3, president_asks=True),
    "all": Rules(
        num_players=5, allow_equal=True, revolution=True, runs=True, jokers=2, deals=3,
        revolution_timing="next_trick", western_revolution=True, bombs=4,
        runs_mixed_suits=True, max_run_length=5, president_asks=True,
    ),
    "all_two_decks": Rules(
        num_players=7, allow_equal=True, revolution=True, runs=True, jokers=1, deals=2,
        revolution_timing="next_trick", western_revolution=True, bombs=5,
        runs_mixed_suits=True, president_asks=True,
    ),
    "daifugo_full": Rules.preset("daifugo_full", num_players=6, deals=2),
}
"""Rules with each new option (and its parent), all of them, and the new preset."""


def walk(rules: Rules, seeds: int, seed: int = 0, max_steps: int = 4000) -> Iterator[State]:
    """The states of ``seeds`` random games played together, before every step."""
    engine = Engine(rules)
    state = engine.init(np.arange(seeds, dtype=np.uint64) + 1000 * seed)
    rng = np.random.default_rng(seed)
    for _ in range(max_steps):
        if (state.phase == PHASE_DONE).all():
            return
        yield state
        actions = engine.sample_random(engine.legal_action_mask(state), rng)
        actions[actions < 0] = 0
        engine.step_inplace(state, actions)
    raise AssertionError("the games did not end")


# ---------------------------------------------------------------------------- the layout
def test_the_new_blocks_have_size_zero_without_their_options() -> None:
    for rules in (Rules(), Rules.preset("daifugo", num_players=8), Rules(deals=3, runs=True)):
        layout = ObservationLayout(rules)
        assert all(layout.slices[n].start == layout.slices[n].stop == layout.size
                   for n in NEW_BLOCKS)
        assert layout.slices["deal"].stop == layout.size
        p = rules.num_players
        assert layout.size == 53 + 14 + 4 + 1 + 13 + 1 + 1 + 3 + 1 + 5 * p + 2 * p * p + 53 * 2 + 2
        assert list(layout.offsets()) == [layout.slices[b.name.lower()].start for b in ObsBlock]


@pytest.mark.parametrize(
    ("options", "sizes"),
    [
        (dict(revolution=True, revolution_timing="next_trick"), (1, 0, 0, 0, 0, 0, 0)),
        (dict(revolution=True, western_revolution=True), (0, 1, 14, 0, 0, 0, 0)),
        (dict(deals=2, president_asks=True), (0, 0, 0, 1, 53, 53, 0)),
        (dict(bombs=4, runs=True, runs_mixed_suits=True, max_run_length=3), (0,) * 7),
        (dict(exact_plays=True, lock=True), (0,) * 6 + (6,)),
    ],
)
def test_each_block_has_its_size_with_its_option(options: dict[str, Any], sizes: tuple[int, ...]
                                                 ) -> None:
    layout = ObservationLayout(Rules(**options))
    base = ObservationLayout(Rules(deals=options.get("deals", 1)))
    got = tuple(layout.slices[n].stop - layout.slices[n].start for n in NEW_BLOCKS)
    assert got == sizes
    assert layout.size == base.size + sum(sizes)
    later = (*NEW_BLOCKS, "jack_back", "pass_run", "seat_played", "seat_passed", "recent",
             "record")
    assert [layout.slices[n] for n in base.slices if n not in later] == [
        base.slices[n] for n in base.slices if n not in later
    ]  # the blocks of the default observation stay where they were


# ---------------------------------------------------------------------------- the content
def _expected(rules: Rules, state: State) -> dict[str, np.ndarray]:
    """The new blocks ``[B, n]`` from the state's fields (the same for every observer)."""
    b = np.arange(state.batch_size)
    out: dict[str, np.ndarray] = {}
    if rules.revolution_timing == "next_trick":
        out["pending"] = state.pending[:, None].astype(np.float32)
    if rules.western_revolution:
        out["direction"] = state.revolution[:, None].astype(np.float32)
        row = np.zeros((len(b), NUM_RANKS + 1), np.float32)
        has = state.row_rank >= 0
        row[b[has], state.row_rank[has]] = 1.0
        row[:, NUM_RANKS] = state.row_count / 4
        out["row"] = row
    if rules.president_asks:
        out["asks_left"] = state.asks_left[:, None].astype(np.float32)
        asked = np.zeros((len(b), NUM_CARDS), np.float32)
        held = np.zeros((len(b), NUM_CARDS), np.float32)
        for i in range(state.asked.shape[1]):
            made = state.asked[:, i] >= 0
            asked[b[made], state.asked[made, i]] += 1
            yes = made & (state.ask_held[:, i] == 1)
            held[b[yes], state.asked[yes, i]] += 1
        out["asked"], out["ask_held"] = asked, held
    return out


@pytest.mark.parametrize("name", ["next_trick", "western", "asks", "all", "all_two_decks"])
def test_the_blocks_hold_the_public_state_of_the_variants(name: str) -> None:
    rules = VARIANTS[name]
    engine = Engine(rules)
    layout = engine.obs_layout
    seen = {"pending": 0, "right": 0, "row": 0, "held": 0, "not held": 0, "asking": 0}
    for state in walk(rules, 24):
        expected = _expected(rules, state)
        assert len(expected) == sum(
            layout.slices[n].stop > layout.slices[n].start for n in NEW_BLOCKS
        )
        for seat in range(rules.num_players):
            obs = engine.observe(state, np.full(state.batch_size, seat))
            for block, want in expected.items():
                np.testing.assert_array_equal(obs[:, layout.slices[block]], want,
                                              err_msg=f"{block}, seat {seat}")
        seen["pending"] += int(state.pending.sum())
        seen["right"] += int(state.revolution.sum())
        seen["row"] += int((state.row_rank >= 0).sum())
        seen["held"] += int((state.ask_held == 1).sum())
        seen["not held"] += int((state.ask_held == 0).sum())
        seen["asking"] += int((state.asks_left > 0).sum())
    # the games reached the states the blocks describe (the test is not vacuous)
    if rules.revolution_timing == "next_trick":
        assert seen["pending"] > 0
    if rules.western_revolution:
        assert seen["right"] > 0 and seen["row"] > 0
    if rules.president_asks:
        assert seen["held"] > 0 and seen["not held"] > 0 and seen["asking"] > 0


def _shuffle_others(state: State, g: int, seat: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` in which the cards of every seat but ``seat`` in game ``g`` are
    dealt again among those seats at random, each keeping its number of cards."""
    out = state.copy()
    others = [q for q in range(state.num_players) if q != seat]
    cards = np.concatenate([np.repeat(np.arange(NUM_CARDS), out.hands[g, q]) for q in others])
    rng.shuffle(cards)
    start = 0
    for q in others:
        n = int(out.hands[g, q].sum())
        out.hands[g, q] = np.bincount(cards[start:start + n], minlength=NUM_CARDS)
        start += n
    return out


@pytest.mark.parametrize("name", list(VARIANTS))
def test_a_seats_observation_does_not_see_the_others_hidden_cards(name: str) -> None:
    rules = VARIANTS[name]
    engine = Engine(rules)
    rng = np.random.default_rng(7)
    changed = 0
    for k, state in enumerate(walk(rules, 8, seed=3)):
        if k % 5:
            continue
        for seat in range(rules.num_players):
            seats = np.full(state.batch_size, seat)
            before = engine.observe(state, seats)
            for g in range(state.batch_size):
                shuffled = _shuffle_others(state, g, seat, rng)
                changed += not np.array_equal(shuffled.hands, state.hands)
                after = engine.observe(shuffled, seats)
                assert np.array_equal(before, after), (
                    f"seat {seat} of game {g} sees the others' cards (step {k})"
                )
    assert changed > 0


# ---------------------------------------------------------------------------- text, pictures
def _find(rules: Rules, want: Any, seeds: int = 64) -> tuple[State, int]:
    """The first state of random games where ``want(state)`` (bool [B]) holds, and the game."""
    for state in walk(rules, seeds, seed=11):
        hits = np.flatnonzero(want(state))
        if len(hits):
            return state.copy(), int(hits[0])
    raise AssertionError("no such state")


def test_the_text_shows_a_pending_revolution_the_direction_and_the_row() -> None:
    rules = VARIANTS["all"]
    state, g = _find(rules, lambda s: s.pending & (s.row_rank >= 0) & (s.pile_kind != Kind.PASS))
    text = render_table(rules, state, g)
    pile_line = text.splitlines()[1]
    assert "revolution pending" in pile_line
    side = "right" if state.revolution[g] else "left"
    assert pile_line.endswith(f", play to the {side}")
    rank = RANK_NAMES[state.row_rank[g]]
    assert f"Row of singles: {rank} x {state.row_count[g]} (a revolution at 4)" in text
    flipped = state.copy()
    flipped.revolution[g] = not flipped.revolution[g]
    flipped.pending[g] = False
    flipped.row_rank[g], flipped.row_count[g] = -1, 0
    other = render_table(rules, flipped, g)
    assert "pending" not in other and "Row of singles" not in other
    assert f"play to the {'left' if side == 'right' else 'right'}" in other


def test_the_text_shows_the_asks_and_whether_the_bum_held_each_card() -> None:
    rules = VARIANTS["asks"]
    state, g = _find(rules, lambda s: (s.asks_left == 1) & (s.phase == PHASE_EXCHANGE))
    text = render_table(rules, state, g)
    first = card_name(int(state.asked[g, 0]))
    held = "held" if state.ask_held[g, 0] == 1 else "not held"
    assert f"Asks of the President: {first} ({held}); 1 left" in text
    president = int(state.current[g])
    assert f"> {president} " in text and "to act, asks 1" in text
    state.asked[g, 1], state.ask_held[g, 1], state.asks_left[g] = 51, 1, 0  # 51: 2s
    assert f"Asks of the President: {first} ({held}), 2s (held)" in render_table(rules, state, g)


def test_without_their_options_the_new_fields_are_not_shown() -> None:
    """The views read the new state fields only under their options: the same state with
    every new field set shows the same text and picture under rules without them."""
    rules = Rules.preset("daifugo", deals=2)
    state, g = _find(rules, lambda s: s.pile_kind != Kind.PASS)
    noisy = state.copy()
    noisy.pending[g], noisy.row_rank[g], noisy.row_count[g] = True, 4, 2
    noisy.asks_left[g], noisy.asked[g], noisy.ask_held[g] = 1, [12, -1], [0, -1]
    assert render_table(rules, noisy, g) == render_table(rules, state, g)
    assert np.array_equal(draw_table(rules, noisy, g), draw_table(rules, state, g))


def test_the_picture_shows_the_variants_in_the_pile_area() -> None:
    rules = VARIANTS["all"]
    state, g = _find(rules, lambda s: (s.row_rank >= 0) & (s.pile_kind != Kind.PASS))
    base = draw_table(rules, state, g)
    pile_top = HEADER_H + MARGIN + 2 * (PANEL_H + MARGIN)  # 5 players: two rows of panels
    hand_top = base.shape[0] - 114
    changes = {
        "pending": lambda s: s.pending.__setitem__(g, not s.pending[g]),
        "direction": lambda s: s.revolution.__setitem__(g, not s.revolution[g]),
        "row": lambda s: s.row_count.__setitem__(g, s.row_count[g] % 3 + 1),
        "asks": lambda s: (s.asked.__setitem__((g, 0), 5), s.ask_held.__setitem__((g, 0), 1)),
    }
    for name, change in changes.items():
        other = state.copy()
        change(other)
        rows = np.flatnonzero((base != draw_table(rules, other, g)).any(axis=(1, 2)))
        assert len(rows), f"{name} is not drawn"
        if name != "direction":  # a revolution also shows in the rank order (same area)
            assert rows.min() >= pile_top and rows.max() < hand_top, name


def test_an_asking_president_has_its_badge_and_the_pile_says_so() -> None:
    rules = VARIANTS["asks"]
    state, g = _find(rules, lambda s: (s.asks_left > 0) & (s.phase == PHASE_EXCHANGE))
    base = draw_table(rules, state, g)
    answered = state.copy()
    answered.asks_left[g] = 0
    rows = np.flatnonzero((base != draw_table(rules, answered, g)).any(axis=(1, 2)))
    assert len(rows) and rows.min() < HEADER_H + MARGIN + 2 * (PANEL_H + MARGIN)  # the badge


# ---------------------------------------------------------------------------- records
def _record_game(rules: Rules, seed: int) -> GameRecord:
    """One game that prefers runs and asks (when legal), recorded."""
    engine = Engine(rules)
    state = engine.init(np.array([seed], np.uint64))
    rec = GameRecorder(rules, state, players=[f"p{q}" for q in range(rules.num_players)])
    rng = np.random.default_rng(seed)
    kinds = engine.layout.kind
    while state.phase[0] != PHASE_DONE:
        legal = np.flatnonzero(engine.legal_action_mask(state)[0])
        liked = legal[np.isin(kinds[legal], (Kind.RUN, Kind.ASK))]
        action = int(rng.choice(liked if len(liked) and rng.random() < 0.8 else legal))
        seat = int(state.current[0])
        engine.step_inplace(state, np.array([action]))
        rec.add(seat, action)
    return rec.finish(state)


@pytest.mark.parametrize("name", ["mixed_runs", "max_run", "asks", "all", "all_two_decks",
                                  "daifugo_full"])
def test_records_of_the_variants_round_trip_and_replay(name: str) -> None:
    rules = VARIANTS[name]
    record = _record_game(rules, seed=5)
    text = record.to_json()
    back = record_from_json(text)  # parsed, replayed, its result compared
    assert back == record and back.rules == rules
    names = [s["name"] for s in record.to_dict()["steps"]]
    if rules.president_asks:
        asks = [n for n in names if n.startswith("ask ")]
        assert len(asks) == 2 * (rules.deals - 1)
    if rules.runs_mixed_suits:
        runs = [n for n in names if n.startswith("run ")]
        assert runs and not any(" of " in n for n in runs)
    if rules.max_run_length is not None:
        runs = [n for n in names if n.startswith("run ")]
        assert runs and all(n.count("-") < rules.max_run_length for n in runs)
    frames = list(replay(back))
    assert [f.name for f in frames] == names and frames[-1].game_over
    for f in frames:
        if f.name.startswith("ask "):
            assert f.cards == ""  # an ask takes nothing from the President's hand
    # a record whose ask names another card does not read
    doc = record.to_dict()
    k = next((i for i, n in enumerate(names) if n.startswith("ask ")), None)
    if k is not None:
        doc["steps"][k]["name"] = "ask 3c" if names[k] != "ask 3c" else "ask 4c"
        with pytest.raises(ValueError, match=f"step {k}:.*other rules"):
            record_from_dict(doc)


def test_a_mixed_suit_run_is_named_without_a_suit_even_with_its_cards() -> None:
    rules = VARIANTS["mixed_runs"]
    engine = Engine(rules)
    hand = np.zeros(NUM_CARDS, np.int8)
    hand[[4 * 2 + 0, 4 * 3 + 2, 4 * 4 + 3, 4 * 4 + 1]] = 1  # 5c 6h 7s 7d
    state = engine.init([0])
    action = engine.layout.run_action(-1, 2, 3)
    cards = engine.layout.cards_for(action, hand)
    assert engine.layout.name(action) == "run 5-6-7"
    assert sorted(np.flatnonzero(cards)) == [8, 14, 17]  # 7d: the lowest suit held
    state.pile_kind[0], state.pile_rank[0], state.pile_size[0], state.last_player[0] = (
        Kind.RUN, 2, 3, 0)
    text = render_table(rules, state, 0, pile_cards=cards)
    assert "Pile: run 5-6-7 (5c 6h 7d), played by seat 0; usual order" in text
    one_suit = Rules(runs=True, jokers=1)  # a run of one suit names it
    clubs = np.zeros(NUM_CARDS, np.int8)
    clubs[[8, 12, 16]] = 1
    assert "run 5-6-7 of clubs (5c 6c 7c)" in render_table(one_suit, state, 0, pile_cards=clubs)


@pytest.mark.parametrize(
    ("rules", "written"),
    [
        (Rules.preset("standard", num_players=3), ()),
        (Rules.preset("daifugo"), ()),
        (Rules.preset("daifugo_full"), ("revolution_timing", "bombs")),
        (Rules.preset("daifugo_full", bombs=None, revolution_timing="immediate"),
         ("revolution_timing", "bombs")),
        (VARIANTS["all"], tuple(n for n in LATER_OPTIONS
                                if n not in ("observation", *UECDA_OPTIONS))),
        (Rules(runs=True, runs_disjoint=True), ("runs_disjoint",)),
        (Rules(runs=True, revolution=True, run_revolution=5), ("run_revolution",)),
        (Rules(play_on_own=True), ("play_on_own",)),
        (Rules(jack_back=True), ("jack_back",)),
        (Rules(six_reverses=True), ("six_reverses",)),
        (Rules(stalemate_passes=20), ("stalemate_passes",)),
        (Rules(exact_plays=True), ("exact_plays",)),
        (Rules(exact_plays=True, lock=True), ("exact_plays", "lock")),
        (Rules(exact_plays=True, spade_three_beats_joker=True),
         ("exact_plays", "spade_three_beats_joker")),
        (Rules(runs=True, exact_plays=True, run_joker_ends=True),
         ("exact_plays", "run_joker_ends")),
        (Rules(stalemate_passes=20, lead_may_pass=True), ("stalemate_passes", "lead_may_pass")),
        (Rules(deals=2, first_lead_every_deal=True), ("first_lead_every_deal",)),
        (Rules(deal_from="president"), ("deal_from",)),
        (Rules(deals=3, title_reset_every=2), ("title_reset_every",)),
        (Rules(reseat_every=2), ("reseat_every",)),
        (Rules(runs=True, max_run_length=3), ("max_run_length",)),
        (Rules(observation="history"), ("observation",)),
    ],
)
def test_a_record_writes_the_later_options_only_where_they_matter(
    rules: Rules, written: tuple[str, ...]
) -> None:
    """Records of games without the new options are as the first release wrote them; any rules
    come back the same (over a preset too, even where the record turns its option off)."""
    engine = Engine(rules)
    record = GameRecorder(rules, engine.init([1])).record
    options = record.to_dict()["rules"]
    assert tuple(n for n in LATER_OPTIONS if n in options) == written
    assert record_from_json(record.to_json()).rules == rules
