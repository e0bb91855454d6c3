"""A single-agent Gymnasium view of President: one learner seat, the other seats played by agents.

::

    from sb3_contrib import MaskablePPO
    from president_env import SingleAgentEnv

    env = SingleAgentEnv(preset="standard", seat="random")      # random-legal opponents
    model = MaskablePPO("MlpPolicy", env).learn(100_000)          # uses env.action_masks()

==================  ===========================================================================
episode             one game (``deals`` deals); it ends when the game ends
observation         ``Box(0, high, (O,), float32)``: the learner's observation vector (the same
                    as the AEC env's ``"observation"``, see :mod:`president_env.core.observe`)
action              ``Discrete(A)``: an action id of :class:`~president_env.core.actions.ActionLayout`
``action_masks()``  bool [A], the learner's legal actions (for sb3-contrib ``MaskablePPO``);
                    all False once the episode is over
reward              the learner's own deal rewards (``reward`` option, default +1 for first ..
                    -1 for last) that arrived since its previous action: 0 on most steps, the
                    deal's reward on the step after which the deal ended
info                ``{"seat": learner seat, "deal": deal index}``; at the end also ``"score"``
                    (the learner's final score), ``"standing"`` (0 = winner) and ``"scores"``
==================  ===========================================================================

``seat`` is the learner's seat, a fixed int or ``"random"`` (drawn each episode from the env's
generator). ``opponents`` plays every other seat: one agent for all of them, or a sequence of
``N - 1`` agents, the ``i``-th sitting ``i + 1`` seats to the learner's left. An agent is any
object with ``act(observation: np.ndarray, action_mask: np.ndarray) -> int`` (the agents of the
project's ``agents`` package, a trained policy, ...); by default :class:`RandomLegalAgent`,
drawing from the env's ``np_random``, so that ``reset(seed=s)`` repeats episodes exactly.

An illegal learner action raises ValueError (naming the action and the legal ones) and changes
nothing (``illegal_action="raise"``, the default); so does an opponent's illegal action. With
``illegal_action="penalty"`` an illegal learner action ends the episode instead, with reward -1
and ``info["illegal_action"] = True`` (for code that samples the whole action space, such as
Gymnasium's ``check_env``). An action of the wrong type (float, bool, array that is not 0-d)
raises TypeError, an id out of range ValueError, in both modes. The env is registered with Gymnasium as
``"President-v0"`` (``gymnasium.make("President-v0", preset="cardverse")``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from president_env._adapt import (
    SEED_HIGH,
    RewardOption,
    as_action,
    game_seed,
    is_linear,
    make_rules,
    observation_high,
    reward_table,
)
from president_env.core._fastpath import OneGame
from president_env.core.engine import PHASE_DONE, Engine, State
from president_env.core.rules import Rules
from president_env.render import render_table

ILLEGAL_REWARD = -1.0

@runtime_checkable
class SeatAgent(Protocol):
    """What plays a seat: a decision from an observation and a legal-action mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


class RandomLegalAgent:
    """A uniformly random legal action, drawn from a given numpy Generator."""

    def __init__(self, rng: np.random.Generator | None = None) -> None:
        self.rng = rng if rng is not None else np.random.default_rng()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError("the action mask has no legal action (is the game over?)")
        return int(legal[self.rng.integers(len(legal))])


