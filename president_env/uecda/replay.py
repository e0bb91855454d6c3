"""Replaying the UECda server's logs through the ENGINE with the ``uecda`` preset.

Each game of a log (:func:`~president_env.uecda.log.read_log`) becomes one deal of the engine
(``Rules.preset("uecda", deals=1)``, changed per the log's ``RULE_*`` settings by
:func:`rules_for`), dealt from the hands after the logged exchange, engine seat ``s`` holding
the hand of the player the log seats there (``seats[s]``; play goes seat 0, 1, 2, ... in both).
Every submission is mapped to the engine's exact action id (:func:`action_for`); a submission
the server refused (``<log>.rejected.txt``, :func:`~president_env.uecda.game.read_refused`)
is a pass, as the server counts it. A game replays **identically** when:

* each mover is the player the engine has to act;
* each submission the server accepted is legal in the engine's mask (a pass included), and each
  one it refused names no legal action (it is either not an action of the layout or masked);
* the engine's deal ends at the last submission, with the logged finishing order; or, for a
  game the 20 passes in a row ended (the server then ranks the players left at random: not
  reproducible), the engine's deal ends on that pass too and the players who went out before it
  went out in the logged order.

The first difference ends a game's replay and is reported as a :class:`Mismatch` with its
class (``"mover"``, ``"illegal"``, ``"refused_legal"``, ``"no_action"``, ``"lead_pass"``,
``"early_end"``, ``"late_end"``, ``"result"``, ``"stalemate"``). ``"lead_pass"``: the server
lets the leader pass on an empty field (a refused play counts as one), which the engine allows
only with ``lead_may_pass`` (on in the preset).

The server's match-level rules (seats reshuffled every 3 games, class resets, the exchange's
gifts) stay outside: each game starts from its logged post-exchange hands.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from president_env.core.actions import ActionLayout
from president_env.core.constants import JOKER, JOKER_ROW, NUM_SUITS, Kind
from president_env.core.engine import Engine
from president_env.core.one_game import OneGame
from president_env.core.rules import Rules
from president_env.records.recorder import GameRecorder
from president_env.uecda.game import hands_after_exchange, read_refused
from president_env.uecda.log import (
    NO_SUIT,
    NUM_PLAYERS,
    UecdaGame,
    UecdaLog,
    UecdaMove,
    cell_id,
    read_log,
)
from president_env.uecda.moves import ServerRules
from president_env.uecda.protocol import JOKER_ROW as ROW_OF_JOKER
from president_env.uecda.protocol import Play

STALEMATE = 20
"""The server's passes in a row that end a game."""


def rules_for(settings: Mapping[str, str] | ServerRules) -> Rules:
    """The engine's rules for a log's switches: the ``uecda`` preset, one deal, with
    ``RULE_11BACK`` -> ``jack_back``, ``RULE_SHIBARI no`` -> no ``lock``, ``RULE_6REVERS`` ->
    ``six_reverses``, ``RULE_KAKUMEI no`` -> no revolution, ``RULE_8GIRI no`` -> no
    ``eight_clears``, ``RULE_KAIDAN no`` -> no runs (their options at their defaults).
    ``RULE_CHANGE``, ``RULE_SEKIGAE`` and ``FLASH_MIBUN_NUMBER`` change only the match, which
    a replay from the post-exchange hands leaves out; the log's seats are the engine's (no
    ``reseat_every``: the server draws them from its own random numbers)."""
    sr = settings if isinstance(settings, ServerRules) else ServerRules.from_settings(settings)
    over: dict[str, object] = dict(deals=1, reseat_every=None, jack_back=sr.jack_back, lock=sr.lock,
                                   six_reverses=sr.six_reverses, eight_clears=sr.eight_cut)
    if not sr.revolution:
        over.update(revolution=False, run_revolution=None)
    if not sr.runs:
        over.update(runs=False, run_revolution=None, runs_disjoint=False, run_joker_ends=False)
    return Rules.preset("uecda", **over)


