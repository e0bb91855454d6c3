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

With ``exact_plays`` (one deck, at most one joker: the UECda server's plays) every set and
run names its exact cards, and the engine takes those:

* the set block has :attr:`ActionLayout.set_stride` ids per rank, ``1 + rank * stride + i``,
  slot ``i`` of :data:`~president_env.core.constants.EXACT_SET_SUITS` /
  :data:`~president_env.core.constants.EXACT_SET_JOKER`: the 15 non-empty choices of suits
  (by mask: clubs 1, diamonds 2, hearts 4, spades 8), then with a joker in the pack the 28 of
  one to three suits with the joker in the row of a suit the set lacks, then the four suits
  with the joker (44 per rank, 572 sets). ``suit`` holds the mask, ``card`` the joker's row
  (-1 none, 4 beside all four suits). The joker may stand for a card the player holds;
* every run comes once without the joker (``card`` -1) and once per place of the joker
  (``card`` its offset from the bottom, :attr:`ActionLayout.run_jokers`): 484 runs per suit
  with a joker (1,936 ids), 66 without; with ``run_joker_ends`` 24 more per suit, the joker
  below the 3 (bottom -1) or above the 2 (top 13);
* names show the cards: ``"pair of 9 (9c JKh)"`` (the joker in the hearts' row), ``"5 x 9
  (9c 9d 9h 9s JK)"``, ``"run 5-JK-7 of hearts"``.

With one joker and runs, 5 players and one deal the layout has 2,510 ids (instead of 331).

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
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from president_env.core.cards import (
    JOKER,
    NUM_CARDS,
    NUM_NATURAL,
    NUM_RANKS,
    NUM_SUITS,
    RANK_NAMES,
    SUIT_NAMES,
    SUIT_WORDS,
    card_name,
)
from president_env.core.constants import (
    EXACT_SET_JOKER,
    EXACT_SET_SUITS,
    EXACT_SLOTS_JOKER,
    EXACT_SLOTS_PLAIN,
    JOKER_ROW,
    MIN_RUN,
    Kind,
)
from president_env.core.rules import Rules

PASS = 0


def _runs(r: Rules) -> list[tuple[int, int, int, int]]:
    """(suit, bottom, length, joker) of every run action in id order: suit-major (suit -1
    only, with ``runs_mixed_suits``), then length 3..max_run_length, then bottom. ``joker`` is
    -1, except with ``exact_plays``: then each run comes once per place of the joker (-1 none,
    else its offset from the bottom), and with ``run_joker_ends`` bottoms run from -1 (the
    joker below the 3) and tops to 13 (the joker above the 2)."""
    if not r.runs:
        return []
    suits = [-1] if r.runs_mixed_suits else list(range(NUM_SUITS))
    if not r.exact_plays:
        longest = min(r.max_run_length or NUM_RANKS, NUM_RANKS)
        return [
            (suit, bottom, length, -1)
            for suit in suits
            for length in range(MIN_RUN, longest + 1)
            for bottom in range(NUM_RANKS - length + 1)
        ]
    ends = r.run_joker_ends and r.num_jokers > 0
    longest = min(r.max_run_length or NUM_RANKS + 1, NUM_RANKS + int(ends))
    out = []
    for suit in suits:
        for length in range(MIN_RUN, longest + 1):
            for bottom in range(-int(ends), NUM_RANKS - length + 1 + int(ends)):
                top = bottom + length - 1
                if bottom < 0 or top >= NUM_RANKS:  # the joker stands at the end outside
                    out.append((suit, bottom, length, 0 if bottom < 0 else length - 1))
                    continue
                out.append((suit, bottom, length, -1))
                out += [(suit, bottom, length, j) for j in range(length * (r.num_jokers > 0))]
    return out


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
    set_stride: int = field(init=False)
    """Set actions per rank: ``max_set``, or with ``exact_plays`` 15 (44 with a joker)."""
    runs: tuple[tuple[int, int, int], ...] = field(init=False)
    """(suit, bottom rank, length) of each run action, in id order."""
    run_jokers: tuple[int, ...] = field(init=False)
    """The joker's offset from the bottom in each run action (``exact_plays``), else -1."""
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
        stride = s_max
        if r.exact_plays:
            stride = EXACT_SLOTS_JOKER if r.num_jokers else EXACT_SLOTS_PLAIN
        joker_base = set_base + NUM_RANKS * stride
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
            for i in range(stride):
                a = set_base + rk * stride + i
                kind_[a], rank_[a], size_[a] = Kind.SET, rk, i + 1
                if r.exact_plays:  # suit: the natural suits (a mask); card: the joker's row
                    suit_[a], card_[a] = EXACT_SET_SUITS[i], EXACT_SET_JOKER[i]
                    size_[a] = bin(EXACT_SET_SUITS[i]).count("1") + (EXACT_SET_JOKER[i] >= 0)
        for sz in range(1, r.num_jokers + 1):
            a = joker_base + sz - 1
            kind_[a], size_[a] = Kind.JOKERS, sz
        for i, (su, bottom, length, joker) in enumerate(runs):
            a = run_base + i
            kind_[a], rank_[a], size_[a], suit_[a] = Kind.RUN, bottom, length, su
            card_[a] = joker  # exact_plays: the joker's offset from the bottom
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
            set_stride=stride,
            runs=tuple(run[:3] for run in runs),
            run_jokers=tuple(run[3] for run in runs),
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
        """Id of the set of ``size`` cards of ``rank`` (with ``exact_plays``: of the lowest
        ``size`` suits, the joker beside all four for a fifth card; see
        :meth:`exact_set_action`)."""
        if not (0 <= rank < NUM_RANKS and 1 <= size <= self.max_set):
            raise ValueError(f"no set of size {size} and rank {rank} in these rules")
        if self.rules.exact_plays:
            return self.exact_set_action(rank, (1 << min(size, NUM_SUITS)) - 1,
                                         JOKER_ROW if size > NUM_SUITS else -1)
        return self.set_base + rank * self.max_set + size - 1

    def exact_set_action(self, rank: int, suits: int, joker: int = -1) -> int:
        """``exact_plays``: id of the set of ``rank`` of the natural cards of ``suits`` (a mask,
        bit ``1 << suit``) and, if ``joker >= 0``, the joker in that suit's row (one the set
        lacks; :data:`~president_env.core.constants.JOKER_ROW` beside all four suits)."""
        if not self.rules.exact_plays:
            raise ValueError("exact sets need exact_plays=True")
        slots = list(zip(EXACT_SET_SUITS, EXACT_SET_JOKER))[: self.set_stride]
        if not 0 <= rank < NUM_RANKS or (suits, joker) not in slots:
            raise ValueError(f"no set of rank {rank}, suits {suits} and joker row {joker} in "
                             "these rules")
        return self.set_base + rank * self.set_stride + slots.index((suits, joker))

    def jokers_action(self, size: int) -> int:
        """Id of the set of ``size`` jokers alone."""
        if not 1 <= size <= self.rules.num_jokers:
            raise ValueError(f"no jokers-only set of size {size} in these rules")
        return self.joker_base + size - 1

    def run_action(self, suit: int, bottom: int, length: int, joker: int = -1) -> int:
        """Id of the run of ``suit`` from ``bottom`` with ``length`` cards (suit -1 with
        ``runs_mixed_suits``); with ``exact_plays``, ``joker`` is the joker's offset from the
        bottom (-1: no joker)."""
        try:
            return self.run_base + list(zip(self.runs, self.run_jokers)).index(
                ((suit, bottom, length), joker))
        except ValueError:
            raise ValueError(
                f"no run of suit {suit}, bottom {bottom}, length {length}, joker {joker} in "
                "these rules"
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
            words = _SET_WORDS.get(s, "{s} x {r}").format(r=r, s=s)
            if self.suit[a] >= 0:  # exact_plays: its cards, the joker by its row
                row = int(self.card[a])
                cards = [r + SUIT_NAMES[u] for u in range(NUM_SUITS) if self.suit[a] >> u & 1]
                cards += [] if row < 0 else ["JK" + (SUIT_NAMES[row] if row < NUM_SUITS else "")]
                words += f" ({' '.join(cards)})"
            return words
        if k == Kind.JOKERS:
            s = int(self.size[a])
            return "single joker" if s == 1 else f"{s} jokers"
        if k == Kind.RUN:
            b, n, su = int(self.rank[a]), int(self.size[a]), int(self.suit[a])
            suit = f" of {SUIT_WORDS[su]}" if su >= 0 else ""
            joker = int(self.card[a])  # exact_plays: the joker's place shows as JK
            ranks = ["JK" if i == joker else RANK_NAMES[b + i] for i in range(n)]
            return f"run {'-'.join(ranks)}{suit}"
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
        if self.rules.exact_plays and k in (Kind.SET, Kind.RUN):
            return self._exact_cards(a, h)
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

    def _exact_cards(self, a: int, h: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
        """``exact_plays``: the cards a set or run names (natural cards held, the joker)."""
        out = np.zeros(NUM_CARDS, np.int8)
        r, su, joker = int(self.rank[a]), int(self.suit[a]), int(self.card[a])
        if self.kind[a] == Kind.SET:
            cards = [r * NUM_SUITS + u for u in range(NUM_SUITS) if su >> u & 1]
        else:
            cards = [(r + i) * NUM_SUITS + su for i in range(int(self.size[a])) if i != joker]
        out[cards] = 1
        out[JOKER] = joker >= 0
        if (h < out).any():
            raise ValueError(f"the hand cannot play {self.name(a)}")
        return out


@lru_cache(maxsize=64)
def action_layout(rules: Rules) -> ActionLayout:
    """One shared :class:`ActionLayout` per rules (its tables are read-only): for code that
    reads the layout at every call, where building it again costs milliseconds."""
    return ActionLayout(rules)
