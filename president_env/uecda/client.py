"""A client for the UECda standard server (protocol 20070): :func:`play_match`.

It connects, sends its name, and plays every game until the server says the match is over,
asking a **chooser** for each decision. A chooser is any object with two methods (the
:class:`Chooser` protocol), each given a :class:`View`, what the client knows at that moment:

* ``give(view, count)``: the ``count`` cards (a :class:`Play` of natural cards, or with the
  joker at its home cell ``[4][1]``) that the daifugo (2) or the fugo (1) gives back in the
  exchange;
* ``play(view)``: the submission on its turn (``Play()`` passes). ``view.legal()`` lists every
  submission the server accepts (:func:`president_env.uecda.moves.legal_plays`).

The view holds the hand, the field and flags (:class:`~president_env.uecda.moves.Public`),
the cards left to each player, the classes, the seat order, and ``history``: every submission
of this game so far, ``(player, play)``, ``play`` ``None`` for a pass or a refused play (told
apart from an accepted play by the mover's count of cards in the field message). Our engine's
agents plug in as one more chooser (:class:`president_env.uecda.agent.AgentChooser`).

Two choosers ship: :class:`RandomChooser` (uniform over the legal submissions, counting the
lone joker once, seeded) and :class:`GreedyChooser` (the weakest legal play, keeping the joker
for last; the weakest cards given back).

Every wait is bounded (``timeout`` seconds per message); a message that breaks the protocol,
or a chooser's answer that is not a held play, raises a ``ValueError``
(:class:`~president_env.uecda.protocol.ProtocolError` for the server's side) naming it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal, Protocol

from president_env.uecda.moves import CONTEST_RULES, Public, ServerRules, legal_plays, shape
from president_env.uecda.protocol import (
    ACCEPTED,
    CONTINUE,
    GAME_OVER,
    JOKER_HOME,
    MATCH_OVER,
    REFUSED,
    Connection,
    Hand,
    Play,
    ProtocolError,
    TableState,
)


@dataclass(frozen=True)
class View:
    """What the client knows when its chooser is asked."""

    player: int
    """Our player number (0-4, the order the five connected in)."""
    game: int
    """The game of the match, from 0."""
    hand: Hand
    public: Public
    counts: tuple[int, ...]
    """Cards left to players 0..4."""
    classes: tuple[int, ...] | None
    """The class of players 0..4 in this game (0 daifugo .. 4 daihinmin); ``None`` in a
    class-reset game."""
    seats: tuple[int, ...]
    """The player in each seat; play goes seat 0, 1, 2, ... (by default)."""
    history: tuple[tuple[int, Play | None], ...]
    """This game's submissions so far: ``(player, play)``, ``None`` a pass or refusal."""
    rules: ServerRules = CONTEST_RULES
    dealt: Hand | None = None
    """Our hand in this game's deal table: after receiving for the daifugo and fugo, before
    the exchange (still holding the cards the server takes) for the hinmin and daihinmin."""

    def legal(self) -> list[Play]:
        return legal_plays(self.hand, self.public, self.rules)


class Chooser(Protocol):
    def give(self, view: View, count: int) -> Play: ...

    def play(self, view: View) -> Play: ...


def _weakest_cards(hand: Hand, count: int) -> Play:
    """The ``count`` weakest natural cards (lowest column, then row)."""
    cards = sorted(hand.cards, key=lambda cell: (cell[1], cell[0]))[:count]
    return Play(tuple(cards))


@dataclass
class RandomChooser:
    """Uniform over the legal submissions (the pass among them), the lone joker counted once
    (its 60 cells act alike); random natural cards given back. Seeded: the same seed and the
    same games give the same choices."""

    seed: int = 0
    lone_joker: Literal["all", "one"] = "one"
    """``"all"``: count the lone joker in each of its 60 cells (to test the server's rules)."""
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def give(self, view: View, count: int) -> Play:
        return Play(tuple(self.rng.sample(sorted(view.hand.cards), count)))

    def play(self, view: View) -> Play:
        plays = legal_plays(view.hand, view.public, view.rules, lone_joker=self.lone_joker)
        return plays[self.rng.randrange(len(plays))]


class GreedyChooser:
    """The weakest legal play under the order in effect (a run by its top card in a
    revolution), more cards first among equals, the joker only when nothing else is legal;
    passes only when it must. Gives back its weakest natural cards."""

    def give(self, view: View, count: int) -> Play:
        return _weakest_cards(view.hand, count)

    def play(self, view: View) -> Play:
        plays = [p for p in view.legal() if not p.is_pass]
        if not plays:
            return Play()
        rev = view.public.revolution != view.public.back
        return min(plays, key=lambda p: _greedy_key(p, rev))


