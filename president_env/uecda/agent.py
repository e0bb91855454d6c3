"""Our engine's agents at a UECda table: :class:`AgentChooser`.

An :class:`AgentChooser` is a :class:`~president_env.uecda.client.Chooser` that seats any agent
:func:`agents.load_agent` resolves (``hard``, ``expert``, ``normal``, ``easy``, ``random``, a
shipped policy or a checkpoint path) at the UECda client or at an in-process seat of our
server. It knows only what the client's :class:`~president_env.uecda.client.View` holds.

Per decision it rebuilds the engine's position (:func:`engine_position`): the ``uecda`` preset
for the view's rules (:func:`~president_env.uecda.replay.rules_for`, one deal, with the
observation the agent reads: ``"record"`` for the Expert), engine seat ``s`` holding player
``view.seats[s]`` (play goes seat 0, 1, 2, ... in both), dealt from the hands after the
exchange, as :mod:`president_env.uecda.replay` does with a log:

* our starting hand is our hand now and every card we played this game;
* each other player's is the cards it played this game and as many of the cards we have not
  seen as it holds now: an arbitrary split (sorted, or shuffled with ``split_seed``), except
  that the 3 of diamonds, when unseen, goes to the player who led the game (its holder
  leads). The observation of our seat does not depend on the split (a test builds it with two);

then it plays ``view.history`` through the engine (a pass or a refused play is the pass,
action 0), checking each mover and that each accepted play is legal in the engine's mask, and
takes our seat's observation and mask. The agent's action (``agent.act``) goes back to the
table by :func:`~president_env.uecda.replay.action_play`. Before it is sent, the engine's legal
set is compared with the server's (:func:`~president_env.uecda.moves.legal_plays` of the view):
a difference is a bug of ours; it is kept in ``disagreements`` and printed to stderr (raised
with ``strict``), and a play the server would refuse is replaced by the pass.

The exchange (``give``) is outside the engine's preset (one game a deal, no exchange): the
daifugo and fugo give back their **weakest cards that are neither an 8 (it clears the trick),
nor part of a pair or more of one rank, nor part of a run of three or more of one suit**,
weakest first (the lowest rank, then the server's row order); only when too few such cards are
held are the others taken, in the same order with the 8s last. The joker is never given.

The rebuilt position is the first deal of a new game; what the match told beside it goes into
the observation the agent reads (:func:`match_context`), as our engine's match would show it:
every seat's class (the ``title`` block) and the cards that left our hand in this game's
exchange and those that joined it (``gave``, ``received``; a daifugo or fugo cannot tell which
of its cards came from the exchange: its ``received`` stays empty).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from president_env.core.constants import JOKER
from president_env.core.engine import Engine
from president_env.core.observe import ObservationLayout
from president_env.core.one_game import OneGame
from president_env.core.rules import Rules
from president_env.uecda.client import View
from president_env.uecda.log import cell_id
from president_env.uecda.moves import CONTEST_RULES, EIGHT, ServerRules, legal_plays
from president_env.uecda.protocol import LOW_COLUMN, Cell, Hand, Play
from president_env.uecda.replay import action_play, counts_of, play_action, rules_for

DIAMOND_THREE = cell_id((2, LOW_COLUMN))
"""The engine's card id of the 3 of diamonds (its holder leads every game)."""


@dataclass
class Position:
    """The engine's game rebuilt from a view: ``game`` (its state after the history; ``obs`` and
    ``mask`` our seat's), ``seat`` (our engine seat) and ``hands`` (the hands it was dealt)."""

    game: OneGame
    seat: int
    hands: npt.NDArray[np.int8]

    @property
    def obs(self) -> npt.NDArray[np.float32]:
        return self.game.obs

    @property
    def mask(self) -> npt.NDArray[np.int8]:
        return self.game.mask


_ENGINES: dict[Rules, Engine] = {}


def engine_for(rules: Rules) -> Engine:
    """One engine per rules (their tables are built once)."""
    if rules not in _ENGINES:
        _ENGINES[rules] = Engine(rules)
    return _ENGINES[rules]


