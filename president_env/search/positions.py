"""Positions: the engine state of any moment of a deal, built from what one player knows.

A search agent (:class:`agents.expert.ExpertAgent`), a puzzle, or an analysis needs engine states
of the positions it reasons about, built without the engine's private fields. This module builds
them, ``B`` at once, from the observation of the player to act (which sums up the public record
of the deal: cards played, the pile, passes, places, revolution, the exchange, and, with
``Rules(observation="history")``, who played which card, who passed on what and the last plays;
with ``"record"``, every move of the deal in order) and the hands of every seat:

* :func:`from_observation` ``(rules, obs [B, O], hands [B, P, 53])`` -> :class:`State` of ``B``
  games: the position as the observer sees it, with the given hands;
* :func:`sample_hands` ``(rules, obs [B, O], n, rng)`` -> ``[B, n, P, 53]``: ``n`` hands for
  every seat, consistent with the observation (the observer's own hand, the cards left of every
  seat, the cards played, the cards it gave in the exchange and the asks), drawn from a belief
  that, with the history observation, also weighs the passes: a seat that passed on a pair of
  9s seldom holds a higher pair (it may have chosen to pass: ``pass_weight`` is the weight of a
  hand per pass it would contradict, 0 excludes such hands, 1 ignores passes);
* :func:`positions` = both: ``B * n`` states, row ``b * n + i`` = sample ``i`` of position ``b``;
* :func:`record_moves` ``(rules, obs)`` -> the deal's moves in order from the ``record`` block,
  and :func:`from_record`, the position rebuilt by replaying them from the deal's start.

**The observer's frame.** An observation names seats relative to the observer ("seat k" is the
k-th seat to its left, see :mod:`president_env.core.observe`), so a position is built with the
observer in seat 0 and seat k the k-th to its left; ``hands[:, k]`` is that seat's hand. Play
within a deal does not depend on where the table starts, so the position plays on exactly as
the real game (``Engine.observe(position, 0)`` is the observation it was built from, and the
legal actions are the same: :mod:`tests.test_positions` checks both over thousands of positions
of every preset). What an observation does not hold is set so: the dealer is the previous
deal's Bum (seat P-1 in the first deal; with ``deal_from="president"`` the seat before the
previous deal's President), other seats' cards given and received in the exchange
are unknown (zero), and the seed of later deals is ``seeds`` (default 0).

**Exchange positions.** While cards are exchanged, only the observer's part is known (the cards
it still has to return); other seats are taken to have returned theirs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core.cards import NUM_CARDS, NUM_NATURAL, NUM_RANKS
from president_env.core.constants import NUM_SUITS, PHASE_DONE
from president_env.core.engine import State
from president_env.core.observe import ObservationLayout
from president_env.core.rules import Rules
from president_env.search.history import history_fields, record_moves
from president_env.search.observation import (
    _checked_obs,
    _history,
    _one_hot,
    _per_rank,
    pack_counts,
    unseen_cards,
)
from president_env.search.sampling import sample_kernel
from president_env.seeding import Random

__all__ = [
    "check_record",
    "deal_start",
    "record_moves",
    "from_observation",
    "from_record",
    "pack_counts",
    "positions",
    "replay",
    "sample_hands",
    "unseen_cards",
]

IntArray = npt.NDArray[np.int64]
Hands = npt.NDArray[np.int8]

PASS_WEIGHT = 0.25
"""Default weight of a sampled hand per pass it contradicts (see :func:`sample_hands`)."""
TRIES = 16
"""Candidate deals per sample among which the belief chooses."""


# ---------------------------------------------------------------------------- the state
def _fields(rules: Rules, o: np.ndarray, lay: ObservationLayout) -> dict[str, np.ndarray]:
    """The public fields of the position, in the observer's frame."""
    p, b = rules.num_players, len(o)
    k = lay.split(o)
    f: dict[str, np.ndarray] = {}
    f["phase"] = _one_hot(k["phase"])
    f["current"] = np.where(f["phase"] == PHASE_DONE, -1, _one_hot(k["current"]))
    f["pile_kind"] = _one_hot(k["pile_kind"])
    f["pile_rank"] = _one_hot(k["pile_rank"])
    f["pile_size"] = np.rint(k["pile_size"][:, 0])
    f["last_player"] = _one_hot(k["last_player"])
    f["passed"] = k["passed"] > 0
    f["revolution"] = k["revolution"][:, 0] > 0
    f["place"] = _one_hot(k["place"].reshape(b, p, p))
    f["n_finished"] = (f["place"] >= 0).sum(axis=1)
    f["title"] = _one_hot(k["title"].reshape(b, p, p))
    f["scores"] = np.rint(k["score"])
    f["deal"] = np.rint(k["deal"][:, 0] * rules.deals)
    f["played"] = np.rint(k["played"])
    bum = f["title"] == p - 1
    dealer = (np.argmax(bum, axis=1) if rules.deal_from == "dealer_left"
              else (np.argmax(f["title"] == 0, axis=1) - 1) % p)  # (the President's right)
    f["dealer"] = np.where((f["deal"] > 0) & bum.any(axis=1), dealer, p - 1)
    if "pending" in k and k["pending"].shape[1]:
        f["pending"] = k["pending"][:, 0] > 0
    if k["row"].shape[1]:
        f["row_rank"] = _one_hot(k["row"][:, :NUM_RANKS])
        f["row_count"] = np.rint(k["row"][:, NUM_RANKS] * 4)
    if k["asks_left"].shape[1]:
        f["asks_left"] = np.rint(k["asks_left"][:, 0])
        f["asked"], f["ask_held"] = _asks(np.rint(k["asked"]), np.rint(k["ask_held"]))
    if k["jack_back"].shape[1]:
        f["jack_back"] = k["jack_back"][:, 0] > 0
    if k["pass_run"].shape[1]:
        f["pass_run"] = np.rint(k["pass_run"][:, 0])
    if rules.six_reverses:  # the direction, less what a Western revolution turns
        f["six_reversed"] = (k["direction"][:, 0] > 0) != (
            f["revolution"] & rules.western_revolution)
    if k["lock"].shape[1]:  # lock: five suit bits, then the flag
        f["pile_suits"] = np.rint(k["lock"][:, :5]) @ (1 << np.arange(5))
        f["locked"] = k["lock"][:, 5] > 0
    return f


