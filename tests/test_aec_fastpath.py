"""The AEC env's one step path, and its fast paths, give exactly what PettingZoo's give.

``raw_env.step`` is the one step body of the env, bare or in ``env()``'s one wrapper
(PettingZoo's ``OrderEnforcingWrapper``, reading the env's attributes directly): a legal int
goes straight to the play, with the picture and record hooks only when asked for; ``reset()``
deals the new game into the old game's arrays (``OneGame.restart``); ``last()`` builds the
observation of the agent to act from the step's cache. Each is checked against a reference: an
env with ``render_mode="ansi"`` or a record plays the same games, a fresh env's ``engine.init``
deals the reference game, and PettingZoo's own wrappers (``OrderEnforcingWrapper``,
``TerminateIllegalWrapper``) give the reference errors and the reference penalty.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from president_env import env, raw_env
from president_env.core import OneGame, one_game
from president_env.core.actions import PASS
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.envs.wrappers import OrderEnforcingWrapper
from president_env.gate import ILLEGAL_REWARD
from president_env.seeding import game_seed

PRESETS = ["standard", "daifugo", "daifugo_full"]
ILLEGAL_MOVE = ("[WARNING]: Illegal move made, game terminating with current player losing. \n"
                "obs['action_mask'] contains a mask of all legal moves that can be chosen.")


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
def test_the_picture_and_record_hooks_do_not_change_the_games(preset: str) -> None:
    plain = env(preset=preset)
    shown, recorded = env(preset=preset, render_mode="ansi"), env(preset=preset, record=True)
    traces = []
    for e in (plain, shown, recorded):
        e.reset(seed=5)
        traces.append(_trace(e, np.random.default_rng(1), 4))
    assert plain.unwrapped._plain and not shown.unwrapped._plain
    assert not recorded.unwrapped._plain
    assert len(traces[0]) > 200 and traces[0] == traces[1] == traces[2]


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


def _steps_and_restart_agree(eng: Engine, game: OneGame, fast: OneGame) -> None:
    """``game`` (no address vector) plays a whole game and restarts as ``fast`` does."""
    assert not game.fast and fast.fast
    while fast.current >= 0:
        assert np.array_equal(game.mask, fast.mask) and np.array_equal(game.obs, fast.obs)
        a = int(np.flatnonzero(fast.mask)[0])
        assert game.step(a) == fast.step(a)
    assert game.current == -1
    assert game.restart(77) == fast.restart(77)
    assert game.state.equals(eng.init([77])) and fast.state.equals(eng.init([77]))
    assert np.array_equal(game.mask, fast.mask) and np.array_equal(game.obs, fast.obs)


def test_restart_without_address_vector_equals_init(monkeypatch: pytest.MonkeyPatch) -> None:
    # the fallback branch of OneGame (Engine.advance, Engine.reset_where) on the kernels'
    # usual array types; a state that really cannot be handed over is the long test below
    eng = Engine(Rules.preset("standard"))
    fast = OneGame(eng, eng.init([3]))
    monkeypatch.setattr(one_game, "address_spec", lambda engine, state: None)
    _steps_and_restart_agree(eng, OneGame(eng, eng.init([3])), fast)


@pytest.mark.long  # compiles the engine again for a strided array: ~50 s on a clean cache
def test_a_strided_state_plays_and_restarts_without_address_vector() -> None:
    rules = Rules.preset("standard")
    eng = Engine(rules)
    fields = {f.name: getattr(eng.init([3]), f.name).copy() for f in dataclasses.fields(State)
              if not f.name.startswith("_")}
    strided = np.zeros((1, rules.num_players, 106), np.int8)[:, :, ::2]  # not contiguous
    strided[...] = fields["hands"]
    _steps_and_restart_agree(eng, OneGame(eng, State(**{**fields, "hands": strided})),
                             OneGame(eng, eng.init([3])))


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


def _pettingzoo_env(preset: str = "standard", illegal_action: str = "raise") -> Any:
    """The bare env in PettingZoo's own OrderEnforcingWrapper (the reference of env())."""
    return wrappers.OrderEnforcingWrapper(raw_env(preset=preset, illegal_action=illegal_action))


def _outcome(call: Any) -> tuple[Any, ...]:
    """What ``call()`` returns or raises, and the warnings it gives (Python's and PettingZoo's
    logged ones)."""
    EnvLogger.flush()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out: Any = ("ok", call())
        except Exception as err:  # noqa: BLE001 (the error itself is compared)
            out = (type(err), str(err))
    logged = [str(m) for m in EnvLogger.mqueue]
    EnvLogger.flush()
    return out, [str(w.message) for w in caught] + logged


