"""One game of the UECda standard server, turn by turn, in plain Python: :class:`ServerGame`.

The server's game flow (``docs/experiments/2026-12-04-uecda-server-rules.md`` §1, §8) over the
rules of :mod:`president_env.uecda.moves`: the holder of the 3 of diamonds leads; play goes
round the seats (backwards after a 6 with ``RULE_6REVERS``), skipping players who are out or
have passed in this trick; a refused submission counts as a pass; the trick ends when every
player still in (the last to play included) has passed, or on an 8-cut or the 3 of spades on a
lone joker; then the last player to play leads, or, if he is out, the next seat with cards;
the game ends when four are out; 20 passes or refusals in a row end it with the players left
ranked at random (:attr:`ServerGame.stalemate`; the rest of that order is not modelled).

It replays logged games (:func:`replay`, ``tests/test_uecda_moves.py``), drives the test server
of ``tests/test_uecda_client.py`` and plays the turns of our server
(:mod:`president_env.uecda.server`); it does not deal or exchange (give it the hands after the
exchange).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from president_env.core.constants import JOKER, NUM_SUITS
from president_env.uecda.log import NO_SUIT, UecdaGame, UecdaLog, UecdaMove
from president_env.uecda.moves import (
    CONTEST_RULES,
    Public,
    ServerRules,
    after_play,
    is_legal,
    legal_plays,
)
from president_env.uecda.protocol import JOKER_HOME, JOKER_ROW, NUM_PLAYERS, Hand, Play

DIAMOND_THREE = (2, 1)
STALEMATE_PASSES = 20


@dataclass(frozen=True)
class Turn:
    """One submission: who sent what, whether the server accepted it, the flags and field
    that the field message shows after it (before an ending trick is cleared), and whether
    the trick ended."""

    player: int
    play: Play
    accepted: bool
    shown: Public
    trick_over: bool


class ServerGame:
    """The state of one game between submissions: ``hands[p]``, ``seats[s]`` (the player in
    seat s), ``mover``, ``public``, ``passed``, ``finished`` (players in the order they went
    out), ``done``."""

    def __init__(self, hands: Sequence[Hand], seats: Sequence[int],
                 rules: ServerRules = CONTEST_RULES) -> None:
        if len(hands) != NUM_PLAYERS or sorted(seats) != list(range(NUM_PLAYERS)):
            raise ValueError(f"a game has {NUM_PLAYERS} hands and a seat order of 0-4; got "
                             f"{len(hands)} hands, seats {tuple(seats)}")
        leaders = [p for p, h in enumerate(hands) if DIAMOND_THREE in h.cards]
        if len(leaders) != 1:
            raise ValueError(f"one player holds the 3 of diamonds; here {leaders}")
        self.hands = list(hands)
        self.seats = tuple(seats)
        self.rules = rules
        self.mover = self.last = leaders[0]
        self.public = Public()
        self.passed = [False] * NUM_PLAYERS
        self.finished: list[int] = []
        self.step_dir = 1
        self.run_of_passes = 0
        self.stalemate = False

    @property
    def done(self) -> bool:
        return len(self.finished) >= NUM_PLAYERS - 1 or self.stalemate

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self.hands)

    def legal(self) -> list[Play]:
        return legal_plays(self.hands[self.mover], self.public, self.rules)

    def step(self, play: Play) -> Turn:
        """The mover submits ``play``."""
        if self.done:
            raise ValueError("the game is over")
        p = self.mover
        accepted = not play.is_pass and is_legal(play, self.hands[p], self.public, self.rules)
        clears = False
        if accepted:
            self.hands[p] = self.hands[p].without(play)
            self.public, clears, reverses = after_play(self.public, play, self.rules)
            if reverses:
                self.step_dir = -self.step_dir
            self.last = p
            self.run_of_passes = 0
            if not self.hands[p]:
                self.finished.append(p)
        else:
            self.passed[p] = True
            self.run_of_passes += 1
        shown = self.public
        self.stalemate = self.run_of_passes >= STALEMATE_PASSES
        trick_over = clears or sum(self.passed) >= NUM_PLAYERS - len(self.finished)
        if len(self.finished) == NUM_PLAYERS - 1:
            self.finished += [q for q in range(NUM_PLAYERS) if q not in self.finished]
        if trick_over:
            self.public = Public(revolution=self.public.revolution)
            self.passed = [False] * NUM_PLAYERS
            self.mover = self._next_with_cards(self.last, include=True)
            self.last = self.mover
        elif not self.done:
            self.mover = self._next_to_play(p)
        return Turn(p, play, accepted, shown, trick_over)

    def _seat_after(self, player: int) -> int:
        return self.seats[(self.seats.index(player) + self.step_dir) % NUM_PLAYERS]

    def _next_with_cards(self, player: int, include: bool) -> int:
        q = player if include else self._seat_after(player)
        for _ in range(NUM_PLAYERS):
            if self.hands[q]:
                return q
            q = self._seat_after(q)
        return q

    def _next_to_play(self, player: int) -> int:
        q = self._seat_after(player)
        for _ in range(NUM_PLAYERS):
            if self.hands[q] and not self.passed[q]:
                return q
            q = self._seat_after(q)
        raise AssertionError("no player left to move in a trick that has not ended")


def hand_from_counts(counts: Sequence[int] | npt.NDArray[np.int8]) -> Hand:
    """A hand from 53 counts in the engine's card ids (``rank * 4 + suit``, suits clubs ..
    spades; the joker 52), as :mod:`president_env.uecda.log` gives them."""
    cards = frozenset((NUM_SUITS - 1 - card % NUM_SUITS, card // NUM_SUITS + 1)
                      for card in range(JOKER) if counts[card])
    return Hand(cards, bool(counts[JOKER]))


def play_from_move(move: UecdaMove) -> Play:
    """The table a logged submission sent (a lone joker whose column the log does not show
    stands in column 0)."""
    if move.cards is None:
        return Play()
    natural = hand_from_counts(move.cards).cards
    if not move.joker_as:
        return Play(tuple(natural))
    ((rank, suit),) = move.joker_as
    row = JOKER_ROW if suit == NO_SUIT else NUM_SUITS - 1 - suit
    return Play(tuple(natural), (row, 0 if rank is None else rank + 1))


def hands_after_exchange(game: UecdaGame) -> list[Hand]:
    """The five hands of a logged game once its exchange steps are made."""
    hands = [hand_from_counts(h) for h in game.hands]
    for giver, receiver, cards in game.exchange:
        moved = Play(tuple(hand_from_counts(cards).cards), JOKER_HOME if cards[JOKER] else None)
        if not hands[giver].holds(moved):
            raise ValueError(f"game {game.number}: player {giver} gives cards he does not hold")
        hands[giver] = hands[giver].without(moved)
        hands[receiver] = hands[receiver].with_cards(moved)
    return hands


@dataclass(frozen=True)
class ReplayCount:
    """What :func:`replay` went through."""

    submissions: int
    refused: int
    """Submissions of cards that the server refused (a pass)."""
    stalemates: int
    """Games ended by the 20-pass rule (their order after it is the server's draw)."""


def read_refused(path: str | os.PathLike[str]) -> frozenset[tuple[int, int]]:
    """The refused submissions listed beside a log (``GAME #INDEX TOKEN err=E`` a line, INDEX
    the token's place in that game's ``play`` line from 0): ``(game, index)`` pairs."""
    out = set()
    for no, line in enumerate(Path(path).read_text().splitlines(), 1):
        parts = line.split()
        if len(parts) != 4 or not parts[0].isdigit() or not parts[1][:1] == "#" or not parts[
                1][1:].isdigit():
            raise ValueError(f"{os.fspath(path)} line {no}: expected GAME #INDEX TOKEN err=E, "
                             f"got {line!r}")
        out.add((int(parts[0]), int(parts[1][1:])))
    return frozenset(out)


def replay(log: UecdaLog, refused: Collection[tuple[int, int]], games: int | None = None,
           rules: ServerRules | None = None) -> ReplayCount:
    """Replay the first ``games`` games of ``log`` (all by default) from the hands after the
    exchange: every submission must come from the player the game flow says moves next, and be
    legal exactly when it is not in ``refused`` (``(game, index)``, see :func:`read_refused`);
    every game must end where the log's ends, in its finishing order (but for 20-pass
    stalemates). The first disagreement raises a ``ValueError`` naming it."""
    rules = ServerRules.from_settings(log.settings) if rules is None else rules
    n = count = stalemates = 0
    for game in log.games[:games]:
        g = ServerGame(hands_after_exchange(game), game.seats, rules)
        for k, move in enumerate(game.moves):
            where = f"game {game.number} #{k}"
            if g.done:
                raise ValueError(f"{where}: a submission after the game ended")
            if move.player != g.mover:
                raise ValueError(f"{where}: player {move.player} moved, not {g.mover}")
            p = play_from_move(move)
            legal = p in set(g.legal())
            listed = (game.number, k) in refused
            if not p.is_pass and legal == listed:
                raise ValueError(f"{where}: {p} by player {move.player} is legal={legal}, "
                                 f"refused={listed}")
            g.step(p)
            n += 1
            count += listed
        if not g.done:
            raise ValueError(f"game {game.number} ended before the game flow's end")
        stalemates += g.stalemate
        if not g.stalemate and tuple(g.finished) != game.result:
            raise ValueError(f"game {game.number}: finished {tuple(g.finished)}, logged "
                             f"{game.result}")
    return ReplayCount(n, count, stalemates)