def _asks(asked: np.ndarray, held: np.ndarray) -> tuple[IntArray, IntArray]:
    """``asked``/``ask_held`` ``[B, 2]`` from the per-card blocks (asks in card order: the
    observation does not keep their order, and nothing in play depends on it)."""
    cum = np.cumsum(asked, axis=1)  # [B, 53]: asks naming this card or a lower one
    rows = np.arange(len(asked))
    out_c = np.full((len(asked), 2), -1, np.int64)
    out_h = np.full((len(asked), 2), -1, np.int64)
    for i in range(2):
        made = cum[:, -1] > i
        card = np.argmax(cum > i, axis=1)
        nth = i - (cum[rows, card] - asked[rows, card])  # which ask of that card this is
        out_c[:, i] = np.where(made, card, -1)
        out_h[:, i] = np.where(made, (nth < held[rows, card]).astype(np.int64), -1)
    return out_c, out_h


def from_observation(
    rules: Rules,
    obs: npt.ArrayLike,
    hands: npt.ArrayLike,
    seeds: npt.ArrayLike | None = None,
) -> State:
    """The ``B`` positions seen in ``obs [B, O]`` (observations of the player to act, or of any
    seat), with every seat's hand from ``hands [B, P, 53]`` in the observer's frame (seat 0 is
    the observer, seat k the k-th to its left: see the module docstring).

    ``hands[:, 0]`` must be the observer's hand of ``obs`` and every ``hands[:, k]`` must hold
    as many cards as ``obs`` says that seat has left; a ValueError says which row and seat
    differ, and nothing is built."""
    o, lay = _checked_obs(rules, obs)
    b, p = len(o), rules.num_players
    h = np.asarray(hands)
    if h.shape != (b, p, NUM_CARDS):
        raise ValueError(f"hands must have shape [{b}, {p}, {NUM_CARDS}], got {h.shape}")
    blocks = lay.split(o)
    _check_hands(h, blocks, pack_counts(rules))
    state = State.zeros(b, p, history=rules.moves_kept)  # size-0 history unless kept
    state.hands[:] = h
    fields = _fields(rules, o, lay)
    if _history(rules) and "seat_played" in blocks:
        fields.update(history_fields(rules, o, lay))
    elif hasattr(state, "recent"):
        fields["recent"] = np.full(state.recent.shape, -1)
    for name, value in fields.items():
        getattr(state, name)[:] = value
    state.gave[:, 0] = np.rint(blocks["gave"])
    state.received[:, 0] = np.rint(blocks["received"])
    state.to_return[:, 0] = np.rint(blocks["to_return"][:, 0])
    if "asks_left" not in fields:
        state.asked[:] = -1
        state.ask_held[:] = -1
    state.seed[:] = 0 if seeds is None else np.asarray(seeds, np.uint64)
    return state


