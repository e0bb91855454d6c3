"""The batched game core: a :class:`State` of numpy arrays and pure functions over it.

``Engine(rules)`` advances ``B`` games at once: ``init`` (seeded deals) or ``init_from_hands``,
``legal_action_mask`` ``[B, A]``, ``step(state, actions[B])``, ``observe(state, players[B])``.
There is no Python loop over games: the work happens in compiled kernels
(:mod:`president_env.core._kernels`) over the same arrays. ``B = 1`` is a batch of one.

The engine knows the rules only; agents, spaces, auto-reset and illegal-move penalties live in
the adapters (:mod:`president_env.envs.aec`, :mod:`president_env.envs.vector`).

State: the arrays of :class:`~president_env.core.state.State` (every field, its dtype and
shape: :mod:`president_env.core.state`).

A step that ends a deal also starts the next one (dealing, automatic exchange gifts), so the
state is always waiting for the player in ``current``; ``deal_over`` tells that a deal ended,
and ``title`` then holds its places (``place`` already belongs to the next deal). The engine
keeps no reward scheme: :mod:`president_env.rewards` turns those places into rewards. Deal
``d`` of game ``b`` is dealt from ``(seed[b], d)`` alone, so a batch of ``B`` games equals
``B`` games run one at a time.

For one game at a time, :meth:`Engine.advance` plays an action and fills the mask and the
observation of the next player to act in one compiled call (the adapters' fast path).

Fused batched calls: :meth:`Engine.play_random` plays ``steps`` uniformly random legal actions
in every game in one call (with new games where games end: random rollouts for search, data
generation, benchmarks); :meth:`Engine.next_views` starts new games where asked and writes the
mask and observation of every player to act in one call (what an adapter does after a step).

Threads: batched calls run over chunks of games on ``Engine(rules, threads=n)`` threads (default:
``PRESIDENT_THREADS``, else the CPUs available, at most 8), one per 512 games at most; results
are bit for bit the same for any number (how and why: :mod:`president_env.core._kernels._pool`).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import numpy.typing as npt

from president_env.core import _kernels as K
from president_env.core._kernels import Played, _one, _pool
from president_env.core._kernels._deal import initial_seat as _initial_seat
from president_env.core._kernels._deal import seat_order as _seat_order
from president_env.core._kernels._deal import stalemate_order
from president_env.core._kernels._inputs import deal_hands
from president_env.core._kernels._one import first_illegal_at, mask_at, step_at
from president_env.core.actions import action_layout
from president_env.core.constants import PHASE_DONE, PHASE_EXCHANGE, PHASE_PLAY
from president_env.core.observe import ObservationLayout
from president_env.core.rules import Rules, rule_params
from president_env.core.state import State, replace

__all__ = ["PHASE_DONE", "PHASE_EXCHANGE", "PHASE_PLAY", "Engine", "Played", "State", "deal_hands",
           "initial_seat", "replace", "seat_order", "stalemate_seats"]

IntArray = npt.NDArray[np.integer[Any]]
BoolArray = npt.NDArray[np.bool_]


def stalemate_seats(seed: int, deal_no: int, num_players: int) -> list[int]:
    """``stalemate_passes``: the seats in the order in which the players still in take the
    places left when deal ``deal_no`` of a game seeded ``seed`` stalls (the engine's seeded
    stream, as :func:`deal_hands` is for the deal)."""
    out = np.zeros(num_players, np.int64)
    stalemate_order(np.uint64(seed), deal_no, num_players, out)
    return [int(q) for q in out]


def initial_seat(seed: int, deal_no: int, num_players: int) -> int:
    """``deal_from="president"``: the seat that gets the first card of deal ``deal_no`` of a
    game seeded ``seed`` when the deal has no titles (as :func:`deal_hands` is for the deal)."""
    return int(_initial_seat(np.uint64(seed), deal_no, num_players))


def seat_order(seed: int, deal_no: int, num_players: int) -> list[int]:
    """``reseat_every``: the players round the table from seat 0 (play goes to the left, seat
    s + 1) in the deals from ``deal_no`` on of a game seeded ``seed``, when the players are
    seated again at ``deal_no`` (the engine's seeded stream, as :func:`deal_hands` is for the
    deal; ``State.seat_of`` holds the seat of each player)."""
    out = np.zeros(num_players, np.int64)
    _seat_order(np.uint64(seed), deal_no, num_players, out)
    return [int(q) for q in out]


class Engine:
    """Pure functions over :class:`State` for one :class:`Rules`; batched calls use up to
    ``threads`` threads (None: :func:`~president_env.core._kernels._pool.default_threads`)."""

    def __init__(self, rules: Rules | None = None, threads: int | None = None) -> None:
        self.rules = rules if rules is not None else Rules()
        if not isinstance(self.rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(self.rules).__name__}")
        self.threads = threads
        r = self.rules
        self.layout = action_layout(r)
        self.obs_layout = ObservationLayout(r)
        self.num_actions = self.layout.num_actions
        self.num_players = r.num_players
        self.obs_size = self.obs_layout.size
        # what the kernels read, built once (plain tuples: see president_env.core._kernels._types)
        self._rp = rule_params(r)  # read-only: the one-game calls type theirs so too
        self._play_tables = tuple(K.play_tables(self.layout))
        self._mask_tables = tuple(K.mask_tables(self.layout))
        self._obs_offsets = self.obs_layout.offsets()
        self._moves = r.moves_kept
        """Moves of the deal's history the rules keep (0 standard, 8 history, all of a deal
        record): every state handed in must keep that many (the kernels write them unchecked),
        which :meth:`_check_history` checks; one test on the standard path."""
        self._check_key = (self.num_players, self._moves)
        """What :meth:`_check` marks a state with once it passed (its identity is this engine's)."""

    def __reduce__(self) -> tuple[Any, ...]:
        # a copy (pickle, deepcopy: a worker's engine) is built again from its rules, so its
        # tables are read-only as here and the kernels see the types they were compiled for
        # (numba types a writable array apart from a read-only one: else one more compile)
        return (Engine, (self.rules, self._threads))

    @property
    def threads(self) -> int:
        """Threads of the batched calls (a batch uses at most one per 512 games)."""
        return self._threads

    @threads.setter
    def threads(self, threads: int | None) -> None:
        self._threads = _pool.check_threads(threads)
        self._serial_below = 2 * _pool.MIN_CHUNK if self._threads > 1 else 2**62

    def _check(self, state: State) -> None:
        """A TypeError for anything but a :class:`State`, a ValueError for a state of another
        number of players, or without the deal's history when these rules keep it: checked
        before any compiled code touches the state (its fields' shapes and dtypes agree with
        each other since :class:`State` checked them when it was made)."""
        if getattr(state, "_checked", None) is self._check_key:
            return  # checked by this engine before (a State's fields cannot be rebound)
        if not isinstance(state, State):
            raise TypeError(f"expected a State, got {type(state).__name__}")
        if state.hands.shape[1] != self.num_players:
            raise ValueError(
                f"the state holds {state.hands.shape[1]}-player games but this engine's rules "
                f"are for {self.num_players} players"
            )
        if self._moves:
            self._check_history(state)
        object.__setattr__(state, "_checked", self._check_key)

    def _check_history(self, state: State) -> None:
        """Raise a ValueError for a state without the deal's history (size-0 fields) handed
        to this engine, whose rules keep it (called only then: the standard path pays one
        bool test)."""
        if state.recent.shape[1] == self._moves:
            return
        obs = self.rules.observation
        raise ValueError(
            f"this state was made without the history of observation={obs!r}, which keeps "
            f"{self._moves} moves (by an engine with another observation, or State.zeros(..., "
            f"history=...)); make it with this engine's init (its recent has shape "
            f"{tuple(state.recent.shape)})"
        )

    def _run(self, fn: Any, args: tuple[Any, ...], n: int) -> None:
        _pool.run(fn, args, n, self._threads if n >= self._serial_below else 1)

    def _call(self, at: Any, fn: Any, tables: Any, state: State, arg: Any, n: int) -> None:
        """``fn(rp, tables, arrays, arg, lo, hi)`` over the ``n`` games: over chunks on the
        threads, or on this thread (a direct call: B = 1 pays for every indirection), through
        the state's addresses (``at``, see :meth:`State._address`) when it can."""
        if n >= self._serial_below:
            self._run(fn, (self._rp, tables, state._flat, arg), n)
        elif (spec := state._address()) is not None:
            at(self._rp, tables, spec, arg, 0, n)
        else:
            fn(self._rp, tables, state._flat, arg, 0, n)

    # ------------------------------------------------------------------ start
    def init(self, seeds: npt.ArrayLike) -> State:
        """New games, one per seed; deal ``d`` of game ``b`` is dealt from ``(seeds[b], d)``."""
        if isinstance(seeds, (list, tuple)) and not seeds:
            raise ValueError("init needs one seed per game (an integer >= 0), got none")
        s = K.as_seeds(seeds)
        state = State.zeros(len(s), self.num_players, self._moves)
        state.seed[:] = s
        K.init_kernel(self._rp, state._flat, True)
        return state

    def init_from_hands(
        self, hands: npt.ArrayLike | list[list[str]] | list[str], seed: npt.ArrayLike = 0
    ) -> State:
        """New games whose first deal is given.

        ``hands`` is an int array ``[B, P, 53]`` (or ``[P, 53]`` for one game) of counts, or text:
        a list of P strings for one game, or a list of such lists for B games
        (``["3c 4d 2s", "JK 10h 10s", ...]``). Hands need not make up the whole pack but must
        fit in it. Later deals are dealt from ``(seed, d)``.
        """
        h = K.parse_hands(self.rules, hands)
        s = K.as_seeds(seed, len(h))
        state = State.zeros(len(h), self.num_players, self._moves)
        state.seed[:] = s
        state.hands[:] = h
        K.init_kernel(self._rp, state._flat, False)
        return state

    # ------------------------------------------------------------------ play
    def legal_action_mask(self, state: State, out: BoolArray | None = None) -> BoolArray:
        """Legal actions ``[B, A]`` of the player to act in each game (all False when over)."""
        self._check(state)
        if out is None:
            out = np.zeros((state.batch_size, self.num_actions), np.bool_)
        self._call(mask_at, K.mask_kernel, self._mask_tables, state, out, state.batch_size)
        return out

    def step(self, state: State, actions: npt.ArrayLike) -> State:
        """A new State after the player to act in each game took ``actions[b]``.

        Raises ValueError (and changes nothing) if any action is illegal. Finished games ignore
        their action (their ``deal_over`` is cleared, as in every step).
        """
        new = state.copy()
        self.step_inplace(new, actions)
        return new

    def step_inplace(self, state: State, actions: npt.ArrayLike, check: bool = True,
                     where: BoolArray | None = None) -> None:
        """Like :meth:`step`, writing into ``state``.

        ``where`` (bool [B]) steps only the selected games; the others keep their state
        (``deal_over`` included). ``check=False`` skips the legality check (for actions drawn
        from the mask); an illegal action then corrupts the state.
        """
        self._check(state)
        b = state.batch_size
        ok = (isinstance(actions, np.ndarray) and actions.dtype == np.int64
              and actions.shape == (b,) and actions.flags.c_contiguous)  # else a copy: a strided
        a = cast(IntArray, actions) if ok else self._as_actions(actions, b)  # one compiles anew
        sel = None
        if where is not None:
            sel = np.asarray(where, np.bool_)
            if sel.shape != (state.batch_size,):
                raise ValueError(f"where must have shape ({state.batch_size},), got {sel.shape}")
            a = np.where(sel, a, -1)
        if check:
            live = state.phase != PHASE_DONE
            bad = self._first_illegal(state, a, live if sel is None else live & sel)
            if bad >= 0:
                raise ValueError(self._illegal_message(state, bad, int(a[bad])))
        self._call(step_at, K.step_kernel, self._play_tables, state, a, b)

    def advance(self, state: State, action: int, mask: npt.NDArray[np.int8],
                obs: npt.NDArray[np.float32]) -> int:
        """One game, one compiled call: the player to act in ``state`` (a batch of one) takes
        ``action`` (skipped if < 0; NOT checked: it must be legal), then ``mask`` (int8 [A])
        and ``obs`` (float32 [O]) receive the legal actions and the observation of the next
        player to act, who is returned (-1 once the game is over; ``obs`` is then seat 0's).

        The same results as :meth:`step_inplace` (``check=False``), :meth:`legal_action_mask`
        and :meth:`observe`, in one call instead of three: the fast path of the adapters.
        """
        self._check(state)
        if state.phase.shape[0] != 1:
            raise ValueError(f"advance plays one game, got a batch of {state.batch_size}")
        args = (self._rp, self._play_tables, self._mask_tables, self._obs_offsets,
                self.rules.deals)
        # one array to type, not the state's 33 (from the first call: a state that can be
        # handed so never needs the kernel of the 33 arrays, nor its compile)
        if (spec := state._address(eager=True)) is not None:
            return int(_one.advance_at(*args, spec, action, mask, obs))
        return int(K.advance_kernel(*args, state._flat, action, mask, obs))

    def _first_illegal(self, state: State, actions: IntArray, live: BoolArray) -> int:
        idx = None if live.all() else np.flatnonzero(live)
        if idx is not None and len(idx) == 0:
            return -1
        sub, acts = (state, actions) if idx is None else (state.take(idx), actions[idx])
        spec, args = sub._address(), (self._rp, self._mask_tables)
        if spec is not None:
            bad = int(first_illegal_at(*args, spec, acts, self.num_actions))
        else:
            bad = int(K.first_illegal(*args, sub._flat, acts, self.num_actions))
        return bad if bad < 0 or idx is None else int(idx[bad])

    def _as_actions(self, actions: npt.ArrayLike, batch: int) -> npt.NDArray[np.int64]:
        a = np.asarray(actions)
        if a.ndim == 0:
            a = a[None]
        if a.shape != (batch,):
            raise ValueError(f"actions must have shape ({batch},), got {a.shape}")
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"actions must be integer ids, got dtype {a.dtype}")
        if a.dtype.kind == "u" and (big := np.flatnonzero(a > np.iinfo(np.int64).max)).size:
            b = int(big[0])  # before the cast to int64, which would wrap 2**64-1 to -1
            raise ValueError(
                f"game {b}: action {a[b].item()} is out of range 0..{self.num_actions - 1}"
            )
        return a.astype(np.int64)

    def _illegal_message(self, state: State, b: int, a: int) -> str:
        if not 0 <= a < self.num_actions:
            what = f"action {a} is out of range 0..{self.num_actions - 1}"
        else:
            what = f"action {a} ({self.layout.name(a)}) is illegal"
        row = self.legal_action_mask(state.take(b))[0]
        legal = [f"{i} ({self.layout.name(int(i))})" for i in np.flatnonzero(row)]
        shown = ", ".join(legal[:20]) + (f", ... ({len(legal)} in all)" if len(legal) > 20 else "")
        return f"game {b}: {what} for player {int(state.current[b])}; legal actions: {shown}"

    # ------------------------------------------------------------------ views
    def observe(self, state: State, players: npt.ArrayLike | None = None,
                out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
        """Observations ``[B, obs_size]`` of ``players[b]`` (default: the player to act),
        written into ``out`` when given (float32, C-contiguous ``[B, obs_size]``)."""
        self._check(state)
        if players is None:
            pl = np.maximum(state.current, 0).astype(np.int64)
        else:
            given = np.asarray(players)
            integral = given.dtype != np.bool_ and np.issubdtype(given.dtype, np.integer)
            if not integral and given.size:  # a float seat is refused, not truncated
                raise TypeError(f"players must be integer seats, got dtype {given.dtype}")
            pl = given.astype(np.int64)
            if pl.ndim == 0:
                pl = np.full(state.batch_size, int(pl))
            if pl.shape != (state.batch_size,) or ((pl < 0) | (pl >= self.num_players)).any():
                raise ValueError(
                    f"players must be seats 0..{self.num_players - 1}, shape ({state.batch_size},)"
                )
        if out is None:
            out = np.empty((state.batch_size, self.obs_size), np.float32)
        elif out.shape != (state.batch_size, self.obs_size) or out.dtype != np.float32:
            raise ValueError(
                f"out must be float32 of shape ({state.batch_size}, {self.obs_size}), "
                f"got {out.dtype} {out.shape}"
            )
        args = (self._rp, self._play_tables, self._obs_offsets, state._flat, pl, self.rules.deals,
                out)
        self._run(K.observe_kernel, args, state.batch_size)
        return out

    def sample_random(
        self, mask: BoolArray, rng: np.random.Generator, out: IntArray | None = None
    ) -> npt.NDArray[np.int64]:
        """One uniformly random legal action per row of ``mask`` (-1 for an empty row)."""
        res = np.empty(mask.shape[0], np.int64) if out is None else out
        n = mask.shape[0]
        if n < self._serial_below:
            K.sample_legal(mask, rng.random(n), res, 0, n)
        else:
            self._run(K.sample_legal, (mask, rng.random(n), res), n)
        return res  # type: ignore[return-value]

    def reset_where(self, state: State, done: BoolArray, seeds: npt.ArrayLike) -> None:
        """Start new seeded games in place wherever ``done`` (seeds: one per game, [B]).

        ``deal_over`` keeps describing the step that ended the old game until the next step
        (but ``title`` is reset: read the old game's places before)."""
        self._check(state)
        done = np.asarray(done, np.bool_)
        if done.shape != (state.batch_size,):
            raise ValueError(f"done must have shape ({state.batch_size},), got {done.shape}")
        args = (self._rp, state._flat, done, K.as_seeds(seeds, state.batch_size))
        self._run(K.reset_where, args, state.batch_size)

    # ------------------------------------------------------------------ fused calls
    def play_random(
        self, state: State, steps: int, rng: np.random.Generator, reset: bool = True
    ) -> Played:
        """Every game takes up to ``steps`` uniformly random legal actions, in one call, in
        place: a random rollout (search, data generation). A game that ends starts again at
        once (``reset``, as :meth:`reset_where` would, its seed drawn like its actions) or, with
        ``reset=False``, stops there (run to the end: ``steps`` >= the longest game).

        Game ``b`` draws from its own stream, keyed by the b-th of ``B`` numbers drawn from
        ``rng``, so results do not depend on the threads; they equal mask, sample, step and
        reset called one step at a time with those draws (see
        :mod:`president_env.core._kernels._fused`). Returns the actions taken and games ended.
        """
        self._check(state)
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
            raise ValueError(f"steps must be a non-negative integer, got {steps!r}")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
        keys = rng.integers(0, 2**64, state.batch_size, dtype=np.uint64)
        counts = np.zeros((state.batch_size, 2), np.int64)
        args = (self._rp, self._play_tables, self._mask_tables, state._flat, keys, int(steps),
                bool(reset), counts)
        self._run(K.play_random_kernel, args, state.batch_size)
        total = counts.sum(axis=0)
        return Played(int(total[0]), int(total[1]))

    def next_views(
        self,
        state: State,
        mask: BoolArray,
        obs: npt.NDArray[np.float32],
        done: BoolArray | None = None,
        seeds: npt.ArrayLike | None = None,
    ) -> None:
        """In one call: new seeded games where ``done`` (as :meth:`reset_where`), then ``mask``
        (bool [B, A]) and ``obs`` (float32 [B, O]) of the player to act in each game (seat 0's
        view once a game is over): :meth:`reset_where`, :meth:`legal_action_mask` and
        :meth:`observe` in one pass over the games."""
        self._check(state)
        b = state.batch_size
        if mask.shape != (b, self.num_actions) or mask.dtype != np.bool_:
            raise ValueError(f"mask must be bool of shape ({b}, {self.num_actions})")
        if obs.shape != (b, self.obs_size) or obs.dtype != np.float32 or not obs.flags.c_contiguous:
            raise ValueError(f"obs must be C-contiguous float32 of shape ({b}, {self.obs_size})")
        d = np.zeros(b, np.bool_) if done is None else np.asarray(done, np.bool_)
        if d.shape != (b,):
            raise ValueError(f"done must have shape ({b},), got {d.shape}")
        if done is not None and seeds is None:
            raise ValueError("next_views needs the seeds of the new games with done")
        s = np.zeros(b, np.uint64) if seeds is None else K.as_seeds(seeds, b)
        args = (self._rp, self._play_tables, self._mask_tables, self._obs_offsets, self.rules.deals,
                state._flat, d, s, mask, obs, np.empty(b, np.int64))
        self._run(K.next_views_kernel, args, b)

    def standings(self, state: State) -> npt.NDArray[np.int64]:
        """Final ranking ``[B, P]`` (0 = best): by score, ties broken by the last deal's place."""
        self._check(state)
        key = -state.scores.astype(np.int64) * 16 + np.maximum(state.title, 0)
        order = np.argsort(key, axis=1, kind="stable")
        ranks = np.empty_like(order)
        np.put_along_axis(ranks, order, np.arange(self.num_players)[None], axis=1)
        return ranks
