"""Copies of every env mid-game: ``copy.deepcopy`` and a ``pickle`` round trip.

Each env is played from a seed with actions drawn by a seeded generator, copied at several
points (right after ``reset``, in the middle of a game, at the step where a game ended), and
then the original and the copy take the same actions through at least three game ends: every
observation, mask, reward, termination and info must be the same, and so must the draws of the
envs' own generators afterwards (new games dealt from ``np_random``, random seats, opponents that
sample their moves). The copy is played to the end first, then the original: a copy that shared
anything with its original would change the original's trace.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from agents import HardAgent, RandomAgent
from president_env import (
    Engine,
    LearnerVecEnv,
    Policy,
    RandomPolicy,
    Rules,
    SingleAgentEnv,
    VectorEnv,
    env,
    raw_env,
)

Step = Callable[[Any, np.random.Generator], tuple[Any, int]]
"""One step of a driver: ``(record of the step, games that ended in it)``."""

COPIERS: dict[str, Callable[[Any], Any]] = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda e: pickle.loads(pickle.dumps(e)),
}
GAME_ENDS = 3
RULES = Rules.preset("daifugo", num_players=3, deals=2)  # exchanges, runs, jokers, two deals


def assert_same(a: Any, b: Any, where: str = "") -> None:
    """Equal values of equal types, arrays with equal dtypes, recursively."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b), f"{where}: {a} != {b}"
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), f"{where}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def pick(mask: Any, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# ---------------------------------------------------------------------- drivers
def aec_step(e: Any, rng: np.random.Generator) -> tuple[Any, int]:
    """One AEC step (``None`` for a terminated agent); a new unseeded game after the last
    agent stepped out, dealt from the env's ``np_random``."""
    agent = e.agent_selection
    obs, reward, term, trunc, info = e.last()
    e.step(None if term or trunc else pick(obs["action_mask"], rng))
    record = (agent, obs["observation"].copy(), obs["action_mask"].copy(), reward, term, trunc,
              copy.deepcopy(info), dict(e.rewards), dict(e.infos))
    if e.agents:
        return record, 0
    e.reset()
    return (record, e.agent_selection, e.observe(e.agent_selection)), 1


def single_step(e: SingleAgentEnv, rng: np.random.Generator) -> tuple[Any, int]:
    mask = e.action_masks()
    obs, reward, term, trunc, info = e.step(pick(mask, rng))
    record: Any = (mask, obs, reward, term, trunc, info)
    if term:
        record = (record, *e.reset())  # seat and opponents' seeds drawn from np_random
    return record, int(term)


def vector_step(v: VectorEnv, rng: np.random.Generator) -> tuple[Any, int]:
    actions = v.engine.sample_random(v.action_mask, rng)
    out = v.step(actions)
    return out, int(out[3].sum())


def learner_step(v: LearnerVecEnv, rng: np.random.Generator) -> tuple[Any, int]:
    mask = v.engine.legal_action_mask(v.state, v.table.mask)
    actions = v.engine.sample_random(mask, rng)
    out = v.step(actions)
    return (out, v.learner.copy()), int(out[3].sum())


def make_aec(wrapped: bool) -> Any:
    e = (env if wrapped else raw_env)(rules=RULES, render_mode="ansi")
    e.reset(seed=5)
    return e


def make_single(opponents: str) -> SingleAgentEnv:
    ops: Any = None if opponents == "default" else [RandomAgent(RULES, seed=1), HardAgent(RULES)]
    e = SingleAgentEnv(rules=RULES, seat="random", opponents=ops)
    e.reset(seed=5)
    return e


def make_vector() -> VectorEnv:
    v = VectorEnv(3, rules=RULES, seed=5)
    v.reset()
    return v


def make_learner() -> LearnerVecEnv:
    pool: list[Policy] = [RandomPolicy(seed=2), HardAgent(RULES), RandomAgent(RULES, seed=3)]
    v = LearnerVecEnv(RULES, 3, pool, seed=5, weights=[0.4, 0.3, 0.3])
    v.reset()
    return v