def _check_hands(h: np.ndarray, blocks: dict[str, np.ndarray], pack: IntArray) -> None:
    own = np.rint(blocks["hand"]).astype(np.int64)
    left = np.rint(blocks["cards_left"]).astype(np.int64)
    bad = np.flatnonzero((h[:, 0].astype(np.int64) != own).any(axis=1))
    if len(bad):
        raise ValueError(f"hands[{bad[0]}, 0] is not the observer's hand in obs[{bad[0]}]")
    counts = h.astype(np.int64).sum(axis=2)
    wrong = np.argwhere(counts != left)
    if len(wrong):
        r, s = wrong[0]
        raise ValueError(
            f"hands[{r}, {s}] holds {counts[r, s]} cards, but obs[{r}] says seat {s} has "
            f"{left[r, s]} left"
        )
    if (h < 0).any() or (h.astype(np.int64).sum(axis=1) > pack[None]).any():
        raise ValueError("hands hold more copies of a card than the pack has (or negative)")
    held = h.astype(np.int64).sum(axis=1)
    if "seat_played" in blocks and blocks["seat_played"].shape[1]:
        p = h.shape[1]
        played = np.rint(blocks["seat_played"]).astype(np.int64).reshape(len(h), p, NUM_CARDS)
        over = held + played.sum(axis=1) > pack[None]
    else:
        over = _per_rank(held) + np.rint(blocks["played"]).astype(np.int64) > _per_rank(pack[None])
    if over.any():
        r, c = (int(x) for x in np.argwhere(over)[0])
        what = f"card id {c}" if over.shape[1] == NUM_CARDS else (
            "a joker" if c == NUM_RANKS else f"rank index {c}")
        raise ValueError(
            f"hands[{r}] hold {what} that obs[{r}] says was played (more copies, held and "
            f"played, than the pack has)"
        )


# ---------------------------------------------------------------------------- the belief
def known_cards(rules: Rules, o: np.ndarray, lay: ObservationLayout, exact: bool) -> IntArray:
    """Cards known to be in seat k's hand ``[B, P, 53]``: those the observer gave its partner in
    this deal's exchange (and those a Bum had to give up to a President's ask) that the seat has
    not played since (with the standard observation: none of their rank played since)."""
    p, b = rules.num_players, len(o)
    k = lay.split(o)
    known = np.zeros((b, p, NUM_CARDS), np.int64)
    title = _one_hot(k["title"].reshape(b, p, p))
    # a card given may come straight back (the President may return what the Bum gave)
    gave = np.maximum(np.rint(k["gave"]) - np.rint(k["received"]), 0).astype(np.int64)
    if not gave.any():
        return known
    partner_title = np.where(title[:, 0] >= 0, p - 1 - title[:, 0], -1)
    match = (title == partner_title[:, None]) & (partner_title[:, None] >= 0)
    match[:, 0] = False
    rows = np.flatnonzero(match.any(axis=1))
    seat = np.argmax(match, axis=1)
    if exact:
        played = np.rint(k["seat_played"].reshape(b, p, NUM_CARDS)).astype(np.int64)
        still = np.maximum(gave - played[np.arange(b), seat], 0)
    else:
        rank_played = np.rint(k["played"]).astype(np.int64)
        per_card = np.concatenate(
            [np.repeat(rank_played[:, :NUM_RANKS], NUM_SUITS, axis=1), rank_played[:, NUM_RANKS:]],
            axis=1,
        )
        still = np.where(per_card == 0, gave, 0)
    known[rows, seat[rows]] = still[rows]
    return known


