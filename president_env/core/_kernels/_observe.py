"""The observation kernel: one player's view of each game, block by block (see
:mod:`president_env.core.observe` for the layout; ``off[ObsBlock.X]`` is where block X
starts)."""

from __future__ import annotations

from president_env.core._kernels._jit import kernel
from president_env.core._kernels._types import Arrays
from president_env.core.constants import NUM_CARDS, PLAYED_SIZE, Kind, Phase
from president_env.core.observe import ObsBlock
from president_env.core.rules import RuleParam


@kernel(inline="always")
def _flag(x):  # type: ignore[no-untyped-def]
    return 1.0 if x else 0.0


@kernel
def observe_kernel(rp, off, arrays, players, deals, out):  # type: ignore[no-untyped-def]
    """``out[b]`` (float32 [B, O]) = the observation of seat ``me = players[b]`` in game b;
    "seat k" is the k-th seat to the left of ``me``."""
    st = Arrays(*arrays)
    n_players = rp[RuleParam.PLAYERS]
    out[:, :] = 0.0
    for b in range(out.shape[0]):
        me = players[b]
        for c in range(NUM_CARDS):  # own cards, and those given and received in the exchange
            out[b, off[ObsBlock.HAND] + c] = st.hands[b, me, c]
            out[b, off[ObsBlock.GAVE] + c] = st.gave[b, me, c]
            out[b, off[ObsBlock.RECEIVED] + c] = st.received[b, me, c]
        for r in range(PLAYED_SIZE):
            out[b, off[ObsBlock.PLAYED] + r] = st.played[b, r]
        out[b, off[ObsBlock.PILE_KIND] + st.pile_kind[b]] = 1.0
        out[b, off[ObsBlock.PILE_SIZE]] = st.pile_size[b]
        if st.pile_rank[b] >= 0:
            out[b, off[ObsBlock.PILE_RANK] + st.pile_rank[b]] = 1.0
        out[b, off[ObsBlock.REVOLUTION]] = _flag(st.revolution[b])
        to_act = st.current[b] == me
        leading = to_act and st.pile_kind[b] == Kind.PASS and st.phase[b] == Phase.PLAY
        out[b, off[ObsBlock.LEADING]] = _flag(leading)
        out[b, off[ObsBlock.PHASE] + st.phase[b]] = 1.0
        out[b, off[ObsBlock.TO_ACT]] = _flag(to_act)
        for k in range(n_players):  # seat k: cards left, passed, top play, to act, place...
            q = (me + k) % n_players
            left = 0
            for c in range(NUM_CARDS):
                left += st.hands[b, q, c]
            out[b, off[ObsBlock.CARDS_LEFT] + k] = left
            out[b, off[ObsBlock.PASSED] + k] = _flag(st.passed[b, q])
            out[b, off[ObsBlock.LAST_PLAYER] + k] = _flag(st.last_player[b] == q)
            out[b, off[ObsBlock.CURRENT] + k] = _flag(st.current[b] == q)
            if st.place[b, q] >= 0:  # one-hot rows of P
                out[b, off[ObsBlock.PLACE] + k * n_players + st.place[b, q]] = 1.0
            if st.title[b, q] >= 0:
                out[b, off[ObsBlock.TITLE] + k * n_players + st.title[b, q]] = 1.0
            out[b, off[ObsBlock.SCORE] + k] = st.scores[b, q]
        out[b, off[ObsBlock.TO_RETURN]] = st.to_return[b, me]
        out[b, off[ObsBlock.DEAL]] = st.deal[b] / deals

