"""The seating layer (Table, Policy, RandomPolicy), the gate, rewards and the learner env."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents import make_agent
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.envs.learner import LearnerVecEnv
from president_env.gate import ActionGate, as_action
from president_env.rewards import deal_rewards, reward_table
from president_env.table import EXTERNAL, RandomPolicy, Table, as_policy


def _finish(table: Table) -> None:
    table.play_until_external()
    assert (table.state.phase == PHASE_DONE).all()


@pytest.mark.parametrize("preset,players,deals", [("standard", 4, 1), ("daifugo", 6, 3)])
def test_a_batch_of_games_equals_its_games_one_by_one(preset: str, players: int, deals: int) -> None:
    rules = Rules.preset(preset, num_players=players, deals=deals)
    engine = Engine(rules)
    policies = [make_agent("hard", rules), make_agent("normal", rules), make_agent("easy", rules)]
    seats = np.random.default_rng(0).integers(0, 3, (12, players))
    batch = Table(engine, engine.init(np.arange(12)), policies, seats)
    _finish(batch)
    for b in range(12):
        one = Table(engine, engine.init([b]), policies, seats[b])
        _finish(one)  # the one-game fast path
        assert one.state.equals(batch.state.take(b))
    assert batch.decisions > 0


def test_external_seats_wait_and_play_through_the_gate() -> None:
    rules = Rules.preset("standard")
    engine = Engine(rules)
    seat_policy = [EXTERNAL, 0, 0, 0]
    for batch in (1, 5):
        table = Table(engine, engine.init(np.arange(batch)), [make_agent("hard", rules)], seat_policy)
        table.play_until_external()
        rows, obs, mask = table.pending()
        live = table.state.phase != PHASE_DONE
        assert list(rows) == list(np.flatnonzero(live & (table.state.current == 0)))
        assert obs.shape == (len(rows), engine.obs_size) and mask.any(axis=1).all()
        before = table.state.copy()
        illegal = np.argmin(mask, axis=1)
        with pytest.raises(ValueError, match=r"game \d+: action \d+ \(.*\) is illegal for player 0"):
            table.step_external(rows, illegal)
        assert table.state.equals(before)  # an illegal action changes nothing
        table.step_external(rows, np.argmax(mask, axis=1))
        assert not table.state.equals(before)


def test_a_policys_illegal_action_is_named_and_changes_nothing() -> None:
    class Cheater:
        name = "cheater"

        def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            return np.argmin(mask, axis=1)

    rules = Rules.preset("standard")
    engine = Engine(rules)
    for batch in (1, 3):
        table = Table(engine, engine.init(np.arange(batch)), [Cheater()], [0, 0, 0, 0])
        before = table.state.copy()
        with pytest.raises(ValueError, match=r"illegal for the agent in seat \d \(cheater\)"):
            table.play_until_external()
        assert table.state.equals(before)


def test_table_checks_its_seating() -> None:
    rules = Rules.preset("standard")
    engine = Engine(rules)
    with pytest.raises(ValueError, match="shape"):
        Table(engine, engine.init([0, 1]), [RandomPolicy(0)], np.zeros((3, 4)))
    with pytest.raises(ValueError, match="external"):
        Table(engine, engine.init([0]), [RandomPolicy(0)], [0, 1, 0, 0])
    with pytest.raises(TypeError, match="act_batch"):
        as_policy(object())


def test_random_policy_is_seeded_and_batch_independent_at_one_row() -> None:
    m = np.random.default_rng(1).random((300, 40)) < 0.2
    m[7] = False
    obs = np.zeros((300, 1), np.float32)
    one = RandomPolicy(3).act_batch(obs[:1], m[:1])
    a, b = RandomPolicy(3), RandomPolicy(3)
    rows = np.concatenate([a.act_batch(obs[i : i + 1], m[i : i + 1]) for i in range(300)])
    batch = b.act_batch(obs, m)
    assert np.array_equal(rows, batch) and one[0] == batch[0]
    assert batch[7] == -1
    assert all(m[i, batch[i]] for i in range(300) if i != 7)


# ---------------------------------------------------------------- the gate
def test_gate_checks_type_range_and_legality() -> None:
    rules = Rules.preset("standard")
    gate = ActionGate(Engine(rules).layout)
    mask = np.zeros(gate.num_actions, np.bool_)
    mask[[0, 5]] = True
    assert gate.check(5, mask, "me") == 5 and gate.check(np.int16(0), mask, "me") == 0
    for bad, error in [(0.5, TypeError), (True, TypeError), ("1", TypeError),
                       (np.array([1]), TypeError), (-1, ValueError), (999, ValueError)]:
        with pytest.raises(error):
            gate.check(bad, mask, "me")
    with pytest.raises(ValueError, match=r"action 1 \(single 3\) is illegal for me; legal actions: 0 \(pass\), 5 \(single 4\)"):
        gate.check(1, mask, "me")
    assert ActionGate(gate.layout, "penalty").check(1, mask, "me") is None
    with pytest.raises(ValueError, match="illegal_action"):
        ActionGate(gate.layout, "ignore")
    masks = np.stack([mask, mask])
    out = gate.check_batch([5, 123], masks, rows=np.array([True, False]))
    assert out.tolist() == [5, -1]  # unselected rows may hold anything
    with pytest.raises(ValueError, match=r"game 7: action 1"):
        gate.check_batch([5, 1], masks, games=[3, 7])
    with pytest.raises(TypeError, match="integer"):
        gate.check_batch([0.0, 1.0], masks)
    assert as_action(np.array(3), 10) == 3


# ---------------------------------------------------------------- rewards
def test_deal_rewards_come_from_the_places_of_the_deal_that_ended() -> None:
    rules = Rules.preset("standard", deals=2)
    engine = Engine(rules)
    table = Table(engine, engine.init(np.arange(6)), [make_agent("easy", rules)], [0, 0, 0, 0])
    linear = reward_table(rules)
    seen = 0

    def check(moved: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        nonlocal seen
        st = table.state
        r = deal_rewards(st, linear)
        assert (r[~st.deal_over] == 0).all()
        for b in np.flatnonzero(st.deal_over & moved):  # games that did not move keep theirs
            seen += 1
            np.testing.assert_allclose(r[b], 1 - 2 * st.title[b] / 3, rtol=1e-6)
            assert r[b].sum() == pytest.approx(0.0, abs=1e-6)

    table.play_until_external(check)
    assert seen == 12
    assert reward_table(rules, "scores").tolist() == [2, 1, 0, 0]
    with pytest.raises(ValueError, match="4 finite numbers"):
        reward_table(rules, [1, 0])


# ---------------------------------------------------------------- the learner env
def test_learner_env_episodes_and_seeding() -> None:
    rules = Rules.preset("standard")

    def run(seed: int) -> list[Any]:
        env = LearnerVecEnv(rules, 16, [make_agent("hard", rules), RandomPolicy(1)], seed=seed)
        obs, mask = env.reset()
        out: list[Any] = [obs]
        rng, places = np.random.default_rng(0), []
        for _ in range(200):
            assert mask.any(axis=1).all()
            assert (env.state.current == env.learner).all()  # every game waits for its learner
            obs, mask, r, done, info = env.step(RandomPolicy(rng=rng).act_batch(obs, mask))
            out += [obs, r, done]
            # with one deal the reward of an episode is the learner's place's reward, at its end
            np.testing.assert_allclose(r[done], 1 - 2 * info["place"][done] / 3, rtol=1e-6)
            assert (r[~done] == 0).all()
            places += info["place"][done].tolist()
        assert set(places) == {0, 1, 2, 3}
        return out

    a, b = run(3), run(3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    with pytest.raises(ValueError, match="illegal"):
        env = LearnerVecEnv(rules, 2, [RandomPolicy(0)])
        _, mask = env.reset()
        env.step(np.argmin(mask, axis=1))
