"""The Expert (:mod:`agents.expert`), its belief (:mod:`agents.belief`) and the public record a
table keeps for it (:class:`president_env.table.DealRecord`).

* The table's record, replayed from the deal's start with the true hands, gives the real
  position (the record itself: :mod:`tests.test_history`).
* The record belief explains the record better than uniform deals (fewer moves Hard would not
  have made), and its deals are consistent with the observation.
* The Expert plays legal actions in every preset and player count (3-8, one and two decks), at
  a table with Hard, through a tournament; its exchange is Hard's; seeded decisions repeat.
* It finds the winning play that Hard misses in a hand-built endgame.
* Bad settings get a clear error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents import ExpertAgent, HardAgent, load_agent
from agents.belief import record_belief, record_misses
from agents.expert import rollout_places
from president_env.core.engine import Engine
from president_env.core.rules import PRESET_PLAYERS, PRESETS, Rules
from president_env.search import positions as P
from president_env.table import DealRecord, Table
from train.eval.tournament import run_tournament


def _table_with_record(rules: Rules, games: int) -> Table:
    """Four-seat table: a small-budget Expert in seat 0, Hard elsewhere (history rules)."""
    engine = Engine(rules)
    expert = ExpertAgent(rules, seed=0, samples=2, steps=1)
    hard = HardAgent(rules)
    p = rules.num_players
    seats = np.array([0] + [1] * (p - 1))
    return Table(engine, engine.init(np.arange(games)), [expert, hard], seats)


def test_record_replays_to_the_real_position() -> None:
    rules = Rules.preset("daifugo", observation="history")
    table = _table_with_record(rules, 8)
    engine = table.engine
    for _ in range(25):  # some moves into the deal, the Expert in seat 0, Hard elsewhere
        who = table.acting_policy()
        obs, mask = engine.observe(table.state), engine.legal_action_mask(table.state)
        acts = table.decide(obs, mask, who)
        moving = np.flatnonzero(who >= 0)
        table.record.note(table.state, moving, acts[moving])  # type: ignore[union-attr]
        engine.step_inplace(table.state, acts, check=False, where=who >= 0)
    st = table.state
    rows = np.flatnonzero(~st.terminated & (st.phase == 1))
    rel, n = table.record.relative(st, rows)  # type: ignore[union-attr]
    assert (n > 0).all()
    p = rules.num_players
    me = st.current[rows].astype(np.int64)
    hands = np.stack([st.hands[rows, (me + k) % p] for k in range(p)], axis=1)
    obs = engine.observe(st)[rows]
    pos, ok = P.from_record(rules, obs, hands, rel, n, engine)
    assert ok.all()
    np.testing.assert_array_equal(engine.legal_action_mask(pos), engine.legal_action_mask(st)[rows])


def test_record_belief_explains_the_record() -> None:
    rules = Rules.preset("standard", observation="history")
    engine, hard = Engine(rules), HardAgent(rules)
    table = Table(engine, engine.init(np.arange(16) + 50), [ExpertAgent(rules, samples=1, steps=0),
                                                              hard], [1, 1, 1, 1])
    table.record = DealRecord(16, rules)
    for _ in range(24):  # Hard everywhere: the record of 24 moves
        rows, obs, mask = np.arange(16), engine.observe(table.state), engine.legal_action_mask(table.state)
        acts = hard.act_batch(obs, mask)
        table.record.note(table.state, rows, acts)
        engine.step_inplace(table.state, acts)
    st = table.state
    rows = np.flatnonzero(~st.terminated & (st.phase == 1))
    obs = engine.observe(st)[rows]
    rel, n = table.record.relative(st, rows)
    rng = np.random.default_rng(0)
    uniform = P.sample_hands(rules, obs, 8, rng, 1.0)
    believed = record_belief(rules, engine, hard, obs, rel, n, 8, rng, steps=16)

    def cost(h: np.ndarray) -> float:
        m = len(rows) * 8
        o = np.repeat(obs, 8, axis=0)
        miss, ok = record_misses(rules, engine, hard, o, h.reshape(m, 4, -1),
                                 np.repeat(rel, 8, axis=0), np.repeat(n, 8))
        return float((miss.sum(axis=1) + 10 * ~ok).mean())

    assert cost(believed) < 0.7 * cost(uniform)
    seat0 = np.zeros(len(rows) * 8, np.int64)
    pos = P.from_observation(rules, np.repeat(obs, 8, axis=0), believed.reshape(-1, 4, 53))
    np.testing.assert_array_equal(engine.observe(pos, seat0), np.repeat(obs, 8, axis=0))


def _small_tables() -> list[Rules]:
    """Every preset at its smallest table (two deals: an exchange) and at a larger one (one
    deal): the largest (8 players) for every other preset, 5 players for the rest (a spread of
    the player counts; an 8-player expert deal takes about 2.5 s)."""
    out = []
    for i, name in enumerate(PRESETS):
        lo, hi = PRESET_PLAYERS[name]
        out.append(Rules.preset(name, num_players=lo, deals=2))
        out.append(Rules.preset(name, num_players=hi if i % 2 == 0 else min(hi, 5), deals=1))
    return out


@pytest.mark.parametrize("rules", _small_tables(), ids=lambda r: f"{r.preset_name}-{r.num_players}p")
def test_expert_plays_every_preset(rules: Rules) -> None:
    p = rules.num_players
    agents: dict[str, Any] = {"expert": lambda r, s: ExpertAgent(r, s, samples=2, steps=1)}
    agents.update({f"hard#{i}": "hard" for i in range(1, p)})
    res = run_tournament(agents, rules, 1, seed=3, seating="rotate", batch_size=p,
                         progress=False, ratings=False)
    assert res.games == p and (res.places >= 0).all()


def test_seeded_decisions_repeat_and_exchange_is_hards() -> None:
    rules = Rules.preset("standard", deals=2, observation="history")
    engine = Engine(rules)
    hard = HardAgent(rules)
    state = engine.init(np.arange(32))
    while (state.deal == 0).any():  # to the exchange of the second deal
        engine.step_inplace(state, hard.act_batch(engine.observe(state),
                                                  engine.legal_action_mask(state)))
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    ex = state.phase == 0
    a1 = ExpertAgent(rules, seed=4, samples=4, steps=2).act_batch(obs, mask)
    a2 = ExpertAgent(rules, seed=4, samples=4, steps=2).act_batch(obs, mask)
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(a1[ex], hard.act_batch(obs, mask)[ex])
    assert mask[np.arange(32), a1].all()


def test_expert_keeps_the_lead_to_go_out_first() -> None:
    """Seat 0 holds the 3c and the 2s and leads, the others hold one card each: leading the 2
    (nothing beats it) and then the 3 goes out first in every deal of the hidden cards; leading
    the 3 lets the next seat go out with any higher card."""
    rules = Rules.preset("standard", num_players=3, observation="history")
    engine = Engine(rules)
    state = engine.init_from_hands(["3c 2s", "Ah", "4c"])
    state.current[:] = 0
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    expert = ExpertAgent(rules, seed=0, samples=16)
    a = int(expert.act_batch(obs, mask)[0])
    assert engine.layout.name(a) == "single 2"
    games = state.take(np.zeros(16, np.int64))
    engine.step_inplace(games, np.full(16, a))
    assert (rollout_places(engine, expert._hard, games.take(np.arange(16))) == 0).all()
    # the same games seen from the other seats: seat 1 or 2 goes out second, the other last
    later = rollout_places(engine, expert._hard, games, np.arange(16) % 2 + 1)
    assert set(later.tolist()) <= {1.0, 2.0} and len(set(later.tolist())) == 2


def test_bad_settings() -> None:
    rules = Rules.preset("standard")
    with pytest.raises(ValueError, match="samples must be an integer >= 1"):
        ExpertAgent(rules, samples=0)
    with pytest.raises(ValueError, match="steps must be an integer >= 0"):
        ExpertAgent(rules, steps=-1)
    with pytest.raises(ValueError, match=r"miss must be in \(0, 1\]"):
        ExpertAgent(rules, miss=0.0)
    expert: Any = load_agent("expert", rules)
    assert expert.rules.observation == "history"
    engine = Engine(expert.rules)
    st = engine.init([0])
    with pytest.raises(ValueError, match="a record is moves"):
        expert.act_with_record(engine.observe(st), engine.legal_action_mask(st),  # type: ignore[attr-defined]
                               np.zeros((1, 3)), np.zeros(1))
    with pytest.raises(ValueError, match="observation='history'"):
        Table(Engine(rules), Engine(rules).init([0]), [expert], [0, 0, 0, 0])
