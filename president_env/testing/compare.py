"""Comparing one engine game with a :class:`~president_env.testing.reference.ReferenceGame`, and
reporting a disagreement with the code that replays it.

:func:`state_differences` lists every field where the two differ: phase, player to act, hands,
pile (kind, rank, size, last player), passes, revolution, places, titles, scores, deal number,
dealer, cards played, the exchange (cards given, received, still to return), the state of the
variants of ``RULES.md`` section 12 (``pending`` revolution, the Western row of singles
``row_rank`` and ``row_count``, the President's asks ``asks_left``, ``asked`` and
``ask_held``; the UECda 11-back ``jack_back``, 6-revers ``six_reversed``, the passes in a row
``pass_run``, the ``lock``'s ``pile_suits`` and ``locked``, the seats round the table ``seat_of``), the history of the deal (``seat_played``, ``seat_passed``, ``recent``: kept
by both with ``observation="history"`` or ``"record"`` only, so compared then only: under ``"standard"`` the
engine's fields have size 0), ``deal_over`` and the deal's rewards (:func:`president_env.rewards.deal_rewards`
with the linear table, against the reference's ``deal_over_rewards``). :func:`reproduction`
writes the report that :mod:`president_env.testing.difftest` and
:mod:`president_env.testing.checks` raise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core.actions import ActionLayout
from president_env.core.cards import format_hand, parse_hand
from president_env.core.engine import PHASE_DONE, PHASE_EXCHANGE, PHASE_PLAY, State
from president_env.core.rules import Rules
from president_env.rewards import deal_rewards, reward_table
from president_env.testing.reference import ReferenceGame

CARD_FIELDS = ("hands", "gave", "received", "seat_played")
"""State fields of 53 card counts per seat (shown as cards in a report)."""

PHASE_NAMES = {PHASE_EXCHANGE: "exchange", PHASE_PLAY: "play", PHASE_DONE: "done"}

HandsText = list[str]

HISTORY_FIELDS = ("seat_played", "seat_passed", "recent")
"""The deal's history: compared with ``observation="history"`` or ``"record"`` only (see the module docstring)."""


class Disagreement(AssertionError):
    """The engine and the reference disagree; the message holds a reproduction."""


def engine_view(state: State, b: int) -> dict[str, Any]:
    """The public state of game ``b`` as plain Python values (named as in :func:`reference_view`)."""
    return {
        "phase": PHASE_NAMES.get(int(state.phase[b]), int(state.phase[b])),
        "current": int(state.current[b]),
        "hands": state.hands[b].tolist(),
        "pile_kind": int(state.pile_kind[b]),
        "pile_rank": int(state.pile_rank[b]),
        "pile_size": int(state.pile_size[b]),
        "last_player": int(state.last_player[b]),
        "passed": state.passed[b].tolist(),
        "revolution": bool(state.revolution[b]),
        "place": state.place[b].tolist(),
        "n_finished": int(state.n_finished[b]),
        "title": state.title[b].tolist(),
        "scores": state.scores[b].tolist(),
        "deal": int(state.deal[b]),
        "dealer": int(state.dealer[b]),
        "played": state.played[b].tolist(),
        "gave": state.gave[b].tolist(),
        "received": state.received[b].tolist(),
        "to_return": state.to_return[b].tolist(),
        "deal_over": bool(state.deal_over[b]),
        "pending": bool(state.pending[b]),
        "row_rank": int(state.row_rank[b]),
        "row_count": int(state.row_count[b]),
        "asks_left": int(state.asks_left[b]),
        "asked": state.asked[b].tolist(),
        "ask_held": state.ask_held[b].tolist(),
        "jack_back": bool(state.jack_back[b]),
        "six_reversed": bool(state.six_reversed[b]),
        "pass_run": int(state.pass_run[b]),
        "seat_played": state.seat_played[b].tolist(),
        "seat_passed": state.seat_passed[b].tolist(),
        "recent": state.recent[b].tolist(),
        "pile_suits": int(state.pile_suits[b]),
        "locked": bool(state.locked[b]),
        "seat_of": state.seat_of[b].tolist(),
    }


