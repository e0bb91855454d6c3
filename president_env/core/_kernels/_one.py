"""One game in one compiled call, its arrays handed over as one int64 vector of addresses.

Typing and unboxing the 36 state arrays and the 11 table arrays that
:func:`~president_env.core._kernels._advance.advance_kernel` takes costs ~3.5 us per call from
Python, more than the game's own work (~2 us). :func:`one_advance` takes instead one int64
vector, the *spec*, that holds the address and the dimensions of every one of those arrays
(:data:`SLOT` int64 each: address, then up to 3 dimensions), then the integers of the mask
tables and the number of deals; it rebuilds the table arrays as views in compiled code (no
copy) and calls :func:`advance_at` (``advance_kernel`` inlined, on the state arrays of the
spec) with the arguments ``Engine.advance`` gives it. A call then unboxes three small arrays:
~0.5 us. ``advance_at`` is a compiled call, not inlined a second time: one copy of the step,
mask and observation code serves both paths (inlined twice, it was over a third of the one-game
warm-up's compile on a clean cache), and its arguments are a few arrays, not the state's 33.

The spec is built by :class:`president_env.core.one_game.OneGame`, which holds every array
it points to (the state, whose fields are never rebound, and the engine's tables) for as long
as the spec lives, rebuilds it for a copy, and checks the state's dtypes and dimensions
against :data:`STATE_FIELDS` (the order of :class:`~president_env.core._kernels._types.Arrays`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import carray, literal_unroll
from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

from president_env.core._kernels._advance import advance_inline
from president_env.core._kernels._deal import new_game
from president_env.core._kernels._jit import kernel
from president_env.core._kernels._legal import first_illegal, mask_kernel
from president_env.core._kernels._play import step_kernel
from president_env.core._kernels._types import STATE_DTYPES, Arrays

SLOT = 4
"""int64 per array in the spec: the address, then the dimensions (unused ones 0)."""

STATE_FIELDS: tuple[tuple[type, int], ...] = tuple(
    (dtype, 1 + len(dims)) for dtype, dims in STATE_DTYPES.values()
)
"""(dtype, ndim) of each state array, in the order of ``Arrays``: the slots of a spec."""
NUM_STATE = len(STATE_FIELDS)

TABLE_SLOTS = 11
"""int64 vectors after the state: rule params, 5 play tables, 4 run tables, obs offsets."""
INT_FIELDS = 8
"""Integers after the arrays: set_base, joker_base, run_base, give_base, num_give, ask_base,
num_ask, deals."""


def _void_pointer(typingctx, addr):  # type: ignore[no-untyped-def]
    """An int64 address as a void pointer (numba's documented carray-from-address idiom)."""
    sig = types.voidptr(addr)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


_pointer: Any = intrinsic(_void_pointer)


def _read_only_array(typingctx, arr):  # type: ignore[no-untyped-def]
    """``arr`` itself, typed read-only: the rule vector of a spec then has the type of the
    engine's (a read-only array is another numba type), so the one-game calls share the
    batched calls' compiled kernels instead of compiling a second copy of each."""
    sig = arr.copy(readonly=True)(arr)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return impl_ret_borrowed(context, builder, signature.return_type, args[0])

    return sig, codegen


_read_only: Any = intrinsic(_read_only_array)


@kernel(inline="always")
def _a1(spec, slot, dtype):  # type: ignore[no-untyped-def]
    i = slot * SLOT
    return carray(_pointer(spec[i]), (spec[i + 1],), dtype)


@kernel(inline="always")
def _a2(spec, slot, dtype):  # type: ignore[no-untyped-def]
    i = slot * SLOT
    return carray(_pointer(spec[i]), (spec[i + 1], spec[i + 2]), dtype)


@kernel(inline="always")
def _a3(spec, slot, dtype):  # type: ignore[no-untyped-def]
    i = slot * SLOT
    return carray(_pointer(spec[i]), (spec[i + 1], spec[i + 2], spec[i + 3]), dtype)


@kernel(inline="always")
def _rules_at(spec):  # type: ignore[no-untyped-def]
    """The rule vector of ``spec`` (slot ``NUM_STATE``), read-only like the engine's."""
    return _read_only(_a1(spec, NUM_STATE, np.int64))


@kernel(inline="always")
def state_arrays(spec):  # type: ignore[no-untyped-def]
    """The state arrays of slots 0..35 of ``spec``, as views (the tuple the kernels take)."""
    return (
        _a3(spec, 0, np.int8), _a1(spec, 1, np.int8), _a1(spec, 2, np.int8),
        _a1(spec, 3, np.int8), _a1(spec, 4, np.int8), _a1(spec, 5, np.int8),
        _a1(spec, 6, np.int8), _a2(spec, 7, np.bool_), _a1(spec, 8, np.bool_),
        _a2(spec, 9, np.int8), _a1(spec, 10, np.int8), _a2(spec, 11, np.int8),
        _a2(spec, 12, np.int32), _a1(spec, 13, np.int16), _a2(spec, 14, np.int8),
        _a3(spec, 15, np.int8), _a3(spec, 16, np.int8), _a2(spec, 17, np.int8),
        _a1(spec, 18, np.bool_), _a1(spec, 19, np.uint64), _a1(spec, 20, np.int8),
        _a1(spec, 21, np.bool_), _a1(spec, 22, np.int8), _a1(spec, 23, np.int8),
        _a1(spec, 24, np.int8), _a2(spec, 25, np.int8), _a2(spec, 26, np.int8),
        _a1(spec, 27, np.bool_), _a1(spec, 28, np.bool_), _a1(spec, 29, np.int16),
        _a3(spec, 30, np.int8), _a3(spec, 31, np.int8), _a3(spec, 32, np.int16),
        _a1(spec, 33, np.int8), _a1(spec, 34, np.bool_), _a2(spec, 35, np.int8),
    )


@kernel
def mask_at(rp, tables, spec, out, lo, hi):  # type: ignore[no-untyped-def]
    """``mask_kernel`` on the state arrays of ``spec`` (:func:`state_spec`)."""
    mask_kernel(rp, tables, state_arrays(spec), out, lo, hi)


@kernel
def step_at(rp, tables, spec, actions, lo, hi):  # type: ignore[no-untyped-def]
    """``step_kernel`` on the state arrays of ``spec`` (:func:`state_spec`)."""
    step_kernel(rp, tables, state_arrays(spec), actions, lo, hi)


@kernel
def advance_at(rp, play_tables, mask_tables, off, deals, spec, action, mask, obs):  # type: ignore[no-untyped-def]
    """``advance_inline`` on the state arrays of ``spec`` (:func:`state_spec`)."""
    arrays = state_arrays(spec)
    return advance_inline(rp, play_tables, mask_tables, off, deals, arrays, action, mask, obs)


@kernel
def first_illegal_at(rp, tables, spec, actions, num_actions):  # type: ignore[no-untyped-def]
    """``first_illegal`` on the state arrays of ``spec`` (:func:`state_spec`)."""
    return first_illegal(rp, tables, state_arrays(spec), actions, num_actions)


@kernel
def fill_spec(arrays, spec):  # type: ignore[no-untyped-def]
    """Write the slots (address, dimensions) of a tuple of arrays into ``spec``."""
    i = 0
    for a in literal_unroll(arrays):
        spec[i * SLOT] = a.ctypes.data
        for d in range(a.ndim):
            spec[i * SLOT + 1 + d] = a.shape[d]
        i += 1  # noqa: SIM113 (numba: no enumerate over literal_unroll)


def state_spec(arrays: Sequence[np.ndarray]) -> npt.NDArray[np.int64] | None:
    """The address vector of the state arrays alone (slots 0..35, as in a spec), or None when
    one cannot be handed over by address (other dtype or dimensions, not C-contiguous,
    unaligned or read-only)."""
    if len(arrays) != NUM_STATE:
        return None
    for arr, (dtype, ndim) in zip(arrays, STATE_FIELDS):
        f = arr.flags
        if arr.dtype != dtype or arr.ndim != ndim or not (f.c_contiguous and f.aligned
                                                           and f.writeable):
            return None
    spec = np.zeros(NUM_STATE * SLOT, np.int64)
    fill_spec(tuple(arrays), spec)
    return spec


@kernel
def one_advance(spec, action, mask, obs):  # type: ignore[no-untyped-def]
    """``advance_at`` on the arrays of ``spec`` (see the module docstring): game 0 takes
    ``action`` (unless < 0), ``mask`` and ``obs`` receive the next player's; returns that
    player (-1 once the game is over)."""
    t = NUM_STATE  # the tables follow the state
    rp = _rules_at(spec)
    play = (_a1(spec, t + 1, np.int64), _a1(spec, t + 2, np.int64), _a1(spec, t + 3, np.int64),
            _a1(spec, t + 4, np.int64), _a1(spec, t + 5, np.int64))
    n = (t + TABLE_SLOTS) * SLOT
    runs = (_a1(spec, t + 6, np.int64), _a1(spec, t + 7, np.int64), _a1(spec, t + 8, np.int64),
            _a1(spec, t + 9, np.int64),
            spec[n], spec[n + 1], spec[n + 2], spec[n + 3], spec[n + 4], spec[n + 5], spec[n + 6])
    off = _a1(spec, t + 10, np.int64)
    return advance_at(rp, play, runs, off, spec[n + 7], spec, action, mask, obs)


@kernel
def one_restart(spec, seed):  # type: ignore[no-untyped-def]
    """A new game in the arrays of ``spec``, dealt from ``seed``: the state of
    ``Engine.init([seed])``, written over the old game (nothing allocated, the addresses
    kept)."""
    st = Arrays(*state_arrays(spec))
    new_game(_rules_at(spec), st, 0, np.uint64(seed))
    st.deal_over[0] = False
