"""Engine checks for any :class:`~president_env.core.rules.Rules`: invariants and the reference.

``check_engine(rules, games=32, seed=0)`` plays random legal games of ``rules`` in the batched
engine and checks, at every step of every game:

* the cards are conserved: held plus played make the pack, rank by rank, and the exchange only
  moves cards between players (:func:`check_cards`);
* exactly one player acts while the game is live, one who can (holds cards, owes cards in the
  exchange or, with ``president_asks``, is the President with asks left, has not finished or
  passed), with a non-empty mask of actions of the right kind; nobody once it is over
  (:func:`check_turn`);
* a deal's end gives every place once and zero-sum rewards (:func:`check_deal_end`); every game
  ends within :func:`step_bound` steps, after its deals or on reaching the target score;
* observations never depend on hidden cards: swapping cards between two players changes no
  other player's observation (:func:`check_hidden_cards`, at some steps);
* the batch equals the same games stepped one by one, and the same seeds and actions repeat
  the games exactly;

and finally that the engine agrees with the plain reference step by step on as many games
(:func:`president_env.testing.difftest.play_batch`). A failure raises :class:`EngineCheckError`
(an ``AssertionError``) whose message holds the rules, the game's seed, its actions and the
code that replays it: :func:`check_game` plays one game's actions again under every check.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from president_env.core.cards import JOKER, NUM_NATURAL, NUM_RANKS
from president_env.core.constants import Kind
from president_env.core.engine import PHASE_DONE, PHASE_EXCHANGE, PHASE_PLAY, Engine, State
from president_env.core.rules import Rules
from president_env.testing.compare import HandsText, as_hands, batch_rewards, reproduction
from president_env.testing.difftest import Tally, engine_for, play_batch, replay


class EngineCheckError(AssertionError):
    """An engine invariant failed; the message holds a reproduction."""


def _expect(condition: object, problem: str) -> None:
    if not condition:
        raise AssertionError(problem)


def step_bound(rules: Rules) -> int:
    """Steps a game can take at most: every play removes a card, at most P - 1 passes come
    between two plays (P with ``play_on_own``, ``stalemate_passes`` with ``lead_may_pass``:
    :attr:`Rules.record_length`), and the exchange takes at most 3 returns (and 2 asks) per
    deal."""
    exchange = 3 + (2 if rules.president_asks else 0)
    if rules.play_on_own or rules.lead_may_pass:
        return rules.deals * (rules.record_length + exchange)
    return rules.deals * (rules.num_cards * rules.num_players + exchange)


# ---------------------------------------------------------------------------- invariants
def check_cards(rules: Rules, state: State, b: int = 0) -> None:
    """Cards held plus cards played this deal make up the pack, rank by rank."""
    held = state.hands[b].astype(np.int64)
    _expect((held >= 0).all(), "a negative card count")
    per_card = held.sum(axis=0)
    _expect((per_card[:NUM_NATURAL] <= rules.num_decks).all(), "more copies of a card than decks")
    by_rank = per_card[:NUM_NATURAL].reshape(NUM_RANKS, 4).sum(axis=1) + state.played[b, :NUM_RANKS]
    _expect(
        by_rank.tolist() == [4 * rules.num_decks] * NUM_RANKS,
        f"cards held plus played per rank {by_rank.tolist()} do not make the pack",
    )
    jokers = int(per_card[JOKER]) + int(state.played[b, NUM_RANKS])
    _expect(jokers == rules.num_jokers, f"{jokers} jokers held plus played, not {rules.num_jokers}")
    _expect(
        np.array_equal(state.gave[b].sum(axis=0), state.received[b].sum(axis=0)),
        "the exchange gave other cards than it received",
    )


def check_turn(
    engine: Engine, state: State, b: int = 0, mask: npt.NDArray[np.bool_] | None = None
) -> None:
    """Exactly one player acts, one who can (holds cards and, in the exchange, owes some); the
    mask (row ``b`` of ``legal_action_mask``) is non-empty for them and empty once over."""
    p, cur = engine.rules.num_players, int(state.current[b])
    row = engine.legal_action_mask(state.take(b))[0] if mask is None else mask
    if state.phase[b] == PHASE_DONE:
        _expect(cur == -1 and not row.any(), "a finished game has a player to act or an action")
        return
    _expect(0 <= cur < p, f"player to act {cur} is no seat")
    _expect(state.cards_left[b, cur] > 0, f"player to act {cur} holds no cards")
    _expect(row.any(), f"no legal action for the player to act ({cur})")
    kinds = engine.layout.kind[row]
    if state.phase[b] == PHASE_EXCHANGE and state.asks_left[b] > 0:
        _check_asks(engine, state, b, kinds)
        return
    if state.phase[b] == PHASE_EXCHANGE:
        _expect(state.to_return[b, cur] > 0, f"player {cur} acts in the exchange but owes nothing")
        _expect((kinds == Kind.GIVE).all(), "an action other than a give in the exchange")
        _expect(0 <= state.title[b, cur] <= 1, f"player {cur} returns cards without a high title")
        return
    _expect(state.phase[b] == PHASE_PLAY, f"unknown phase {state.phase[b]}")
    _expect(state.place[b, cur] == -1, f"player to act {cur} has finished")
    _expect(not state.passed[b, cur], f"player to act {cur} has passed")
    _expect((kinds != Kind.GIVE).all(), "a give outside the exchange")
    following = state.pile_kind[b] != 0 or engine.rules.lead_may_pass  # (a leader may pass)
    _expect(bool(row[0]) == following, "pass is legal exactly when following")
    finished = int((state.place[b] >= 0).sum())
    _expect(int(state.n_finished[b]) == finished <= p - 2, "n_finished disagrees with the places")
    _expect((state.cards_left[b][state.place[b] >= 0] == 0).all(), "a finished player holds cards")
    _expect((state.to_return[b] == 0).all(), "cards still to return during play")


def _check_asks(engine: Engine, state: State, b: int, kinds: npt.NDArray[np.int8]) -> None:
    """``president_asks``: the President asks (every card of the pack), owing nothing yet."""
    cur = int(state.current[b])
    _expect(engine.rules.president_asks, "asks left without president_asks")
    _expect(int(state.title[b, cur]) == 0, f"player {cur} asks but is not the President")
    _expect(state.to_return[b, cur] == 0, f"the President {cur} owes cards before asking")
    _expect(
        (kinds == Kind.ASK).all() and len(kinds) == engine.layout.num_ask,
        "the asking President may not name every card of the pack",
    )


def check_deal_end(rules: Rules, state: State, b: int, rewards: npt.NDArray[np.float32]) -> None:
    """After a step that ended a deal: the titles give every place once and the rewards (row
    ``b`` of :func:`president_env.rewards.deal_rewards`) sum to zero."""
    _expect(
        sorted(state.title[b].tolist()) == list(range(rules.num_players)),
        f"the titles {state.title[b].tolist()} do not give every place once",
    )
    _expect(abs(float(rewards[b].sum())) <= 1e-5, f"rewards {rewards[b].tolist()} do not sum to 0")


def check_game_end(rules: Rules, state: State, b: int, deals_ended: int) -> None:
    """A finished game played all its deals, or stopped when a score reached the target."""
    _expect(state.phase[b] == PHASE_DONE, "the game did not end within the step bound")
    best = int(state.scores[b].max())
    if rules.target_score is None or best < rules.target_score:
        _expect(deals_ended == rules.deals, f"{deals_ended} deals played, not {rules.deals}")
    else:
        _expect(1 <= deals_ended <= rules.deals, f"{deals_ended} deals played")
    _expect(int(state.deal[b]) == deals_ended - 1, "the deal number disagrees with the deals ended")
    _expect(sorted(state.place[b].tolist()) == list(range(rules.num_players)), "places missing")


def swap_hidden_card(state: State, a: int, b: int, rng: np.random.Generator) -> State | None:
    """A copy of a one-game ``state`` where players a and b swapped one card each (None if
    impossible)."""
    ca = np.flatnonzero(state.hands[0, a])
    cb = np.flatnonzero(state.hands[0, b])
    pairs = [(x, y) for x in ca for y in cb if x != y]
    if not pairs:
        return None
    x, y = pairs[int(rng.integers(len(pairs)))]
    t = state.copy()
    t.hands[0, a, x] -= 1
    t.hands[0, a, y] += 1
    t.hands[0, b, y] -= 1
    t.hands[0, b, x] += 1
    return t


def check_hidden_cards(
    engine: Engine, state: State, rng: np.random.Generator, every_pair: bool = False
) -> bool:
    """In a one-game ``state``, a swap of cards between two random players (or, with
    ``every_pair``, between every two players) changes their own hands' view only; and the
    default observer is the player to act. False if no swap was possible."""
    p = engine.rules.num_players
    if every_pair:
        pairs = [(a, b) for a in range(p) for b in range(a + 1, p)]
        return any([_check_swap(engine, state, a, b, rng) for a, b in pairs])
    a, b = (int(q) for q in rng.choice(p, size=2, replace=False))
    return _check_swap(engine, state, a, b, rng)


def _check_swap(engine: Engine, state: State, a: int, b: int, rng: np.random.Generator) -> bool:
    t = swap_hidden_card(state, a, b, rng)
    if t is None:
        return False
    p = engine.rules.num_players
    hand = engine.obs_layout.slices["hand"]
    for o in range(p):
        before = engine.observe(state, np.array([o]))
        after = engine.observe(t, np.array([o]))
        if o in (a, b):
            _expect(not np.array_equal(before[0, hand], after[0, hand]), f"{o} misses a swap")
        else:
            _expect(np.array_equal(before, after), f"observer {o} sees a swap between {a} and {b}")
    cur = max(int(state.current[0]), 0)
    _expect(
        np.array_equal(engine.observe(state), engine.observe(state, np.array([cur]))),
        "the default observer is not the player to act",
    )
    return True


# ---------------------------------------------------------------------------- running them
class _Run:
    """One batch of random games under every check; remembers what to report on a failure."""

    def __init__(self, engine: Engine, seeds: Sequence[int], hands: npt.NDArray[np.int8] | None):
        self.engine, self.rules = engine, engine.rules
        self.seeds = [int(s) for s in seeds]
        self.given = hands
        self.history: list[list[int]] = [[] for _ in self.seeds]
        self.deals_ended = [0] * len(self.seeds)

    def start(self, seeds: Sequence[int] | None = None) -> State:
        s = np.array(self.seeds if seeds is None else seeds, np.uint64)
        if self.given is None:
            return self.engine.init(s)
        return self.engine.init_from_hands(np.repeat(self.given[None], len(s), axis=0), seed=s)

    def guard(self, b: int, check: Callable[..., object], *args: Any) -> None:
        """Run ``check(*args)`` for game ``b``; turn its AssertionError into a reproduction."""
        try:
            check(*args)
        except AssertionError as err:
            problem = reproduction(
                self.rules,
                self.seeds[b],
                self.history[b],
                self.given,
                str(err),
                what="an engine check failed",
                replay_with="president_env.testing.checks import check_game",
            )
            raise EngineCheckError(problem) from None

    def check_step(self, state: State, mask: npt.NDArray[np.bool_], live: list[bool]) -> None:
        rewards = batch_rewards(self.rules, state)
        for b, alive in enumerate(live):
            if not alive:
                continue
            self.guard(b, check_cards, self.rules, state, b)
            self.guard(b, check_turn, self.engine, state, b, mask[b])
            if state.deal_over[b]:
                self.deals_ended[b] += 1
                self.guard(b, check_deal_end, self.rules, state, b, rewards)

    def record(self, actions: npt.NDArray[np.int64], live: list[bool]) -> None:
        for b, alive in enumerate(live):
            if alive:
                self.history[b].append(int(actions[b]))


def _play(run: _Run, rng: np.random.Generator, singles: int, hidden_every: int) -> Tally:
    """Play the run's games to their end under every check; what was played."""
    engine, bound = run.engine, step_bound(run.rules)
    state = run.start()
    alone = [run.start([s]) for s in run.seeds[:singles]]
    taken: list[npt.NDArray[np.int64]] = []
    live = [True] * len(run.seeds)
    for step in range(bound + 1):
        mask = engine.legal_action_mask(state)
        run.check_step(state, mask, live)
        for i, single in enumerate(alone):
            same = state.take(i).equals(single)
            same &= np.array_equal(mask[i], engine.legal_action_mask(single)[0])
            run.guard(i, _expect, same, "the game differs when stepped alone")
        if hidden_every and step % hidden_every == 0:
            b = step // hidden_every % len(live)
            if live[b]:
                run.guard(b, check_hidden_cards, engine, state.take(b), rng)
        for b, alive in enumerate(live):
            if alive and state.phase[b] == PHASE_DONE:
                live[b] = False
                run.guard(b, check_game_end, run.rules, state, b, run.deals_ended[b])
        if not any(live):
            break
        actions = engine.sample_random(mask, rng)
        actions[actions < 0] = 0  # games that are over ignore their action
        run.record(actions, live)
        taken.append(actions.copy())
        state = engine.step(state, actions)
        alone = [engine.step(single, actions[i : i + 1]) for i, single in enumerate(alone)]
    for b, alive in enumerate(live):
        run.guard(b, _expect, not alive, f"the game did not end within {bound} steps")
    _check_repeats(run, taken, state)
    return Tally(games=len(run.seeds), steps=sum(map(len, run.history)), deals=sum(run.deals_ended))


