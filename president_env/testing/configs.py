"""The rules and first deals that the engine checks play: presets, random mixes, pairwise sets.

Random rules come from the options' metadata (:data:`president_env.core.rules.OPTIONS`): each
option is drawn from :meth:`~president_env.core.rules.Option.test_values`, so a new option is
tested in every combination as soon as it is declared.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core.cards import NUM_CARDS
from president_env.core.rules import OPTIONS, PRESET_PLAYERS, PRESETS, Rules

FIXED = ("preset_name",)
"""Options that random rules leave at their default."""

ENABLING: dict[str, dict[str, Any]] = {
    "revolution": {"revolution": True},
    "runs": {"runs": True},
    "exchange_on": {"exchange": True, "deals": 2},
    "exact_possible": {"decks": 1, "jokers": 1, "runs_mixed_suits": False},
    "exact_plays": {"exact_plays": True, "decks": 1, "jokers": 1, "runs_mixed_suits": False},
    "stalemate_on": {"stalemate_passes": 20},
}
"""For each requirement of a refining option (:attr:`~president_env.core.rules.Option.requires`),
option values that meet it."""


def drop_unmet(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` (keyword arguments of :class:`Rules`) with every refining option whose
    requirement is off set back to its default: what random rules draw from."""
    out = dict(options)
    probe = Rules(**{k: v for k, v in out.items() if OPTIONS[k].requires is None})
    for name, opt in OPTIONS.items():  # in field order: a requirement is met or not before
        if opt.requires is not None and not getattr(probe, opt.requires):
            out[name] = Rules.__dataclass_fields__[name].default
        elif opt.requires is not None and name in out:
            probe = dataclasses.replace(probe, **{name: out[name]})
    return out


ALL_VARIANTS: dict[str, Any] = dict(
    western_revolution=True,
    runs_mixed_suits=True,
    max_run_length=6,
    president_asks=True,
    deals=2,
)
"""What :func:`all_variants_rules` adds to ``daifugo_full`` (which has the new revolution
timing and bombs): every other further variant of RULES.md section 12, over two deals so
that the President asks."""


def all_variants_rules(num_players: int = 4, **overrides: Any) -> Rules:
    """``daifugo_full`` with every further variant on (:data:`ALL_VARIANTS`): the rules of the
    benchmarks' ``all_variants`` figure and of the tests that run everything at once."""
    return Rules.preset("daifugo_full", num_players=num_players, **{**ALL_VARIANTS, **overrides})


def preset_rules(preset: str | None = None, players: int | None = None) -> list[Rules]:
    """Every preset (or one) at every player count of its range (or one count)."""
    out: list[Rules] = []
    for name in PRESETS if preset is None else [preset]:
        lo, hi = PRESET_PLAYERS[name]
        counts = range(lo, hi + 1) if players is None else [players]
        out += [Rules.preset(name, num_players=n) for n in counts if lo <= n <= hi]
    return out


def random_rules(rng: random.Random, players: int | None = None, max_deals: int = 5) -> Rules:
    """A random mix of every option, each drawn from its test values (more than one deal,
    scorings, targets, decks, jokers, ...); ``deals`` at most ``max_deals``."""
    values = {
        name: rng.choice(opt.test_values()) for name, opt in OPTIONS.items() if name not in FIXED
    }
    if players is not None:
        values["num_players"] = players
    values["deals"] = min(max_deals, values["deals"])
    return Rules(**drop_unmet(values))


def _domains(players: int | None, max_deals: int) -> dict[str, list[Any]]:
    """The distinct test values of every option that random rules draw."""
    out: dict[str, list[Any]] = {}
    for name, opt in OPTIONS.items():
        if name not in FIXED:
            out[name] = list(dict.fromkeys(opt.test_values()))  # distinct, in order
    if players is not None:
        out["num_players"] = [players]
    out["deals"] = [d for d in out["deals"] if d <= max_deals] or [1]
    return out


def pairwise_rules(players: int | None = None, max_deals: int = 5, seed: int = 0) -> list[Rules]:
    """Rules in which every pair of test values of any two options appears at least once
    (a greedy pairwise covering set: some fifty rules instead of every combination)."""
    domains = _domains(players, max_deals)
    names = list(domains)
    uncovered = {
        (a, x, b, y)
        for a, b in itertools.combinations(names, 2)
        for x in domains[a]
        for y in domains[b]
        if _possible({a: x, b: y}, max_deals)
    }
    rng = random.Random(seed)
    out = []
    while uncovered:
        a, x, b, y = min(uncovered, key=repr)  # start from a pair still missing
        chosen: dict[str, Any] = _enabled({a: x, b: y})
        for name in rng.sample(names, len(names)):
            if name not in chosen:
                chosen[name] = max(domains[name], key=lambda v: _gain(uncovered, chosen, name, v))
        chosen = drop_unmet(chosen)
        uncovered -= _pairs(names, chosen)
        out.append(Rules(**chosen))
    return out


def _enabled(chosen: dict[str, Any]) -> dict[str, Any]:
    """``chosen`` plus the values that meet the requirement of every refining option in it that
    is not at its default (so that the pair a round starts from is kept)."""
    out = dict(chosen)
    for name, value in chosen.items():
        req = OPTIONS[name].requires
        if req is not None and value != Rules.__dataclass_fields__[name].default:
            out = {**ENABLING[req], **out}
    return out


def _possible(pair: dict[str, Any], max_deals: int) -> bool:
    """Whether some rules hold both values of ``pair`` (a refining option needs its parent)."""
    values = _enabled(pair)
    if values.get("deals", 1) > max_deals:
        return False
    kept = drop_unmet(values)
    return all(kept[k] == v for k, v in values.items())


def _pairs(names: list[str], chosen: dict[str, Any]) -> set[tuple[str, Any, str, Any]]:
    return {(a, chosen[a], b, chosen[b]) for a, b in itertools.combinations(names, 2)}


def _gain(
    uncovered: set[tuple[str, Any, str, Any]], chosen: dict[str, Any], name: str, value: Any
) -> int:
    """Pairs still missing that ``name = value`` covers with the options already chosen."""
    order = list(OPTIONS)
    return sum(
        (a, chosen[a], name, value) in uncovered
        if order.index(a) < order.index(name)
        else (name, value, a, chosen[a]) in uncovered
        for a in chosen
    )


def random_hands(rules: Rules, rng: random.Random) -> npt.NDArray[np.int8]:
    """A random part of the pack dealt at random, every seat holding at least one card."""
    pack = [c for c in range(NUM_CARDS - 1) for _ in range(rules.num_decks)]
    pack += [NUM_CARDS - 1] * rules.num_jokers
    rng.shuffle(pack)
    players = rules.num_players
    keep = rng.randint(players, len(pack))
    hands = np.zeros((players, NUM_CARDS), np.int8)
    for i, card in enumerate(pack[:keep]):
        seat = i if i < players else rng.randrange(players)
        hands[seat, card] += 1
    return hands