@pytest.mark.parametrize("action", ["3", 1.0, -1, 10**6, None, np.array([1, 2]), True, 0])
def test_step_errors_are_those_of_pettingzoos_wrapper_and_the_bare_env(action: Any) -> None:
    """While an agent is to act (leading: 0, a pass, is illegal) and once the game is over
    (terminated agents)."""
    for over in (False, True):
        outcomes = []
        for e in (env(preset="standard"), _pettingzoo_env(), raw_env(preset="standard")):
            e.reset(seed=4)
            if over:
                rng = np.random.default_rng(0)
                while e.unwrapped._current >= 0:
                    e.step(int(rng.choice(np.flatnonzero(e.unwrapped.action_mask()))))
            outcomes.append(_outcome(lambda e=e: e.step(action)))
        if over and action is None:
            assert outcomes == [(("ok", None), [])] * 3  # a terminated agent's step(None)
        else:
            assert outcomes[0][0][0] is not None and outcomes[0] == outcomes[1] == outcomes[2]
            assert outcomes[0][0][0] in (TypeError, ValueError), outcomes


def test_the_order_is_enforced_as_pettingzoo_does() -> None:
    """Before reset, and once every agent is gone, env() does what PettingZoo's own
    OrderEnforcingWrapper does (errors, warnings); after reset it steps the bare env."""
    calls = [
        lambda e: e.step(0),
        lambda e: e.observe("player_0"),
        lambda e: e.render(),
        lambda e: e.agent_iter(),
        lambda e: e.last(),
        *(lambda e, name=name: getattr(e, name)
          for name in ("agent_selection", "agents", "num_agents", "rewards", "terminations",
                       "truncations", "infos")),
    ]
    for call in calls:
        mine = _outcome(lambda call=call: call(env()))
        theirs = _outcome(lambda call=call: call(_pettingzoo_env()))
        assert mine[0][0] is not None and mine[0][0] != "ok" and mine == theirs, (mine, theirs)
    ours, ref = env(preset="standard"), _pettingzoo_env()
    for e in (ours, ref):
        e.reset(seed=2)
    assert _trace(ours, np.random.default_rng(3), 2) == _trace(ref, np.random.default_rng(3), 2)
    assert not ours.agents and not ref.agents
    assert _outcome(lambda: ours.step(0)) == _outcome(lambda: ref.step(0))  # a warning only
    assert _outcome(lambda: ours.step(0))[1]
    assert type(ours) is OrderEnforcingWrapper and type(ours.env) is raw_env


def _penalty_trace(e: Any, steps: int) -> list[Any]:
    """``steps`` legal actions, then the first illegal one, then every agent's ``step(None)``:
    what an AEC loop sees after each call."""
    rng = np.random.default_rng(7)
    seen: list[Any] = []
    for _ in range(steps):
        e.step(int(rng.choice(np.flatnonzero(e.unwrapped.action_mask()))))
    illegal = int(np.flatnonzero(e.unwrapped.action_mask() == 0)[0])
    assert steps or illegal == PASS  # leading
    seen.append(_outcome(lambda: e.step(illegal)))
    while e.agents:
        agent = e.agent_selection
        obs, rew, term, trunc, info = e.last()
        seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew,
                     term, trunc, dict(info), dict(e.rewards), dict(e._cumulative_rewards),
                     list(e.agents)))
        e.step(None)
    return seen


@pytest.mark.parametrize("steps", [0, 3, 40])
def test_the_penalty_is_pettingzoos_terminate_illegal_wrapper(steps: int) -> None:
    """The bare env's one penalty, in env() and bare, against PettingZoo's own wrapper over
    an env that would raise."""
    reference = wrappers.OrderEnforcingWrapper(wrappers.TerminateIllegalWrapper(
        raw_env(preset="standard"), illegal_reward=ILLEGAL_REWARD))
    traces = []
    for e in (env(preset="standard", illegal_action="penalty"),
              raw_env(preset="standard", illegal_action="penalty"), reference):
        e.reset(seed=9)
        traces.append(_penalty_trace(e, steps))
    assert traces[0][0] == (("ok", None), [ILLEGAL_MOVE]) and len(traces[0]) == 5  # 4 retire
    assert traces[0] == traces[1] == traces[2]