class SingleAgentEnv(gymnasium.Env):  # type: ignore[misc]
    """One learner against agents in the other seats (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        preset: str | None = None,
        rules: Rules | None = None,
        seat: int | str = 0,
        opponents: SeatAgent | Sequence[SeatAgent] | None = None,
        render_mode: str | None = None,
        reward: RewardOption = "linear",
        illegal_action: str = "raise",
        **options: Any,
    ) -> None:
        self.rules = make_rules(preset, rules, options)
        p = self.rules.num_players
        if seat != "random" and (
            isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < p
        ):
            raise ValueError(f"seat must be 0..{p - 1} or 'random', got {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        if illegal_action not in ("raise", "penalty"):
            raise ValueError(
                f"illegal_action must be 'raise' or 'penalty', got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        self.seat_option: int | str = seat if seat == "random" else int(seat)
        self.render_mode = render_mode
        self.opponents = _opponent_list(opponents, p)
        self.reward_table = reward_table(self.rules, reward)
        self._linear = is_linear(self.rules, self.reward_table)
        self.engine = Engine(self.rules)
        self.layout = self.engine.layout
        self.obs_layout = self.engine.obs_layout
        self.observation_space = spaces.Box(
            0.0,
            observation_high(self.rules, self.obs_layout),
            (self.engine.obs_size,),
            np.float32,
        )
        self.action_space = spaces.Discrete(self.engine.num_actions)
        self._num_actions = int(self.engine.num_actions)
        self.seat = 0 if seat == "random" else int(seat)
        self._game: OneGame | None = None
        self._seat_agent: list[SeatAgent] = []
        self._random_agent = RandomLegalAgent()
        self._reward = 0.0
        self._ended_by_illegal_action = False

    # ------------------------------------------------------------------ gymnasium api
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """A new game; ``options={"hands": [...]}`` deals given hands (one text per seat).

        A failed reset (bad seed or hands, hands that end the game before the learner's first
        turn, an opponent's illegal action) raises and leaves the env as it was."""
        saved = (self._np_random, self._np_random_seed, self._game, self.seat, self._seat_agent,
                 self._reward, self._ended_by_illegal_action, self._random_agent.rng)
        try:
            return self._reset(seed, options)
        except Exception:
            (self._np_random, self._np_random_seed, self._game, self.seat, self._seat_agent,
             self._reward, self._ended_by_illegal_action, self._random_agent.rng) = saved
            raise

    def _reset(
        self, seed: int | None, options: dict[str, Any] | None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        if seed is not None:
            game_seed(seed)  # a clear error for a bad seed
        super().reset(seed=None if seed is None else int(seed))
        rng = self.np_random
        engine_seed = game_seed(seed) if seed is not None else int(rng.integers(0, SEED_HIGH))
        hands = options.get("hands") if isinstance(options, dict) else None
        if hands is None:
            state = self.engine.init([engine_seed])
        else:
            state = self.engine.init_from_hands(hands, seed=engine_seed)
            if state.batch_size != 1:
                raise ValueError("options['hands'] must give the hands of one game")
        p = self.rules.num_players
        self.seat = int(rng.integers(p)) if self.seat_option == "random" else self.seat
        self._random_agent.rng = rng
        self._seat_agent = [self._random_agent] * p
        for i, agent in enumerate(self.opponents):
            if agent is not None:
                self._seat_agent[(self.seat + 1 + i) % p] = agent
                reseed = getattr(agent, "reseed", None)
                if callable(reseed):  # agents with random choices repeat with the env's seed
                    reseed(int(rng.integers(0, 2**31)))
        self._game = OneGame(self.engine, state)
        self._reward = 0.0
        self._ended_by_illegal_action = False
        self._play_opponents()
        game = self._game
        if game.current < 0 or game.state.deal[0] > 0 or game.state.deal_over[0]:
            raise ValueError(
                "these hands end the deal before the learner's first turn; give the learner "
                "a turn (more cards, or another seat)"
            )
        return self._observation(), self._info()

    def step(
        self, action: Any
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """The learner plays ``action``; the other seats play until it is to act again."""
        game = self._game
        if game is None:
            raise RuntimeError("call reset() before step()")
        if game.current < 0 or self._ended_by_illegal_action:
            raise RuntimeError("the episode is over: call reset()")
        if type(action) is int and 0 <= action < self._num_actions:
            a = action
        else:
            a = as_action(action, self._num_actions)
        if not game.mask[a]:
            if self.illegal_action == "penalty":
                self._ended_by_illegal_action = True
                info = self._info()
                info["illegal_action"] = True
                return self._observation().copy(), ILLEGAL_REWARD, True, False, info
            raise ValueError(self._illegal_message(a, game.mask, "the learner"))
        saved = (game.state.copy(), game.mask, game.obs, game.current)
        self._reward = 0.0
        try:
            game.step(a)
            self._after_step()
            self._play_opponents()
        except Exception:
            # an opponent's illegal action: undo the learner's play too, so that nothing changes
            state, game.mask, game.obs, game.current = saved
            game.state.put(slice(None), state)
            raise
        terminated = game.current < 0
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._reward, terminated, False, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The learner's legal actions (bool [A]); all False once the episode is over."""
        game = self._game
        if game is None:
            raise RuntimeError("call reset() before action_masks()")
        if game.current != self.seat or self._ended_by_illegal_action:
            return np.zeros(self.engine.num_actions, np.bool_)
        return game.mask.astype(np.bool_)

    @property
    def game_state(self) -> State:
        """The engine state of the game (a batch of one); do not modify it."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game.state

    def render(self) -> str | None:
        """The table as text, with the learner's hand (``"ansi"``), or printed (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode: use "
                "SingleAgentEnv(render_mode='ansi') or 'human'."
            )
            return None
        if self._game is None:
            raise RuntimeError("call reset() before render()")
        text = render_table(self.rules, self._game.state, 0, seat=self.seat, layout=self.layout)
        text = f"(learner: seat {self.seat})\n" + text
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    # ------------------------------------------------------------------ helpers
    def _play_opponents(self) -> None:
        game = self._game
        assert game is not None
        learner = self.seat
        while game.current >= 0 and game.current != learner:
            agent = self._seat_agent[game.current]
            a = agent.act(game.obs, game.mask.copy())
            if type(a) is not int:
                a = as_action(a, self._num_actions)
            if not 0 <= a < self._num_actions or not game.mask[a]:
                raise ValueError(
                    self._illegal_message(a, game.mask, f"the agent in seat {game.current}")
                )
            game.step(a)
            self._after_step()

    def _after_step(self) -> None:
        game = self._game
        assert game is not None
        state = game.state
        if state.deal_over[0]:
            if self._linear:
                self._reward += float(state.rewards[0, self.seat])
            else:
                self._reward += float(self.reward_table[state.title[0, self.seat]])

    def _observation(self) -> npt.NDArray[np.float32]:
        game = self._game
        assert game is not None
        if game.current == self.seat:
            return game.obs
        return self.engine.observe(game.state, [self.seat])[0]

    def _info(self) -> dict[str, Any]:
        game = self._game
        assert game is not None
        state = game.state
        info: dict[str, Any] = {"seat": self.seat, "deal": int(state.deal[0])}
        if state.phase[0] == PHASE_DONE:
            info["score"] = int(state.scores[0, self.seat])
            info["standing"] = int(self.engine.standings(state)[0, self.seat])
            info["scores"] = state.scores[0].copy()
        return info

    def _illegal_message(self, a: int, mask: npt.NDArray[Any], who: str) -> str:
        name = self.layout.name(a) if 0 <= a < self._num_actions else "out of range"
        legal = [f"{i} ({self.layout.name(int(i))})" for i in np.flatnonzero(mask)]
        shown = ", ".join(legal[:30]) + (f", ... ({len(legal)} in all)" if len(legal) > 30 else "")
        return f"action {a} ({name}) is illegal for {who}; legal actions: {shown}"


def _opponent_list(
    opponents: SeatAgent | Sequence[SeatAgent] | None, num_players: int
) -> list[SeatAgent | None]:
    """Opponents for the N - 1 seats to the learner's left (None: the default random agent)."""
    n = num_players - 1
    if opponents is None:
        return [None] * n
    if isinstance(opponents, Sequence) and not isinstance(opponents, (str, bytes)):
        ops = list(opponents)
        if len(ops) != n:
            raise ValueError(
                f"opponents must be one agent or a sequence of {n} agents (one per other seat), "
                f"got {len(ops)}"
            )
    else:
        ops = [opponents] * n  # type: ignore[list-item]
    for agent in ops:
        if not callable(getattr(agent, "act", None)):
            raise TypeError(
                f"an opponent must have act(observation, action_mask) -> int, got {agent!r}"
            )
    return list(ops)


import president_env as _package  # noqa: E402

_package.register_gymnasium()
