"""Many President games in one object, for fast self-play and training.

``VectorEnv(num_envs, preset=..., seed=...)`` holds ``B = num_envs`` games in one batched engine
state and advances them together; every call is a fixed number of batched engine calls, with no
Python loop over games. Every game is a full game of the rules; the player to act differs from
game to game, so each step takes one action per game, from whichever player is to act there
(self-play: one policy plays every seat).

::

    venv = VectorEnv(4096, preset="daifugo", seed=0)
    obs, mask, info = venv.reset()
    while training:
        actions = policy(obs, mask)              # [B] ints, legal under mask
        obs, mask, rewards, terminated, info = venv.step(actions)
        seat = info["current_player"]            # [B] who is to act in obs

=====================  ==============  =================================================
returned               shape, dtype    meaning
=====================  ==============  =================================================
``obs``                [B, O] float32  observation of the player to act in each game
``mask``               [B, A] bool     that player's legal actions
``rewards``            [B, P] float32  every player's reward for a deal that ended in this
                                       step (zero elsewhere); seat ``p`` in column ``p``
``terminated``         [B] bool        the game ended in this step
``info["current_player"]``  [B] int64  seat to act in ``obs`` (-1 for a finished game
                                       without auto-reset)
``info["deal_over"]``  [B] bool        a deal ended in this step
``info["final_scores"]``    [B, P] int32   cumulative scores of the games that ended
                                       (rows of other games are 0)
``info["final_standings"]`` [B, P] int64   their final ranking, 0 = winner (other rows -1)
=====================  ==============  =================================================

Auto-reset (``auto_reset=True``, the default) is **same-step**: a game that ends in a step is
dealt again in that same step, so the ``obs``, ``mask`` and ``current_player`` returned for it
are already those of the new game; ``terminated`` is True for that one step, and its final
rewards, scores and standings are in ``rewards`` and ``info``. (There is nothing to act on in
the last position of a game, so no observation is lost.) New games are seeded from the
environment's generator (``np_random``), so a run repeats exactly for the same ``seed``. With
``auto_reset=False`` a finished game stays over (all-False mask, ``current_player`` -1, its
``obs`` row seat 0's view of the final table) and its actions are ignored until ``reset()``.

Seeds: game ``b`` of ``VectorEnv(B, seed=s)`` after ``reset()`` is the game of the AEC env
``env().reset(seed=s + b)`` (:func:`game_seed`), so both play the same deals. A seed is an int
>= 0 or None (another type is a TypeError, a negative int a ValueError); ``reset`` takes no
``options`` (any key is a ValueError), and a failed reset changes nothing.
``copy.deepcopy`` and ``pickle`` copy every game in play and the generator.

Threads: the engine's batched calls run on ``threads`` threads (default: the engine's, see
:mod:`president_env.core.engine`); a step is two engine calls (the turn; then new games, masks
and observations together).

``render(game, seat=None, mode="ansi")`` draws one game in any render mode of
:data:`~president_env.render.view.RENDER_MODES` (text, printed, or an ``H x W x 3`` uint8 picture).

Illegal actions raise ValueError naming the game, the action and the legal actions, and change
nothing (the check is one lookup per game in the mask that the last call returned: a new array
every step, which ``step`` reads again, so change a copy of it, never the array itself). Rewards, like the AEC env's,
follow the ``reward`` option (``"linear"``, ``"scores"`` or one number per place).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding

from president_env.core.engine import PHASE_DONE, Engine, State
from president_env.core.rules import Rules
from president_env.envs._adapt import (
    check_options,
    make_rules,
    observation_high,
)
from president_env.gate import ActionGate
from president_env.render import render_view
from president_env.rewards import RewardOption, deal_rewards, reward_table
from president_env.seeding import draw_seeds, game_seed, game_seeds


class VectorEnv:
    """``num_envs`` President games stepped together (see the module docstring)."""

    def __init__(
        self,
        num_envs: int,
        preset: str | None = None,
        rules: Rules | None = None,
        seed: int | None = None,
        auto_reset: bool = True,
        reward: RewardOption = "linear",
        threads: int | None = None,
        **options: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if not isinstance(auto_reset, bool):
            raise TypeError(f"auto_reset must be True or False, got {auto_reset!r}")
        self.num_envs = int(num_envs)
        self.rules = make_rules(preset, rules, options)
        self.auto_reset = auto_reset
        self.reward_table = reward_table(self.rules, reward)
        self.engine = Engine(self.rules, threads=threads)
        self.gate = ActionGate(self.engine.layout)
        self.layout = self.engine.layout
        self.obs_layout = self.engine.obs_layout
        self.num_players = self.rules.num_players
        self.num_actions = self.engine.num_actions
        self.obs_size = self.engine.obs_size
        self.single_observation_space = spaces.Box(
            0.0, observation_high(self.rules, self.obs_layout), (self.obs_size,), np.float32
        )
        self.single_action_space = spaces.Discrete(self.num_actions)
        if seed is not None:
            game_seed(seed)  # a clear error for a bad seed
        self._seed = seed
        self.np_random, self.np_random_seed = seeding.np_random(None if seed is None else int(seed))
        self._state: State | None = None
        self._mask = np.zeros((self.num_envs, self.num_actions), np.bool_)
        self._rows = np.arange(self.num_envs)
        self.current_player = np.full(self.num_envs, -1, np.int64)

    # ------------------------------------------------------------------ api
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], dict[str, Any]]:
        """Start ``num_envs`` new games: ``(obs [B, O], mask [B, A], info)``.

        With ``seed``, game ``b`` is the game of the AEC env's ``reset(seed=seed + b)`` and
        later games follow from ``seed``; without it, the constructor's seed is used on the
        first call and new games are drawn from ``np_random`` afterwards. ``options`` has no
        valid key (it is there for the Gymnasium signature).
        """
        check_options(options, ())
        if seed is None and self._state is None:
            seed = self._seed
        if seed is not None:
            seeds = game_seeds(seed, self.num_envs)
            self.np_random, self.np_random_seed = seeding.np_random(int(seed))
        else:
            seeds = self._draw_seeds(self.num_envs)
        self._state = self.engine.init(seeds)
        obs = self._observe()
        return obs, self._mask.copy(), self._info(None, None)

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Play ``actions[b]`` in every game b: ``(obs, mask, rewards, terminated, info)``."""
        state = self._state
        if state is None:
            raise RuntimeError("call reset() before step()")
        a = self._check_actions(actions)
        self.engine.step_inplace(state, a, check=False)
        deal_over = state.deal_over.copy()
        rewards = deal_rewards(state, self.reward_table)
        done = state.phase == PHASE_DONE
        terminated = done & deal_over
        ended = np.flatnonzero(terminated)
        final = self._final(state, ended)
        if self.auto_reset and len(ended):
            seeds = np.zeros(self.num_envs, np.uint64)
            seeds[ended] = self._draw_seeds(len(ended))
            obs = self._observe(terminated, seeds)  # new games, masks, observations: one call
        else:
            obs = self._observe()
        return obs, self._mask.copy(), rewards, terminated, self._info(deal_over, final)

    def render(
        self, game: int = 0, seat: int | None = None, mode: str = "ansi"
    ) -> str | npt.NDArray[np.uint8] | None:
        """The table of game ``game`` with the hand of ``seat`` (default: the player to act),
        in render ``mode``: text (``"ansi"``), printed (``"human"``) or a picture
        (``"rgb_array"``)."""
        return render_view(mode, self.rules, self.state, game, seat=seat, layout=self.layout)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ views
    @property
    def state(self) -> State:
        """The engine state of all games (batch-first arrays); do not modify it."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    @property
    def action_mask(self) -> npt.NDArray[np.bool_]:
        """Legal actions ``[B, A]`` of the player to act in each game (a copy)."""
        return self._mask.copy()

    # ------------------------------------------------------------------ helpers
    def _draw_seeds(self, n: int) -> npt.NDArray[np.uint64]:
        return draw_seeds(self.np_random, n)

    def _observe(
        self, done: npt.NDArray[np.bool_] | None = None, seeds: npt.NDArray[np.uint64] | None = None
    ) -> npt.NDArray[np.float32]:
        """New games where ``done``, then the mask (a new array each step) and observations of
        the players to act, in one engine call."""
        state = self._state
        assert state is not None
        self._mask = np.empty((self.num_envs, self.num_actions), np.bool_)
        obs = np.empty((self.num_envs, self.obs_size), np.float32)
        self.engine.next_views(state, self._mask, obs, done, seeds)
        self.current_player = state.current.astype(np.int64)
        return obs

    def _check_actions(self, actions: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Actions checked by the gate; finished games (without auto-reset) may hold anything
        and step with action 0, which the engine ignores for them."""
        live = self.current_player >= 0
        a = self.gate.check_batch(actions, self._mask, rows=live, seats=self.current_player)
        return np.where(live, a, 0)

    def _final(self, state: State, ended: npt.NDArray[np.intp]) -> tuple[Any, Any]:
        scores = np.zeros((self.num_envs, self.num_players), np.int32)
        standings = np.full((self.num_envs, self.num_players), -1, np.int64)
        if len(ended):
            sub = state.take(ended)
            scores[ended] = sub.scores
            standings[ended] = self.engine.standings(sub)
        return scores, standings

    def _info(
        self, deal_over: npt.NDArray[np.bool_] | None, final: tuple[Any, Any] | None
    ) -> dict[str, Any]:
        if final is None:
            final = (
                np.zeros((self.num_envs, self.num_players), np.int32),
                np.full((self.num_envs, self.num_players), -1, np.int64),
            )
        return {
            "current_player": self.current_player.copy(),
            "deal_over": np.zeros(self.num_envs, np.bool_) if deal_over is None else deal_over,
            "final_scores": final[0],
            "final_standings": final[1],
        }
