"""The record observation (``observation="record"``): a complete information state.

* Property tests over random rules and games (hypothesis): the record block never needs more
  than ``Rules.record_length`` moves, every entry lies in the bounds of the observation space,
  and two positions with the same public history and the same hand have the same observation,
  whatever the hidden cards (the other seats' cards dealt again among them at the deal's
  start, the same moves played while they play the same cards).
* The single-agent env gives the block (PettingZoo's ``api_test`` and Gymnasium's
  ``check_env`` with it: :mod:`tests.test_history`).
* A policy made for the history or the standard observation plays at a record table as at its
  own (it is handed its prefix).

The block's entries against an independent record of every move: :mod:`tests.test_history`;
positions rebuilt from it: :mod:`tests.test_positions`.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from test_properties import SETTINGS, rules_st
from test_variants_env import _shuffle_others

from agents import make_agent
from president_env import SingleAgentEnv
from president_env.core.engine import PHASE_DONE, PHASE_PLAY, Engine
from president_env.core.observe import ObservationLayout, record_high
from president_env.core.rules import PRESET_PLAYERS, PRESETS, Rules
from president_env.envs._adapt import observation_high
from president_env.search import positions as P
from president_env.table import Table


@given(rules_st(), st.integers(0, 2**32 - 1))
@SETTINGS
def test_the_record_holds_every_move_within_its_bounds(rules: Rules, seed: int) -> None:
    rules = rules.replace(observation="record")
    engine = Engine(rules)
    lay = ObservationLayout(rules)
    high = observation_high(rules, lay)
    block = lay.slices["record"]
    np.testing.assert_array_equal(high[block], record_high(rules))
    assert block.stop - block.start == 1 + 2 * rules.record_length
    state = engine.init([seed])
    rng = np.random.default_rng(seed)
    made = 0
    while state.phase[0] != PHASE_DONE:
        obs = engine.observe(state)
        assert (obs >= 0).all() and (obs <= high).all()
        moves, n = P.record_moves(rules, obs)
        assert n[0] == made <= rules.record_length
        act = int(engine.sample_random(engine.legal_action_mask(state), rng)[0])
        made = made + 1 if state.phase[0] == PHASE_PLAY else 0
        before = int(state.deal[0])
        engine.step_inplace(state, [act])
        if state.deal[0] != before:
            made = 0


@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**32 - 1), st.integers(0, 7))
@SETTINGS
def test_the_same_public_history_and_hand_give_the_same_record(preset: str, seed: int,
                                                                who: int) -> None:
    lo, hi = PRESET_PLAYERS[preset]
    rules = Rules.preset(preset, num_players=lo + seed % (hi - lo + 1), deals=1,
                         observation="record")
    p = rules.num_players
    me = who % p
    engine = Engine(rules)
    real = engine.init([seed])
    rng = np.random.default_rng(seed)
    other = _shuffle_others(real, 0, me, rng)  # the same hand, the hidden cards dealt again
    other.current[:] = real.current  # the same leader: the same public history from the start
    seen, steps = [np.array([me])], 0
    while real.phase[0] != PHASE_DONE and other.phase[0] != PHASE_DONE:
        np.testing.assert_array_equal(engine.observe(real, *seen), engine.observe(other, *seen))
        both = engine.legal_action_mask(real) & engine.legal_action_mask(other)
        if not both.any():
            break  # no move both deals allow: the public histories part here
        act = int(rng.choice(np.flatnonzero(both[0])))
        engine.step_inplace(real, [act])
        engine.step_inplace(other, [act])
        steps += 1
        if not np.array_equal(real.seat_played, other.seat_played):
            break  # the same action played other cards (of the rank): a different public move
    if real.phase[0] == other.phase[0] == PHASE_DONE:
        np.testing.assert_array_equal(engine.observe(real, *seen), engine.observe(other, *seen))
    assert steps >= 1 or not both.any()


def test_the_hidden_cards_change_the_record_of_nobody() -> None:
    """Per seat of many random positions, the others' cards dealt again: the same record."""
    rules = Rules.preset("daifugo", num_players=5, deals=2, observation="record")
    engine = Engine(rules)
    state = engine.init(np.arange(6))
    rng = np.random.default_rng(3)
    changed = 0
    for k in range(400):
        if (state.phase == PHASE_DONE).all():
            break
        if k % 5 == 0:
            for seat in range(rules.num_players):
                seats = np.full(6, seat)
                before = engine.observe(state, seats)
                for g in range(6):
                    shuffled = _shuffle_others(state, g, seat, rng)
                    changed += not np.array_equal(shuffled.hands, state.hands)
                    assert np.array_equal(engine.observe(shuffled, seats), before)
        engine.step_inplace(state, np.maximum(engine.sample_random(
            engine.legal_action_mask(state), rng), 0))
    assert changed > 100


# ------------------------------------------------------------------------------ tables
def test_policies_of_smaller_observations_play_at_a_record_table_as_at_their_own() -> None:
    """Hard made for the standard and for the history observation, at a record table and at
    a table of their own rules: the same games, move for move."""
    record = Rules.preset("standard", deals=2, observation="record")
    for own in ("standard", "history"):
        rules = record.replace(observation=own)
        finals = []
        for table_rules in (record, rules):
            engine = Engine(table_rules)
            agents = [make_agent("hard", rules, seed=s) for s in range(2)]
            table = Table(engine, engine.init(np.arange(12) + 5), agents, [0, 1, 0, 1])
            table.play_until_external()
            finals.append((table.state.title.copy(), table.state.scores.copy()))
        np.testing.assert_array_equal(finals[0][0], finals[1][0])
        np.testing.assert_array_equal(finals[0][1], finals[1][1])


def test_the_single_agent_env_seats_a_history_opponent_at_a_record_table() -> None:
    """The learner's record observation at each of its turns is the table's, and holds every
    move since its last turn (its own among them)."""
    rules = Rules.preset("standard", observation="record")
    e = SingleAgentEnv(rules=rules, seat=0, opponents=[make_agent(
        "hard", rules.replace(observation="history"))] * 3)
    obs, _ = e.reset(seed=2)
    assert obs.shape == (ObservationLayout(rules).size,)
    rng = np.random.default_rng(0)
    done, before, turns = False, -1, 0
    while not done:
        table = e.table
        assert table is not None
        np.testing.assert_array_equal(obs, table.engine.observe(table.state, [0])[0])
        n = int(P.record_moves(rules, obs[None])[1][0])
        assert n > before and n == int((table.state.recent[0, :, 0] >= 0).sum())
        before, turns = n, turns + 1
        obs, _r, term, trunc, _ = e.step(int(rng.choice(np.flatnonzero(e.action_masks()))))
        done = term or trunc
    assert turns > 3