def sample_hands(
    rules: Rules,
    obs: npt.ArrayLike,
    n: int,
    rng: Random,
    pass_weight: float = PASS_WEIGHT,
    tries: int = TRIES,
) -> Hands:
    """``n`` hands of every seat for each of the ``B`` observations: int8 ``[B, n, P, 53]`` in
    the observer's frame, each consistent with the observation (see the module docstring).

    Every hidden card is dealt uniformly among the seats with room for it, the known ones
    (:func:`known_cards`) placed first. With the history observation the cards played are known per
    card id, and a seat never gets a card that the lowest-suit-first rule of sets rules out
    (:func:`_forbidden`) while another seat can take it; each sample is then drawn among
    ``tries`` such deals with weights ``pass_weight ** (passes it contradicts)``: a pass on a
    set of size s and rank r contradicts a hand holding s or more cards (jokers counted) of a
    rank that beats r in the order in effect (1 ignores passes). The compiled dealing is
    :mod:`president_env.search.sampling`."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if not 0.0 <= pass_weight <= 1.0:
        raise ValueError(f"pass_weight must be in [0, 1], got {pass_weight}")
    o, lay = _checked_obs(rules, obs)
    b, p = len(o), rules.num_players
    k = lay.split(o)
    unseen, exact = unseen_cards(rules, o)
    known = known_cards(rules, o, lay, exact)
    left = np.rint(k["cards_left"]).astype(np.int64)
    need = left - known.sum(axis=2)
    need[:, 0] = 0
    if (need < 0).any():
        raise ValueError("the observation is inconsistent: a seat holds more known cards than it has")
    own = np.rint(k["hand"]).astype(np.int64).sum(axis=1)
    if (mine := np.flatnonzero(left[:, 0] != own)).size:
        r = int(mine[0])
        raise ValueError(f"obs[{r}] is inconsistent: the observer holds {own[r]} cards, but "
                         f"cards_left says {left[r, 0]}")
    hidden = unseen.sum(axis=1) if exact else _rank_hidden(rules, k)
    if (short := np.flatnonzero(left[:, 1:].sum(axis=1) > hidden)).size:
        r = int(short[0])
        raise ValueError(
            f"obs[{r}] is inconsistent: the other seats have {left[r, 1:].sum()} cards left "
            f"(cards_left), but only {hidden[r]} cards are neither in the observer's hand nor "
            f"played"
        )
    rank_unseen = np.zeros((b, NUM_RANKS), np.int64)
    if not exact:
        pack = pack_counts(rules)[:NUM_NATURAL].reshape(NUM_RANKS, NUM_SUITS).sum(axis=1)
        hand = np.rint(k["hand"][:, :NUM_NATURAL]).astype(np.int64).reshape(b, NUM_RANKS, NUM_SUITS)
        rank_unseen = pack[None] - hand.sum(axis=2) - np.rint(k["played"][:, :NUM_RANKS]).astype(np.int64)
    use_passes = _history(rules) and "seat_passed" in k and pass_weight < 1.0
    passes = (
        np.rint(k["seat_passed"].reshape(b, p, NUM_CARDS)).astype(np.int8)
        if use_passes else np.zeros((b, p, NUM_CARDS), np.int8)
    )
    out = np.zeros((b, n, p, NUM_CARDS), np.int8)
    out[:, :, 0] = np.rint(k["hand"]).astype(np.int8)[:, None]
    seeds = rng.integers(1, 2**63, (b, n), dtype=np.int64)
    sample_kernel(
        unseen, rank_unseen, exact, known, need, _forbidden(rules, k, exact), passes,
        (k["revolution"][:, 0] > 0), bool(rules.allow_equal), float(pass_weight),
        int(tries) if use_passes else 1, seeds, out,
    )
    return out


def _rank_hidden(rules: Rules, k: dict[str, np.ndarray]) -> IntArray:
    """Cards neither in the observer's hand nor played ``[B]``, counted per rank (the standard
    observation counts the cards played per rank)."""
    seen = _per_rank(np.rint(k["hand"]).astype(np.int64)) + np.rint(k["played"]).astype(np.int64)
    return np.asarray((_per_rank(pack_counts(rules)[None]) - seen).sum(axis=1), np.int64)


def positions(
    rules: Rules,
    obs: npt.ArrayLike,
    n: int,
    rng: Random,
    pass_weight: float = PASS_WEIGHT,
    seeds: npt.ArrayLike | None = None,
) -> State:
    """``B * n`` positions: sample ``i`` of observation ``b`` (:func:`sample_hands`) in row
    ``b * n + i`` (:func:`from_observation`)."""
    o, _ = _checked_obs(rules, obs)
    hands = sample_hands(rules, o, n, rng, pass_weight)
    b, p = len(o), rules.num_players
    return from_observation(
        rules, np.repeat(o, n, axis=0), hands.reshape(b * n, p, NUM_CARDS),
        None if seeds is None else np.repeat(np.asarray(seeds, np.uint64), n),
    )


def _forbidden(rules: Rules, blocks: dict[str, np.ndarray], exact: bool) -> npt.NDArray[np.bool_]:
    """Cards a seat cannot hold now ``[B, P, 53]``: a set (and a run of mixed suits) takes the
    lowest suits a seat holds of its rank, so a seat that played the suit s of rank r held no
    lower suit of r then, and cannot hold one now (known with the history observation, and
    when no run of one suit may have taken the card instead)."""
    p = rules.num_players
    b = len(blocks["hand"])
    out = np.zeros((b, p, NUM_CARDS), np.bool_)
    if not exact or (rules.runs and not rules.runs_mixed_suits):
        return out
    played = blocks["seat_played"].reshape(b, p, NUM_CARDS)[:, :, :NUM_NATURAL] > 0
    played = played.reshape(b, p, NUM_RANKS, NUM_SUITS)
    suit = np.arange(NUM_SUITS)
    top = np.where(played, suit, -1).max(axis=3)  # [B, P, R]: highest suit played of r
    out[:, :, :NUM_NATURAL] = (suit[None, None, None] < top[..., None]).reshape(b, p, NUM_NATURAL)
    out[:, 0] = False
    return out


# ---------------------------------------------------------------------------- the record
def deal_start(rules: Rules, obs: npt.ArrayLike, hands: npt.ArrayLike, first: npt.ArrayLike) -> State:
    """The positions at the start of the play phase of the observed deals: every seat holds
    ``hands`` (its cards now, as in :func:`from_observation`) plus the cards it has played in
    this deal (the ``seat_played`` block: needs the history or the record observation), the pile is
    empty and seat ``first[b]`` (observer's frame) is to lead; the titles, scores and the
    exchange are those of ``obs``."""
    o, lay = _checked_obs(rules, obs)
    if not _history(rules) or "seat_played" not in lay.slices:
        raise ValueError("deal_start needs the history observation: Rules(observation='history')"
                         " or 'record'")
    state = from_observation(rules, o, hands)
    b, p = len(o), rules.num_players
    played = np.rint(lay.split(o)["seat_played"].reshape(b, p, NUM_CARDS)).astype(np.int64)
    if (state.hands.astype(np.int64) + played > pack_counts(rules)[None, None]).any():
        raise ValueError("hands and the cards played hold more copies of a card than the pack")
    state.hands[:] = state.hands + played
    first_ = np.asarray(first, np.int64)
    if first_.shape != (b,) or ((first_ < 0) | (first_ >= p)).any():
        raise ValueError(f"first must hold a seat 0..{p - 1} per game, shape ({b},)")
    for name, value in _START.items():
        getattr(state, name)[:] = value
    state.to_return[:] = 0
    state.current[:] = first_
    return state


_START: dict[str, Any] = {
    "phase": 1, "pile_kind": 0, "pile_rank": -1, "pile_size": 0, "last_player": -1,
    "passed": False, "revolution": False, "place": -1, "n_finished": 0, "played": 0,
    "deal_over": False, "pending": False, "row_rank": -1, "row_count": 0, "jack_back": False,
    "six_reversed": False, "pass_run": 0, "seat_played": 0, "seat_passed": 0, "recent": -1,
    "pile_suits": 0, "locked": False,
}
"""The fields of a deal's start of play (as the engine's ``_reset_deal`` leaves them)."""


def check_record(moves: npt.ArrayLike, n_moves: npt.ArrayLike, batch: int, players: int) -> tuple[IntArray, IntArray]:
    """``moves`` int ``[B, L, 2]`` (seat in the observer's frame, action id) and ``n_moves``
    ``[B]`` as int64 arrays; a ValueError naming the expected shapes otherwise."""
    mv = np.asarray(moves, np.int64)
    n = np.asarray(n_moves, np.int64)
    if mv.ndim != 3 or mv.shape[0] != batch or mv.shape[2] != 2 or n.shape != (batch,):
        raise ValueError(
            f"a record is moves [{batch}, L, 2] and n_moves [{batch}], got {mv.shape} and {n.shape}"
        )
    if ((n < 0) | (n > mv.shape[1])).any():
        raise ValueError(f"n_moves must be in 0..{mv.shape[1]}")
    return mv, n


def replay(
    engine: Any,
    start: State,
    moves: npt.ArrayLike,
    n_moves: npt.ArrayLike,
    on_move: Any = None,
) -> npt.NDArray[np.bool_]:
    """Play the record ``moves [B, L, 2]`` (``n_moves[b]`` moves of game b: the seat, in the
    observer's frame, and the action) on ``start`` in place with ``engine``; returns the games
    where every move was legal and made by the seat to act (the others stop at the first move
    that is not, their state is then meaningless).

    ``on_move(state, rows, seats, actions, mask)``, when given, is called before every move
    with the games that make it (and the legal actions of all games): a model of the players
    can score the moves (the search's belief, :mod:`agents.belief`)."""
    mv, n = check_record(moves, n_moves, start.batch_size, start.num_players)
    ok = np.ones(start.batch_size, np.bool_)
    mask = np.empty((start.batch_size, engine.num_actions), np.bool_)
    for t in range(int(n.max(initial=0))):
        live = ok & (n > t)
        seat, act = mv[:, t, 0], mv[:, t, 1]
        engine.legal_action_mask(start, out=mask)
        legal = mask[np.arange(len(mask)), np.clip(act, 0, engine.num_actions - 1)]
        ok &= ~live | ((start.current == seat) & legal & (act >= 0))
        live &= ok
        rows = np.flatnonzero(live)
        if on_move is not None and len(rows):
            on_move(start, rows, seat[rows], act[rows], mask)
        engine.step_inplace(start, np.where(live, act, -1), check=False, where=live)
    return ok


def from_record(
    rules: Rules,
    obs: npt.ArrayLike,
    hands: npt.ArrayLike,
    moves: npt.ArrayLike,
    n_moves: npt.ArrayLike,
    engine: Any = None,
) -> tuple[State, npt.NDArray[np.bool_]]:
    """The positions of ``obs`` rebuilt by playing the public record of the deal (``moves``,
    ``n_moves``: see :func:`replay`) from its start (:func:`deal_start`, with ``hands`` the
    hands now) and whether each is consistent: every move legal, the hands reached are
    ``hands`` and the observation reached is ``obs``. Play-phase observations with the history
    observation only (exchange positions: :func:`from_observation`)."""
    from president_env.core.engine import Engine

    o, _ = _checked_obs(rules, obs)
    mv, n = check_record(moves, n_moves, len(o), rules.num_players)
    eng = engine if engine is not None else Engine(rules)
    now = from_observation(rules, o, hands)
    first = np.where(n > 0, mv[:, 0, 0], np.maximum(now.current, 0))
    start = deal_start(rules, o, hands, first)
    ok = replay(eng, start, mv, n)
    ok &= (start.hands == now.hands).all(axis=(1, 2))
    ok &= (eng.observe(start, np.zeros(len(o), np.int64)) == o).all(axis=1)
    return start, ok
