"""The fast engine against the plain reference implementation, step by step.

Random legal games of every preset at every player count, of random mixes of options (more
deals with the exchange, scorings, target scores, two decks with few players, jokers), of a
pairwise set of rules (every pair of values of any two options) and of random partial first
deals, and of the variants of ``RULES.md`` section 12 in every combination at every table
(:func:`~president_env.testing.difftest.variant_rules`) are played in the batched engine and,
game by game, in
:class:`president_env.testing.reference.ReferenceGame`; the legal actions before every step and
the whole public state after it must agree (see :mod:`president_env.testing.difftest`, whose
command line runs the same comparison on many more games). The random and pairwise mixes are
marked ``slow`` (``make test`` runs them, ``make test-fast`` does not).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import numpy as np
import pytest

from president_env.core.cards import card_name, format_hand, parse_hand
from president_env.core.constants import Kind
from president_env.core.rules import OPTIONS, PRESET_PLAYERS, PRESETS, Rules
from president_env.testing import reference
from president_env.testing.configs import ENABLING
from president_env.testing.difftest import (
    TABLES,
    VARIANT_COMBINATIONS,
    VARIANTS,
    Disagreement,
    Tally,
    pairwise_rules,
    play_batch,
    preset_rules,
    random_hands,
    random_rules,
    replay,
    variant_rules,
)
from president_env.testing.reference import ReferenceGame

BATCH = 16
"""Engine games per batch (each against its own ReferenceGame)."""

PRESET_CONFIGS = preset_rules()


def _seeds(rng: random.Random, n: int = BATCH) -> list[int]:
    return [rng.randrange(2**63) for _ in range(n)]


def _id(rules: Rules) -> str:
    return f"{rules.preset_name}-{rules.num_players}p"


@pytest.mark.parametrize("rules", PRESET_CONFIGS, ids=[_id(r) for r in PRESET_CONFIGS])
def test_preset_games_agree(rules: Rules) -> None:
    """32 games of one deal per preset and player count (100+ games per preset)."""
    rng = random.Random(f"preset {rules.preset_name} {rules.num_players}")
    tally = Tally()
    for _ in range(2):
        tally.add(play_batch(rules, _seeds(rng), rng, illegal_checks=0.01))
    assert tally.games == 2 * BATCH


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_series_with_exchange_agree(name: str) -> None:
    """Three deals with the card exchange, at a few player counts of each preset."""
    rng = random.Random(f"series {name}")
    players = sorted({r.num_players for r in PRESET_CONFIGS if r.preset_name == name})
    for n in (players[0], players[-1]):
        rules = Rules.preset(name, num_players=n, deals=3)
        tally = play_batch(rules, _seeds(rng, 8), rng)
        assert tally.deals == 3 * 8


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
def test_random_option_mixes_agree(chunk: int) -> None:
    rng = random.Random(f"mix {chunk}")
    for _ in range(5):
        play_batch(random_rules(rng, max_deals=3), _seeds(rng, 8), rng, illegal_checks=0.01)


@pytest.mark.parametrize(
    "rules",
    [
        Rules(num_players=3, decks=2),
        Rules(num_players=4, decks=2, jokers=2, runs=True, revolution=True, deals=2),
        Rules(num_players=8, decks=1, jokers=1, deals=3, scoring="tally", target_score=2),
        Rules(num_players=5, jokers=1, pass_is_final=True, eight_clears=True, runs=True),
        Rules(num_players=6, deals=3, exchange=False, scoring="president_vp", target_score=3),
        Rules(num_players=4, top_rank_clears=False, allow_equal=True, revolution=True),
    ],
    ids=[
        "3p-2decks",
        "4p-2decks-jokers",
        "8p-1deck-target",
        "5p-final-runs",
        "6p-noexch",
        "noclear",
    ],
)
def test_chosen_option_mixes_agree(rules: Rules) -> None:
    rng = random.Random(repr(rules))
    play_batch(rules, _seeds(rng), rng)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_given_partial_deals_agree(name: str) -> None:
    """First deals given as hands (init_from_hands): part of the pack, 3 of clubs maybe absent."""
    rng = random.Random(f"hands {name}")
    lo, hi = PRESET_PLAYERS[name]
    rules = Rules.preset(name, num_players=rng.choice([p for p in (3, 4, 5, 6) if lo <= p <= hi]),
                         deals=2)
    play_batch(rules, _seeds(rng), rng, hands=[random_hands(rules, rng) for _ in range(BATCH)])


def test_replay_repeats_a_game_in_both() -> None:
    rules = Rules.preset("daifugo", num_players=5)
    game = ReferenceGame(rules, seed=7)
    rng = random.Random(7)
    actions = []
    while game.phase != "done":
        legal = game.legal_actions()
        actions.append(legal[rng.randrange(len(legal))])
        game.step(actions[-1])
    replay(rules, 7, actions)


def test_a_wrong_reference_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison has teeth: a reference that judges clearing after the revolution fails."""

    def clears_after_revolution(self: ReferenceGame, kind: Kind, rank: int, size: int) -> bool:
        flips = self.rules.revolution and kind == Kind.SET and size >= 4
        self.revolution ^= flips
        try:
            return original(self, kind, rank, size)
        finally:
            self.revolution ^= flips

    original = reference.ReferenceGame._clears
    monkeypatch.setattr(reference.ReferenceGame, "_clears", clears_after_revolution)
    rng = random.Random(3)
    rules = Rules.preset("revolution", num_players=4, decks=2)
    with pytest.raises(Disagreement, match="replay"):
        for _ in range(20):
            play_batch(rules, _seeds(rng), rng)


