"""The server's rules in plain Python (:mod:`president_env.uecda.moves`,
:mod:`president_env.uecda.game`) against the server itself and against the rule text.

* **The logs** (``tests/data/uecda/``, ten 1,000-game matches of the server): replayed game by
  game from the hands after the exchange, every submission must come from the player the game
  flow says moves next, be in :func:`legal_plays` exactly when the server did not refuse it
  (``<config>.rejected.txt``), and each game must end in the logged finishing order (but for
  the 20-pass stalemates, whose order is the server's draw). The first 100 games of each match
  run in the default suite, all 1,000 under ``-m long``.
* **Hand-built positions** from ``docs/experiments/2026-12-04-uecda-server-rules.md`` §2-§7.
* **A brute force:** for random small hands and fields, :func:`legal_plays` equals the set of
  every table of held cells (the joker in any cell) that :func:`is_legal` accepts.
"""

from __future__ import annotations

import itertools
import random
from functools import cache
from pathlib import Path

import pytest

from president_env.uecda import read_log
from president_env.uecda.game import read_refused, replay
from president_env.uecda.log import UecdaLog
from president_env.uecda.moves import (
    CONTEST_RULES,
    LONE_JOKER_CELLS,
    Public,
    ServerRules,
    Shape,
    after_play,
    beats,
    is_legal,
    legal_plays,
    shape,
)
from president_env.uecda.protocol import COLUMNS, Hand, Play

DATA = Path(__file__).parent / "data" / "uecda"
CONFIGS = tuple(sorted(p.name.removesuffix(".log.gz") for p in DATA.glob("*.log.gz")))
"""The committed logs (tests/test_uecda_log.py checks that they are its ten)."""
S, H, D, C = 0, 1, 2, 3
"""Rows."""


def col(rank: str) -> int:
    return "x3456789TJQKA2x".index(rank)


def cards(text: str) -> tuple[tuple[int, int], ...]:
    """``"S3 HT"`` -> cells."""
    return tuple(("SHDC".index(w[0]), col(w[1])) for w in text.split())


def hand(text: str, joker: bool = False) -> Hand:
    return Hand(frozenset(cards(text)), joker)


def play(text: str, joker: str | None = None) -> Play:
    """``play("S7 S9", "S8")``: the joker stands in the S row, column of the 8."""
    j = None if joker is None else ("SHDCJ".index(joker[0]), "x3456789TJQKA2".index(joker[1])
                                    if joker[1] != "X" else 14)
    return Play(cards(text), j)


@cache
def match(config: str) -> UecdaLog:
    return read_log(DATA / f"{config}.log.gz")


@cache
def rejected(config: str) -> frozenset[tuple[int, int]]:
    return read_refused(DATA / f"{config}.rejected.txt")


@pytest.mark.parametrize("config", CONFIGS)
def test_the_first_100_logged_games_replay_exactly(config: str) -> None:
    count = replay(match(config), rejected(config), 100)
    assert count.submissions > 7000
    assert count.refused == sum(1 for g, _ in rejected(config) if g < 100)


@pytest.mark.long
@pytest.mark.parametrize("config", CONFIGS)
def test_every_logged_game_replays_exactly(config: str) -> None:
    log = match(config)
    count = replay(log, rejected(config))
    assert count.submissions == sum(len(g.moves) for g in log.games)
    assert count.refused == len(rejected(config))
    assert count.stalemates == (179 if config == "no_kaidan" else 0)


# --------------------------------------------------------------------------- how plays read


@pytest.mark.parametrize("p, expected", [
    (play("S3"), Shape("single", 1, 1, 0b0001)),
    (play("H9 C9"), Shape("set", 7, 2, 0b1010)),
    (play("H9", "D9"), Shape("set", 7, 2, 0b0110)),
    (play("S5 H5 D5 C5", "J5"), Shape("set", 3, 5, 0b11111)),
    (play("D3 D4 D5"), Shape("run", 1, 3, 0b0100)),
    (play("CQ CK CA C2", "CX"), Shape("run", 10, 5, 0b1000)),
    (Play(cards("D3 D4"), (D, 0)), Shape("run", 0, 3, 0b0100)),  # joker-3-4: the weakest run
    (play("", "S8"), Shape("joker", 6, 1, 0b0001)),
    (Play((), (C, 0)), Shape("joker", 0, 1, 0b1000)),
])
def test_shape_reads_kind_value_size_and_suits(p: Play, expected: Shape) -> None:
    assert shape(p) == expected


