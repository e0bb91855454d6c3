"""The one seating layer: a :class:`Policy` protocol and a batched :class:`Table` that seats
policies in B games and plays them.

A **policy** decides for many games at once from what one player may know::

    class Policy(Protocol):
        def act_batch(self, obs: float32 [B, O], mask: bool [B, A]) -> int64 [B]: ...

Rows whose mask has no legal action get ``-1`` (a policy must accept them). The rule-based
agents (:mod:`agents`), trained checkpoints (``agents.PolicyAgent``) and :class:`RandomPolicy`
are all policies; ``reseed(seed)``, when a policy has it, restarts its random choices.

A **table** holds B games (one batched engine state) and, for every game and seat, which
policy plays it: ``seat_policy[b, p]`` indexes ``policies``, or is :data:`EXTERNAL` (-1) for a
seat played from outside (a learner, a human, a search). :meth:`Table.play_until_external`
lets the seated policies play (one ``act_batch`` per policy per step over all the games where
it is to act, every action through the :class:`~president_env.gate.ActionGate`) until every
game waits for an external seat or is over; :meth:`Table.pending` then gives those games, and
:meth:`Table.step_external` plays their actions. Everything that plays seats uses it: the
single-agent env (B = 1, one external seat), the learner vector env, tournaments (no external
seat), the self-play trainer and imitation (the live seats are external) and terminal play (the
human is external).

A policy made for a smaller observation (``policy.rules.observation``: "standard" <
"history" < "record") may sit at a table of a larger one: it is handed the prefix
``obs[:, :its size]``, which is exactly its observation (each larger observation appends blocks
to the smaller one). The reverse is refused (:func:`check_rules`). External seats always get
the table's whole observation. Every policy decides from that observation alone: the Expert
reads the deal's record from the ``record`` block, nothing is handed to it beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from president_env.core import OneGame
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine, State
from president_env.core.observe import ObservationLayout
from president_env.core.rules import OBSERVATIONS, Rules
from president_env.gate import ActionGate

EXTERNAL = -1
"""``seat_policy`` value of a seat played from outside the table."""

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float32]
StepHook = Callable[[BoolArray, IntArray, IntArray], None]
"""``on_step(moved, seats, actions)``: the games that moved, and the seat that acted and its action
in each (``seats``/``actions`` hold -1 in the other games). The arrays are valid during the call
only (copy what you keep)."""


@runtime_checkable
class Policy(Protocol):
    """Decides for a batch of games: one legal action per row, -1 for a row with none."""

    def act_batch(self, obs: FloatArray, mask: BoolArray) -> IntArray: ...


def legal_rows(mask: npt.NDArray[Any]) -> BoolArray:
    """Rows of a mask ``[B, A]`` with at least one legal action."""
    return np.asarray(mask.any(axis=1), np.bool_)


class RandomPolicy:
    """A uniformly random legal action per row (-1 for a row with none), from a numpy Generator.

    ``RandomPolicy(seed)`` or ``RandomPolicy(rng=generator)`` (the single-agent env shares its
    ``np_random`` so that a seeded episode repeats).
    """

    name = "random"

    def __init__(self, seed: int | None = None, rng: np.random.Generator | None = None) -> None:
        self.rng = rng if rng is not None else np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act_batch(self, obs: npt.ArrayLike, mask: npt.ArrayLike) -> IntArray:
        m = np.asarray(mask).astype(np.bool_, copy=False)
        if m.ndim != 2:
            raise ValueError(f"masks must have shape [B, A], got {m.shape}")
        if len(m) == 1:  # the same draw as below, without the batch overhead
            u, legal = self.rng.random(), np.flatnonzero(m[0])
            if len(legal) == 0:
                return np.full(1, -1, np.int64)
            return legal[min(int(u * len(legal)), len(legal) - 1)][None]
        counts = m.sum(axis=1)
        k = np.minimum((self.rng.random(len(m)) * counts).astype(np.int64), counts - 1)
        out = np.argmax(np.cumsum(m, axis=1) > k[:, None], axis=1).astype(np.int64)
        out[counts == 0] = -1
        return out

    def act(self, observation: npt.ArrayLike, action_mask: npt.ArrayLike) -> int:
        a = int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])
        if a < 0:
            raise ValueError("the action mask has no legal action (is the game over?)")
        return a


def _comparable(rules: Rules) -> dict[str, Any]:
    d = rules.to_dict()
    d.pop("preset_name")
    d.pop("observation")  # what a player sees, not the game (see check_rules)
    d["decks"] = rules.num_decks
    return d


def rule_differences(wanted: Rules, actual: Rules) -> dict[str, tuple[Any, Any]]:
    """``{option: (wanted value, actual value)}`` for every option that changes the game
    (the preset's name does not, nor ``observation``; ``decks="auto"`` counts as the decks it
    means)."""
    a, b = _comparable(wanted), _comparable(actual)
    return {k: (v, b[k]) for k, v in a.items() if b[k] != v}


def check_rules(policy: object, rules: Rules, name: str = "policy") -> None:
    """A ValueError when ``policy.rules`` (the rules a policy was made for, if it says) are
    not ``rules``, listing the options that differ; nothing for a policy without ``rules``.
    Every :class:`Table` checks its policies so.

    ``observation`` may differ one way: a policy made for a smaller observation
    (``OBSERVATIONS``: "standard" < "history" < "record") may play under a larger one (a table
    hands it its prefix of the observation, :func:`policy_obs_size`); a policy made for a
    larger observation than the table's is a ValueError (it would miss the blocks it reads)."""
    own = getattr(policy, "rules", None)
    if not isinstance(own, Rules):
        return
    diff = rule_differences(rules, own)
    if diff:
        shown = ", ".join(f"{k}: table {v!r}, policy {w!r}" for k, (v, w) in diff.items())
        raise ValueError(
            f"{name} was made for other rules than the table's ({shown}); load it with the "
            f"table's rules or play it at a table of its own rules"
        )
    if _rank(own.observation) > _rank(rules.observation):
        raise ValueError(
            f"{name} was made for observation={own.observation!r} but the table's rules give "
            f"the observation {rules.observation!r}, without the blocks it reads; play it at a "
            f"table with observation={own.observation!r} (the same rules otherwise: "
            f"president_env.table.table_rules makes one)"
        )