def played_counts(view: View) -> npt.NDArray[np.int8]:
    """The cards each player ``[5, 53]`` played in this game so far (``view.history``)."""
    played = np.zeros((len(view.seats), JOKER + 1), np.int8)
    for player, play in view.history:
        if play is not None:
            played[player] += counts_of(play.cards, play.joker is not None)
    return played


def starting_hands(view: View, split_seed: int | None = None) -> npt.NDArray[np.int8]:
    """The engine's first-deal hands ``[5, 53]`` for ``view`` (see the module docstring): seat
    ``s`` holds player ``view.seats[s]``'s cards played so far, ours the hand too, the others
    the unseen cards split by their counts (sorted, or shuffled with ``split_seed``)."""
    players = len(view.seats)
    played = played_counts(view)
    hands = played.copy()
    hands[view.player] += counts_of(view.hand.cards, view.hand.joker)
    unseen = [int(c) for c in np.flatnonzero(hands.sum(axis=0) == 0)]
    if split_seed is not None:
        random.Random(split_seed).shuffle(unseen)
    leader = view.history[0][0] if view.history else view.player
    if DIAMOND_THREE in unseen:
        unseen.remove(DIAMOND_THREE)
        unseen.insert(0, DIAMOND_THREE)
        order = [leader, *(p for p in range(players) if p != leader)]
    else:
        order = list(range(players))
    need = {p: 0 if p == view.player else view.counts[p] for p in range(players)}
    if sum(need.values()) != len(unseen):
        raise ValueError(f"the view is inconsistent: {len(unseen)} cards unseen, the other "
                         f"players hold {sum(need.values())}")
    for p in order:
        take, unseen = unseen[:need[p]], unseen[need[p]:]
        hands[p, take] = 1
    if hands[view.player].sum() - played[view.player].sum() != view.counts[view.player]:
        raise ValueError(f"the view is inconsistent: our hand has {len(view.hand)} cards, the "
                         f"counts say {view.counts[view.player]}")
    return hands[list(view.seats)]


def engine_position(view: View, rules: Rules, split_seed: int | None = None) -> Position:
    """The engine's game at ``view`` under ``rules`` (the ``uecda`` preset of the view's rules,
    with any observation): dealt from :func:`starting_hands`, ``view.history`` played through
    it. ValueError when the history does not replay (a mover or a play the engine does not
    have): a bug of ours or a view that no game gives."""
    engine = engine_for(rules)
    hands = starting_hands(view, split_seed)
    game = OneGame(engine, engine.init_from_hands(hands[None]))
    layout = engine.layout
    for k, (player, play) in enumerate(view.history):
        if game.current < 0 or view.seats[game.current] != player:
            who = "none (over)" if game.current < 0 else f"player {view.seats[game.current]}"
            raise ValueError(f"history #{k}: player {player} moved; the engine has {who}")
        a = 0 if play is None else play_action(layout, play)
        if a is None or not game.mask[a]:
            raise ValueError(f"history #{k}: player {player}'s {play} is not legal in the engine")
        game.step(a)
    seat = view.seats.index(view.player)
    if game.current != seat:
        raise ValueError(f"the engine has seat {game.current} to move, the view has us (seat "
                         f"{seat}, player {view.player})")
    return Position(game, seat, hands)


def match_context(view: View, layout: ObservationLayout, obs: npt.ArrayLike) -> np.ndarray:
    """``obs`` (our seat's, of the position rebuilt from ``view``, laid out by ``layout``) with
    the classes and this game's exchange filled in (the module docstring)."""
    out = np.array(obs, np.float32)
    if view.classes is None:  # a class-reset game: no classes, no exchange
        return out
    players = len(view.seats)
    ours = view.seats.index(view.player)
    seat_k = np.asarray(view.seats)[(ours + np.arange(players)) % players]  # k seats after ours
    title = np.zeros((players, players), np.float32)
    title[np.arange(players), np.asarray(view.classes)[seat_k]] = 1.0
    out[layout.slices["title"]] = title.reshape(-1)
    if view.dealt is not None:
        mine = (counts_of(view.hand.cards, view.hand.joker).astype(np.int64)
                + played_counts(view)[view.player])
        dealt = counts_of(view.dealt.cards, view.dealt.joker).astype(np.int64)
        out[layout.slices["gave"]] = np.maximum(dealt - mine, 0)
        out[layout.slices["received"]] = np.maximum(mine - dealt, 0)
    return out


