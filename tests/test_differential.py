"""The fast engine against the plain reference implementation, step by step.

Random legal games of every preset at every player count, of random mixes of options (more
deals with the exchange, scorings, target scores, two decks with few players, jokers), of a
pairwise set of rules (every pair of values of any two options) and of random partial first
deals are played in the batched engine and, game by game, in
:class:`president_env.testing.reference.ReferenceGame`; the legal actions before every step and
the whole public state after it must agree (see :mod:`president_env.testing.difftest`, whose
command line runs the same comparison on many more games). The random and pairwise mixes are
marked ``slow`` (``make test`` runs them, ``make test-fast`` does not).
"""

from __future__ import annotations

import itertools
import random

import pytest

from president_env.core.constants import Kind
from president_env.core.rules import OPTIONS, PRESETS, Rules
from president_env.testing import reference
from president_env.testing.difftest import (
    Disagreement,
    Tally,
    pairwise_rules,
    play_batch,
    preset_rules,
    random_hands,
    random_rules,
    replay,
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
    rules = Rules.preset(name, num_players=rng.choice([3, 4, 5, 6]), deals=2)
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


def test_pairwise_rules_cover_every_pair_of_option_values() -> None:
    rules = pairwise_rules()
    domains = {
        name: set(map(repr, opt.test_values()))
        for name, opt in OPTIONS.items()
        if name != "preset_name"
    }
    seen: dict[tuple[str, str], set[tuple[str, str]]] = {
        pair: set() for pair in itertools.combinations(domains, 2)
    }
    for r in rules:
        for a, b in seen:
            seen[a, b].add((repr(getattr(r, a)), repr(getattr(r, b))))
    for (a, b), pairs in seen.items():
        assert pairs == set(itertools.product(domains[a], domains[b])), (a, b)
    assert len(rules) < 60


PAIRWISE = pairwise_rules()


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
def test_pairwise_option_mixes_agree(chunk: int) -> None:
    """Every pair of values of any two options, in a few games each."""
    rng = random.Random(f"pairwise {chunk}")
    for rules in PAIRWISE[chunk::4]:
        play_batch(rules, _seeds(rng, 4), rng, illegal_checks=0.01)