@pytest.mark.parametrize("p", [
    Play((), (4, 1)),  # the lone joker at its hand cell: row 4 is only the 5th card of a set
    play("S5 H5", "J5"),  # row 4 in a set of 3
    play("S5 S6"),  # a 2-card run
    play("S5 S6 S8"),  # a broken run
    play("S5 S6 S7 H5"),  # a run and one more card
    play("S5 H6"),  # two columns, no run
])
def test_shape_refuses_what_the_server_refuses(p: Play) -> None:
    assert shape(p) is None


def test_run_comparison_needs_the_whole_run_beyond_the_field() -> None:
    field = Shape("run", 3, 3, 1)  # 5-6-7
    assert beats(Shape("run", 6, 3, 2), field, rev=False)  # 8-9-T
    assert not beats(Shape("run", 5, 3, 2), field, rev=False)  # 7-8-9 overlaps
    assert not beats(Shape("run", 6, 4, 2), field, rev=False)  # another length
    assert beats(Shape("run", 0, 3, 2), field, rev=True)  # Jk-3-4 below 5
    assert not beats(Shape("run", 1, 3, 2), field, rev=True)  # 3-4-5 touches the 5
    assert beats(Shape("joker", 0, 1, 1), Shape("single", 13, 1, 1), rev=False)
    assert beats(Shape("joker", 0, 1, 1), Shape("single", 1, 1, 1), rev=True)
    assert not beats(Shape("joker", 0, 1, 1), Shape("set", 13, 2, 3), rev=False)
    assert beats(Shape("set", 5, 2, 3), Shape("set", 4, 2, 12), rev=False)
    assert not beats(Shape("set", 4, 2, 3), Shape("set", 4, 2, 12), rev=False)
    assert not beats(Shape("set", 5, 4, 15), Shape("set", 4, 5, 31), rev=False)


# --------------------------------------------------------------------------- legal plays


def test_on_a_lone_joker_only_the_spade_three_follows() -> None:
    on_joker = Public(field=Play((), (H, 4)), locked=False)
    assert legal_plays(hand("S3 H3 C2", joker=False), on_joker) == [Play(), play("S3")]
    assert legal_plays(hand("H3 D3 C3 C2"), on_joker) == [Play()]
    locked = Public(field=Play((), (H, 4)), locked=True, revolution=True)
    assert legal_plays(hand("S3"), locked) == [Play(), play("S3")]


def test_lock_needs_the_same_suits_and_the_joker_row_can_fit_it() -> None:
    # H7+S7 locked (the previous play was a spade-heart pair too): S9 + joker in H fits.
    field = Public(field=play("S7 H7"), locked=True)
    plays = legal_plays(hand("S9 D9 CK", joker=True), field)
    pairs = {str(p) for p in plays if not p.is_pass}
    assert pairs == {"S9 L9"}
    unlocked = {str(p) for p in legal_plays(hand("S9 D9 CK", joker=True), Public(play("S7 H7")))}
    assert unlocked == {"pass", "S9 D9", "S9 L9", "S9 M9", "S9 N9", "K9 D9", "L9 D9", "D9 N9",
                        "KK CK", "LK CK", "MK CK"}


def test_a_locked_single_field_takes_the_same_suit_but_a_lone_joker_skips_the_lock() -> None:
    field = Public(field=play("H5"), locked=True)
    plays = legal_plays(hand("H6 S7 D2", joker=True), field, lone_joker="one")
    assert [str(p) for p in plays] == ["pass", "Kx", "H6"]  # table order: the joker first


def test_revolution_xor_11back_sets_the_order() -> None:
    h = hand("S4 H9")
    for rev, back, expected in [(False, False, ["pass", "H9"]), (True, False, ["pass", "S4"]),
                                (False, True, ["pass", "S4"]), (True, True, ["pass", "H9"])]:
        got = legal_plays(h, Public(field=play("C6"), revolution=rev, back=back))
        assert [str(p) for p in got] == expected


def test_runs_list_every_joker_cell_including_beyond_the_ranks() -> None:
    plays = {str(p) for p in legal_plays(hand("SA S2", joker=True), Public())}
    assert {"SK SA S2", "SA S2 Kx", "KQ SA S2"} & plays == {"SA S2 Kx"}  # no SK held
    assert {"SQ SA S2"} & plays == set()
    h = hand("D3 D4 D5", joker=True)

    def runs(size: int, rules: ServerRules = CONTEST_RULES) -> set[str]:
        found = [p for p in legal_plays(h, Public(), rules) if len(p) == size]
        return {str(p) for p in found if (s := shape(p)) is not None and s.kind == "run"}

    assert runs(3) == {"Mx D3 D4", "D3 D4 D5", "M3 D4 D5", "D3 M4 D5", "D3 D4 M5", "D4 D5 M6"}
    assert runs(4) == {"Mx D3 D4 D5", "D3 D4 D5 M6"}
    assert runs(3, ServerRules(runs=False)) == set()