def _rank(observation: str) -> int:
    """Where ``observation`` comes among :data:`~president_env.core.rules.OBSERVATIONS`,
    smallest first (each is a prefix of the next)."""
    return OBSERVATIONS.index(observation)


def table_rules(rules: Rules, policies: Sequence[object]) -> Rules:
    """The rules of a table for ``policies``: ``rules``, with the largest observation a policy
    reads (the Expert reads ``"record"``, the shipped ``policy`` ``"history"``); the others then
    get their own prefix of it (:func:`policy_obs_size`). Every tool that seats agents builds
    its table so, which is how such a policy plays wherever it is seated."""
    wanted = [own.observation for q in policies
              if isinstance(own := getattr(q, "rules", None), Rules)]
    best = max([rules.observation, *wanted], key=_rank)
    return rules if best == rules.observation else rules.replace(observation=best)


def policy_obs_size(policy: object, rules: Rules) -> int | None:
    """How much of an observation under ``rules`` a policy reads: the size of its own
    observation for a policy made for a smaller one than the table's (each larger observation
    appends blocks, so the smaller is the prefix), else None (the whole vector)."""
    own = getattr(policy, "rules", None)
    if not isinstance(own, Rules) or own.observation == rules.observation:
        return None
    if _rank(own.observation) > _rank(rules.observation):
        return None  # refused by check_rules
    return _obs_size(own)


@lru_cache(maxsize=64)
def _obs_size(rules: Rules) -> int:
    return ObservationLayout(rules).size