def reference_view(ref: ReferenceGame) -> dict[str, Any]:
    """The public state of a reference game (named as in :func:`engine_view`; the deal's
    history with ``observation="history"`` or ``"record"`` only, as the engine keeps it)."""
    view = {
        "phase": ref.phase,
        "current": ref.current,
        "hands": ref.hands.tolist(),
        "pile_kind": int(ref.pile_kind),
        "pile_rank": ref.pile_rank,
        "pile_size": ref.pile_size,
        "last_player": ref.last_player,
        "passed": ref.passed,
        "revolution": ref.revolution,
        "place": ref.place,
        "n_finished": sum(1 for p in ref.place if p >= 0),
        "title": ref.title,
        "scores": ref.scores,
        "deal": ref.deal,
        "dealer": ref.dealer,
        "played": ref.played,
        "gave": ref.gave,
        "received": ref.received,
        "to_return": ref.to_return,
        "deal_over": ref.deal_over,
        "pending": ref.pending,
        "row_rank": ref.row_rank,
        "row_count": ref.row_count,
        "asks_left": ref.asks_left,
        "asked": ref.asked,
        "ask_held": ref.ask_held,
        "jack_back": ref.jack_back,
        "six_reversed": ref.six_reversed,
        "pass_run": ref.pass_run,
        "seat_played": ref.seat_played,
        "seat_passed": ref.seat_passed,
        "recent": ref.recent,
        "pile_suits": ref.pile_suits,
        "locked": ref.locked,
        "seat_of": ref.seat_of,
    }
    if not ref.rules.keeps_history:
        for name in HISTORY_FIELDS:
            del view[name]
    return view


def batch_rewards(rules: Rules, state: State) -> npt.NDArray[np.float32]:
    """The rewards ``[B, P]`` of the last step under the default (linear) reward table."""
    return deal_rewards(state, reward_table(rules))


def state_differences(
    state: State,
    b: int,
    ref: ReferenceGame,
    rewards: npt.NDArray[np.float32] | None = None,
) -> list[str]:
    """Every field where game ``b`` of the engine's ``state`` differs from ``ref``.

    ``rewards``: :func:`batch_rewards` of ``state``, if already computed."""
    got, want = engine_view(state, b), reference_view(ref)
    diffs = []
    for name in want:  # (the history only if the reference's rules keep it)
        if got[name] == want[name]:
            continue
        if name in CARD_FIELDS:  # per seat, as cards
            for seat, (g, w) in enumerate(zip(got[name], want[name])):
                if g != w:
                    diffs.append(
                        f"{name}[seat {seat}]: engine '{format_hand(g)}' != reference "
                        f"'{format_hand(w)}'"
                    )
        else:
            diffs.append(f"{name}: engine {got[name]} != reference {want[name]}")
    if rewards is None:
        rewards = batch_rewards(ref.rules, state)
    row = rewards[b].tolist()
    if any(abs(g - w) > 1e-6 for g, w in zip(row, ref.deal_over_rewards)):
        diffs.append(f"rewards: engine {row} != reference {ref.deal_over_rewards}")
    return [_short(d) for d in diffs]


def _short(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + " ..."


def hands_text(hands: npt.ArrayLike) -> HandsText:
    """Hands ``[P, 53]`` as one readable string per seat (what :func:`parse_hand` reads)."""
    return [format_hand(row) for row in np.asarray(hands)]


def as_hands(hands: npt.ArrayLike | HandsText | None) -> npt.NDArray[np.int8] | None:
    """Given hands ``[P, 53]`` from counts or from :func:`hands_text` strings (None stays None)."""
    if hands is None:
        return None
    if isinstance(hands, list) and hands and isinstance(hands[0], str):
        return np.stack([parse_hand(text) for text in hands])
    return np.asarray(hands, dtype=np.int8)


def reproduction(
    rules: Rules,
    seed: int,
    actions: Sequence[int],
    hands: npt.ArrayLike | None,
    problem: str,
    *,
    what: str = "engine and reference disagree",
    replay_with: str = "president_env.testing.difftest import replay",
) -> str:
    """A report of one failure after ``actions``, with the code that replays it."""
    layout = ActionLayout(rules)
    names = ", ".join(f"{a} {layout.name(a)}" for a in actions[-12:])
    hands_arg = "" if hands is None else f", hands={hands_text(hands)!r}"
    module, _, function = replay_with.partition(" import ")
    return (
        f"{what} after {len(actions)} actions\n"
        f"{problem}\n"
        f"last actions: {names}\n"
        f"replay:\n"
        f"  from {module} import {function}\n"
        f"  from president_env.core.rules import Rules\n"
        f"  {function}(Rules.from_dict({rules.to_dict()!r}), seed={seed},\n"
        f"         actions={list(actions)!r}{hands_arg})"
    )


def mask_problem(layout: ActionLayout, engine_legal: list[int], ref_legal: list[int]) -> str:
    """What differs between the engine's legal actions and the reference's, by name."""
    extra = sorted(set(engine_legal) - set(ref_legal))
    missing = sorted(set(ref_legal) - set(engine_legal))
    return (
        "legal actions differ: engine allows but reference forbids "
        f"{[layout.name(a) for a in extra]}; reference allows but engine forbids "
        f"{[layout.name(a) for a in missing]}"
    )