@pytest.mark.parametrize("table", range(len(TABLES)), ids=[f"{p}p-{d}deck" for p, d in TABLES])
def test_variant_combinations_agree(table: int) -> None:
    """The section 12 variants: 4 combinations of 4 games at each table (players 3-8, one and
    two decks), 48 combinations in all, the other options random."""
    rng = random.Random(f"variants {table}")
    tally = Tally()
    for number in range(table, 4 * len(TABLES), len(TABLES)):
        rules = variant_rules(number, rng)
        assert (rules.num_players, rules.num_decks) == TABLES[table]
        assert {k: getattr(rules, k) for k in VARIANT_COMBINATIONS[number]} == (
            VARIANT_COMBINATIONS[number]
        )
        tally.add(play_batch(rules, _seeds(rng, 4), rng, illegal_checks=0.02))
    assert tally.games == 16


@pytest.mark.parametrize(
    "options",
    [
        dict(revolution=True, revolution_timing="next_trick", western_revolution=True, bombs=4),
        dict(revolution=True, western_revolution=True, allow_equal=True, decks=2),
        dict(runs=True, runs_mixed_suits=True, max_run_length=4, jokers=2, eight_clears=True),
        dict(bombs=5, jokers=2, decks=2, runs=True, pass_is_final=True),
        dict(deals=3, president_asks=True, jokers=1),
    ],
    ids=["timing-western-bombs", "western-row", "mixed-capped-runs", "bombs-final", "asks"],
)
def test_chosen_variant_mixes_agree(options: dict[str, object]) -> None:
    """A few mixes where each variant comes up often, at 4 and 7 players."""
    for players in (4, 7):
        rules = Rules(num_players=players, **options)  # type: ignore[arg-type]
        rng = random.Random(repr(rules))
        play_batch(rules, _seeds(rng, 6), rng, illegal_checks=0.02)


def test_variant_rules_hold_every_combination_at_every_table_in_a_cycle() -> None:
    """3072 batches of a ``--variants`` run hold the 256 combinations at each of the 12 tables
    (each with the option it refines turned on, or ``Rules`` would refuse it)."""
    assert len(VARIANT_COMBINATIONS) == 2 * 2 * 4 * 2 * 4 * 2
    rng = random.Random(0)
    seen = set()
    for number in range(len(VARIANT_COMBINATIONS) * len(TABLES)):
        rules = variant_rules(number, rng)
        combination = tuple(getattr(rules, name) for name in VARIANTS)
        seen.add((combination, rules.num_players, rules.num_decks))
    assert len(seen) == len(VARIANT_COMBINATIONS) * len(TABLES)