class Table:
    """B games of one engine, each seat played by a policy or from outside (module docstring).

    ``seat_policy`` ([B, P] ints, or [P] for every game) may be changed in place between calls
    (e.g. when a finished game is re-dealt with other seats). ``names`` (one per policy) name
    the policies in error messages.
    """

    def __init__(
        self,
        engine: Engine,
        state: State,
        policies: Sequence[Policy],
        seat_policy: npt.ArrayLike,
        names: Sequence[str] | None = None,
    ) -> None:
        self.engine = engine
        self.state = state
        self.policies = list(policies)
        b, p = state.batch_size, engine.num_players
        sp = np.asarray(seat_policy, np.int64)
        if sp.shape == (p,):
            sp = np.broadcast_to(sp, (b, p))
        if sp.shape != (b, p):
            raise ValueError(f"seat_policy must have shape ({b}, {p}) or ({p},), got {sp.shape}")
        if ((sp < EXTERNAL) | (sp >= len(self.policies))).any():
            raise ValueError(
                f"seat_policy holds -1 (external) or an index into the {len(self.policies)} "
                "policies"
            )
        self.seat_policy = sp.copy()
        self.names = list(names) if names is not None else []
        for i, policy in enumerate(self.policies):
            label = self.names[i] if i < len(self.names) else f"policy {i}"
            check_rules(policy, engine.rules, name=f"{label!r}")
        self._prefix = engine.rules.observation != "standard"
        """Policies may read only a prefix of the observation (:meth:`obs_size`)."""
        self.gate = ActionGate(engine.layout)
        self.rows = np.arange(b)
        self.mask = np.zeros((b, engine.num_actions), np.bool_)
        self.decisions = 0
        self._one: OneGame | None = None
        self.sync()

    def sync(self) -> None:
        """Call after changing ``state`` from outside (e.g. restoring a saved copy into it)."""
        if self.state.batch_size == 1:  # one game: one compiled call per play (OneGame)
            self._one = OneGame(self.engine, self.state)

    def policy_name(self, k: int) -> str:
        """Name of policy ``k``: from ``names``, else its ``name`` attribute or class."""
        if k < len(self.names):
            return self.names[k]
        q = self.policies[k]
        return str(getattr(q, "name", type(q).__name__))

    def obs_size(self, k: int) -> int | None:
        """The prefix of the table's observation that policy ``k`` reads (None: all of it;
        see :func:`policy_obs_size`)."""
        return policy_obs_size(self.policies[k], self.engine.rules)

    @property
    def batch_size(self) -> int:
        return self.state.batch_size

    # ------------------------------------------------------------------ who acts
    def acting_policy(self) -> IntArray:
        """Per game, the policy of the seat to act: an index, EXTERNAL, or -2 once over."""
        st = self.state
        who = self.seat_policy[self.rows, np.maximum(st.current, 0)]
        return np.where(st.phase == PHASE_DONE, -2, who)

    def waiting(self) -> BoolArray:
        """Games whose seat to act is external (and that are not over)."""
        return self.acting_policy() == EXTERNAL

    # ------------------------------------------------------------------ seated policies
    def play_until_external(self, on_step: StepHook | None = None, max_steps: int = 100_000) -> int:
        """Let the seated policies play until every game waits for an external seat or is over.

        ``on_step(moved, seats, actions)`` runs after every engine step (``moved``: bool [B],
        the games that moved; ``seats``/``actions``: who acted there and what), before the next
        decision: a hook to collect rewards, record plays or re-deal finished games (a hook that
        changes ``state`` in place calls :meth:`sync` before it returns).
        Returns the number of decisions made.
        """
        if self._one is not None:
            return self._play_one(on_step, max_steps)
        made = 0
        for _ in range(max_steps):
            who = self.acting_policy()
            turn = who >= 0
            if not turn.any():
                return made
            self.engine.legal_action_mask(self.state, self.mask)
            obs = self.engine.observe(self.state)
            actions = self.decide(obs, self.mask, who)
            seats = np.where(turn, self.state.current, -1).astype(np.int64)
            self.engine.step_inplace(self.state, actions, check=False, where=turn)
            made += int(turn.sum())
            if on_step is not None:
                on_step(turn, seats, actions)
        raise RuntimeError(f"the seated policies did not stop within {max_steps} steps")

    def _play_one(self, on_step: StepHook | None, max_steps: int) -> int:
        """:meth:`play_until_external` for a table of one game, without batch overhead (a hook
        that changes the state calls :meth:`sync`, which this loop then follows)."""
        moved, seat, action = np.ones(1, np.bool_), np.zeros(1, np.int64), np.zeros(1, np.int64)
        for made in range(max_steps):
            game = self._one
            assert game is not None
            cur = game.current
            if cur < 0 or self.seat_policy[0, cur] < 0:
                return made
            k = int(self.seat_policy[0, cur])
            mask = game.mask.view(np.bool_)[None]
            obs = game.obs[: self.obs_size(k)] if self._prefix else game.obs
            act = self.policies[k].act_batch(obs[None], mask)
            # the fast path takes one integer id; anything else (a float, which int() would
            # truncate) goes to the gate, which refuses it as a batch of games would
            a = int(act[0]) if isinstance(act, np.ndarray) and act.shape == (1,) \
                and act.dtype.kind in "iu" else -1
            if not (0 <= a < self.engine.num_actions and mask[0, a]):
                a = int(self.gate.check_batch(
                    act, mask, who=f"the agent in seat {cur} ({self.policy_name(k)})"
                )[0])
            game.step(a)
            self.decisions += 1
            if on_step is not None:
                seat[0], action[0] = cur, a
                on_step(moved, seat, action)
        raise RuntimeError(f"the seated policies did not stop within {max_steps} steps")

    def decide(self, obs: FloatArray, mask: BoolArray, who: IntArray) -> IntArray:
        """Each seated policy's actions for the games where ``who`` is its index (-1 elsewhere),
        checked by the gate."""
        actions = np.full(len(who), -1, np.int64)
        for k, policy in enumerate(self.policies):
            sel = who == k
            if not sel.any():
                continue
            rows = np.flatnonzero(sel)
            mine = obs[rows, : self.obs_size(k)] if self._prefix else obs[rows]
            act = np.asarray(policy.act_batch(mine, mask[rows]))
            actions[rows] = self.gate.check_batch(
                act,
                mask[rows],
                who=f"the agent in seat {{seat}} ({self.policy_name(k)})",
                seats=self.state.current[rows],
                games=rows,
            )
        self.decisions += int((who >= 0).sum())
        return actions

    # ------------------------------------------------------------------ external seats
    def pending(self) -> tuple[IntArray, FloatArray, BoolArray]:
        """``(rows, obs, mask)`` of the games waiting for an external seat: their indices, and
        the observation and legal actions of the seat to act there."""
        game = self._one
        if game is not None:
            if game.current < 0 or self.seat_policy[0, game.current] != EXTERNAL:
                return np.zeros(0, np.int64), self._no_obs(), self.mask[:0]
            return np.zeros(1, np.int64), game.obs[None], game.mask.astype(np.bool_)[None]
        rows = np.flatnonzero(self.waiting())
        sub = self.state.take(rows)
        return rows, self.engine.observe(sub), self.engine.legal_action_mask(sub)

    def _no_obs(self) -> FloatArray:
        return np.zeros((0, self.engine.obs_size), np.float32)

    def step_external(self, rows: npt.ArrayLike, actions: npt.ArrayLike) -> None:
        """Play ``actions[i]`` in game ``rows[i]``, each waiting for an external seat; checked by
        the gate first (an illegal action raises and changes nothing)."""
        r = np.asarray(rows, np.int64)
        game = self._one
        if (
            game is not None
            and r.shape == (1,)
            and r[0] == 0
            and game.current >= 0
            and self.seat_policy[0, game.current] == EXTERNAL
        ):
            mask = game.mask.view(np.bool_)[None]
            a = actions[0] if isinstance(actions, (list, tuple)) else -1
            if not (type(a) is int and 0 <= a < self.engine.num_actions and mask[0, a]):
                a = int(self.gate.check_batch(actions, mask, seats=[game.current])[0])
            game.step(a)
            return
        if r.ndim != 1 or not self.waiting()[r].all():
            raise ValueError("step_external takes games that wait for an external seat")
        mask = self.engine.legal_action_mask(self.state.take(r))
        a = self.gate.check_batch(actions, mask, seats=self.state.current[r], games=r)
        full = np.full(self.batch_size, -1, np.int64)
        full[r] = a
        where = np.zeros(self.batch_size, np.bool_)
        where[r] = True
        self.engine.step_inplace(self.state, full, check=False, where=where)
        if game is not None:
            self.sync()


