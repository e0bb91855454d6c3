"""The state of ``B`` games: a frozen dataclass of numpy arrays, changed in place by the
:class:`~president_env.core.engine.Engine`.

State (every array batch-first; ``P`` players, 53 card ids, see :mod:`president_env.core.cards`):

===============  ==============  ===============================================================
field            dtype, shape    meaning
===============  ==============  ===============================================================
``hands``        int8 [B,P,53]   cards held, count per card id
``phase``        int8 [B]        0 exchange, 1 play, 2 game over
``current``      int8 [B]        seat to act (-1 once the game is over)
``pile_kind``    int8 [B]        top play: 0 none, 1 set, 2 jokers-only set, 3 run
``pile_rank``    int8 [B]        rank of the top set, bottom rank of the top run, else -1
``pile_size``    int8 [B]        cards in the top play
``last_player``  int8 [B]        seat that made the top play, -1 on an empty pile
``passed``       bool [B,P]      passed in this trick (since the last play unless
                                 ``pass_is_final``)
``revolution``   bool [B]        the rank order is reversed
``place``        int8 [B,P]      finishing place in this deal (0 = first), -1 while playing
``n_finished``   int8 [B]        players who have finished this deal
``title``        int8 [B,P]      place in the previous deal, -1 during the first deal (kept,
                                 unused, in a ``title_reset_every`` deal)
``scores``       int32 [B,P]     cumulative scores under ``rules.scoring``
``deal``         int16 [B]       index of the current deal (0-based)
``played``       int8 [B,14]     public memory: cards played this deal per rank, then jokers
``gave``         int8 [B,P,53]   cards given in this deal's exchange
``received``     int8 [B,P,53]   cards received in this deal's exchange
``to_return``    int8 [B,P]      cards a player still has to return in the exchange
``deal_over``    bool [B]        the last step ended a deal (the next one is already dealt)
``seed``         uint64 [B]      seed of the game's deals (deal ``d`` uses (seed, d))
``dealer``       int8 [B]        dealer of the current deal (seat P-1, then the last Bum;
                                 ``deal_from="president"``: the seat before the first card's)
``pending``      bool [B]        ``next_trick``: a revolution is pending (the order, and with
                                 ``western_revolution`` the direction, turns as the trick ends)
``row_rank``     int8 [B]        ``western_revolution``: rank of the row of single natural cards
                                 in this trick, -1 none
``row_count``    int8 [B]        singles of ``row_rank`` played one after the other (0..3)
``asks_left``    int8 [B]        ``president_asks``: asks the President still has to make
``asked``        int8 [B,2]      card named by ask i in this deal's exchange, -1 not made
``ask_held``     int8 [B,2]      1 if the Bum held the card of ask i, 0 if not, -1 not made
``jack_back``    bool [B]        ``jack_back``: a J in this trick reversed the order until the
                                 trick ends (the order in force is ``revolution != jack_back``)
``six_reversed`` bool [B]        ``six_reverses``: the 6s played this deal reversed the
                                 direction of play (an odd number of plays holding one)
``pass_run``     int16 [B]       passes in a row this deal, across tricks (a play starts the
                                 count again): ``stalemate_passes`` of them end the deal
``seat_played``  int8 [B,P,53]   cards seat p played this deal, per card id (what its plays
                                 took: runs and jokers included); [B,P,0] without history
``seat_passed``  int8 [B,P,53]   1 at ``(min(size, 4) - 1) * 13 + rank`` if seat p passed this
                                 deal on a top set of that size and rank; at 52 if it passed
                                 on a run or on a jokers-only set; [B,P,0] without history
``recent``       int16 [B,H,2]   the last H moves of the play phase this deal, most recent
                                 first: (seat, action id), passes included; (-1, -1) none
                                 (the gives and asks of the exchange are not moves here);
                                 H = 8 (``observation="history"``), every move of a deal
                                 (``"record"``: ``Rules.record_length``), [B,0,2] without
                                 history
``pile_suits``   int8 [B]        ``lock``: suits of the top play (bit ``1 << suit``, the
                                 joker's row counted; 16 the fifth row), 0 none
``locked``       bool [B]        ``lock``: the trick is locked to ``pile_suits``
``seat_of``      int8 [B,P]      the seat of each player round the table (play goes seat 0,
                                 1, 2, ...): p, or with ``reseat_every`` an order drawn at
                                 deals 0, n, 2n, ... (``engine.seat_order``)
===============  ==============  ===============================================================

The fields from ``pending`` to ``locked`` are reset at the start of every deal. Three, the
public history of the deal that the ``observation="history"`` and ``"record"`` blocks show,
are kept with those observations only: under the default ``"standard"`` the engine makes them
of size 0 (``[B,P,0]``, ``[B,P,0]``, ``[B,0,2]``: a 4-player game then takes 720 bytes, not
1,176), so its steps and its memory pay nothing for them (:attr:`State.keeps_history`). A
standard engine may be handed a state with the history (it leaves the fields alone); an
engine that keeps the history refuses a state without it, or with another number of moves
kept (ValueError: :attr:`Rules.moves_kept`).

The direction of play is derived, not stored: play goes to the right (seat i-1) iff
``western_revolution`` and ``revolution``, or else ``six_reversed``.

"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core import _kernels as K
from president_env.core._kernels._one import state_spec
from president_env.core._kernels._types import HISTORY_LEN, MOVE, NUM_ASKS, PASS_KEYS, STATE_DTYPES
from president_env.core.cards import NUM_CARDS
from president_env.core.constants import PHASE_DONE, PLAYED_SIZE

__all__ = ["State", "replace"]

MAX_PLAYERS = 8
"""The most players of a game (``Rules.num_players``' bound)."""

IntArray = npt.NDArray[np.integer[Any]]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class State:
    """The state of ``B`` games (see the module docstring for every field).

    The fields cannot be rebound (their arrays are changed in place by
    :meth:`Engine.step_inplace`); :func:`replace` makes a changed copy.
    """

    hands: npt.NDArray[np.int8]
    phase: npt.NDArray[np.int8]
    current: npt.NDArray[np.int8]
    pile_kind: npt.NDArray[np.int8]
    pile_rank: npt.NDArray[np.int8]
    pile_size: npt.NDArray[np.int8]
    last_player: npt.NDArray[np.int8]
    passed: npt.NDArray[np.bool_]
    revolution: npt.NDArray[np.bool_]
    place: npt.NDArray[np.int8]
    n_finished: npt.NDArray[np.int8]
    title: npt.NDArray[np.int8]
    scores: npt.NDArray[np.int32]
    deal: npt.NDArray[np.int16]
    played: npt.NDArray[np.int8]
    gave: npt.NDArray[np.int8]
    received: npt.NDArray[np.int8]
    to_return: npt.NDArray[np.int8]
    deal_over: npt.NDArray[np.bool_]
    seed: npt.NDArray[np.uint64]
    dealer: npt.NDArray[np.int8]
    pending: npt.NDArray[np.bool_]
    row_rank: npt.NDArray[np.int8]
    row_count: npt.NDArray[np.int8]
    asks_left: npt.NDArray[np.int8]
    asked: npt.NDArray[np.int8]
    ask_held: npt.NDArray[np.int8]
    jack_back: npt.NDArray[np.bool_]
    six_reversed: npt.NDArray[np.bool_]
    pass_run: npt.NDArray[np.int16]
    seat_played: npt.NDArray[np.int8]
    seat_passed: npt.NDArray[np.int8]
    recent: npt.NDArray[np.int16]
    pile_suits: npt.NDArray[np.int8]
    locked: npt.NDArray[np.bool_]
    seat_of: npt.NDArray[np.int8]
    _arrays: K.Arrays = field(init=False, repr=False, compare=False)
    _flat: tuple[np.ndarray, ...] = field(init=False, repr=False, compare=False)
    """The same arrays as a plain tuple: what the kernels are handed (see ``_kernels._types``)."""

    def __post_init__(self) -> None:
        self._bind()
        _check_fields(self._arrays)

    def _bind(self) -> None:
        arrays = K.Arrays(*(getattr(self, n) for n in K.Arrays._fields))
        object.__setattr__(self, "_arrays", arrays)
        object.__setattr__(self, "_flat", tuple(arrays))

    @classmethod
    def _of(cls, arrays: Any) -> State:
        """A state of arrays made from a checked state's (its copies): not checked again."""
        state = object.__new__(cls)
        for name, a in zip(K.Arrays._fields, arrays):
            object.__setattr__(state, name, a)
        state._bind()
        return state

    @classmethod
    def zeros(cls, batch: int, num_players: int, history: bool | int = True) -> State:
        """``batch`` games of zeros (``seat_of``: player p in seat p). Without ``history`` the three fields of the deal's
        history (``seat_played``, ``seat_passed``, ``recent``) have size 0 (``[B,P,0]``,
        ``[B,P,0]``, ``[B,0,2]``): enough for rules with the standard observation, not for
        ``observation="history"`` (:meth:`Engine.init` makes what its rules need). ``history``
        may also be the number of moves ``recent`` keeps (``Rules.moves_kept``: 0, or at least
        8); True is 8."""
        moves = _moves_kept(history)
        dims = {"P": num_players, "C": NUM_CARDS, "R": PLAYED_SIZE, "K": NUM_ASKS, "X": PASS_KEYS,
                "H": moves, "M": MOVE}
        shapes = {name: (batch, *(dims[d] for d in shape))
                  for name, (_, shape) in STATE_DTYPES.items()}
        if not moves:
            shapes.update(seat_played=(batch, num_players, 0), seat_passed=(batch, num_players, 0),
                          recent=(batch, 0, MOVE))
        state = cls(**{name: np.zeros(shapes[name], dtype)
                       for name, (dtype, _) in STATE_DTYPES.items()})
        state.seat_of[:] = np.arange(num_players)  # player p in seat p
        return state

    @property
    def keeps_history(self) -> bool:
        """Whether the fields of the deal's history have their full size (what an engine with
        ``observation="history"`` or ``"record"`` needs; see :meth:`zeros`)."""
        return int(self.recent.shape[1]) >= HISTORY_LEN

    @property
    def moves_kept(self) -> int:
        """Moves of the play phase kept in ``recent`` (0: no history; see :meth:`zeros`)."""
        return int(self.recent.shape[1])

    @property
    def batch_size(self) -> int:
        return int(self.phase.shape[0])

    @property
    def num_players(self) -> int:
        return int(self.hands.shape[1])

    @property
    def terminated(self) -> BoolArray:
        """Games that are over."""
        return self.phase == PHASE_DONE

    @property
    def cards_left(self) -> npt.NDArray[np.int64]:
        """Cards held per player ``[B, P]``."""
        return self.hands.sum(axis=-1, dtype=np.int64)

    def arrays(self) -> K.Arrays:
        """The arrays as the kernels read them: a NamedTuple in field order."""
        return self._arrays

    def copy(self) -> State:
        return State._of(a.copy() for a in self.arrays())

    def take(self, index: IntArray | slice | int) -> State:
        """The games selected by ``index`` (an int keeps the batch axis)."""
        if isinstance(index, (int, np.integer)):
            index = slice(int(index), int(index) + 1)
        return State._of(np.array(a[index]) for a in self.arrays())

    def put(self, index: IntArray | slice, other: State) -> None:
        """Write the games of ``other`` into this state at ``index``, in place (both with the
        deal's history or both without: see :meth:`zeros`)."""
        if self.recent.shape[1:] != other.recent.shape[1:]:
            raise ValueError("put: one state keeps the deal's history and the other does not "
                             f"(recent {self.recent.shape[1:]} against {other.recent.shape[1:]})")
        for mine, theirs in zip(self.arrays(), other.arrays()):
            mine[index] = theirs

    def equals(self, other: State) -> bool:
        return all(np.array_equal(a, b) for a, b in zip(self.arrays(), other.arrays()))

    def _address(self, eager: bool = False) -> npt.NDArray[np.int64] | None:
        """The arrays' addresses for the engine's direct calls (:func:`._one.state_spec`: one
        array to type and unbox, not 33), built at the fourth call that asks (it costs about
        two calls), or at the first with ``eager`` (a one-game call that is made many times);
        None before, or when they cannot be handed over so."""
        spec = self.__dict__.get("_spec", 0)
        if isinstance(spec, int):  # calls that asked (an engine's step of a copy asks twice)
            if spec < 3 and not eager:
                object.__setattr__(self, "_spec", spec + 1)
                return None
            spec = state_spec(self._flat)  # None: not possible (kept as such)
            object.__setattr__(self, "_spec", spec)
        return spec

    def __getstate__(self) -> dict[str, Any]:  # a copy must not point into these arrays
        return {k: v for k, v in self.__dict__.items() if k not in ("_spec", "_checked")}


def _check_fields(arrays: K.Arrays) -> None:
    """A TypeError or ValueError naming the field unless every array is a numpy array of its
    dtype and of the shape that ``B`` games of ``P`` players take (:data:`STATE_DTYPES`; the
    deal's history full or of size 0): what the compiled code may then index unchecked."""
    for name, a in zip(K.Arrays._fields, arrays):
        if not isinstance(a, np.ndarray):
            raise TypeError(f"State.{name} must be a numpy array, got {type(a).__name__}")
    hands = arrays.hands
    if hands.ndim != 3 or not 1 <= hands.shape[1] <= MAX_PLAYERS:
        raise ValueError(f"State.hands must have shape [B, P, {NUM_CARDS}] with P <= "
                         f"{MAX_PLAYERS}, got {hands.shape}")
    b, p = hands.shape[:2]
    history = (arrays.recent.ndim == 3
               and HISTORY_LEN <= arrays.recent.shape[1] <= MAX_MOVES_KEPT)
    dims = {"P": p, "C": NUM_CARDS, "R": PLAYED_SIZE, "K": NUM_ASKS, "X": PASS_KEYS,
            "H": int(arrays.recent.shape[1]) if history else HISTORY_LEN, "M": MOVE}
    if not history:
        dims.update(C=0, X=0, H=0)
    for name, a in zip(K.Arrays._fields, arrays):
        dtype, shape = STATE_DTYPES[name]
        if name not in ("seat_played", "seat_passed", "recent"):
            want = (b, *(NUM_CARDS if d == "C" else dims[d] for d in shape))
        else:
            want = (b, *(dims[d] for d in shape))
        if a.dtype != dtype or a.shape != want:
            raise ValueError(f"State.{name} must be {np.dtype(dtype).name} of shape {want} for "
                             f"{b} games of {p} players, got {a.dtype.name} {a.shape}")


MAX_MOVES_KEPT = 1 << 14
"""The most moves ``recent`` may keep (more than any deal makes: ``Rules.record_length``)."""


def _moves_kept(history: bool | int) -> int:
    if history is True or history is False:
        return HISTORY_LEN if history else 0
    if not isinstance(history, (int, np.integer)) or not (
            history == 0 or HISTORY_LEN <= history <= MAX_MOVES_KEPT):
        raise ValueError(f"history must be a bool, 0 or a number of moves in {HISTORY_LEN}.."
                         f"{MAX_MOVES_KEPT}, got {history!r}")
    return int(history)


def replace(state: State, **changes: Any) -> State:
    """A copy of ``state`` with some fields replaced (for building test states)."""
    return dataclasses.replace(state.copy(), **changes)
