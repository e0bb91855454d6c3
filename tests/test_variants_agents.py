"""The rule-based agents in the further variants (RULES.md section 12): always legal, and
sensible where a level is meant to know a variant (bombs, pending revolutions, mixed and
capped runs, the President's asks)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from test_agents import play_games

from agents import EasyAgent, HardAgent, NormalAgent, make_agent
from agents.base import BaseAgent
from president_env.core.constants import JOKER, PHASE_EXCHANGE, Kind
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from train.eval.tournament import run_tournament

NAMES = ("random", "easy", "normal", "hard")

# each new option with what it refines (and what makes it matter: jokers, allow_equal)
VARIANTS: dict[str, dict[str, Any]] = {
    "next_trick": dict(revolution=True, revolution_timing="next_trick", jokers=1),
    "western": dict(revolution=True, western_revolution=True, allow_equal=True),
    "western_next": dict(
        revolution=True, western_revolution=True, revolution_timing="next_trick", allow_equal=True
    ),
    "bombs4": dict(bombs=4, jokers=2, runs=True),
    "bombs5_revolution": dict(bombs=5, jokers=2, revolution=True),
    "mixed_runs": dict(runs=True, runs_mixed_suits=True, jokers=1),
    "max_run": dict(runs=True, max_run_length=4, jokers=2),
    "mixed_max_run": dict(runs=True, runs_mixed_suits=True, max_run_length=3),
    "asks": dict(president_asks=True, exchange=True, jokers=2),
    "asks_no_jokers": dict(president_asks=True, exchange=True, pass_is_final=True),
}


def _check_legal_everywhere(rules: Rules, games: int, seed: int) -> dict[str, int]:
    """Every level's choice is legal in every position of ``games`` games (played by the four
    levels in turn); counts of the variant situations met."""
    agents = [make_agent(n, rules, seed=i) for i, n in enumerate(NAMES)]
    seats = [agents[s % len(agents)] for s in range(rules.num_players)]
    kind = agents[0].layout.kind
    seen = {"asks": 0, "bomb_on_other": 0, "positions": 0}
    for _, state, live, obs, mask in play_games(rules, seats, games, seed):
        seen["positions"] += len(live)
        for agent in agents:
            acts = agent.act_batch(obs[live], mask[live])
            assert acts.dtype == np.int64 and acts.shape == (len(live),)
            assert mask[live, acts].all(), f"{agent.name} chose an illegal action"
            if agent.name == "hard":
                seen["asks"] += int((kind[acts] == Kind.ASK).sum())
        if rules.bombs:
            size = agents[0].layout.size
            bomb = mask[live] & (size >= rules.bombs) & (kind != Kind.RUN)
            other = (state.pile_kind[live] == Kind.RUN) | (state.pile_size[live] < rules.bombs)
            seen["bomb_on_other"] += int((bomb.any(axis=1) & other & (state.pile_kind[live] > 0)).sum())
    return seen


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8])
def test_every_level_plays_every_variant_legally(variant: str, players: int) -> None:
    rules = Rules.preset("standard", num_players=players, deals=3, **VARIANTS[variant])
    seen = _check_legal_everywhere(rules, games=6, seed=100 + players)
    assert seen["positions"] > 100
    if rules.president_asks:
        assert seen["asks"] >= 6  # two asks per exchange with a Bum of two cards or more
    if rules.bombs == 4:
        assert seen["bomb_on_other"] > 0


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8])
def test_every_level_plays_daifugo_full_legally(players: int) -> None:
    rules = Rules.preset("daifugo_full", num_players=players, deals=2)
    # bombs of five need jokers (or two decks at 7-8 players): 30 games meet some at every count
    seen = _check_legal_everywhere(rules, games=30, seed=7 * players)
    assert seen["bomb_on_other"] > 0


def test_tournament_runs_daifugo_full_and_hard_beats_random() -> None:
    rules = Rules.preset("daifugo_full", num_players=4)
    res = run_tournament(
        {n: n for n in ("hard", "normal", "easy", "random")}, rules, 60, seed=1,
        progress=False, ratings=False,
    )
    mean = res.points.mean(axis=(0, 1))
    assert res.places.shape == (60, 4, 4)
    assert mean[0] > mean[3] + 0.5  # Hard far ahead of Random (seeded: the same every run)


# ----------------------------------------------------------------------------- hand-built spots
def _spot(rules: Rules, hands: list[str], moves: tuple[str, ...] = ()) -> tuple[Engine, State]:
    """The first deal of ``hands`` after the named ``moves``."""
    engine = Engine(rules)
    state = engine.init_from_hands(hands)
    names = engine.layout.names()
    for move in moves:
        engine.step_inplace(state, [names.index(move)])
    return engine, state


def _choice(agent: BaseAgent, engine: Engine, state: State) -> str:
    a = agent.act(engine.observe(state)[0], engine.legal_action_mask(state)[0])
    return engine.layout.name(a)


BOMBS = Rules.preset("standard", num_players=3, bombs=4)
# seat 0 (3 of clubs) leads a 3, seat 1 an ace: seat 2 cannot follow but with its four 7s
OPPONENTS = ["3c 4d 9h Jh Qd", "6c Ac 8d 10c Kd Kh"]


def test_hard_bombs_to_go_out() -> None:
    engine, state = _spot(BOMBS, [*OPPONENTS, "7c 7d 7h 7s"], ("single 3", "single A"))
    assert engine.legal_action_mask(state)[0, engine.layout.set_action(4, 4)]
    for agent in (EasyAgent(BOMBS), NormalAgent(BOMBS), HardAgent(BOMBS)):
        assert _choice(agent, engine, state) == "four 7s"


def test_hard_bombs_a_trick_it_cannot_win_otherwise_when_it_then_goes_out() -> None:
    engine, state = _spot(BOMBS, [*OPPONENTS, "5c 7c 7d 7h 7s"], ("single 3", "single A"))
    hard = HardAgent(BOMBS)
    scores = hard.action_scores(engine.observe(state)[0], engine.legal_action_mask(state)[0])
    bomb = engine.layout.set_action(4, 4)
    # the bomb surely takes the lead, and the 5 then goes out: the chain bonus
    assert scores[bomb] > scores[0] + 10
    assert _choice(hard, engine, state) == "four 7s"


def test_hard_keeps_its_bomb_with_a_long_way_to_go() -> None:
    engine, state = _spot(
        BOMBS, [*OPPONENTS, "5c 7c 7d 7h 7s 8h 9c 10s"], ("single 3", "single A")
    )
    assert _choice(HardAgent(BOMBS), engine, state) == "pass"
    assert _choice(NormalAgent(BOMBS), engine, state) == "pass"  # a bomb is a control
    assert _choice(EasyAgent(BOMBS), engine, state) == "four 7s"  # Easy passes only if it must


def test_easy_follows_before_it_bombs() -> None:
    # seat 0 leads its 3; seat 1 could bomb with four 4s, the lowest play in the order
    engine, state = _spot(BOMBS, ["3c 10h Jd", "4c 4d 4h 4s Kc", "5c 5d 8h 9s"], ("single 3",))
    assert int(state.current[0]) == 1
    assert engine.legal_action_mask(state)[0, engine.layout.set_action(1, 4)]
    assert _choice(EasyAgent(BOMBS), engine, state) == "single 4"
    assert _choice(NormalAgent(BOMBS), engine, state) == "single K"  # keeps the four whole


def test_a_bomb_holds_any_trick_for_hard() -> None:
    rules = Rules.preset("runs", num_players=3, bombs=4)
    # seat 0 leads the run 3-4-5 of clubs; seat 1 holds four 6s, nothing that follows a run
    engine, state = _spot(rules, ["3c 4c 5c 9d", "6c 6d 6h 6s Qh", "7c 8d 10h Jh Kd Ad"])
    engine.step_inplace(state, [engine.layout.run_action(0, 0, 3)])
    assert int(state.current[0]) == 1
    mask = engine.legal_action_mask(state)[0]
    bomb = engine.layout.set_action(3, 4)
    assert mask[bomb] and mask.sum() == 2  # pass or the bomb
    hard = HardAgent(rules)
    scores = hard.action_scores(engine.observe(state)[0], mask)
    assert scores[bomb] > scores[0]  # then the queen goes out: a sure chain
    engine.step_inplace(state, [bomb])
    assert int(state.pile_kind[0]) == 0 and int(state.current[0]) == 1  # cleared: seat 1 leads


def test_hard_sheds_its_top_cards_before_a_pending_revolution() -> None:
    rules = Rules.preset("standard", num_players=3, revolution=True, revolution_timing="next_trick")
    hands = ["3c 10d 6h 7h 8d 9d", "4d 4h Jc 2c Kd 5s", "5c 6c 8c 9c Qd Qh Ac"]
    engine, state = _spot(rules, hands, ("single 3",))
    hard = HardAgent(rules)
    assert _choice(hard, engine, state) == "single 5"  # keeps the 2 in the usual order
    state.pending[:] = True  # (as if) a revolution were pending: the 2 is the lowest card next
    assert engine.observe(state)[0, hard.obs_layout.slices["pending"]].tolist() == [1.0]
    assert _choice(hard, engine, state) == "single 2"


@pytest.mark.parametrize("low", [True, False])
def test_hard_completes_a_western_row_when_the_revolution_helps_it(low: bool) -> None:
    rules = Rules.preset("revolution", num_players=4, western_revolution=True)
    mine = "9s 3d 3h 4c 5d 10c" if low else "9s Ac Ad Kc 2d 10c"
    hands = ["3c 9c Jh Qd", "9d 6c 8d Kd", "9h 7c 7d Qh", mine]
    engine, state = _spot(rules, hands, ("single 9", "single 9", "single 9"))
    assert int(state.current[0]) == 3 and int(state.row_count[0]) == 3
    # the fourth 9 in a row starts a revolution: good with low cards, bad with high ones
    assert (_choice(HardAgent(rules), engine, state) == "single 9") == low


@pytest.mark.parametrize("cap", [None, 3])
def test_hard_and_normal_lead_a_run_of_mixed_suits(cap: int | None) -> None:
    rules = Rules.preset("runs", num_players=3, runs_mixed_suits=True, max_run_length=cap)
    hands = ["3c 4d 5h 6s 9d 9h Kc", "4c 5c 7c 8c 10d Jd Qd", "6c 7d 8h Jc Qc Ah 2h"]
    engine, state = _spot(rules, hands)
    want = "run 3-4-5-6" if cap is None else "run 3-4-5"
    assert _choice(HardAgent(rules), engine, state) == want
    assert _choice(NormalAgent(rules), engine, state) == want
    plain = Rules.preset("runs", num_players=3)  # one suit: these lone cards make no run
    engine, state = _spot(plain, hands)
    assert _choice(HardAgent(plain), engine, state) == "single 3"


def _ask_positions(rules: Rules, games: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(observation, mask) of every ask of the President in random games."""
    seats = [make_agent("random", rules, seed=s) for s in range(rules.num_players)]
    kind = seats[0].layout.kind
    for _, state, live, obs, mask in play_games(rules, seats, games, seed=3):
        for b in live:
            if state.phase[b] == PHASE_EXCHANGE and kind[np.flatnonzero(mask[b])[0]] == Kind.ASK:
                yield obs[b], mask[b]


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("standard", num_players=4, deals=4, exchange=True, president_asks=True, jokers=2),
        Rules.preset("daifugo", num_players=5, deals=3, president_asks=True, exchange=True),
        Rules.preset("standard", num_players=7, deals=3, exchange=True, president_asks=True),
    ],
    ids=["4p-2j", "5p-daifugo", "7p-2decks"],
)
def test_normal_and_hard_ask_for_cards_they_lack(rules: Rules) -> None:
    normal, hard = NormalAgent(rules), HardAgent(rules)
    layout, split = normal.layout, normal.obs_layout.split
    copies = np.full(layout.num_ask, rules.num_decks)
    if rules.num_jokers:
        copies[JOKER] = rules.num_jokers
    n_pos = n_value = 0
    for obs, mask in _ask_positions(rules, games=12):
        blocks = split(obs)
        hand = blocks["hand"][: layout.num_ask].round().astype(int)
        absent = blocks["asked"][: layout.num_ask] > blocks["ask_held"][: layout.num_ask]
        worth = (hand < copies) & ~absent  # a copy may be with the Bum
        assert mask[layout.ask_base : layout.ask_base + layout.num_ask].all()
        a_n, a_h = normal.act(obs, mask), hard.act(obs, mask)
        c_n, c_h = a_n - layout.ask_base, a_h - layout.ask_base
        assert layout.kind[a_n] == Kind.ASK and worth[c_n] and worth[c_h]
        assert c_n == np.flatnonzero(worth).max()  # Normal: the best card it lacks
        n_value += int(c_h != c_n)  # Hard sometimes names a card worth more to its hand
        n_pos += 1
    assert n_pos >= 20
    assert n_value >= 1