def _greedy_key(play: Play, rev: bool) -> tuple[int, int, int, tuple[object, ...]]:
    s = shape(play)
    assert s is not None
    strength = -(s.low + s.size - 1 if s.kind == "run" else s.low) if rev else s.low
    return (play.joker is not None, strength, -s.size, play.sort_key())


@dataclass
class MatchResult:
    """What the client saw of a match."""

    player: int
    games: int = 0
    plays: int = 0
    """Our submissions other than passes."""
    refused: int = 0
    """Of those, refused by the server (ack 8)."""
    finish_orders: list[tuple[int, ...]] = field(default_factory=list)
    """Per game, the players in the order they went out (the last one left added), as seen in
    the field messages; shorter after a 20-pass stalemate (the server ranks the rest)."""


def play_match(host: str, port: int, name: str, chooser: Chooser, *,
               rules: ServerRules = CONTEST_RULES, timeout: float = 30.0) -> MatchResult:
    """Connect to the server at ``host:port`` and play until it ends the match."""
    conn = Connection.open(host, port, timeout)
    try:
        return run_session(conn, name, chooser, rules)
    finally:
        conn.close()


def run_session(conn: Connection, name: str, chooser: Chooser,
                rules: ServerRules = CONTEST_RULES) -> MatchResult:
    """The whole match over an open connection."""
    me = conn.handshake(name)
    result = MatchResult(me)
    end = CONTINUE
    while end != MATCH_OVER:
        end = _play_game(conn, me, result.games, chooser, rules, result)
        result.games += 1
    return result


def _play_game(conn: Connection, me: int, game: int, chooser: Chooser, rules: ServerRules,
               result: MatchResult) -> int:
    deal = conn.recv_table("deal table")
    state = TableState.from_table(deal, "deal table")
    if not state.deal:
        raise ProtocolError("the deal table of a game has no deal flag [5][0] = 1")
    hand = dealt = Hand.from_table(deal, "deal table")
    classes = state.classes
    if state.give:
        view = View(me, game, hand, Public(), state.counts, classes, state.seats, (), rules,
                    dealt)
        gift = chooser.give(view, state.give)
        if not isinstance(gift, Play) or len(gift) != state.give or not hand.holds(gift) or (
                gift.joker not in (None, JOKER_HOME)):
            raise ValueError(f"the chooser must give {state.give} held card(s) (the joker at "
                             f"[4][1]); it gave {gift!r}")
        conn.send_table(gift.to_table())
    history: list[tuple[int, Play | None]] = []
    field_cards = Play()
    out: list[int] = []
    while True:
        table = conn.recv_table("hand table")
        state = TableState.from_table(table, "hand table")
        hand = Hand.from_table(table, "hand table")
        if state.deal or state.my_turn != (state.mover == me):
            raise ProtocolError(f"hand table: deal flag {state.deal}, my-turn flag "
                                f"{state.my_turn} for mover {state.mover} (we are {me})")
        if len(hand) != state.counts[me]:
            raise ProtocolError(f"hand table: {len(hand)} cards, but [6][{me}] says "
                                f"{state.counts[me]}")
        if state.field_empty:
            field_cards = Play()
        public = Public(field_cards, state.locked, state.revolution, state.back)
        if state.my_turn:
            view = View(me, game, hand, public, state.counts, classes, state.seats,
                        tuple(history), rules, dealt)
            play = chooser.play(view)
            if not isinstance(play, Play):
                raise TypeError(f"a chooser's play is a Play; got {play!r}")
            conn.send_table(play.to_table())
            ack = conn.recv_int("ack")
            if ack not in (ACCEPTED, REFUSED):
                raise ProtocolError(f"the ack is {ack}, not {ACCEPTED} or {REFUSED}")
            if not play.is_pass:
                result.plays += 1
                result.refused += ack == REFUSED
        shown = conn.recv_table("field table")
        after = TableState.from_table(shown, "field table")
        field_cards = Play.from_table(shown, "field table")
        if after.mover != state.mover:
            raise ProtocolError(f"field table: mover [5][3] = {after.mover}, but the hand "
                                f"table said {state.mover}")
        drop = state.counts[state.mover] - after.counts[state.mover]
        if drop not in (0, len(field_cards)):
            raise ProtocolError(f"field table: player {state.mover} went from "
                                f"{state.counts[state.mover]} to {after.counts[state.mover]} "
                                f"cards, but the field holds {len(field_cards)}")
        history.append((state.mover, field_cards if drop else None))
        if drop and after.counts[state.mover] == 0:
            out.append(state.mover)
        end = conn.recv_int("end-of-game signal")
        if end not in (CONTINUE, GAME_OVER, MATCH_OVER):
            raise ProtocolError(f"the end-of-game signal is {end}, not 0, 1 or 2")
        if end != CONTINUE:
            if len(out) == 4:
                out += [p for p in range(5) if p not in out]
            result.finish_orders.append(tuple(out))
            return end
