"""A plain, scalar reference implementation of one President game.

This module is the rules of ``RULES.md`` written as ordinary Python, one game at a time, for
clarity rather than speed. It shares nothing with the fast batched engine
(:mod:`president_env.core.engine`) except the card encoding (:mod:`president_env.core.cards`), the rule
options (:class:`~president_env.core.rules.Rules`), the action ids and the card-choice convention of
:class:`~president_env.core.actions.ActionLayout` (``cards_for``), and the seeded deal
(:func:`president_env.core.engine.deal_hands`). Every decision about tricks, legality, clearing,
revolutions, finishing, scoring and the exchange is made here again, independently, so that
:mod:`president_env.testing.difftest` and ``tests/test_differential.py`` can compare the two step by step.

Decisions where ``RULES.md`` leaves a choice (shared with the engine):

1. Cards are ``rank * 4 + suit`` (rank 0 = "3" .. 12 = "2"; clubs < diamonds < hearts < spades),
   ``52`` is the joker. Which cards an action plays is ``ActionLayout.cards_for``: natural cards
   first, lowest suit first, jokers only for missing places; a set or run holds at least one
   natural card, and the jokers-only sets are separate actions. With ``exact_plays`` an action
   names its cards; which a hand can name is found again in ``reference_plays``.
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
   if nobody holds it), by seat 0 (``first_lead="seat0"``) or by the lowest seat holding the
   3 of diamonds (``"three_of_diamonds"``).
9. Exchange (``rules.exchange_on``, :mod:`president_env.testing.reference_exchange`) before
   every later deal: the Bum gives its two best cards (highest ids, one at a time) to the
   President and, with 4+ players, the Vice-Bum its best card to the Vice-President; then the
   President returns two cards of its choice (one ``give`` action each) and the Vice-President
   one. Then the Bum leads. Without the exchange the Bum leads too.
10. ``played`` counts the natural cards played per rank in the current deal, plus the jokers.

The further variants of ``RULES.md`` section 12 (each off by default):

11. ``revolution_timing="next_trick"``: a play that starts a revolution toggles ``pending``
    instead of ``revolution``; when the trick ends (all others passed, a clearing play, a bomb)
    the pending change is applied first, then the next leader is found. At the end of a deal
    the next deal starts afresh; after the last deal the final state shows the last trick as it
    was played (pile, ``pending`` and the row of singles, like ``revolution``), nothing applied.
12. ``western_revolution``: play (the next player to act, the next leader when the trick's
    winner is out) goes to the right (seat i-1) while ``revolution`` is on. Four natural singles
    of one rank in a row in one trick (passes between them allowed; any other play and the end
    of the trick break the row: ``row_rank``, ``row_count``) also start a revolution, and the
    row starts again.
13. ``bombs``: a set or jokers-only set of at least ``bombs`` cards may lead or follow, in
    turn, on any pile, and clears it (:func:`~president_env.testing.reference_plays.is_bomb`).
14. ``runs_mixed_suits`` and ``max_run_length``: see
    :mod:`president_env.testing.reference_plays`. ``runs_disjoint`` (a rule of the UECda
    server): a run beats a run of its length only when its lowest card is above the pile's
    highest (in a revolution, its highest below the pile's lowest). ``run_revolution=n``: with
    ``revolution``, a run of ``n`` or more cards starts a revolution as a set of four does.
    ``play_on_own``: a trick ends only when every player holding cards has passed, the last
    player who played too (who may play again on his own play while the others have passed).
    The others of the UECda server: :mod:`president_env.testing.reference_uecda`.
15. ``president_asks``: the Bum's two best cards do not go; the President asks
    ``min(2, cards the Bum holds)`` times (``asks_left``); the named card goes if the Bum holds
    it, else the Bum's best card (``asked``, ``ask_held``); then the President returns one card
    per ask, then the Vice-President one.

With ``observation="history"`` the public history of the deal (what its blocks show) is kept
too: the cards each seat played, what each seat passed on, the last 8 moves (every move with
``"record"``)
(:mod:`president_env.testing.reference_history`); under ``"standard"`` those fields stay
empty, as in the engine.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from president_env.core.actions import PASS, ActionLayout, Kind
from president_env.core.cards import (
    JOKER,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    Rank,
)
from president_env.core.rules import Rules
from president_env.testing.reference_exchange import ASKS, Exchange, Phase
from president_env.testing.reference_history import History
from president_env.testing.reference_plays import (
    Hand,
    Play,
    is_bomb,
    mixed_run_cards,
    run_ids,
    runs_in_hand,
    sets_in_hand,
)
from president_env.testing.reference_uecda import Uecda

#: index of the jokers in :attr:`ReferenceGame.played` (after the 13 ranks)
PLAYED_JOKERS = NUM_RANKS


class ReferenceGame(Exchange, History, Uecda):
    """One game of President (one or more deals), stepped one action at a time.

    Public state (read it, do not write it): ``phase``, ``current``, ``hands``, ``pile_kind``,
    ``pile_rank``, ``pile_size``, ``last_player``, ``passed``, ``revolution``, ``place``,
    ``title``, ``scores``, ``deal``, ``dealer``, ``played``, ``gave``, ``received``,
    ``to_return``, ``deal_over``, ``deal_over_rewards``, and for the variants ``pending``,
    ``row_rank``, ``row_count``, ``asks_left``, ``asked``, ``ask_held``, ``jack_back``,
    ``six_reversed`` and ``pass_run``, and the history ``seat_played``, ``seat_passed`` and ``recent`` (as in
    the engine's State).
    """

    def __init__(self, rules: Rules, hands: npt.ArrayLike | None = None, seed: int = 0) -> None:
        self.rules = rules
        self.layout = ActionLayout(rules)
        self._run_ids = run_ids(self.layout)
        self._legal: list[int] | None = None  # legal actions of the current state, once found
        self.seed = int(seed)
        self.num_players: int = rules.num_players
        players = self.num_players

        self.scores: list[int] = [0] * players
        self.title: list[int] = [-1] * players  # no titles during the first deal
        self.deal: int = 0
        self.deal_over = False
        """Whether the last step ended a deal."""
        self.deal_over_rewards: list[float] = [0.0] * players
        """Per seat, ``1 - 2 * place / (P - 1)`` after a step that ended a deal, else 0."""

        self._seat_players()
        first_dealer = self._dealer()
        dealt = self._dealt(first_dealer) if hands is None else hands
        self._start_deal(dealt, dealer=first_dealer)

        self.phase: Phase = "play"
        self.current = self._first_leader()

    # ------------------------------------------------------------------ public views
    @property
    def hands(self) -> npt.NDArray[np.int64]:
        """Cards held, ``[P, 53]`` counts."""
        return np.array(self._hands, dtype=np.int64)

    @property
    def is_over(self) -> bool:
        return self.phase == "done"

    # ------------------------------------------------------------------ deals
    def _start_deal(self, hands: npt.ArrayLike, dealer: int) -> None:
        """Fresh hands and a fresh table: empty pile, usual order, nobody finished."""
        players = self.num_players
        array = np.asarray(hands)
        if array.shape != (players, NUM_CARDS):
            raise ValueError(f"hands must have shape ({players}, {NUM_CARDS}), got {array.shape}")
        self._hands: list[Hand] = [[int(n) for n in row] for row in array]
        self.dealer = dealer
        self.place: list[int] = [-1] * players
        self.passed: list[bool] = [False] * players
        self.revolution = False
        self.jack_back = False
        self.six_reversed = False
        self.pass_run = 0
        self.pending = False
        """``next_trick``: a revolution waits for the end of the trick."""
        self.row_rank = -1
        """``western_revolution``: rank of the row of natural singles in this trick (-1 none)."""
        self.row_count = 0
        """... and how many of them in a row."""
        self.asks_left = 0
        """``president_asks``: asks the President still has to make."""
        self.asked: list[int] = [-1] * ASKS
        """Card named by each ask of this deal's exchange, -1 if not made."""
        self.ask_held: list[int] = [-1] * ASKS
        """1 if the Bum held the card of that ask, 0 if not, -1 if not made."""
        self.played: list[int] = [0] * (NUM_RANKS + 1)
        self._reset_history()
        self._clear_pile()
        self.gave: list[Hand] = [[0] * NUM_CARDS for _ in range(players)]
        """Cards each seat gave in this deal's exchange (automatic gifts and returns)."""
        self.received: list[Hand] = [[0] * NUM_CARDS for _ in range(players)]
        """Cards each seat received in this deal's exchange."""
        self._returns_due: list[tuple[int, int]] = []
        """Exchange: (returning seat, receiving seat), one entry per card still to return."""

    def _clear_pile(self) -> None:
        self.pile_kind: Kind = Kind.PASS
        self.pile_rank: int = -1
        self.pile_size: int = 0
        self.last_player: int = -1
        self.pile_suits, self.locked = 0, False  # (lock: see reference_uecda)

    def _next_deal(self) -> None:
        """Deal again (dealer: the previous Bum); the exchange starts, if any; the Bum leads.
        (With ``title_reset_every``, a deal whose titles are cleared starts as the first.)"""
        self._seat_players()  # (reseat_every: again at deals n, 2n, ...)
        dealer = self._dealer()
        self._start_deal(self._dealt(dealer), dealer=dealer)
        self.phase = "play"
        if self._titles_cleared():  # (the titles stay in view; they decide nothing)
            self.current = self._first_leader()
            return
        self.current = self._deal_leader()  # (after the exchange, if any)
        if self.rules.exchange_on:
            self._start_exchange()

    # ------------------------------------------------------------------ order of ranks
    def _key(self, rank: int) -> int:
        """Strength of a rank in the order in effect (higher is stronger)."""
        return NUM_RANKS - 1 - rank if self.reversed_order else rank

    def _top_rank(self) -> int:
        """The rank that is highest in the order in effect."""
        return Rank.THREE if self.reversed_order else Rank.TWO

    # ------------------------------------------------------------------ what a hand can play
    def _plays_in_hand(self, seat: int, with_runs: bool) -> list[Play]:
        """Every play the hand can make: (action id, kind, rank or run bottom, size).

        Runs only ``with_runs`` (they are the slow part, and only a run may follow a run).
        """
        hand = self._hands[seat]
        plays = sets_in_hand(self.layout, hand)
        if with_runs:
            plays += runs_in_hand(self.rules, self._run_ids, hand)
        return plays

    # ------------------------------------------------------------------ legality
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
            if self.rules.runs_disjoint:  # no rank in common: wholly above (below) the pile
                if self.reversed_order:
                    return rank + size - 1 < self.pile_rank
                return rank > self.pile_rank + size - 1
            if self.reversed_order:  # a lower run beats in a revolution
                return rank < self.pile_rank or (equal_ok and rank == self.pile_rank)
            return rank > self.pile_rank or (equal_ok and rank == self.pile_rank)
        if pile == Kind.JOKERS:  # only an equal jokers-only set, and only with allow_equal
            return kind == Kind.JOKERS and equal_ok
        # the pile is a natural set
        if kind == Kind.JOKERS:  # a jokers-only set beats every natural set of its size
            return True
        if kind != Kind.SET:
            return False
        mine, theirs = self._key(rank), self._key(self.pile_rank)
        return mine > theirs or (equal_ok and mine == theirs)

    def legal_actions(self) -> list[int]:
        """Sorted ids of the actions the player to act may take (empty when the game is over)."""
        if self._legal is None:
            self._legal = self._find_legal_actions()
        return list(self._legal)

    def _find_legal_actions(self) -> list[int]:
        if self.phase == "done":
            return []
        seat = self.current
        if self.phase == "exchange" and self.asks_left > 0:  # ask for any card of the pack
            return [self.layout.ask_base + card for card in range(self.layout.num_ask)]
        if self.phase == "exchange":  # return any card held
            hand = self._hands[seat]
            return [self.layout.give_action(c) for c in range(NUM_CARDS) if hand[c] > 0]
        following = self.pile_kind != Kind.PASS
        # no pass when leading (but with lead_may_pass)
        legal = [PASS] if following or self.rules.lead_may_pass else []
        with_runs = self.pile_kind in (Kind.PASS, Kind.RUN)
        for action, kind, rank, size in self._plays_in_hand(seat, with_runs):
            # a bomb goes on any pile, in turn; nothing is compared; lock: only its suits
            if self._lock_allows(action, kind) and (
                    self._beats(kind, rank, size) or (following and is_bomb(self.rules, kind, size))
                    or self._spade_three_on_joker(action)):
                legal.append(action)
        return sorted(legal)

    # ------------------------------------------------------------------ stepping
    def step(self, action: int) -> None:
        """Take one action for the player to act; ValueError if it is not legal."""
        action = self.layout.check(action)
        if action not in self.legal_actions():
            raise ValueError(
                f"illegal action {action} ({self.layout.name(action)}) for seat {self.current} "
                f"in phase {self.phase!r}"
            )
        self._legal = None
        self.deal_over = False
        self.deal_over_rewards = [0.0] * self.num_players
        if self.phase == "exchange" and self.layout.kind[action] == Kind.ASK:
            self._ask(int(self.layout.card[action]))
        elif self.phase == "exchange":
            self._return_card(int(self.layout.card[action]))
        else:  # a move of the play phase
            self._note_move(self.current, action)
            if action == PASS:
                self._pass()
            else:
                self._play(action)

    def _pass(self) -> None:
        self._note_pass(self.current)
        self.passed[self.current] = True
        if self._stalls():  # stalemate_passes
            self._end_deal()
        elif self._trick_over():  # nobody played (lead_may_pass): the leader leads again
            nobody = self._seat_left(self.current, self.direction)
            self._new_trick(leader=self.last_player if self.last_player >= 0 else nobody)
        else:
            self.current = self._next_to_act(self.current)

    def _play(self, action: int) -> None:
        lay, seat = self.layout, self.current
        kind = Kind(int(lay.kind[action]))
        rank, size = int(lay.rank[action]), int(lay.size[action])

        if kind == Kind.RUN and self.rules.runs_mixed_suits:
            cards = mixed_run_cards(self._hands[seat], rank, size)
        else:
            cards = [int(n) for n in lay.cards_for(action, self._hands[seat])]
        self._note_cards(seat, cards)
        for card in range(NUM_CARDS):
            count = cards[card]
            self._hands[seat][card] -= count
            self.played[PLAYED_JOKERS if card == JOKER else card // NUM_SUITS] += count

        # judged in the order in effect (before any revolution this play starts); a bomb clears
        clears = is_bomb(self.rules, kind, size) or self._clears(kind, rank, size)
        clears |= self._spade_three_on_joker(action)  # (and the 3 of spades on a lone joker)
        four = self.rules.revolution and kind in (Kind.SET, Kind.JOKERS) and size >= 4
        long_run = self.rules.run_revolution  # (None: no run starts one)
        four |= bool(self.rules.revolution and kind == Kind.RUN and long_run and size >= long_run)
        row_of_four = self._extend_row(kind, rank, size)
        if four or row_of_four:
            self._revolt()
        self._note_jack_and_six(kind, rank, size)
        self._note_lock(action, kind)
        self.pile_kind, self.pile_rank, self.pile_size = kind, rank, size
        self.last_player = seat
        self.pass_run = 0
        if not self.rules.pass_is_final:
            self.passed = [False] * self.num_players

        if not self._holds_cards(seat):  # gone out: the next place
            self.place[seat] = sum(1 for p in self.place if p >= 0)
            if self._holders_count() == 1:
                self._end_deal()
                return
        if clears or self._trick_over():
            self._new_trick(leader=seat)
        else:
            self.current = self._next_to_act(seat)

    def _extend_row(self, kind: Kind, rank: int, size: int) -> bool:
        """``western_revolution``: count the row of natural singles of one rank; True when the
        play is the fourth in a row (the row then starts again). Any other play breaks it."""
        if not self.rules.western_revolution:
            return False
        if kind != Kind.SET or size != 1:
            self._reset_row()
            return False
        if rank == self.row_rank:
            self.row_count += 1
        else:
            self.row_rank, self.row_count = rank, 1
        if self.row_count == 4:
            self._reset_row()
            return True
        return False

    def _reset_row(self) -> None:
        self.row_rank, self.row_count = -1, 0

    def _revolt(self) -> None:
        """A play starts a (counter-)revolution: at once, or pending until the trick ends."""
        if self.rules.revolution_timing == "next_trick":
            self.pending = not self.pending
        else:
            self.revolution = not self.revolution

    def _end_trick(self) -> None:
        """The trick ends: a pending revolution takes effect, the row of singles is broken."""
        if self.pending:
            self.revolution = not self.revolution
            self.pending = False
        self._reset_row()
        self.jack_back = False

    def _clears(self, kind: Kind, rank: int, size: int) -> bool:
        """Whether a play clears the pile (in the order in effect when it is played)."""
        if kind == Kind.SET:  # a natural set (a jokers-only set never clears)
            if self.rules.top_rank_clears and rank == self._top_rank():
                return True
            if self.rules.eight_clears and rank == Rank.EIGHT:
                return True
        if kind == Kind.RUN and self.rules.eight_clears:  # a run through the 8
            return rank <= Rank.EIGHT < rank + size
        return False

    # ------------------------------------------------------------------ turn order
    def _holds_cards(self, seat: int) -> bool:
        return sum(self._hands[seat]) > 0

    def _holders_count(self) -> int:
        return sum(1 for seat in range(self.num_players) if self._holds_cards(seat))

    def _trick_over(self) -> bool:
        """Every player holding cards, other than the last player who played, has passed (with
        ``play_on_own``, the last player too)."""
        own = self.rules.play_on_own
        return all(
            self.passed[seat]
            for seat in range(self.num_players)
            if (own or seat != self.last_player) and self._holds_cards(seat)
        )

    @property
    def direction(self) -> int:
        """+1 while play goes to the left (seat i+1); -1 to the right (``western_revolution``
        during a revolution; the other way round while ``six_reversed``)."""
        western = self.rules.western_revolution and self.revolution
        return -1 if western != self.six_reversed else 1

    def _next_to_act(self, seat: int) -> int:
        """The next seat in the direction of play that holds cards and has not passed."""
        for step in range(1, self.num_players + 1):
            other = self._seat_left(seat, step * self.direction)
            if self._holds_cards(other) and not self.passed[other]:
                return other
        raise AssertionError("nobody can act, but the trick is not over")

    def _next_holder(self, seat: int) -> int:
        """``seat`` if it holds cards, else the next seat in the direction of play that does."""
        for step in range(self.num_players):
            other = self._seat_left(seat, step * self.direction)
            if self._holds_cards(other):
                return other
        raise AssertionError("nobody holds cards")

    def _new_trick(self, leader: int) -> None:
        """End the trick, clear the pile; ``leader`` leads (or, if out, the next seat holding
        cards in the direction of play after any pending revolution)."""
        self._end_trick()
        self._clear_pile()
        self.passed = [False] * self.num_players
        self.current = self._next_holder(leader)

    # ------------------------------------------------------------------ deal and game end
    def _end_deal(self) -> None:
        players = self.num_players
        for seat in range(players):
            if self.place[seat] < 0:  # the only one still holding cards is last
                self.place[seat] = players - 1
        self.title = list(self.place)
        for seat, place in enumerate(self.place):
            self.scores[seat] += self._points(place)
        self.deal_over = True
        self.deal_over_rewards = [1.0 - 2.0 * place / (players - 1) for place in self.place]
        target = self.rules.target_score
        reached = target is not None and max(self.scores) >= target
        if self.deal + 1 >= self.rules.deals or reached:
            self.phase = "done"
            self.current = -1
            return
        self.deal += 1
        self._next_deal()

    def _points(self, place: int) -> int:
        """Points of one deal's place under ``rules.scoring``."""
        players, scoring = self.num_players, self.rules.scoring
        if scoring == "places":
            return players - place
        if scoring == "president_vp":
            if place == 0:
                return 2
            return 1 if place == 1 and players >= 4 else 0
        return 1 if place == 0 else 0  # "tally": presidencies