def test_a_reference_whose_bomb_does_not_clear_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison has teeth for the variants too."""
    monkeypatch.setattr(reference, "is_bomb", lambda rules, kind, size: False)
    rng = random.Random(5)
    rules = Rules(num_players=4, decks=2, bombs=4, jokers=2)
    with pytest.raises(Disagreement, match="replay"):
        for _ in range(20):
            play_batch(rules, _seeds(rng), rng)


def _pair_possible(a: str, x: object, b: str, y: object) -> bool:
    """Whether some Rules hold ``a = x`` and ``b = y`` (a refining option off its default needs
    the option it refines: ``configs.ENABLING``)."""
    pair = {a: x, b: y}
    values = dict(pair)
    for name, value in pair.items():
        requirement = OPTIONS[name].requires
        if requirement is not None and value != Rules.__dataclass_fields__[name].default:
            values = {**ENABLING[requirement], **values}
    try:
        rules = Rules(**values)  # type: ignore[arg-type]
    except ValueError:
        return False
    return all(getattr(rules, k) == v for k, v in pair.items())


def test_pairwise_rules_cover_every_possible_pair_of_option_values() -> None:
    rules = pairwise_rules()
    domains = {
        name: list(dict.fromkeys(opt.test_values()))
        for name, opt in OPTIONS.items()
        if name != "preset_name"
    }
    seen: dict[tuple[str, str], set[tuple[str, str]]] = {
        pair: set() for pair in itertools.combinations(domains, 2)
    }
    for r in rules:
        for a, b in seen:
            seen[a, b].add((repr(getattr(r, a)), repr(getattr(r, b))))
    impossible = 0
    for (a, b), pairs in seen.items():
        want = {
            (repr(x), repr(y))
            for x, y in itertools.product(domains[a], domains[b])
            if _pair_possible(a, x, b, y)
        }
        impossible += len(domains[a]) * len(domains[b]) - len(want)
        assert pairs == want, (a, b)
    assert impossible > 0  # e.g. revolution=False with revolution_timing="next_trick"
    assert len(rules) < 60


PAIRWISE = pairwise_rules()


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
def test_pairwise_option_mixes_agree(chunk: int) -> None:
    """Every pair of values of any two options, in a few games each."""
    rng = random.Random(f"pairwise {chunk}")
    for rules in PAIRWISE[chunk::4]:
        play_batch(rules, _seeds(rng, 4), rng, illegal_checks=0.01)


# ------------------------------------------------------------------------------ the reference
# on the variants of RULES.md section 12: scenarios written from the rule text, each then
# replayed in the engine too (the ``scenarios_agree`` fixture)


class _Recorded(ReferenceGame):
    """A reference game that remembers its first deal and its actions."""

    def __init__(self, rules: Rules, hands: np.ndarray) -> None:
        super().__init__(rules, hands=hands)
        self.given = hands
        self.actions: list[int] = []

    def step(self, action: int) -> None:
        super().step(action)
        self.actions.append(int(action))


_SCENARIOS: list[_Recorded] = []


@pytest.fixture(autouse=True)
def scenarios_agree() -> Iterator[None]:
    """After a test, every game made by :func:`_game` is replayed in the engine too."""
    _SCENARIOS.clear()
    yield
    for game in _SCENARIOS:
        replay(game.rules, 0, game.actions, game.given)
    _SCENARIOS.clear()


def _game(rules: Rules, *hands: str) -> ReferenceGame:
    """A reference game whose first deal is ``hands`` (seat 0 leads: ``first_lead="seat0"``)."""
    game = _Recorded(rules, np.stack([parse_hand(h) for h in hands]))
    _SCENARIOS.append(game)
    return game


def _names(game: ReferenceGame) -> list[str]:
    return [game.layout.name(a) for a in game.legal_actions()]


def _play(game: ReferenceGame, *names: str) -> None:
    """Play actions by name, each by the player to act."""
    ids = {game.layout.name(a): a for a in range(game.layout.num_actions)}
    for name in names:
        game.step(ids[name])


def test_reference_bomb_goes_on_any_pile_and_clears_it() -> None:
    rules = Rules(num_players=4, bombs=4, runs=True, first_lead="seat0")
    game = _game(rules, "4c 5c 6c 9d", "7d 7h 7s 7c 10c 3d", "Kh Kd", "Ac Ad")
    _play(game, "run 4-5-6 of clubs")
    assert _names(game) == ["pass", "four 7s"]  # no run to follow with; only the bomb
    _play(game, "four 7s")
    assert (game.pile_kind, game.current, game.last_player) == (Kind.PASS, 1, -1)
    assert game.revolution is False  # no revolution without the option
    _play(game, "single 3")
    assert _names(game) == ["pass", "single K"]  # seat 2 holds no bomb
    # a bomb on a single: three cards of a rank are no bomb, four are
    game = _game(rules, "9d", "7d 7h 7s 7c", "Kh", "Ac")
    _play(game, "single 9")
    assert _names(game) == ["pass", "four 7s"]
    _play(game, "four 7s")  # the bomber's last cards: the next holder to the left leads
    assert game.place[1] == 1 and game.current == 2 and game.pile_kind == Kind.PASS


def test_reference_bomb_of_jokers_clears_and_revolts() -> None:
    rules = Rules(num_players=3, decks=2, jokers=2, bombs=4, revolution=True, first_lead="seat0")
    game = _game(rules, "2s 2h 9c", "JK JK JK JK 4c", "Kh Kd")
    _play(game, "pair of 2")  # a pair of 2s clears the pile, seat 0 leads again
    _play(game, "single 9")
    assert "4 jokers" in _names(game) and "single joker" in _names(game)
    _play(game, "4 jokers")
    assert (game.pile_kind, game.current, game.revolution) == (Kind.PASS, 1, True)


def test_reference_next_trick_revolution_is_pending_until_the_trick_ends() -> None:
    rules = Rules(
        num_players=3,
        revolution=True,
        revolution_timing="next_trick",
        allow_equal=True,
        first_lead="seat0",
    )
    game = _game(rules, "5c 5d 5h 5s 9c", "6c 6d 6h 6s 4c 4d 4h 4s 3c", "Kh Kd")
    _play(game, "four 5s")
    assert (game.pending, game.revolution) == (True, False)
    assert _names(game) == ["pass", "four 6s"]  # judged in the old order: 4s do not beat 5s
    _play(game, "four 6s")  # a second revolution play cancels the pending one
    assert (game.pending, game.revolution) == (False, False)
    _play(game, "pass", "pass")
    assert (game.current, game.revolution, game.pending) == (1, False, False)
    _play(game, "four 4s")
    _play(game, "pass", "pass")  # all others passed: the trick ends, the revolution comes
    assert (game.revolution, game.pending, game.current) == (True, False, 1)
    assert "single 3" in _names(game)


def test_reference_next_trick_four_twos_clear_and_revolt_as_the_trick_ends() -> None:
    rules = Rules(
        num_players=3, revolution=True, revolution_timing="next_trick", first_lead="seat0"
    )
    game = _game(rules, "2c 2d 2h 2s 9c", "6c", "Kh")
    _play(game, "four 2s")  # clears (in the old order) and revolts as the trick ends
    assert (game.revolution, game.pending, game.current, game.pile_kind) == (
        True,
        False,
        0,
        Kind.PASS,
    )


def test_reference_western_revolution_turns_play_to_the_right() -> None:
    rules = Rules(num_players=4, revolution=True, western_revolution=True, first_lead="seat0")
    game = _game(rules, "5c 5d 5h 5s 9c", "6c 6d 6h 6s", "Kh", "Ac")
    _play(game, "four 5s")
    assert (game.revolution, game.direction, game.current) == (True, -1, 3)
    timing = rules.replace(revolution_timing="next_trick")
    game = _game(timing, "5c 5d 5h 5s 9c", "6c", "Kh", "Ac")
    _play(game, "four 5s")
    assert (game.pending, game.direction, game.current) == (True, 1, 1)
    _play(game, "pass", "pass", "pass")  # seat 0 leads again, and play now goes right
    assert (game.revolution, game.direction, game.current) == (True, -1, 0)
    _play(game, "single 9")
    assert game.current == 3


def test_reference_western_row_of_four_singles_revolts() -> None:
    rules = Rules(
        num_players=4,
        decks=2,
        allow_equal=True,
        revolution=True,
        western_revolution=True,
        first_lead="seat0",
    )
    game = _game(rules, "9c 9d 3c", "9h 4c", "5c", "9s 6c")
    _play(game, "single 9", "single 9", "pass")  # a pass does not break the row
    assert (game.row_rank, game.row_count) == (6, 2)
    _play(game, "single 9")
    assert (game.row_rank, game.row_count) == (6, 3)
    _play(game, "single 9")  # seat 0: the fourth 9 in a row
    assert (game.revolution, game.row_rank, game.row_count, game.current) == (True, -1, 0, 3)


def test_reference_western_row_is_broken_by_other_plays() -> None:
    rules = Rules(
        num_players=3,
        jokers=1,
        allow_equal=True,
        revolution=True,
        western_revolution=True,
        first_lead="seat0",
    )
    game = _game(rules, "9c 9d Jc Jd", "9h JK Qc Qd", "9s Kc Kd")
    _play(game, "single 9", "single 9", "single 9")
    assert (game.row_rank, game.row_count) == (6, 3)
    _play(game, "single 9")
    assert game.revolution  # a fourth 9 (seat 0 held two)
    game = _game(rules, "9c 9d Jc", "9h JK Qc", "9s Kc Kd")
    _play(game, "single 9", "single joker")  # a joker alone breaks the row
    assert (game.row_rank, game.row_count) == (-1, 0)


def test_reference_mixed_suit_runs_take_the_lowest_suit_held() -> None:
    rules = Rules(num_players=3, runs=True, runs_mixed_suits=True, jokers=1, first_lead="seat0")
    game = _game(rules, "3c 3s 4d 6h JK", "Kc", "Kd")
    names = _names(game)
    assert {"run 3-4-5", "run 4-5-6", "run 3-4-5-6"} <= set(names)
    assert not any("of" in n for n in names if n.startswith("run"))
    before = game.hands[0].copy()
    _play(game, "run 3-4-5")
    taken = before - game.hands[0]
    assert format_hand(taken) == "3c 4d JK"


def test_reference_max_run_length_drops_longer_runs() -> None:
    rules = Rules(num_players=3, runs=True, max_run_length=4, first_lead="seat0")
    game = _game(rules, "3c 4c 5c 6c 7c 8c", "Kc", "Kd")
    runs = [n for n in _names(game) if n.startswith("run")]
    assert runs and all(len(n.split()[1].split("-")) <= 4 for n in runs)
    assert "run 3-4-5-6 of clubs" in runs and "run 3-4-5-6-7 of clubs" not in runs


def _after_first_deal(rules: Rules) -> ReferenceGame:
    """A game after a short first deal: seat 0 President, seat 1 next (the exchange is on)."""
    players = rules.num_players
    hands = ["2s", "3c"] + [f"{r}c" for r in ("5", "6", "7", "8", "9", "10")][: players - 2]
    hands[2:] = [h + " " + h.replace("c", "d") for h in hands[2:]]
    game = _game(rules, *hands)
    _play(game, "single 2", "single 3")
    while game.deal == 0:  # the others play their pairs to the end
        game.step(game.legal_actions()[-1])
    return game


def test_reference_president_asks_get_the_named_card_or_the_best() -> None:
    rules = Rules(num_players=3, deals=2, president_asks=True, first_lead="seat0")
    game = _after_first_deal(rules)
    president, bum = game.title.index(0), game.title.index(2)
    assert (game.phase, game.current, game.asks_left, game.to_return) == (
        "exchange",
        president,
        2,
        [0, 0, 0],
    )
    assert _names(game) == [f"ask {card_name(c)}" for c in range(52)]
    held = int(np.flatnonzero(game.hands[bum])[0])
    not_held = int(np.flatnonzero(game.hands[president])[0])
    best = int(np.flatnonzero(game.hands[bum])[-1])
    game.step(game.layout.ask_action(held))
    assert (game.asked, game.ask_held, game.asks_left) == ([held, -1], [1, -1], 1)
    game.step(game.layout.ask_action(not_held))
    assert (game.asked, game.ask_held, game.asks_left) == ([held, not_held], [1, 0], 0)
    gave = np.zeros(53, np.int64)
    gave[[held, best]] += 1
    assert game.gave[bum] == gave.tolist() and game.received[president] == gave.tolist()
    assert game.to_return[president] == 2 and game.current == president
    assert all(n.startswith("give") for n in _names(game))


def test_reference_president_asks_keep_the_vice_gift() -> None:
    rules = Rules(num_players=4, deals=2, president_asks=True, first_lead="seat0")
    game = _after_first_deal(rules)
    vp, vice_bum = game.title.index(1), game.title.index(2)
    assert sum(game.gave[vice_bum]) == 1 and sum(game.received[vp]) == 1
    assert game.to_return[vp] == 1 and game.to_return[game.title.index(0)] == 0
    game.step(game.layout.ask_action(5))
    game.step(game.layout.ask_action(5))  # the same card twice is allowed
    assert game.asked == [5, 5] and game.to_return[game.title.index(0)] == 2
    for _ in range(3):  # President twice, then the Vice-President
        game.step(game.legal_actions()[0])
    assert game.phase == "play" and game.current == game.title.index(3)