def test_the_lone_joker_has_60_cells_or_one() -> None:
    h = hand("", joker=True)
    assert len(legal_plays(h, Public())) == 1 + len(LONE_JOKER_CELLS) == 61
    assert legal_plays(h, Public(), lone_joker="one") == [Play(), Play((), (S, 0))]
    assert len(legal_plays(h, Public(play("C2")))) == 61  # beats the 2
    assert legal_plays(h, Public(play("C2 D2"))) == [Play()]  # not a pair


def test_a_five_card_set_is_beaten_only_by_a_five_card_set() -> None:
    h = hand("S6 H6 D6 C6 S7 H7 D7 C7", joker=True)
    field = Public(play("S5 H5 D5 C5", "J5"))
    assert {str(p) for p in legal_plays(h, field)} == {"pass", "S6 H6 D6 C6 J6",
                                                      "S7 H7 D7 C7 J7"}


# --------------------------------------------------------------------------- after a play


def test_after_play_locks_toggles_and_cuts() -> None:
    rules = ServerRules()
    after, clears, _ = after_play(Public(play("S7 H7")), play("S9", "H9"), rules)
    assert after.locked and not clears
    after, _, _ = after_play(Public(play("S7 H7")), play("S9", "D9"), rules)
    assert not after.locked
    after, clears, _ = after_play(Public(play("S7 H7"), locked=True), Play((), (S, 6)), rules)
    assert not after.locked and not clears and not after.revolution  # a lone joker in column 8
    after, clears, _ = after_play(Public(), play("S7 S9", "S8"), rules)  # the joker as the 8
    assert clears
    after, _, _ = after_play(Public(), play("S3 S4 S5 S6"), rules)
    assert not after.revolution  # a run of 4
    after, clears, _ = after_play(Public(), play("S3 S4 S5 S6 S7"), rules)
    assert after.revolution and not clears
    after, _, _ = after_play(Public(revolution=True), play("S4 H4 D4", "C4"), rules)
    assert not after.revolution
    after, clears, _ = after_play(Public(Play((), (S, 0))), play("S3"), rules)
    assert clears
    jb = ServerRules(jack_back=True, six_reverses=True)
    after, _, reverses = after_play(Public(), play("HT HJ HQ"), jb)
    assert after.back and not reverses
    _, _, reverses = after_play(Public(), play("C6"), jb)
    assert reverses


# --------------------------------------------------------------------------- brute force


def _every_table(h: Hand) -> list[Play]:
    """Every submission of held cells: any subset of the hand, the joker in any cell."""
    cells = sorted(h.cards)
    joker_cells: list[tuple[int, int] | None] = [None]
    if h.joker:
        joker_cells += [(r, c) for r in range(5) for c in range(COLUMNS)]
    out = []
    for k in range(len(cells) + 1):
        for chosen in itertools.combinations(cells, k):
            for j in joker_cells:
                if j not in chosen:
                    out.append(Play(chosen, j))
    return out


def test_legal_plays_is_every_table_the_rules_accept() -> None:
    rng = random.Random(7)
    deck = [(r, c) for r in range(4) for c in range(1, 14)]
    checked = 0
    for _ in range(100):
        # a few cards of one row (runs) or of one column (sets), the rest at random
        row, low, rank = rng.randrange(4), rng.randrange(1, 12), rng.randrange(1, 14)
        if rng.random() < 0.5:
            dense = {(row, c) for c in range(low, min(low + rng.randrange(2, 6), 14))}
        else:
            dense = {(r, rank) for r in rng.sample(range(4), rng.randrange(2, 5))}
        rest = rng.sample([x for x in deck if x not in dense], 6 - len(dense))
        h = Hand(frozenset(dense | set(rest)), rng.random() < 0.7)
        other = Hand(frozenset(rng.sample(deck, 8)), True)
        field = Play() if rng.random() < 0.4 else rng.choice(
            legal_plays(other, Public(), lone_joker="one")[1:])
        public = Public(field, locked=not field.is_pass and rng.random() < 0.3,
                        revolution=rng.random() < 0.3, back=rng.random() < 0.2)
        rules = ServerRules(runs=rng.random() < 0.8)
        brute = {p for p in _every_table(h) if is_legal(p, h, public, rules)}
        listed = legal_plays(h, public, rules)
        assert len(listed) == len(set(listed)) and set(listed) == brute, (h, public)
        checked += len(brute)
    assert checked > 500
