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
info                the same keys from ``reset()`` on: ``"seat"`` (the learner's seat),
                    ``"deal"`` (0-based deal in play), ``"score"`` (the learner's cumulative
                    score, final once the game is over), ``"standing"`` (the learner's final
                    ranking, 0 = winner; -1 until the game is over), ``"scores"`` (int32 [N],
                    every seat's cumulative score) and ``"illegal_action"`` (True only on the
                    step that an illegal action ended, with ``illegal_action="penalty"``)
render              ``render_mode`` ``"ansi"`` (text, with the learner's seat and hand),
                    ``"human"`` (that text printed after every step) or ``"rgb_array"`` (a
                    picture of the table with the learner's hand face up, ``H x W x 3`` uint8)
==================  ===========================================================================

``reset(seed=s)``: a seed is an int >= 0 (another type is a TypeError, a negative int a
ValueError); ``options`` takes one key, ``"hands"`` (another is a ValueError naming it). A failed
reset changes nothing. ``copy.deepcopy`` and ``pickle`` copy the episode in play with its
opponents and generators: the copy continues exactly as the original would.

``seat`` is the learner's seat, a fixed int or ``"random"`` (drawn each episode from the env's
generator). ``opponents`` plays every other seat: one agent for all of them, or a sequence of
``N - 1`` agents, the ``i``-th sitting ``i + 1`` seats to the learner's left. An agent is any
object with ``act(observation: np.ndarray, action_mask: np.ndarray) -> int`` (the agents of the
project's ``agents`` package, a trained policy, ...) or, better, a batched
:class:`~president_env.table.Policy`; by default :class:`~president_env.table.RandomPolicy`,
drawing from the env's ``np_random``, so that ``reset(seed=s)`` repeats episodes exactly. The
game is a :class:`~president_env.table.Table` of one game whose learner seat is external; every
action, the learner's and the opponents', passes the :class:`~president_env.gate.ActionGate`.

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
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

import president_env as _package
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.envs._adapt import (
    check_options,
    check_render_mode,
    make_rules,
    observation_high,
    render_frame,
)
from president_env.gate import ILLEGAL_REWARD, ActionGate
from president_env.render import RENDER_MODES
from president_env.rewards import RewardOption, deal_rewards, reward_table
from president_env.seeding import SEED_HIGH, game_seed
from president_env.table import EXTERNAL, Policy, RandomPolicy, Table, as_policy, check_rules


class SingleAgentEnv(gymnasium.Env):  # type: ignore[misc]
    """One learner against agents in the other seats (see the module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        preset: str | None = None,
        rules: Rules | None = None,
        seat: int | str = 0,
        opponents: Any = None,
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
        self.render_mode = check_render_mode(render_mode)
        self.seat_option: int | str = seat if seat == "random" else int(seat)
        self.opponents = _opponent_list(opponents, p)
        for i, agent in enumerate(self.opponents):  # early, as the Table would at reset
            check_rules(agent, self.rules, name=f"opponent {i + 1}")
        self.reward_table = reward_table(self.rules, reward)
        self.engine = Engine(self.rules)
        self.layout = self.engine.layout
        self.obs_layout = self.engine.obs_layout
        self.gate = ActionGate(self.layout, illegal_action)
        self.illegal_action = illegal_action
        self.observation_space = spaces.Box(
            0.0,
            observation_high(self.rules, self.obs_layout),
            (self.engine.obs_size,),
            np.float32,
        )
        self.action_space = spaces.Discrete(self.engine.num_actions)
        self.seat = 0 if seat == "random" else int(seat)
        self.table: Table | None = None
        self._random = RandomPolicy()
        self._obs = np.zeros(self.engine.obs_size, np.float32)
        self._mask = np.zeros(self.engine.num_actions, np.bool_)
        self._reward = 0.0
        self._ended_by_illegal_action = False
        self._deal_info: dict[str, Any] | None = None  # what changes only when a deal ends

    # ------------------------------------------------------------------ gymnasium api
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """A new game; ``options={"hands": [...]}`` deals given hands (one text per seat).

        A failed reset (bad seed or hands, hands that end the game before the learner's first
        turn, an opponent's illegal action) raises and leaves the env as it was."""
        if seed is not None:
            game_seed(seed)  # a clear error for a bad seed, before anything changes
        hands = check_options(options, ("hands",)).get("hands")
        saved = (self._np_random, self._np_random_seed, self.table, self.seat, self._reward,
                 self._ended_by_illegal_action, self._random.rng, self._obs, self._mask,
                 self._deal_info)
        # a seedless reset draws from the env's generator in place: keep its state, and the
        # opponents' random streams (reseeded from it), to put them back on a refusal
        stream = None if self._np_random is None else self._np_random.bit_generator.state
        agents = [_Streams(a) for a in self.opponents if a is not None]
        try:
            return self._reset(seed, hands)
        except Exception:
            (self._np_random, self._np_random_seed, self.table, self.seat, self._reward,
             self._ended_by_illegal_action, self._random.rng, self._obs, self._mask,
             self._deal_info) = saved
            if stream is not None and self._np_random is not None:
                self._np_random.bit_generator.state = stream
            for a in agents:
                a.restore()
            raise

    def _reset(
        self, seed: int | None, hands: Any
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=None if seed is None else int(seed))
        rng = self.np_random
        engine_seed = game_seed(seed) if seed is not None else int(rng.integers(0, SEED_HIGH))
        if hands is None:
            state = self.engine.init([engine_seed])
        else:
            state = self.engine.init_from_hands(hands, seed=engine_seed)
            if state.batch_size != 1:
                raise ValueError("options['hands'] must give the hands of one game")
        p = self.rules.num_players
        self.seat = int(rng.integers(p)) if self.seat_option == "random" else self.seat
        self._random.rng = rng
        policies: list[Policy] = [self._random]
        seat_policy = np.zeros(p, np.int64)
        seat_policy[self.seat] = EXTERNAL
        for i, agent in enumerate(self.opponents):
            if agent is not None:
                policies.append(agent)
                seat_policy[(self.seat + 1 + i) % p] = len(policies) - 1
                reseed = getattr(agent, "reseed", None)
                if callable(reseed):  # agents with random choices repeat with the env's seed
                    reseed(int(rng.integers(0, 2**31)))
        self.table = Table(self.engine, state, policies, seat_policy)
        self._reward = 0.0
        self._ended_by_illegal_action = False
        self._deal_info = None
        self._play_opponents()
        if self._over() or state.deal[0] > 0 or state.deal_over[0]:
            raise ValueError(
                "these hands end the deal before the learner's first turn; give the learner "
                "a turn (more cards, or another seat)"
            )
        return self._obs.copy(), self._info()

    def step(
        self, action: Any
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """The learner plays ``action``; the other seats play until it is to act again."""
        table = self.table
        if table is None:
            raise RuntimeError("call reset() before step()")
        if self._over() or self._ended_by_illegal_action:
            raise RuntimeError("the episode is over: call reset()")
        a = self.gate.check(action, self._mask, "the learner")
        if a is None:  # illegal_action="penalty"
            self._ended_by_illegal_action = True
            return self._obs.copy(), ILLEGAL_REWARD, True, False, self._info()
        saved = ([a.copy() for a in table.state.arrays()], self._obs, self._mask)
        self._reward = 0.0
        try:
            table.step_external([0], [a])
            self._collect_reward()
            self._play_opponents()
        except Exception:
            # an opponent's illegal action: undo the learner's play too, so that nothing changes
            arrays, self._obs, self._mask = saved
            for mine, before in zip(table.state.arrays(), arrays):
                mine[...] = before
            table.sync()
            self._deal_info = None
            raise
        if self.render_mode == "human":
            self.render()
        return self._obs.copy(), self._reward, self._over(), False, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The learner's legal actions (bool [A]); all False once the episode is over."""
        if self.table is None:
            raise RuntimeError("call reset() before action_masks()")
        if self._over() or self._ended_by_illegal_action:
            return np.zeros(self.engine.num_actions, np.bool_)
        return self._mask.copy()

    @property
    def game_state(self) -> State:
        """The engine state of the game (a batch of one); do not modify it."""
        if self.table is None:
            raise RuntimeError("call reset() first")
        return self.table.state

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The table with the learner's hand: text (``"ansi"``), printed (``"human"``) or a
        picture (``"rgb_array"``)."""
        return render_frame(
            "SingleAgentEnv",
            self.render_mode,
            self.rules,
            None if self.table is None else self.table.state,
            seat=self.seat,
            layout=self.layout,
            caption=f"(learner: seat {self.seat})",
        )

    # ------------------------------------------------------------------ helpers
    def _over(self) -> bool:
        assert self.table is not None
        return bool(self.table.state.phase[0] == PHASE_DONE)

    def _play_opponents(self) -> None:
        """The other seats play until the learner is to act or the game is over; then the
        learner's observation and mask are computed once."""
        table = self.table
        assert table is not None
        table.play_until_external(lambda moved, seats, actions: self._collect_reward())
        rows, obs, mask = table.pending()
        if len(rows):
            self._obs, self._mask = obs[0], mask[0]
        else:  # the game is over
            self._obs = self.engine.observe(table.state, [self.seat])[0]
            self._mask = np.zeros(self.engine.num_actions, np.bool_)

    def _collect_reward(self) -> None:
        assert self.table is not None
        state = self.table.state
        if state.deal_over[0]:
            self._reward += float(deal_rewards(state, self.reward_table)[0, self.seat])
            self._deal_info = None

    def _info(self) -> dict[str, Any]:
        """The learner's info; all but ``illegal_action`` change only when a deal ends, so
        they are computed once per deal (``_collect_reward`` sees every deal end)."""
        base = self._deal_info
        if base is None:
            assert self.table is not None
            state = self.table.state
            over = state.phase[0] == PHASE_DONE
            base = self._deal_info = {
                "seat": self.seat,
                "deal": int(state.deal[0]),
                "score": int(state.scores[0, self.seat]),
                "standing": int(self.engine.standings(state)[0, self.seat]) if over else -1,
                "scores": state.scores[0].copy(),
            }
        info = base.copy()
        info["scores"] = base["scores"].copy()
        info["illegal_action"] = self._ended_by_illegal_action
        return info


class _Streams:
    """The random streams of an agent (its numpy and torch generators and ``seed``, and those of
    the policy it wraps), kept to be put back when a reset is refused."""

    def __init__(self, agent: Any, depth: int = 2) -> None:
        self.saved: list[tuple[str, Any, str, Any]] = []
        self._walk(agent, depth)

    def _walk(self, obj: Any, depth: int) -> None:
        for name, value in list(getattr(obj, "__dict__", {}).items()):
            if isinstance(value, np.random.Generator):
                self.saved.append(("numpy", obj, name, value.bit_generator.state))
            elif type(value).__name__ == "Generator" and hasattr(value, "get_state"):  # torch
                self.saved.append(("torch", obj, name, value.get_state()))
            elif name == "seed" and (value is None or isinstance(value, int)):
                self.saved.append(("value", obj, name, value))
            elif depth > 1 and hasattr(value, "reseed"):  # a wrapped policy
                self._walk(value, depth - 1)

    def restore(self) -> None:
        for kind, obj, name, state in self.saved:
            if kind == "value":
                setattr(obj, name, state)
            elif kind == "numpy":  # reseed may have made a new generator: set it back too
                getattr(obj, name).bit_generator.state = state
            else:
                getattr(obj, name).set_state(state)


def _opponent_list(opponents: Any, num_players: int) -> list[Policy | None]:
    """Policies for the N - 1 seats to the learner's left (None: the default random policy)."""
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
        ops = [opponents] * n
    wrapped: dict[int, Policy] = {}  # one wrapper per distinct object
    return [wrapped.setdefault(id(agent), as_policy(agent)) for agent in ops]


_package.register_gymnasium()