class _RowPolicy:
    """A Policy over an object that decides one row at a time (``act(observation, mask)``)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)

    def reseed(self, seed: int | None) -> None:
        reseed = getattr(self.agent, "reseed", None)
        if callable(reseed):
            reseed(seed)

    def act_batch(self, obs: FloatArray, mask: BoolArray) -> IntArray:
        acts = [self.agent.act(o, m) if m.any() else -1 for o, m in zip(obs, mask)]
        for x in acts:  # as the gate takes one action: an integer id, never truncated
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
                raise TypeError(
                    f"{self.name}.act must return an integer action id, got "
                    f"{type(x).__name__} {x!r}"
                )
            if not -1 <= x < 2**63:
                raise ValueError(f"{self.name}.act returned action {int(x)}, out of range")
        return np.array(acts, np.int64)


def as_policy(agent: Any) -> Policy:
    """``agent`` as a :class:`Policy`: itself if it has ``act_batch``, else a row-by-row
    wrapper of its ``act(observation, action_mask) -> int``; a TypeError for anything else."""
    if callable(getattr(agent, "act_batch", None)):
        return agent  # type: ignore[no-any-return]
    if callable(getattr(agent, "act", None)):
        return _RowPolicy(agent)
    raise TypeError(
        "a seat needs a policy: an object with act_batch(obs, mask) -> actions or "
        f"act(observation, action_mask) -> int, got {agent!r}"
    )