ENVS: dict[str, tuple[Callable[[], Any], Step]] = {
    "raw_env": (lambda: make_aec(False), aec_step),
    "env": (lambda: make_aec(True), aec_step),
    "single_default_opponents": (lambda: make_single("default"), single_step),  # type: ignore[dict-item]
    "single_rule_based_opponents": (lambda: make_single("agents"), single_step),  # type: ignore[dict-item]
    "vector": (make_vector, vector_step),  # type: ignore[dict-item]
    "learner": (make_learner, learner_step),  # type: ignore[dict-item]
}


def generators(e: Any) -> list[Any]:
    """The states of every generator an env draws from (its own and its opponents')."""
    raw = getattr(e, "unwrapped", e)
    found = [getattr(raw, "np_random", None), getattr(raw, "rng", None)]
    table = getattr(raw, "table", None)
    for policy in getattr(table, "policies", []):
        found.append(getattr(policy, "rng", None))
    return [g.bit_generator.state for g in found if isinstance(g, np.random.Generator)]


def trace(e: Any, step: Step, rng: np.random.Generator) -> list[Any]:
    """Steps until ``GAME_ENDS`` games ended, then the generators' states."""
    out, ends = [], 0
    for _ in range(5000):
        record, ended = step(e, rng)
        out.append(record)
        ends += ended
        if ends >= GAME_ENDS:
            return [*out, generators(e)]
    raise AssertionError("the games did not end")


def copy_points(make: Callable[[], Any], step: Step) -> list[int]:
    """Steps after the seeded reset at which to copy: 0, 7, and the step that ends a game."""
    e, rng = make(), np.random.default_rng(0)
    for n in range(1, 5000):
        if step(e, rng)[1]:
            return [0, 7, n]
    raise AssertionError("no game ended")


# ---------------------------------------------------------------------- tests
@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("kind", list(ENVS))
def test_a_copy_continues_exactly_as_the_original(kind: str, how: str) -> None:
    make, step = ENVS[kind]
    for at in copy_points(make, step):
        original, rng = make(), np.random.default_rng(0)
        for _ in range(at):
            step(original, rng)
        clone = COPIERS[how](original)
        copied = trace(clone, step, np.random.default_rng(1))
        ours = trace(original, step, np.random.default_rng(1))
        assert generators(original)  # the envs' own generators are compared too
        assert_same(copied, ours, f"{kind}, {how} after {at} steps")


def test_a_copy_keeps_the_game_of_the_aec_env() -> None:
    """The bug of 0.2.0: EzPickle rebuilt the env from its arguments, without its game."""
    e = env(preset="standard")
    e.reset(seed=3)
    for _ in range(5):
        e.step(pick(e.last()[0]["action_mask"], np.random.default_rng(0)))
    for how, copier in COPIERS.items():
        clone = copier(e)
        assert clone.agent_selection == e.agent_selection, how
        assert_same(clone.last(), e.last(), how)
        assert clone.unwrapped is not e.unwrapped
        assert clone.unwrapped.game_state.equals(e.unwrapped.game_state)
        assert clone.unwrapped.game_state.hands is not e.unwrapped.game_state.hands


def test_a_copy_of_a_single_agent_env_shares_its_generator_with_its_random_opponents() -> None:
    e = make_single("default")
    for copier in COPIERS.values():
        clone = copier(e)
        assert clone._random.rng is clone.np_random
        assert clone.np_random is not e.np_random


def test_an_env_copied_before_reset_plays_the_same_games() -> None:
    for copier in COPIERS.values():
        e = raw_env(rules=RULES)
        clone = copier(e)
        e.reset(seed=9)
        clone.reset(seed=9)
        assert clone.game_state.equals(e.game_state)
        assert clone.rules == e.rules and clone.possible_agents == e.possible_agents


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x))],
                         ids=["deepcopy", "pickle"])
def test_copied_engines_and_agents_keep_their_tables_read_only(clone: Callable[[Any], Any]
                                                               ) -> None:
    """numba compiles a kernel again for a writable copy of a read-only table: a copied
    engine or agent (a worker's) must hand its kernels the types the original does."""
    rules = Rules.preset("daifugo", num_players=5)
    engine, hard = Engine(rules, threads=1), HardAgent(rules, seed=3)
    engine2, hard2 = clone(engine), clone(hard)
    assert engine2.rules == rules and engine2.threads == 1
    assert not engine2._rp.flags.writeable and not hard2._rp.flags.writeable
    state = engine.init([4])
    for e in (engine, engine2):
        assert e.observe(state).tobytes() == engine.observe(state).tobytes()
