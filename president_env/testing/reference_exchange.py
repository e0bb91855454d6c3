"""The card exchange of :class:`president_env.testing.reference.ReferenceGame` (``RULES.md``
sections 6 and 11, and ``president_asks`` of section 12), written plainly for a reader to check.

Before every deal after the first (``rules.exchange_on``):

1. the automatic gifts, at once: the Bum gives the President its two best cards (highest ids,
   one at a time) and, with 4+ players, the Vice-Bum gives the Vice-President its best card;
2. with ``president_asks`` the Bum's two cards do not go automatically: the President asks
   ``min(2, cards the Bum holds)`` times (one action each, any card of the pack); the Bum gives
   the named card if it holds one, else its best card; ``asked`` and ``ask_held`` record each
   ask;
3. the President returns as many cards as it received from the Bum (one action each, any card
   held), then the Vice-President one; then the Bum leads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from president_env.core.cards import NUM_CARDS
from president_env.core.rules import Rules
from president_env.testing.reference_plays import Hand

ASKS = 2
"""Asks the President makes in an exchange (``president_asks``), fewer if the Bum holds fewer
cards."""

Phase = Literal["exchange", "play", "done"]


class Exchange:
    """The exchange part of :class:`~president_env.testing.reference.ReferenceGame` (a mixin:
    the attributes below are the game's)."""

    rules: Rules
    num_players: int
    phase: Phase
    current: int
    title: list[int]
    _hands: list[Hand]
    gave: list[Hand]
    received: list[Hand]
    _returns_due: list[tuple[int, int]]
    """(returning seat, receiving seat), one entry per card still to return."""
    _deal_leader: Callable[[], int]
    """Who leads once the exchange is over (the game's: the Bum, or ``first_lead_every_deal``)."""
    asks_left: int
    asked: list[int]
    ask_held: list[int]

    @property
    def to_return(self) -> list[int]:
        """Per seat, the cards still to return in the exchange."""
        return [
            sum(1 for giver, _ in self._returns_due if giver == seat)
            for seat in range(self.num_players)
        ]

    def _start_exchange(self) -> None:
        """The automatic gifts, then the President's asks (``president_asks``) or returns."""
        players = self.num_players
        bum, president = self.title.index(players - 1), self.title.index(0)
        # (giver of best cards, receiver, number of cards)
        pairs = [(bum, president, 2)]
        if players >= 4:
            pairs.append((self.title.index(players - 2), self.title.index(1), 1))
        asks = self.rules.president_asks
        if asks:  # the President will ask for the Bum's cards instead
            pairs = pairs[1:]
        for loser, winner, count in pairs:
            for _ in range(count):  # one at a time: the best, then the best of the rest
                self._move_card(loser, winner, self._best_card(loser))
        for loser, winner, count in pairs:  # the President returns first, then the VP
            self._returns_due += [(winner, loser)] * count
        self.phase = "exchange"
        if asks:
            self.asks_left = min(ASKS, sum(self._hands[bum]))
            self.current = president
            if self.asks_left == 0:
                self._asks_done()
        else:
            self.current = self._returns_due[0][0]

    def _ask(self, card: int) -> None:
        """The President names ``card``: the Bum gives it if held, else its best card."""
        players = self.num_players
        bum, president = self.title.index(players - 1), self.title.index(0)
        i = self.asked.index(-1)  # the first ask not made yet
        held = self._hands[bum][card] > 0
        self.asked[i] = card
        self.ask_held[i] = 1 if held else 0
        self._move_card(bum, president, card if held else self._best_card(bum))
        self.asks_left -= 1
        if self.asks_left == 0:
            self._asks_done()

    def _asks_done(self) -> None:
        """After the asks the President returns one card per ask (before the Vice-President)."""
        players = self.num_players
        bum, president = self.title.index(players - 1), self.title.index(0)
        made = sum(1 for card in self.asked if card >= 0)
        self._returns_due = [(president, bum)] * made + self._returns_due
        self._next_in_exchange()

    def _return_card(self, card: int) -> None:
        giver, receiver = self._returns_due.pop(0)
        self._move_card(giver, receiver, card)
        self._next_in_exchange()

    def _next_in_exchange(self) -> None:
        """The next seat to return a card, or, when none is left, play: the Bum leads (or, with
        ``first_lead_every_deal``, the first lead's rule picks the leader)."""
        if self._returns_due:
            self.current = self._returns_due[0][0]
        else:
            self.phase = "play"
            self.current = self._deal_leader()

    def _best_card(self, seat: int) -> int:
        """Highest card id held: the joker, then 2s (spades first), then aces, ..."""
        return max(card for card in range(NUM_CARDS) if self._hands[seat][card] > 0)

    def _move_card(self, giver: int, receiver: int, card: int) -> None:
        """Move one card in the exchange."""
        self._hands[giver][card] -= 1
        self._hands[receiver][card] += 1
        self.gave[giver][card] += 1
        self.received[receiver][card] += 1
