"""A plain, scalar reference implementation of one President game.

This module is the rules of ``RULES.md`` written as ordinary Python, one game at a time, for
clarity rather than speed. It shares nothing with the fast batched engine
(:mod:`president_env.engine`) except the card encoding (:mod:`president_env.cards`), the rule
options (:class:`~president_env.rules.Rules`), the action ids and the card-choice convention of
:class:`~president_env.actions.ActionLayout` (``cards_for``), and the seeded deal
(:func:`president_env.engine.deal_hands`). Every decision about tricks, legality, clearing,
revolutions, finishing, scoring and the exchange is made here again, independently, so that
:mod:`president_env.difftest` and ``tests/test_differential.py`` can compare the two step by step.

Decisions where ``RULES.md`` leaves a choice (shared with the engine):

1. Cards are ``rank * 4 + suit`` (rank 0 = "3" .. 12 = "2"; clubs < diamonds < hearts < spades),
   ``52`` is the joker. Which cards an action plays is ``ActionLayout.cards_for``: natural cards
   first, lowest suit first, jokers only for missing places; a set or run holds at least one
   natural card, and the jokers-only sets are separate actions.
2. Leading: any set, jokers-only set or run the hand can make; no pass. Following: a pass is
   always legal; a play must be of the same kind (a jokers-only set counts as a set) and size and
   beat the pile (see :meth:`ReferenceGame._beats`).
3. After a play the passed flags are reset unless ``pass_is_final``. A trick ends when every
   player still holding cards, other than the last player who played, has passed; the last player
   then leads if still holding cards, else the next seat to the left holding cards.
4. Clearing is judged in the order in effect before any revolution the same play starts: a
   natural set of the top rank (2 usually, 3 in a revolution) with ``top_rank_clears``; with
   ``eight_clears`` a natural set of 8s or a run through the 8. The player leads next (or, if out,
   the next seat to the left holding cards).
5. With ``revolution``, any set (jokers-only too) of four or more cards reverses the order after
   it is judged. Runs never do. Every deal starts in the usual order.
6. A player who plays their last card takes the next place (0 = first). When one player alone
   holds cards, the deal ends at once and that player is last.
7. At a deal end titles become the places, scores are added ("places": P - place;
   "president_vp": 2 to first, 1 to second with 4+ players; "tally": 1 to first) and the game
   ends after ``rules.deals`` deals or when ``target_score`` is reached. Otherwise the next deal
   starts in the same step, dealt by the previous Bum.
8. The first deal is dealt by seat P-1 and led by the lowest seat holding the 3 of clubs (seat 0
   if nobody holds it) or by seat 0 (``first_lead="seat0"``).
9. Exchange (``rules.exchange_on``) before every later deal: the Bum gives its two best cards
   (highest ids, one at a time) to the President and, with 4+ players, the Vice-Bum its best card
   to the Vice-President; then the President returns two cards of its choice (one ``give``
   action each) and the Vice-President one. Then the Bum leads. Without the exchange the Bum
   leads too.
10. ``played`` counts the natural cards played per rank in the current deal, plus the jokers.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from president_env.actions import PASS, ActionLayout, Kind
from president_env.cards import JOKER, NUM_CARDS, NUM_RANKS, NUM_SUITS, THREE_OF_CLUBS, Rank
from president_env.engine import deal_hands
from president_env.rules import Rules

Phase = Literal["exchange", "play", "done"]

#: index of the jokers in :attr:`ReferenceGame.played` (after the 13 ranks)
PLAYED_JOKERS = NUM_RANKS


class ReferenceGame:
    """One game of President (one or more deals), stepped one action at a time."""

    def __init__(
        self, rules: Rules, hands: npt.ArrayLike | None = None, seed: int = 0
    ) -> None:
        self.rules = rules
        self.layout = ActionLayout(rules)
        self.seed = int(seed)
        self.num_players: int = rules.num_players
        players = self.num_players

        self.scores: list[int] = [0] * players
        self.title: list[int] = [-1] * players
        self.deal: int = 0
        self.deal_over_rewards: list[float] = [0.0] * players
        self.deal_over = False
        """Whether the last step ended a deal."""

        first_dealer = players - 1
        if hands is None:
            dealt = deal_hands(rules, self.seed, 0, first_dealer)
        else:
            dealt = np.asarray(hands)
        if dealt.shape != (players, NUM_CARDS):
            raise ValueError(f"hands must have shape ({players}, {NUM_CARDS}), got {dealt.shape}")
        self._start_deal(dealt, dealer=first_dealer)

        # Who leads the first deal.
        self.phase: Phase = "play"
        if rules.first_lead == "seat0":
            self.current = 0
        else:
            holders = [seat for seat in range(players) if self.hands[seat, THREE_OF_CLUBS] > 0]
            self.current = holders[0] if holders else 0

    # ------------------------------------------------------------------ deal set-up
    def _start_deal(self, hands: npt.ArrayLike, dealer: int) -> None:
        """Fresh hands and a fresh table: empty pile, usual order, nobody finished."""
        players = self.num_players
        self.hands: npt.NDArray[np.int64] = np.array(hands, dtype=np.int64)
        self.dealer = dealer
        self.place: list[int] = [-1] * players
        self.passed: list[bool] = [False] * players
        self.revolution = False
        self.played: list[int] = [0] * (NUM_RANKS + 1)
        self._clear_pile()
        # Exchange bookkeeping: (giver, receiver) pairs still to return cards, in order.
        self.returns_due: list[tuple[int, int]] = []

    def _clear_pile(self) -> None:
        self.pile_kind: Kind = Kind.PASS
        self.pile_rank: int = -1
        self.pile_size: int = 0
        self.last_player: int = -1

    def _next_deal(self) -> None:
        """Deal again (dealer: the previous Bum) and run the automatic part of the exchange."""
        players = self.num_players
        bum = self.title.index(players - 1)
        self._start_deal(deal_hands(self.rules, self.seed, self.deal, bum), dealer=bum)
        if not self.rules.exchange_on:
            self.phase = "play"
            self.current = bum
            return
        president = self.title.index(0)
        pairs = [(bum, president)]
        if players >= 4:
            pairs.append((self.title.index(players - 2), self.title.index(1)))
        for loser, winner in pairs:
            gifts = 2 if loser == bum else 1
            for _ in range(gifts):
                best = self._best_card(loser)
                self.hands[loser, best] -= 1
                self.hands[winner, best] += 1
        # The winners return cards: the President two, then the Vice-President one.
        for loser, winner in pairs:
            gifts = 2 if loser == bum else 1
            self.returns_due += [(winner, loser)] * gifts
        self.phase = "exchange"
        self.current = self.returns_due[0][0]

    def _best_card(self, seat: int) -> int:
        """Highest card id held (the joker is best, then 2s, spades before hearts ...)."""
        held = [card for card in range(NUM_CARDS) if self.hands[seat, card] > 0]
        return max(held)

    # ------------------------------------------------------------------ order of ranks
    def _key(self, rank: int) -> int:
        """Strength of a rank in the order in effect (higher is stronger)."""
        return NUM_RANKS - 1 - rank if self.revolution else rank

    def _top_rank(self) -> int:
        """The rank that is highest in the order in effect."""
        return Rank.THREE if self.revolution else Rank.TWO

    # ------------------------------------------------------------------ legality
    def _holds_cards(self, seat: int) -> bool:
        return bool(self.hands[seat].sum() > 0)

    def _can_make(self, action: int, seat: int) -> bool:
        """Whether the seat's hand holds the cards of this play."""
        try:
            self.layout.cards_for(action, self.hands[seat])
        except ValueError:
            return False
        return True

    def _beats(self, kind: Kind, rank: int, size: int) -> bool:
        """Whether a play of (kind, rank, size) may follow the current pile."""
        equal_ok = self.rules.allow_equal
        pile = self.pile_kind
        if pile == Kind.PASS:  # leading: anything goes
            return True
        if size != self.pile_size:
            return False
        if pile == Kind.RUN:
            if kind != Kind.RUN:
                return False
            if self.revolution:  # a lower run beats in a revolution
                return rank < self.pile_rank or (equal_ok and rank == self.pile_rank)
            return rank > self.pile_rank or (equal_ok and rank == self.pile_rank)
        if pile == Kind.JOKERS:  # only an equal jokers-only set, and only with allow_equal
            return kind == Kind.JOKERS and equal_ok
        # pile is a natural set
        if kind == Kind.JOKERS:
            return True
        if kind != Kind.SET:
            return False
        mine, theirs = self._key(rank), self._key(self.pile_rank)
        return mine > theirs or (equal_ok and mine == theirs)

    def legal_actions(self) -> list[int]:
        """Sorted ids of the actions the player to act may take (empty when the game is over)."""
        lay = self.layout
        if self.phase == "done":
            return []
        seat = self.current
        if self.phase == "exchange":
            return [lay.give_action(c) for c in range(NUM_CARDS) if self.hands[seat, c] > 0]
        legal: list[int] = []
        if self.pile_kind != Kind.PASS:
            legal.append(PASS)
        for action in range(lay.num_actions):
            kind = Kind(int(lay.kind[action]))
            if kind in (Kind.PASS, Kind.GIVE):
                continue
            if not self._can_make(action, seat):
                continue
            if self._beats(kind, int(lay.rank[action]), int(lay.size[action])):
                legal.append(action)
        return sorted(legal)

    # ------------------------------------------------------------------ stepping
    def step(self, action: int) -> None:
        """Take one action for the player to act; ValueError if it is not legal."""
        action = self.layout.check(action)
        if action not in self.legal_actions():
            raise ValueError(
                f"illegal action {action} ({self.layout.name(action)}) for seat {self.current} "
                f"in phase {self.phase}"
            )
        self.deal_over_rewards = [0.0] * self.num_players
        self.deal_over = False
        if self.phase == "exchange":
            self._give(int(self.layout.card[action]))
        elif self.layout.kind[action] == Kind.PASS:
            self._pass()
        else:
            self._play(action)

    def _give(self, card: int) -> None:
        giver, receiver = self.returns_due.pop(0)
        self.hands[giver, card] -= 1
        self.hands[receiver, card] += 1
        if self.returns_due:
            self.current = self.returns_due[0][0]
        else:
            self.phase = "play"
            self.current = self.title.index(self.num_players - 1)  # the Bum leads

    def _pass(self) -> None:
        self.passed[self.current] = True
        if self._trick_over():
            self._new_trick(leader=self.last_player)
        else:
            self.current = self._next_to_act(self.current)

    def _play(self, action: int) -> None:
        lay, seat = self.layout, self.current
        kind = Kind(int(lay.kind[action]))
        rank, size = int(lay.rank[action]), int(lay.size[action])

        cards = lay.cards_for(action, self.hands[seat])
        self.hands[seat] -= cards
        for card in range(NUM_CARDS):
            if card == JOKER:
                self.played[PLAYED_JOKERS] += int(cards[card])
            else:
                self.played[card // NUM_SUITS] += int(cards[card])

        clears = self._clears(kind, rank, size)  # judged in the order before any revolution
        if self.rules.revolution and kind in (Kind.SET, Kind.JOKERS) and size >= 4:
            self.revolution = not self.revolution

        self.pile_kind, self.pile_rank, self.pile_size = kind, rank, size
        self.last_player = seat
        if not self.rules.pass_is_final:
            self.passed = [False] * self.num_players

        if not self._holds_cards(seat):
            self.place[seat] = self._finished_count()
            if self._holders_count() == 1:
                self._end_deal()
                return
        if clears or self._trick_over():
            self._new_trick(leader=seat)
        else:
            self.current = self._next_to_act(seat)

    def _clears(self, kind: Kind, rank: int, size: int) -> bool:
        """Whether a play clears the pile (in the order in effect when it is played)."""
        if kind == Kind.SET:
            if self.rules.top_rank_clears and rank == self._top_rank():
                return True
            if self.rules.eight_clears and rank == Rank.EIGHT:
                return True
        if kind == Kind.RUN and self.rules.eight_clears:
            return rank <= Rank.EIGHT < rank + size
        return False

    # ------------------------------------------------------------------ turn order
    def _finished_count(self) -> int:
        return sum(1 for p in self.place if p >= 0)

    def _holders_count(self) -> int:
        return sum(1 for seat in range(self.num_players) if self._holds_cards(seat))

    def _trick_over(self) -> bool:
        """Every player holding cards, other than the last player who played, has passed."""
        return all(
            self.passed[seat]
            for seat in range(self.num_players)
            if seat != self.last_player and self._holds_cards(seat)
        )

    def _next_to_act(self, seat: int) -> int:
        """The next seat to the left that holds cards and has not passed."""
        for step in range(1, self.num_players + 1):
            other = (seat + step) % self.num_players
            if self._holds_cards(other) and not self.passed[other]:
                return other
        raise AssertionError("nobody can act, but the trick is not over")

    def _next_holder(self, seat: int) -> int:
        """``seat`` if it holds cards, else the next seat to the left that does."""
        for step in range(self.num_players):
            other = (seat + step) % self.num_players
            if self._holds_cards(other):
                return other
        raise AssertionError("nobody holds cards")

    def _new_trick(self, leader: int) -> None:
        """Clear the pile; ``leader`` leads (or, if out, the next seat to the left in the deal)."""
        self._clear_pile()
        self.passed = [False] * self.num_players
        self.current = self._next_holder(leader)

    # ------------------------------------------------------------------ deal and game end
    def _end_deal(self) -> None:
        players = self.num_players
        for seat in range(players):
            if self.place[seat] < 0:
                self.place[seat] = players - 1
        self.title = list(self.place)
        for seat, place in enumerate(self.place):
            self.scores[seat] += self._points(place)
        self.deal_over_rewards = [1.0 - 2.0 * place / (players - 1) for place in self.place]
        self.deal_over = True
        target = self.rules.target_score
        reached = target is not None and max(self.scores) >= target
        if self.deal + 1 >= self.rules.deals or reached:
            self.phase = "done"
            self.current = -1
            return
        self.deal += 1
        self._next_deal()

    def _points(self, place: int) -> int:
        players, scoring = self.num_players, self.rules.scoring
        if scoring == "places":
            return players - place
        if scoring == "president_vp":
            if place == 0:
                return 2
            return 1 if place == 1 and players >= 4 else 0
        return 1 if place == 0 else 0  # "tally"

    # ------------------------------------------------------------------ convenience
    @property
    def is_over(self) -> bool:
        return self.phase == "done"
