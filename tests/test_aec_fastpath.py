"""The AEC env's fast paths give exactly what the general paths give.

``raw_env.step`` plays a legal int action of a plain env (no picture, no record) in one short
path, ``reset()`` deals the new game into the old game's arrays (``OneGame.restart``), ``last()``
builds the observation of the agent to act from the step's cache, and the wrapper's ``step()``
goes straight to the bare env. Each is checked against the general path: an env with
``render_mode="ansi"`` takes the general ``step``, a fresh env's ``engine.init`` deals the
reference game, and PettingZoo's wrappers (built by hand) the reference errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from president_env import env, raw_env
from president_env.core import OneGame
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.envs.wrappers import ActionCheckWrapper, OrderEnforcingWrapper
from president_env.seeding import game_seed

PRESETS = ["standard", "daifugo", "daifugo_full"]


def _trace(e: Any, rng: np.random.Generator, games: int) -> list[Any]:
    """Everything an AEC loop sees over ``games`` games (each reset without a seed)."""
    seen: list[Any] = []
    for g in range(games):
        if g:
            e.reset()
        for agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew,
                         term, trunc, dict(info), dict(e.rewards)))
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


@pytest.mark.parametrize("preset", PRESETS)
def test_fast_step_and_reset_equal_the_general_path(preset: str) -> None:
    fast, general = env(preset=preset), env(preset=preset, render_mode="ansi")
    fast.reset(seed=5)
    general.reset(seed=5)
    assert fast.unwrapped._plain and not general.unwrapped._plain
    a = _trace(fast, np.random.default_rng(1), 4)
    b = _trace(general, np.random.default_rng(1), 4)
    assert len(a) > 200 and a == b


@pytest.mark.parametrize("preset", PRESETS)
def test_reset_in_place_deals_the_state_of_a_new_game(preset: str) -> None:
    e = raw_env(preset=preset)
    eng = Engine(e.rules)
    e.reset(seed=0)
    state = e.game_state
    rng = np.random.default_rng(0)
    for seed in range(12):
        for _ in range(int(rng.integers(0, 150))):  # stop anywhere: mid-deal, later deal, over
            if e._current < 0:
                break
            e.step(int(rng.choice(np.flatnonzero(e.action_mask()))))
        e.reset(seed=seed)
        assert e.game_state is state  # the same arrays
        assert state.equals(eng.init([game_seed(seed)]))
        fresh = raw_env(preset=preset)
        fresh.reset(seed=seed)
        assert e.agent_selection == fresh.agent_selection
        for agent in e.possible_agents:
            mine, theirs = e.observe(agent), fresh.observe(agent)
            assert np.array_equal(mine["observation"], theirs["observation"])
            assert np.array_equal(mine["action_mask"], theirs["action_mask"])


def test_restart_without_address_vector_equals_init() -> None:
    rules = Rules.preset("standard")
    eng = Engine(rules)
    fields = {n: getattr(eng.init([3]), n).copy() for n in State.__dataclass_fields__
              if not n.startswith("_")}
    strided = np.zeros((1, rules.num_players, 106), np.int8)[:, :, ::2]  # not contiguous
    strided[...] = fields["hands"]
    game = OneGame(eng, State(**{**fields, "hands": strided}))  # no address vector
    assert not game.fast
    fast = OneGame(eng, eng.init([3]))
    for _ in range(30):
        a = int(np.flatnonzero(game.mask)[0])
        game.step(a)
        fast.step(a)
    assert game.restart(77) == fast.restart(77)
    assert game.state.equals(eng.init([77])) and fast.state.equals(eng.init([77]))
    assert np.array_equal(game.mask, fast.mask) and np.array_equal(game.obs, fast.obs)


def test_recording_and_given_hands_still_start_new_states() -> None:
    e = raw_env(preset="standard", record=True)
    e.reset(seed=1)
    first = e.game_state
    e.reset(seed=2)
    assert e.game_state is not first  # the recorder's game keeps its own arrays
    e = raw_env(preset="standard")
    e.reset(seed=1, options={"hands": ["3c 4c", "3d 4d", "3h 4h", "3s 4s"]})
    given = e.game_state
    e.reset(seed=1)  # a seeded deal over the given one: in place, equal to a fresh deal
    assert e.game_state is given and given.equals(Engine(e.rules).init([game_seed(1)]))


def _pettingzoo_chain(preset: str) -> Any:
    """``env()``'s layers, each going through the next (the reference of the errors)."""
    e = OrderEnforcingWrapper(ActionCheckWrapper(raw_env(preset=preset)))
    e._step_direct = False
    return e


@pytest.mark.parametrize("action", ["3", 1.0, -1, 10**6, None, np.array([1, 2]), True])
def test_step_errors_are_those_of_every_layer(action: Any) -> None:
    """While an agent is to act and once the game is over (terminated agents)."""
    for over in (False, True):
        errors: list[tuple[type, str] | None] = []
        for e in (env(preset="standard"), _pettingzoo_chain("standard"), raw_env(preset="standard")):
            e.reset(seed=4)
            if over:
                rng = np.random.default_rng(0)
                while e.unwrapped._current >= 0:
                    e.step(int(rng.choice(np.flatnonzero(e.unwrapped.action_mask()))))
            try:
                e.step(action)
                errors.append(None)
            except Exception as err:  # noqa: BLE001 (the error itself is compared)
                errors.append((type(err), str(err)))
        if over and action is None:
            assert errors == [None, None, None]  # a terminated agent's step(None)
        else:
            assert errors[0] is not None and errors[0] == errors[1] == errors[2], errors


def test_the_direct_step_is_only_taken_over_check_layers() -> None:
    assert env(preset="standard")._step_direct
    assert not env(preset="standard", illegal_action="penalty")._step_direct
    assert not OrderEnforcingWrapper(wrappers.BaseWrapper(raw_env()))._step_direct