def give_back(hand: Hand, count: int) -> Play:
    """The ``count`` cards the daifugo or fugo gives back (the module docstring's rule)."""
    cells = hand.cards
    by_rank: dict[int, int] = {}
    for _, column in cells:
        by_rank[column] = by_rank.get(column, 0) + 1

    def in_run(row: int, column: int) -> bool:
        return any(all((row, c) in cells for c in range(low, low + 3))
                   for low in range(column - 2, column + 1))

    def key(cell: Cell) -> tuple[bool, bool, int, int]:
        row, column = cell
        kept = by_rank[column] > 1 or in_run(row, column)
        return (kept or column == EIGHT, column == EIGHT, column, row)

    chosen = sorted(cells, key=key)[:count]
    if len(chosen) != count:
        raise ValueError(f"a hand of {len(cells)} natural cards cannot give back {count}")
    return Play(tuple(chosen))


def one_torch_thread() -> None:
    """Run torch's work on one thread, when a checkpoint loaded torch. A chooser decides one
    position at a time: a pool of threads only adds barriers, where its threads spin while
    another process holds the other core (a 5-player policy's forward took 10 ms on torch's 2
    threads, 1.3 ms on one, on a loaded 2-core machine; a 20-game match at ``tndhms``, 456 s)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


class AgentChooser:
    """One of our agents as a UECda chooser (the module docstring): ``spec`` as
    :func:`agents.load_agent` reads it, ``seed`` its seed. ``decisions`` counts the plays
    chosen, ``disagreements`` the engine's and the server's legal sets that differed (with
    ``strict``, the first raises a RuntimeError)."""

    def __init__(self, spec: str, seed: int = 0, *, strict: bool = False) -> None:
        self.spec = spec
        self.seed = seed
        self.strict = strict
        self.decisions = 0
        self.disagreements: list[str] = []
        self._agents: dict[ServerRules, object] = {}
        self._agent(CONTEST_RULES)  # a bad spec fails here, before any game

    def _agent(self, server_rules: ServerRules) -> object:
        from agents import load_agent  # the agents' compiled code only when seated

        if server_rules not in self._agents:
            self._agents[server_rules] = load_agent(self.spec, rules_for(server_rules), self.seed)
            one_torch_thread()
        return self._agents[server_rules]

    def rules(self, server_rules: ServerRules = CONTEST_RULES) -> Rules:
        """The engine's rules the agent decides under (with its observation)."""
        agent = self._agent(server_rules)
        own = getattr(agent, "rules", None)
        return own if isinstance(own, Rules) else rules_for(server_rules)

    def give(self, view: View, count: int) -> Play:
        return give_back(view.hand, count)

    def play(self, view: View) -> Play:
        agent = self._agent(view.rules)
        rules = self.rules(view.rules)
        pos = engine_position(view, rules)
        layout = pos.game.engine.layout
        obs = match_context(view, pos.game.engine.obs_layout, pos.obs)
        action = int(agent.act(obs, pos.mask))  # type: ignore[attr-defined]
        play = action_play(layout, action)
        self.decisions += 1
        server = legal_plays(view.hand, view.public, view.rules)
        server_actions = {play_action(layout, p) for p in server}
        engine_actions = {int(a) for a in np.flatnonzero(pos.mask)}
        if server_actions != engine_actions:
            names = {a: layout.name(a) if a is not None else "none" for a in
                     server_actions ^ engine_actions}
            what = (f"game {view.game}, {len(view.history)} submissions in: the server allows "
                    f"{sorted(names[a] for a in server_actions - engine_actions)}, the engine "
                    f"{sorted(names[a] for a in engine_actions - server_actions)}")
            self.disagreements.append(what)
            if self.strict:
                raise RuntimeError(f"legal sets differ: {what}")
            print(f"AgentChooser: legal sets differ: {what}", file=sys.stderr, flush=True)
            if play not in server and play_action(layout, play) not in server_actions:
                return Play()
        return play


__all__: Sequence[str] = ("AgentChooser", "Position", "engine_position",
                          "give_back", "match_context", "played_counts", "starting_hands")
