"""The flat action space of a President game.

One ``Discrete(A)`` space per :class:`~president_env.core.rules.Rules`, laid out as below
(``S = rules.max_set_size``, ``J = rules.num_jokers``). A legal-action mask says which
ids the player to act may choose.

======================  ==================================  ===========================================
block                   ids                                 meaning
======================  ==================================  ===========================================
pass                    ``0``                               pass (only when following)
set                     ``1 + rank * S + (size - 1)``       ``size`` cards of ``rank`` (13 x S ids)
jokers-only set         ``joker_base + size - 1``           ``size`` jokers alone (J ids, if jokers)
run (with ``runs``)     ``run_base + i``                    run ``i`` of :attr:`ActionLayout.runs`:
                                                            suit-major, then length 3..13, then bottom
give (with exchange)    ``give_base + card``                return ``card`` in the card exchange
ask (with asks)         ``ask_base + card``                 ``president_asks``: the President names
                                                            ``card`` (52, the joker, if in the pack)
======================  ==================================  ===========================================

With ``runs_mixed_suits`` runs have no suit: :attr:`ActionLayout.runs` holds ``(-1, bottom,
length)``, by length 3..13 then bottom (66 ids instead of 264). With ``max_run_length`` runs
longer than it are not in the layout at all. Bombs (``bombs``) are sets: no ids of their own.

Which cards an action plays (:meth:`ActionLayout.cards_for`), a fixed, documented choice:

* a set of ``rank`` uses natural cards first, lowest suit first (clubs, diamonds, hearts,
  spades; both copies of a card with two decks), and jokers only for the missing ones;
* a run of ``suit`` from ``bottom`` with ``length`` uses one natural card of that suit for
  every place held and a joker for every other place; it holds at least one natural card;
* a run of mixed suits (``runs_mixed_suits``) uses, for every rank, the natural card of the
  lowest suit held and a joker for every rank not held; it holds at least one natural card;
* an ask takes nothing from the asker's hand: the card comes from the Bum's (the named card if
  held, else the Bum's best), which the engine decides when the ask is made; ``cards_for``
  returns no cards for an ask;
* a set must hold at least one natural card; the jokers-only block covers the rest.

Names: ``"pass"``, ``"single 9"``, ``"pair of 9"``, ``"three 9s"``, ``"four 9s"``,
``"5 x 9"``, ``"single joker"``, ``"2 jokers"``, ``"run 5-6-7 of hearts"``, ``"run 5-6-7"``
(mixed suits), ``"give 10h"``, ``"ask 2s"``, ``"ask joker"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from president_env.core.cards import (
    JOKER,
    NUM_CARDS,
    NUM_NATURAL,
    NUM_RANKS,
    NUM_SUITS,
    RANK_NAMES,
    SUIT_WORDS,
    card_name,
)
from president_env.core.constants import MIN_RUN, Kind
from president_env.core.rules import Rules

PASS = 0


def _runs(r: Rules) -> list[tuple[int, int, int]]:
    """(suit, bottom, length) of every run action in id order: suit-major (suit -1 only, with
    ``runs_mixed_suits``), then length 3..max_run_length, then bottom."""
    if not r.runs:
        return []
    suits = [-1] if r.runs_mixed_suits else list(range(NUM_SUITS))
    longest = r.max_run_length or NUM_RANKS
    return [
        (suit, bottom, length)
        for suit in suits
        for length in range(MIN_RUN, min(longest, NUM_RANKS) + 1)
        for bottom in range(NUM_RANKS - length + 1)
    ]


_SET_WORDS = {1: "single {r}", 2: "pair of {r}", 3: "three {r}s", 4: "four {r}s"}


@dataclass(frozen=True)
class ActionLayout:
    """Action ids of one Rules, with per-id tables used by the engine."""

    rules: Rules
    num_actions: int = field(init=False)
    set_base: int = field(init=False)
    joker_base: int = field(init=False)
    run_base: int = field(init=False)
    give_base: int = field(init=False)
    ask_base: int = field(init=False)
    num_ask: int = field(init=False)
    max_set: int = field(init=False)
    runs: tuple[tuple[int, int, int], ...] = field(init=False)
    """(suit, bottom rank, length) of each run action, in id order."""
    kind: npt.NDArray[np.int8] = field(init=False, repr=False)
    rank: npt.NDArray[np.int8] = field(init=False, repr=False)
    size: npt.NDArray[np.int8] = field(init=False, repr=False)
    suit: npt.NDArray[np.int8] = field(init=False, repr=False)
    card: npt.NDArray[np.int8] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        r = self.rules
        s_max = r.max_set_size
        runs = _runs(r)
        set_base = 1
        joker_base = set_base + NUM_RANKS * s_max
        run_base = joker_base + r.num_jokers
        give_base = run_base + len(runs)
        num_cards = NUM_NATURAL + (1 if r.num_jokers else 0)
        num_give = num_cards if r.exchange_on else 0
        ask_base = give_base + num_give
        num_ask = num_cards if r.president_asks else 0
        n = ask_base + num_ask

        kind_ = np.zeros(n, np.int8)
        rank_ = np.full(n, -1, np.int8)
        size_ = np.zeros(n, np.int8)
        suit_ = np.full(n, -1, np.int8)
        card_ = np.full(n, -1, np.int8)
        for rk in range(NUM_RANKS):
            for sz in range(1, s_max + 1):
                a = set_base + rk * s_max + sz - 1
                kind_[a], rank_[a], size_[a] = Kind.SET, rk, sz
        for sz in range(1, r.num_jokers + 1):
            a = joker_base + sz - 1
            kind_[a], size_[a] = Kind.JOKERS, sz
        for i, (su, bottom, length) in enumerate(runs):
            a = run_base + i
            kind_[a], rank_[a], size_[a], suit_[a] = Kind.RUN, bottom, length, su
        for c in range(num_give):
            a = give_base + c
            kind_[a], card_[a], size_[a] = Kind.GIVE, c, 1
        for c in range(num_ask):
            a = ask_base + c
            kind_[a], card_[a], size_[a] = Kind.ASK, c, 1
        for name, value in dict(
            num_actions=n,
            set_base=set_base,
            joker_base=joker_base,
            run_base=run_base,
            give_base=give_base,
            ask_base=ask_base,
            num_ask=num_ask,
            max_set=s_max,
            runs=tuple(runs),
            kind=kind_,
            rank=rank_,
            size=size_,
            suit=suit_,
            card=card_,
        ).items():
            object.__setattr__(self, name, value)
        for arr in (kind_, rank_, size_, suit_, card_):
            arr.setflags(write=False)

    # ------------------------------------------------------------------ ids
    def set_action(self, rank: int, size: int) -> int:
        """Id of the set of ``size`` cards of ``rank``."""
        if not (0 <= rank < NUM_RANKS and 1 <= size <= self.max_set):
            raise ValueError(f"no set of size {size} and rank {rank} in these rules")
        return self.set_base + rank * self.max_set + size - 1

    def jokers_action(self, size: int) -> int:
        """Id of the set of ``size`` jokers alone."""
        if not 1 <= size <= self.rules.num_jokers:
            raise ValueError(f"no jokers-only set of size {size} in these rules")
        return self.joker_base + size - 1

    def run_action(self, suit: int, bottom: int, length: int) -> int:
        """Id of the run of ``suit`` from ``bottom`` with ``length`` cards (suit -1 with
        ``runs_mixed_suits``)."""
        try:
            return self.run_base + self.runs.index((suit, bottom, length))
        except ValueError:
            raise ValueError(
                f"no run of suit {suit}, bottom {bottom}, length {length} in these rules"
            ) from None

    def give_action(self, card: int) -> int:
        """Id of returning ``card`` in the exchange."""
        if not self.rules.exchange_on:
            raise ValueError("these rules have no card exchange")
        if not 0 <= card < self.ask_base - self.give_base:
            raise ValueError(f"no give action for card {card} in these rules")
        return self.give_base + card

    def ask_action(self, card: int) -> int:
        """Id of the President's ask for ``card`` (``president_asks``)."""
        if not self.rules.president_asks:
            raise ValueError("these rules have no asks (president_asks is off)")
        if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)):
            raise TypeError(f"a card is an integer id, got {card!r}")
        if not 0 <= card < self.num_ask:
            raise ValueError(f"no ask action for card {card} in these rules (0..{self.num_ask - 1})")
        return self.ask_base + int(card)

    # ------------------------------------------------------------------ meaning
    def check(self, action: int) -> int:
        """``action`` as an int, or a ValueError if it is not an id of this layout."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"an action is an integer id, got {action!r}")
        if not 0 <= int(action) < self.num_actions:
            raise ValueError(f"action {action} is out of range 0..{self.num_actions - 1}")
        return int(action)

    def name(self, action: int) -> str:
        """Readable name of an action id."""
        a = self.check(action)
        k = self.kind[a]
        if k == Kind.PASS:
            return "pass"
        if k == Kind.SET:
            r, s = RANK_NAMES[self.rank[a]], int(self.size[a])
            return _SET_WORDS.get(s, "{s} x {r}").format(r=r, s=s)
        if k == Kind.JOKERS:
            s = int(self.size[a])
            return "single joker" if s == 1 else f"{s} jokers"
        if k == Kind.RUN:
            b, n, su = int(self.rank[a]), int(self.size[a]), int(self.suit[a])
            suit = f" of {SUIT_WORDS[su]}" if su >= 0 else ""
            return f"run {'-'.join(RANK_NAMES[b : b + n])}{suit}"
        c = int(self.card[a])
        if k == Kind.ASK:
            return "ask joker" if c == JOKER else f"ask {card_name(c)}"
        return f"give {card_name(c)}"

    def names(self) -> list[str]:
        return [self.name(a) for a in range(self.num_actions)]

    def cards_for(self, action: int, hand: npt.ArrayLike) -> npt.NDArray[np.int8]:
        """The exact cards (53 counts) that ``action`` plays or gives from ``hand`` (none for a
        pass or an ask: an ask takes from the Bum's hand, see the module docstring).

        Raises ValueError if the hand cannot make the play (legality in the trick aside). The
        engine takes the same cards, in compiled code
        (:func:`president_env.core._kernels.take_cards`, checked against this by a test).
        """
        a = self.check(action)
        h = np.asarray(hand, dtype=np.int64)
        if h.shape != (NUM_CARDS,):
            raise ValueError(f"a hand is {NUM_CARDS} counts, got shape {h.shape}")
        out = np.zeros(NUM_CARDS, np.int8)
        k = self.kind[a]
        if k == Kind.SET:
            r, need = int(self.rank[a]), int(self.size[a])
            for su in range(NUM_SUITS):
                c = r * NUM_SUITS + su
                take = min(int(h[c]), need)
                out[c] = take
                need -= take
            if out.sum() == 0 or need > h[JOKER]:
                raise ValueError(f"the hand cannot play {self.name(a)}")
            out[JOKER] = need
        elif k == Kind.JOKERS:
            if h[JOKER] < self.size[a]:
                raise ValueError(f"the hand cannot play {self.name(a)}")
            out[JOKER] = self.size[a]
        elif k == Kind.RUN:
            b, n, su = int(self.rank[a]), int(self.size[a]), int(self.suit[a])
            missing = 0
            for r in range(b, b + n):
                held = [c for c in range(r * NUM_SUITS, (r + 1) * NUM_SUITS) if h[c] > 0]
                c = (held[0] if held else -1) if su < 0 else r * NUM_SUITS + su
                if c >= 0 and h[c] > 0:
                    out[c] = 1
                else:
                    missing += 1
            if missing == n or missing > h[JOKER]:
                raise ValueError(f"the hand cannot play {self.name(a)}")
            out[JOKER] = missing
        elif k == Kind.GIVE:
            c = int(self.card[a])
            if h[c] < 1:
                raise ValueError(f"the hand does not hold {card_name(c)}")
            out[c] = 1
        return out