def action_for(layout: ActionLayout, move: UecdaMove) -> int | None:
    """The engine's exact action of a logged submission (``None``: no action of the layout
    names those cards, e.g. a set of two ranks or a run of two suits)."""
    if move.cards is None:
        return 0
    counts = np.asarray(move.cards)
    natural = [int(c) for c in np.flatnonzero(counts[:JOKER])]
    jokers = int(counts[JOKER])
    if jokers > 1 or len(move.joker_as) != jokers or any(counts > 1):
        return None
    if not natural:
        return layout.jokers_action(1) if jokers else None
    ranks = {c // NUM_SUITS for c in natural}
    suits = {c % NUM_SUITS for c in natural}
    try:
        if len(ranks) == 1 and (not jokers or move.joker_as[0][0] in ranks):
            (rank,) = ranks
            mask = sum(1 << s for s in suits)
            joker = -1
            if jokers:
                js = move.joker_as[0][1]
                joker = JOKER_ROW if js == NO_SUIT else js
            return layout.exact_set_action(rank, mask, joker)
        if len(suits) != 1 or not layout.rules.runs:
            return None
        (suit,) = suits
        cells = sorted(ranks)
        jrank = -2
        if jokers:
            jrank_or_none, jsuit = move.joker_as[0]
            if jrank_or_none is None or jsuit != suit:
                return None
            jrank = jrank_or_none
            cells = sorted((*cells, jrank))
        bottom, length = cells[0], len(cells)
        if cells != list(range(bottom, bottom + length)) or len(set(cells)) != length:
            return None
        return layout.run_action(suit, bottom, length, jrank - bottom if jokers else -1)
    except ValueError:
        return None


def counts_of(cards: Iterable[tuple[int, int]], joker: bool) -> npt.NDArray[np.int8]:
    """53 counts in the engine's card ids of natural cards' cells and the joker."""
    out = np.zeros(JOKER + 1, np.int8)
    for cell in cards:
        out[cell_id(cell)] = 1
    out[JOKER] = int(joker)
    return out


def play_action(layout: ActionLayout, play: Play) -> int | None:
    """The engine's exact action of a submission's table (:func:`action_for` of the same
    cards, the joker standing where the table puts it); ``None`` as there."""
    if play.is_pass:
        return 0
    counts = counts_of(play.cards, play.joker is not None)
    joker_as: tuple[tuple[int | None, int], ...] = ()
    if play.joker is not None:
        row, column = play.joker
        joker_as = ((column - 1, NO_SUIT if row == ROW_OF_JOKER else NUM_SUITS - 1 - row),)
    return action_for(layout, UecdaMove(-1, counts, joker_as))


def action_play(layout: ActionLayout, action: int) -> Play:
    """The table of the engine's exact action ``action`` (a set, a run, the lone joker at
    ``[0][0]`` as the kit's client sends it, or the pass): the inverse of :func:`play_action`.
    ValueError for an action that plays no cards of a hand (a give or an ask) or without
    ``exact_plays``."""
    a = layout.check(action)
    kind = layout.kind[a]
    if a == 0:
        return Play()
    if kind == Kind.JOKERS and layout.size[a] == 1:
        return Play((), (0, 0))
    if not layout.rules.exact_plays or kind not in (Kind.SET, Kind.RUN):
        raise ValueError(f"{layout.name(a)} is no exact submission of these rules")
    rank, suit, joker = int(layout.rank[a]), int(layout.suit[a]), int(layout.card[a])
    if kind == Kind.SET:
        cards = tuple((NUM_SUITS - 1 - u, rank + 1) for u in range(NUM_SUITS) if suit >> u & 1)
        if joker < 0:
            return Play(cards)
        return Play(cards, (ROW_OF_JOKER if joker == JOKER_ROW else NUM_SUITS - 1 - joker,
                            rank + 1))
    row = NUM_SUITS - 1 - suit
    cells = [(row, rank + 1 + i) for i in range(int(layout.size[a]))]
    if joker < 0:
        return Play(tuple(cells))
    return Play(tuple(c for i, c in enumerate(cells) if i != joker), cells[joker])


@dataclass(frozen=True)
class Mismatch:
    """The first difference in a game: ``index`` the submission's place in the ``play`` line."""

    game: int
    index: int
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"game {self.game} #{self.index}: {self.kind}: {self.detail}"


@dataclass
class ReplayResult:
    """What :func:`replay_log` went through."""

    games: int = 0
    identical: int = 0
    submissions: int = 0
    refused: int = 0
    stalemates: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def kinds(self) -> Counter[str]:
        return Counter(m.kind for m in self.mismatches)


def game_hands(game: UecdaGame) -> npt.NDArray[np.int8]:
    """The engine's first-deal hands ``[5, 53]``: seat s holds player ``seats[s]``'s hand after
    the exchange."""
    out = np.zeros((NUM_PLAYERS, JOKER + 1), np.int8)
    hands = hands_after_exchange(game)
    for s, player in enumerate(game.seats):
        out[s] = counts_of(hands[player].cards, hands[player].joker)
    return out


def replay_game(engine: Engine, game: UecdaGame, refused: Collection[tuple[int, int]],
                steps: list[tuple[int, int]] | None = None) -> Mismatch | None:
    """Replay one game (see the module's docstring); ``None`` when identical. ``steps``, if
    given, receives the engine's (seat, action id) of each move (up to a mismatch)."""
    layout = engine.layout
    seat_of = {p: s for s, p in enumerate(game.seats)}
    one = OneGame(engine, engine.init_from_hands(game_hands(game)[None]))
    state = one.state
    passes = 0
    gone: list[int] = []  # players out, in order
    for k, move in enumerate(game.moves):
        def miss(kind: str, detail: str, k: int = k) -> Mismatch:
            return Mismatch(game.number, k, kind, detail)

        if one.current < 0:
            return miss("early_end", f"the engine's deal ended before player {move.player}'s "
                        "submission")
        mover = game.seats[one.current]
        if move.player != mover:
            return miss("mover", f"player {move.player} moved, the engine has player {mover}")
        a = action_for(layout, move)
        if (game.number, k) in refused:
            if a is not None and a != 0 and one.mask[a]:
                return miss("refused_legal", f"the server refused {layout.name(a)}, legal here")
            a = 0
        elif a is None:
            return miss("no_action", f"no engine action for {move.cards!r} {move.joker_as}")
        elif not one.mask[a]:
            return miss("illegal", f"{layout.name(a)} by player {move.player} is masked")
        if a == 0 and not one.mask[0]:
            return miss("lead_pass", f"player {move.player} passes on an empty field (a "
                        f"{'refused play' if move.cards is not None else 'pass'}; "
                        "lead_may_pass is off)")
        passes = passes + 1 if a == 0 else 0
        if steps is not None:
            steps.append((one.current, a))
        one.step(a)
        for s in range(NUM_PLAYERS):
            if game.seats[s] not in gone and state.hands[0, s].sum() == 0 and passes == 0:
                gone.append(game.seats[s])
    if one.current >= 0:
        return Mismatch(game.number, len(game.moves), "late_end",
                        "the log's game ended, the engine's deal goes on")
    if passes >= STALEMATE:
        if passes != STALEMATE or tuple(gone) != game.result[:len(gone)]:
            return Mismatch(game.number, len(game.moves), "stalemate",
                            f"{passes} passes at the end, out before {gone}, logged "
                            f"{game.result}")
        return None
    order = [game.seats[s] for s in np.argsort(state.title[0])]
    if tuple(order) != game.result:
        return Mismatch(game.number, len(game.moves), "result",
                        f"engine {tuple(order)}, logged {game.result} (seats {seat_of})")
    return None


def replay_log(log: UecdaLog, refused: Collection[tuple[int, int]], games: int | None = None,
               rules: Rules | None = None, records: str | os.PathLike[str] | None = None,
               name: str = "uecda") -> ReplayResult:
    """Replay the first ``games`` games of ``log`` (all by default) through the engine;
    with ``records`` (a folder), write the game record of each game replayed identically there
    (``<name>-<game>.json``, :mod:`president_env.records`; the players' names as logged)."""
    engine = Engine(rules_for(log.settings) if rules is None else rules)
    if records is not None:
        Path(records).mkdir(parents=True, exist_ok=True)
    out = ReplayResult()
    for game in log.games[:games]:
        out.games += 1
        out.submissions += len(game.moves)
        out.refused += sum((game.number, k) in refused for k in range(len(game.moves)))
        steps: list[tuple[int, int]] = []
        miss = replay_game(engine, game, refused, steps)
        if miss is None:
            out.identical += 1
            out.stalemates += sum(a == 0 for _, a in steps[-STALEMATE:]) == STALEMATE
            if records is not None:
                write_record(engine, log, game, steps, Path(records) / f"{name}-{game.number:05d}.json")
        else:
            out.mismatches.append(miss)
    return out


def write_record(engine: Engine, log: UecdaLog, game: UecdaGame, steps: Sequence[tuple[int, int]],
                 path: Path) -> Path:
    """Save the engine's record of a replayed game (its hands, every (seat, action))."""
    state = engine.init_from_hands(game_hands(game)[None])
    recorder = GameRecorder(engine.rules, state, players=[log.players[p] for p in game.seats],
                            meta={"uecda_game": game.number, "uecda_seats": list(game.seats)})
    for seat, a in steps:
        recorder.add(seat, a)
        engine.step_inplace(state, [a])
    return recorder.finish(state).save(path)


def rejected_path(path: str | os.PathLike[str]) -> Path:
    """The refused submissions beside a log: ``X.rejected.txt`` for ``X.log`` or ``X.log.gz``."""
    p = Path(path)
    name = p.name
    for ext in (".gz", ".log"):
        name = name.removesuffix(ext)
    return p.with_name(name + ".rejected.txt")


def replay_file(path: str | os.PathLike[str], games: int | None = None,
                records: str | os.PathLike[str] | None = None) -> ReplayResult:
    """:func:`replay_log` of a log file, with its ``.rejected.txt`` if there is one."""
    rej = rejected_path(path)
    refused = read_refused(rej) if rej.exists() else frozenset()
    name = rejected_path(path).name.removesuffix(".rejected.txt")
    return replay_log(read_log(path), refused, games, records=records, name=name)


def summary(result: ReplayResult, name: str = "") -> str:
    """One line: games, identical, and the mismatches by class."""
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(result.kinds.items()))
    return (f"{name}{': ' if name else ''}{result.games} games, {result.identical} replayed "
            f"identically ({result.submissions} submissions, {result.refused} refused)"
            + (f"; mismatches: {kinds}" if kinds else ""))


__all__: Sequence[str] = ("Mismatch", "ReplayResult", "action_for", "action_play", "game_hands",
                          "play_action", "replay_file", "replay_game", "replay_log", "rules_for",
                          "summary", "write_record")
