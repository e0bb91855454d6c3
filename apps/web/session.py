"""One game of the web app: a human seat at a :class:`~president_env.table.Table` of one game.

A :class:`WebGame` is made from a :class:`GameSpec` (rules, deal seed, the human's seat, the
agent in every other seat). The human is the table's one **external** seat: the seated policies
play with :meth:`Table.play_until_external` until the human is to act (or the game is over),
and the human's action goes through :meth:`Table.step_external`, so every action passes the
project's one gate. Each action becomes an *event* with a snapshot of what the human may see
after it (the page shows the opponents' moves one at a time from these snapshots).

A game is stored as its game record (:meth:`WebGame.record`: rules, seed, every ``(seat,
action)``, the players, and the game's id and human seat in ``meta.web``); the engine is
deterministic for a seed, so :meth:`WebGame.from_record` replays it to the same state (the
seated agents' later random choices may differ after a restore; nothing played is lost). A
saved game is also a record the replay viewer opens.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.pretrained import PRETRAINED
from president_env.core.actions import ActionLayout
from president_env.core.cards import NUM_SUITS
from president_env.core.constants import JOKER, PHASE_DONE, PHASE_EXCHANGE, Kind
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.records import GameRecord, Player, Step, finished_record
from president_env.render import title_name
from president_env.table import EXTERNAL, Policy, Table, table_rules

HUMAN = "human"
"""Name of the human seat in a :class:`GameSpec`."""
PHASES = ("exchange", "play", "over")
AgentResolver = Callable[[str, Rules, int], Policy]


class WebError(Exception):
    """A request the app refuses: ``status`` is the HTTP status, the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class GameSpec:
    """What a game is: its rules, deal seed, the human's seat and every seat's player."""

    rules: Rules
    seed: int
    human: int
    seats: tuple[str, ...]
    """One name per seat: :data:`HUMAN` at ``human``, an agent name (or checkpoint) elsewhere."""

    def __post_init__(self) -> None:
        p = self.rules.num_players
        if not 0 <= self.human < p:
            raise WebError(400, f"seat must be 0..{p - 1}, got {self.human}")
        if len(self.seats) != p:
            raise WebError(400, f"{p} players need {p} seats, got {len(self.seats)}")
        if self.seats[self.human] != HUMAN:
            raise WebError(400, f"seat {self.human} is the human's; it must be {HUMAN!r}")
        if not 0 <= self.seed < 2**63:
            raise WebError(400, f"seed must be 0..2**63-1, got {self.seed}")

    def to_dict(self) -> dict[str, Any]:
        return {"rules": self.rules.to_dict(), "seed": self.seed, "human": self.human,
                "seats": list(self.seats)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameSpec:
        return cls(Rules.from_dict(d["rules"]), int(d["seed"]), int(d["human"]),
                   tuple(str(s) for s in d["seats"]))

    def rotated(self) -> GameSpec:
        """The same deal with every player one seat further (the human too)."""
        p = self.rules.num_players
        seats = tuple(self.seats[(s - 1) % p] for s in range(p))
        return GameSpec(self.rules, self.seed, (self.human + 1) % p, seats)


def card_list(counts: npt.ArrayLike) -> list[int]:
    """Card ids of a hand (53 counts), a card held twice listed twice, lowest first."""
    c = np.asarray(counts)
    return [int(i) for i in np.repeat(np.arange(len(c)), np.maximum(c, 0).astype(np.int64))]


def match_key(layout: ActionLayout, action: int, cards: Sequence[int]) -> tuple[str, str]:
    """How the page matches selected cards to an action: by ranks for sets (any suits of the
    rank select the set), by exact cards for runs and gives (suits matter there)."""
    kind = int(layout.kind[action])
    if kind in (Kind.SET, Kind.JOKERS):
        return "rank", ",".join(str(min(c // NUM_SUITS, JOKER // NUM_SUITS)) for c in cards)
    return "card", ",".join(str(c) for c in cards)


class WebGame:
    """A game with one human seat (module docstring); not thread-safe (the store locks it)."""

    def __init__(self, game_id: str, spec: GameSpec, resolve: AgentResolver) -> None:
        self.id = game_id
        self.spec = spec
        rules = spec.rules
        others = [s for s in range(rules.num_players) if s != spec.human]
        policies = [resolve(spec.seats[s], rules, spec.seed + s + 1) for s in others]
        self.engine = Engine(table_rules(rules, policies))  # history for who reads it
        self.layout = self.engine.layout
        seat_policy = np.full(rules.num_players, EXTERNAL, np.int64)
        seat_policy[others] = np.arange(len(others))
        self.table = Table(self.engine, self.engine.init([spec.seed]), policies, seat_policy,
                           names=[spec.seats[s] for s in others])
        self.actions: list[tuple[int, int]] = []
        self._hands = self.state.hands[0].copy()
        self.pile_cards: list[int] = []
        self.said: dict[int, str] = {}
        self.deals: list[dict[str, Any]] = []
        """Results of the finished deals: places (0 = first) and scores after each."""
        self._events: list[dict[str, Any]] = []

    @property
    def state(self) -> State:
        return self.table.state

    @property
    def ply(self) -> int:
        """Actions taken so far (the page sends it back with a move: a stale one is refused)."""
        return len(self.actions)

    @property
    def over(self) -> bool:
        return int(self.state.phase[0]) == PHASE_DONE

    # ------------------------------------------------------------------ playing
    def start(self) -> list[dict[str, Any]]:
        """Let the agents play until the human is to act; the events of their moves."""
        return self._run_agents()

    def play(self, action: Any, ply: Any) -> list[dict[str, Any]]:
        """The human plays ``action`` (an id) seen at ``ply``; then the agents play until the
        human's next turn. Returns every event from the human's move on. A refused move
        (:class:`WebError`) changes nothing."""
        if type(action) is not int:
            raise WebError(400, f"action must be an integer action id, got {action!r}")
        if type(ply) is not int:
            raise WebError(400, f"ply must be an integer (the moves seen so far), got {ply!r}")
        if self.over:
            raise WebError(409, "the game is over: no more moves")
        if ply != self.ply:
            raise WebError(409, f"out of turn: the game is at move {self.ply}, this move was "
                                f"made at move {ply} (reload the game)")
        legal = self.legal_actions()
        if int(self.state.current[0]) != self.spec.human:
            raise WebError(409, "out of turn: it is not your turn")
        if action not in legal:
            what = (f"action {action} ({self.layout.name(action)})"
                    if 0 <= action < self.engine.num_actions else f"action {action}")
            names = ", ".join(self.layout.name(a) for a in legal)
            raise WebError(400, f"{what} is not legal now; legal: {names}")
        self._events = []
        self.table.step_external([0], [action])
        self._after_step(self.spec.human, action)
        return self._events + self._run_agents()

    def legal_actions(self) -> list[int]:
        """The human's legal actions now (empty when it is not the human's turn)."""
        rows, _, mask = self.table.pending()
        if len(rows) == 0 or int(self.state.current[0]) != self.spec.human:
            return []
        return [int(a) for a in np.flatnonzero(mask[0])]

    def _run_agents(self) -> list[dict[str, Any]]:
        self._events = []

        def hook(moved: Any, seats: Any, actions: Any) -> None:
            self._after_step(int(seats[0]), int(actions[0]))

        self.table.play_until_external(hook)
        return self._events

    def _after_step(self, seat: int, action: int) -> None:
        """Book-keeping after every action: the cards it played, the pile, the events."""
        kind = int(self.layout.kind[action])
        cards = [] if kind == Kind.PASS else card_list(
            self.layout.cards_for(action, self._hands[seat]))
        if kind in (Kind.SET, Kind.JOKERS, Kind.RUN):
            if not self.pile_cards:  # a lead: the last trick's words go
                self.said = {}
            self.pile_cards = cards
        name = self.layout.name(action)
        if kind == Kind.GIVE and seat != self.spec.human:  # which card is private
            name, cards = "returns a card", []
        self.said[seat] = name
        st = self.state
        if int(st.pile_kind[0]) == Kind.PASS:
            self.pile_cards = []
        self.actions.append((seat, action))
        self._hands = st.hands[0].copy()
        event: dict[str, Any] = {"ply": self.ply, "seat": seat, "name": name, "cards": cards}
        if st.deal_over[0]:
            result = {"deal": len(self.deals), "places": [int(t) for t in st.title[0]],
                      "scores": [int(s) for s in st.scores[0]]}
            self.deals.append(result)
            event["deal_over"] = result
            self.said, self.pile_cards = {}, []
        event["view"] = self.snapshot()
        self._events.append(event)

    # ------------------------------------------------------------------ restore
    def restore(self, actions: Sequence[Sequence[int]]) -> None:
        """Replay saved ``(seat, action)`` pairs from the deal (raises ValueError at the first
        one that is not that seat's turn or not legal)."""
        saved = self.table.seat_policy.copy()
        self.table.seat_policy[:] = EXTERNAL
        try:
            for k, pair in enumerate(actions):
                seat, action = (int(x) for x in pair)
                if int(self.state.current[0]) != seat:
                    raise ValueError(f"saved action {k}: seat {seat} is not to act")
                self.table.step_external([0], [action])
                self._after_step(seat, action)
        finally:
            self.table.seat_policy[:] = saved
            self.table.sync()
        self._events = []

    # ------------------------------------------------------------------ views
    def snapshot(self) -> dict[str, Any]:
        """What the human may see now: the table, every seat's public facts, their own hand."""
        st, p = self.state, self.spec.rules.num_players
        left = st.hands[0].sum(axis=-1)
        seats = [{
            "seat": s,
            "player": "you" if s == self.spec.human else self.spec.seats[s],
            "title": title_name(int(st.title[0, s]), p),
            "left": int(left[s]),
            "place": int(st.place[0, s]),
            "score": int(st.scores[0, s]),
            "passed": bool(st.passed[0, s]),
            "returns": int(st.to_return[0, s]),
            "said": self.said.get(s, ""),
        } for s in range(p)]
        pile = None
        if int(st.pile_kind[0]) != Kind.PASS:
            pile = {"cards": self.pile_cards, "by": int(st.last_player[0])}
        return {
            "phase": PHASES[int(st.phase[0])],
            "deal": int(st.deal[0]),
            "current": int(st.current[0]),
            "revolution": bool(st.revolution[0]),
            "pile": pile,
            "seats": seats,
            "hand": card_list(st.hands[0, self.spec.human]),
        }

    def view(self, events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The whole page state: snapshot, legal actions, exchange, results, events."""
        st, rules, human = self.state, self.spec.rules, self.spec.human
        hand = st.hands[0, human]
        legal = []
        for a in self.legal_actions():
            cards = [] if a == 0 else card_list(self.layout.cards_for(a, hand))
            how, key = match_key(self.layout, a, cards)
            legal.append({"id": a, "name": self.layout.name(a), "cards": cards,
                          "match": how, "key": key})
        out: dict[str, Any] = {
            "id": self.id,
            "ply": self.ply,
            "spec": self.public_spec(),
            "preset": rules.preset_name,
            "deals": rules.deals,
            "scoring": rules.scoring,
            "state": self.snapshot(),
            "legal": legal,
            "exchange": {
                "active": int(st.phase[0]) == PHASE_EXCHANGE,
                "gave": card_list(st.gave[0, human]),
                "received": card_list(st.received[0, human]),
            },
            "results": self.deals,
            "events": events or [],
        }
        if self.over:
            standing = self.engine.standings(st)[0]
            out["final"] = {"standings": [int(x) for x in standing],
                            "scores": [int(x) for x in st.scores[0]]}
        return out

    def public_spec(self) -> dict[str, Any]:
        """The spec as the page may see it: the deal's seed only once the game is over (the
        seed deals every hand, so while the game is played it would show the opponents')."""
        spec = self.spec.to_dict()
        if not self.over:
            del spec["seed"]
        return spec

    def record(self) -> GameRecord:
        """The game as a game record (:mod:`president_env.records`): rules, seed, every action;
        the result once the game is over; the web game's id and human seat in ``meta``."""
        players = tuple(Player("you", "human") if s == self.spec.human
                        else Player(n, "checkpoint" if n in PRETRAINED else "agent")
                        for s, n in enumerate(self.spec.seats))
        rec = GameRecord(self.spec.rules, self.spec.seed,
                         tuple(Step(s, a) for s, a in self.actions), players=players,
                         meta={"web": {"id": self.id, "human": self.spec.human}})
        return finished_record(rec) if self.over else rec

    @classmethod
    def from_record(cls, record: GameRecord, resolve: AgentResolver) -> WebGame:
        """A web game saved by :meth:`record`, replayed to where it was (ValueError if the
        record is not one)."""
        web = record.meta.get("web")
        if not isinstance(web, dict) or not isinstance(web.get("id"), str):
            raise ValueError("not a saved web game (no meta.web.id)")
        human = web.get("human")
        if type(human) is not int or record.players is None:
            raise ValueError("a saved web game names its players and the human seat")
        seats = tuple(HUMAN if s == human else p.name for s, p in enumerate(record.players))
        game = cls(web["id"], GameSpec(record.rules, record.seed, human, seats), resolve)
        game.restore([(st.seat, st.action) for st in record.steps])
        return game
