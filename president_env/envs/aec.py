"""President as a PettingZoo AEC environment (``president_v0``).

| Import             | `from president_env import env, raw_env`                         |
|--------------------|------------------------------------------------------------------|
| Creation           | `env(preset="cardverse", num_players=5)`                         |
| Actions            | Discrete                                                         |
| Parallel API       | No                                                               |
| Manual Control     | No                                                               |
| Agents             | `agents = ['player_0', ..., 'player_{N-1}']`                     |
| Agents             | 3 to 8 (`num_players`, default 4)                                |
| Action Shape       | ()                                                               |
| Action Values      | Discrete(A), A from the rules (53 for the default 4-player game) |
| Observation Shape  | (199 + 5N + 2N²,) (251 for 4 players)                            |
| Observation Values | [0, bound per entry] (counts, one-hots, scores)                  |

President (also Scum, Asshole, Daifugō, Tycoon) is a shedding card game for 3 to 8 players: the
first player to get rid of their cards becomes President, the last one Bum. A trick is led with
a set of cards of one rank (or a run, with the `runs` option); each following play must be of the
same size and higher (or equal, with `allow_equal`); a player may pass. The trick ends when every
other player has passed, and the last player who played leads the next one. The rules follow
`RULES.md`; every house rule is an option of :class:`~president_env.core.rules.Rules`, and six presets
(`standard`, `revolution`, `runs`, `cardverse`, `daifugo`, `daifugo_full`) name the common variants.

The environment is a thin adapter over the batched engine (:class:`~president_env.core.engine.Engine`)
with a batch of one game: `agent_selection` is the engine's player to act, observations and the
legal-action mask come from the engine, and the mask and the observation of the player to act are
computed once per step, when first needed.

### Observations

`observe(agent)` returns a dict: `"observation"` (float32 vector of the table as `agent` may see
it) and `"action_mask"` (int8 vector, 1 for each legal action). The mask is all zeros for every
agent but the one to act (and for everyone once the game is over). Nothing in the observation
depends on another player's hidden cards. Seats in the per-player blocks are relative: seat `k`
is the `k`-th seat to the observer's left, `k = 0` the observer itself. With `N` players and
`o = 91`:

| index                          | name          | content                                        |
|--------------------------------|---------------|------------------------------------------------|
| 0 - 52                         | `hand`        | own cards, count per card id (rank*4+suit; 52 = joker) |
| 53 - 66                        | `played`      | cards played this deal per rank (3..2), then jokers |
| 67 - 70                        | `pile_kind`   | one-hot top play: empty, set, jokers-only set, run |
| 71                             | `pile_size`   | cards in the top play                          |
| 72 - 84                        | `pile_rank`   | one-hot rank of the top set / bottom of the top run |
| 85                             | `revolution`  | 1 while the rank order is reversed             |
| 86                             | `leading`     | 1 if the observer is to act on an empty pile   |
| 87 - 89                        | `phase`       | one-hot: exchange, play, game over             |
| 90                             | `to_act`      | 1 if the observer is to act                    |
| o .. o+N-1                     | `cards_left`  | cards held by seat k                           |
| o+N .. o+2N-1                  | `passed`      | seat k passed in this trick                    |
| o+2N .. o+3N-1                 | `last_player` | seat k made the top play                       |
| o+3N .. o+4N-1                 | `current`     | seat k is to act                               |
| o+4N .. o+4N+N²-1              | `place`       | one-hot place in this deal, row per seat k     |
| o+4N+N² .. o+4N+2N²-1          | `title`       | one-hot place in the previous deal, row per seat k |
| o+4N+2N² .. o+5N+2N²-1         | `score`       | cumulative score of seat k                     |
| o+5N+2N² (53)                  | `gave`        | cards the observer gave in this deal's exchange |
| o+5N+2N²+53 (53)               | `received`    | cards the observer received in the exchange    |
| o+5N+2N²+106                   | `to_return`   | cards the observer still has to return         |
| o+5N+2N²+107                   | `deal`        | index of the deal / number of deals            |

The variants append their public blocks (pending revolution, direction, row of singles, asks),
empty when off, then `observation="history"` the deal's public history and `"record"` every
move of the deal in order (a complete information state: what the Expert reads), last; every
block is a slice of `raw_env.obs_layout.slices` (:class:`~president_env.core.observe.ObservationLayout`).

### Actions

One flat `Discrete(A)` space (`S` = largest set, 4 per deck plus the jokers; `J` = jokers in the
pack), laid out by :class:`~president_env.core.actions.ActionLayout`:

| id                         | action                                                       |
|----------------------------|--------------------------------------------------------------|
| 0                          | pass (only when following)                                   |
| 1 + rank*S + size-1        | a set of `size` cards of `rank` (rank 0 = "3" .. 12 = "2"), natural cards first, jokers for the rest |
| joker_base + size-1        | `size` jokers alone (J ids, with jokers)                     |
| run_base + i               | run `i` of `layout.runs` (with `runs`): suit, bottom, length |
| give_base + card           | return `card` in the card exchange (with `deals > 1`)        |

`raw_env.layout.name(a)` names any id (`"pair of 9"`, `"run 5-6-7 of hearts"`, `"give 10h"`).

### Legal Actions Mask

`observation["action_mask"]` of the agent to act: leading, any set (or run) it can make;
following, a pass or any play of the same kind and size that beats the top play; in the
exchange phase, the cards it may return.

An illegal action (`illegal_action="raise"`, the default) raises a ValueError that names the
action and the legal ones, and changes nothing. With `illegal_action="penalty"` it ends the game
as in PettingZoo's classic environments (`TerminateIllegalWrapper`): the offending agent gets
-1, the others 0, and every agent is terminated. An action of the wrong type (a float, a bool,
an array that is not 0-d, a string) raises a TypeError, an id out of range a ValueError, both
changing nothing. `step(None)` is the action of a terminated agent only.

### Rewards

At the end of every deal each player is rewarded by their place; the reward accumulates in
`_cumulative_rewards` and `last()` returns it to each agent at its next turn (or when it is
terminated). Option `reward`:

| `reward`        | reward per deal                                                      |
|-----------------|----------------------------------------------------------------------|
| `"linear"`      | `1 - 2 * place / (N - 1)`: +1 for first, -1 for last, zero-sum (default) |
| `"scores"`      | the points of the place under `rules.scoring`                        |
| sequence of N   | one reward per place, first place first                              |

All agents are terminated when the game ends (after `deals` deals, or when `target_score` is
reached); truncations are always False. `infos[agent]` has the same keys, all Python ints, from
`reset()` on (libraries such as TorchRL fix their specs at reset): `"deal"` (0-based deal in
play), `"score"` (the agent's cumulative score, final once the game is over) and `"standing"`
(the final ranking, 0 = winner; -1 until the game is over).

### Options and variants

`env(preset=None, rules=None, render_mode=None, illegal_action="raise", reward="linear",
record=False, **options)` (`record=True`: `env.unwrapped.record` is the game's record,
:mod:`president_env.records`): `preset` names a preset (`Rules.preset`), `rules` gives a whole
:class:`~president_env.core.rules.Rules`, and any rule option may be given as a keyword on top
(`env(preset="cardverse", num_players=5)`, `env(runs=True, jokers=2)`). Unknown or impossible
options raise ValueError at construction. `render_mode` is `None`, `"ansi"` (`render()` returns
the table as text), `"human"` (the table is printed after every step) or `"rgb_array"`
(`render()` returns a picture of the table, an `H x W x 3` uint8 array, with the hand of the
agent to act face up; see :func:`president_env.render.view.render_view`).

`reset(seed=s)` seeds the environment (the deals and every later `reset()` follow from `s`);
`reset()` with no seed on a fresh environment draws one. A seed is an int >= 0: another type is
a TypeError, a negative int a ValueError. `reset(options={"hands": [...]})` starts the first
deal from given hands, one text per seat (`["3c 4d 2s", "JK 10h", ...]`, or a `[N, 53]` count
array); `"hands"` is the only option (another key is a ValueError naming it). A failed reset
changes nothing.

`copy.deepcopy` and `pickle` of the bare or wrapped env keep the game in play: the copy
continues exactly as the original would (observations, rewards, infos, `np_random`).

`raw_env(...)` is the bare environment; it checks every action and applies the penalty itself.
`env()` puts it in :class:`~president_env.envs.wrappers.OrderEnforcingWrapper` (PettingZoo's,
which refuses `step()` and the agents' attributes before `reset()` and warns at a `step()` once
no agent is left); both step through the one `raw_env.step`.

### Version History

* v0: Initial release (president-env 0.1.0).
* v0, president-env 0.2.0: the same game, spaces, observations and rewards. Modules moved:
  `president_env.env` to `president_env.envs.aec` (wrappers: `president_env.envs.wrappers`), the
  engine under `president_env.core`, rewards to `president_env.rewards`, checks to `.gate`.
* v0, 0.3.0: `infos` hold the same keys from reset; `render_mode="rgb_array"`; copies keep the
  game; misspelled `reset` options and bad seeds raise; `record=True`. 0.4.0: six further
  variants and `daifugo_full`; spaces unchanged without them. 0.5.0: `observation="history"`.
  0.6.0: the same game; `reset()` deals into the same `game_state` arrays. 1.0.0: the same
  game and errors; `env()` is `raw_env` in `OrderEnforcingWrapper` alone (`ActionCheckWrapper`
  and, with `illegal_action="penalty"`, `TerminateIllegalWrapper` are gone: the bare env does
  both).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from president_env.core import OneGame
from president_env.core.engine import PHASE_DONE, Engine, State
from president_env.core.rules import Rules
from president_env.envs._adapt import (
    check_options,
    check_render_mode,
    copy_space,
    make_rules,
    observation_high,
)
from president_env.envs._aec_views import AECViews
from president_env.envs.wrappers import OrderEnforcingWrapper
from president_env.gate import ILLEGAL_REWARD, ActionGate, as_action
from president_env.records import GameRecorder
from president_env.render import RENDER_MODES
from president_env.rewards import RewardOption, deal_rewards, reward_table
from president_env.seeding import SEED_HIGH, game_seed

Obs = dict[str, npt.NDArray[Any]]


def env(
    preset: str | None = None,
    rules: Rules | None = None,
    render_mode: str | None = None,
    illegal_action: str = "raise",
    reward: RewardOption = "linear",
    record: bool = False,
    **options: Any,
) -> AECEnv:
    """The President AEC env in PettingZoo's OrderEnforcingWrapper (see the module docstring)."""
    return OrderEnforcingWrapper(
        raw_env(preset, rules, render_mode, illegal_action, reward, record, **options)
    )