def _check_repeats(run: _Run, taken: list[npt.NDArray[np.int64]], end: State) -> None:
    """The same seeds and actions play the same games again."""
    state = run.start()
    for actions in taken:
        state = run.engine.step(state, actions)
    for b in range(len(run.seeds)):
        same = state.take(b).equals(end.take(b))
        run.guard(b, _expect, same, "the same seed and actions played another game")


def check_engine(
    rules: Rules,
    games: int = 32,
    seed: int = 0,
    *,
    batch: int = 16,
    singles: int = 2,
    hidden_every: int = 7,
    reference: bool = True,
) -> Tally:
    """Check the engine on ``games`` random legal games of ``rules`` (see the module docstring).

    ``batch``: games per engine batch; ``singles``: games of each batch also stepped alone;
    ``hidden_every``: steps between two hidden-card swaps; ``reference``: also compare as many
    games with the reference. Raises :class:`EngineCheckError` (or, from the reference,
    :class:`~president_env.testing.difftest.Disagreement`), both AssertionErrors with a replay.
    """
    engine = engine_for(rules)
    master = random.Random(seed)
    tally = Tally()
    left = games
    while left > 0:
        seeds = [master.randrange(2**62) for _ in range(min(batch, left))]
        rng = np.random.default_rng(master.randrange(2**62))
        tally.add(_play(_Run(engine, seeds, None), rng, singles, hidden_every))
        if reference:
            play_batch(rules, seeds, random.Random(master.randrange(2**62)), illegal_checks=0.01)
        left -= len(seeds)
    return tally


def check_game(
    rules: Rules,
    seed: int,
    actions: Sequence[int],
    hands: npt.ArrayLike | HandsText | None = None,
) -> None:
    """Play one game's actions again under every invariant (and against the reference); raise
    at the first failure. The reproduction that :func:`check_engine` prints calls this; the
    last state's observations are checked with every pair of players swapping a card."""
    given = as_hands(hands)
    run = _Run(engine_for(rules), [seed], given)
    engine = run.engine
    state = run.start()
    rng = np.random.default_rng(seed)
    for action in [*actions, None]:
        mask = engine.legal_action_mask(state)
        run.check_step(state, mask, [True])
        run.guard(0, check_hidden_cards, engine, state, rng, action is None)
        if state.phase[0] == PHASE_DONE:
            run.guard(0, check_game_end, rules, state, 0, run.deals_ended[0])
        if action is None:
            break
        run.record(np.array([action]), [True])
        state = engine.step(state, np.array([action]))
    replay(rules, seed, actions, given)