class raw_env(AECViews, AECEnv, EzPickle):  # type: ignore[misc]
    """President as a PettingZoo AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {
        "name": "president_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        preset: str | None = None,
        rules: Rules | None = None,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        reward: RewardOption = "linear",
        record: bool = False,
        **options: Any,
    ) -> None:
        EzPickle.__init__(
            self, preset, rules, render_mode, illegal_action, reward, record, **options
        )
        super().__init__()
        self.rules: Rules = make_rules(preset, rules, options)
        self.render_mode = check_render_mode(render_mode)
        self.reward_table = reward_table(self.rules, reward)
        self.engine = Engine(self.rules)
        self.gate = ActionGate(self.engine.layout, illegal_action)
        self.illegal_action = illegal_action
        self.layout = self.engine.layout
        self.obs_layout = self.engine.obs_layout
        self.num_actions: int = self.engine.num_actions
        n = self.rules.num_players
        self.possible_agents: list[str] = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=0.0,
                    high=observation_high(self.rules, self.obs_layout),
                    shape=(self.engine.obs_size,),
                    dtype=np.float32,
                ),
                "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {
            a: obs_space if i == 0 else copy_space(obs_space)
            for i, a in enumerate(self.possible_agents)
        }
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}

        self.np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None
        self._game: OneGame | None = None
        self._current = -1
        self._obs_cur: Obs | None = None
        self._obs_other: dict[int, Obs] = {}
        self._rewards_dirty = False
        self._pile_cards: npt.NDArray[np.int8] | None = None
        self.record_games = bool(record)
        self._recorder: GameRecorder | None = None
        self._plain = False

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (see the module docstring for ``seed`` and ``options["hands"]``)."""
        hands = check_options(options, ("hands",)).get("hands")
        rng, rng_seed = self.np_random, self.np_random_seed
        state_before = None if rng is None else rng.bit_generator.state
        if seed is not None:
            engine_seed = game_seed(seed)
            rng, rng_seed = seeding.np_random(int(seed))
        else:
            if rng is None:
                rng, rng_seed = seeding.np_random(None)
            engine_seed = int(rng.integers(0, SEED_HIGH))
        game = self._game
        if hands is None and not self.record_games and game is not None:
            # the same arrays, a new deal: no allocation (most of the cost of a reset)
            self.np_random, self.np_random_seed = rng, rng_seed
            game.restart(engine_seed)
            self._start(game)
            return
        try:
            if hands is None:
                state = self.engine.init([engine_seed])
            else:
                state = self.engine.init_from_hands(hands, seed=engine_seed)
                if state.batch_size != 1:
                    raise ValueError(
                        f"options['hands'] must give the hands of one game (one text or one "
                        f"row of 53 counts per seat), got {state.batch_size} games"
                    )
        except Exception:
            if rng is self.np_random and state_before is not None:
                rng.bit_generator.state = state_before  # a failed reset changes nothing
            raise
        self.np_random, self.np_random_seed = rng, rng_seed
        if self.record_games:
            self._recorder = GameRecorder(
                self.rules, state, players=self.possible_agents,
                meta={"source": "aec", "reset_seed": seed},
            )
        self._start(OneGame(self.engine, state))

    def _start(self, game: OneGame) -> None:
        """The agents' dictionaries of a new game."""
        self._game = game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: _info(0, 0) for a in self.agents}
        self._skip_agent_selection = None
        self._rewards_dirty = False
        self._pile_cards = None
        self._plain = self.render_mode is None and self._recorder is None  # step skips its hooks
        self._new_position()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ step
    def step(self, action: Any) -> None:
        """The agent in ``agent_selection`` takes ``action`` (``None`` for a terminated agent).

        The one step body of the env, wrapped or bare: a legal int of the agent to act goes
        straight to the play; any other action goes through :meth:`_admit` first, which raises
        (changing nothing), retires a terminated agent or applies the illegal-move penalty.
        """
        game = self._game
        seat = self._current  # >= 0: a game is on (so ``game`` is set) and its agent to act
        if not (seat >= 0 and type(action) is int and 0 <= action < self.num_actions
                and game.mask[action]):  # type: ignore[union-attr]
            action = self._admit(action)
            if action is None:  # nothing to play: a terminated agent stepped, or the penalty
                return
            seat = self._seat_of[self.agent_selection]
        assert game is not None
        if self._rewards_dirty:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewards_dirty = False
        self._cumulative_rewards[self.possible_agents[seat]] = 0.0
        plain = self._plain  # no picture, no record
        if not plain and self.render_mode is not None:
            self._track_pile(action)
        game.step(action)
        if not plain and self._recorder is not None:
            self._recorder.add(seat, action)
        state = game.state
        if state.deal_over[0]:
            self._end_deal(state)
        self._new_position()
        if not plain and self.render_mode == "human":
            self.render()

    def _admit(self, action: Any) -> int | None:
        """:meth:`step`'s checks of any action but a legal int of the agent to act: the action
        as an int if it is legal; else a TypeError / ValueError / RuntimeError that changes
        nothing, or None once a terminated agent's ``step(None)`` or the illegal-move penalty
        (``illegal_action="penalty"``) is done."""
        game = self._game
        if game is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the game is over and every agent was removed: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                as_action(action, self.num_actions)  # a bad type or range first
                raise ValueError(
                    f"{agent} is terminated (the game is over): its only valid action is None; "
                    "step(None) for every agent, or reset() for a new game"
                )
            self._was_dead_step(action)
            return None
        if action is None:
            raise ValueError(self._none_message(agent))
        a = self.gate.check(action, game.mask, agent)
        if a is None:  # illegal_action="penalty"
            self._end_by_illegal_move(agent)
        return a

    def _new_position(self) -> None:
        """Point agent_selection at the engine's player to act; drop the per-step caches."""
        game = self._game
        assert game is not None
        self._obs_cur = None
        if self._obs_other:
            self._obs_other = {}
        self._current = cur = game.current
        if cur >= 0:
            self.agent_selection = self.possible_agents[cur]
        else:  # the game is over: terminated agents step first
            self.agent_selection = self.possible_agents[0]
            self._deads_step_first()

    def _end_deal(self, state: State) -> None:
        r = deal_rewards(state, self.reward_table)[0].tolist()
        self.rewards = dict(zip(self.possible_agents, r))
        self._rewards_dirty = True
        self._accumulate_rewards()
        deal = int(state.deal[0])
        scores = state.scores[0].tolist()
        if state.phase[0] == PHASE_DONE:
            standing = self.engine.standings(state)[0].tolist()
            self.infos = {
                a: _info(deal, scores[i], standing[i]) for i, a in enumerate(self.possible_agents)
            }
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.infos = {a: _info(deal, scores[self._seat_of[a]]) for a in self.agents}

    def _end_by_illegal_move(self, agent: str) -> None:
        """The illegal-move penalty (``illegal_action="penalty"``), the one implementation of
        PettingZoo's ``TerminateIllegalWrapper`` behaviour: a warning, ``ILLEGAL_REWARD`` for
        ``agent``, 0 for the others, every agent terminated (and truncated)."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = ILLEGAL_REWARD
        self._rewards_dirty = True
        self._accumulate_rewards()
        self._current = -1
        self._obs_cur = None
        self._obs_other = {}
        self._deads_step_first()

    # ------------------------------------------------------------------ observe
    def observe(self, agent: str) -> Obs:
        """``{"observation", "action_mask"}`` of ``agent`` (the mask is zero unless it is to act)."""
        seat = self._seat_of.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        game = self._game
        if game is None:
            raise RuntimeError("call reset() before observe()")
        if seat == self._current and not self.terminations.get(agent, False):
            obs = self._obs_cur
            return obs if obs is not None else self._own_obs(game)
        obs = self._obs_other.get(seat)
        if obs is None:
            obs = {
                "observation": self.engine.observe(game.state, [seat])[0],
                "action_mask": np.zeros(self.num_actions, np.int8),
            }
            self._obs_other[seat] = obs
        return obs

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``, with the observation of the agent to act taken from the
        step's cache when it is there."""
        agent = self.agent_selection
        obs = self._obs_cur if observe else None
        if obs is None and observe:
            game = self._game
            if self._current >= 0 and game is not None:  # the agent to act (see observe)
                obs = self._own_obs(game)
            else:
                obs = self.observe(agent)
        return (obs, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def _own_obs(self, game: OneGame) -> Obs:
        """The observation of the agent to act, cached until the next step. Its mask is a
        copy: legality is checked against the engine's own mask, which the caller must not be
        able to change."""
        obs = self._obs_cur = {"observation": game.obs, "action_mask": game.mask.copy()}
        return obs

    def action_mask(self, agent: str | None = None) -> npt.NDArray[np.int8]:
        """The legal-action mask of ``agent`` (default: the agent to act)."""
        return self.observe(self.agent_selection if agent is None else agent)["action_mask"]


def _info(deal: int, score: int, standing: int = -1) -> dict[str, int]:
    """An agent's info: the same keys from reset on (see the module docstring)."""
    return {"deal": deal, "score": score, "standing": standing}
