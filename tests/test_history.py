"""The history observation (``observation="history"``) and the state fields it shows.

* Scripted deals (``observation="history"``), on the engine and on the reference alike: the
  exact ``seat_played``,
  ``seat_passed`` and ``recent`` after each move (a set, a run, jokers, passes on a pair of 9s,
  on a run and on jokers alone, more than 8 moves so that ``recent`` shifts, the reset at a new
  deal and nothing for the exchange), the key of a pass for every size of set.
* The blocks: their exact entries in a scripted position (seats relative to the observer), and
  in random positions of every preset the blocks rebuilt from the fields.
* The standard observation is unchanged: the same seeds play the same games under either
  option, and the standard observation is the prefix of the history one. Under
  ``"standard"`` the three fields are not kept: the engine makes them of size 0 (a 4-player
  game: 720 bytes, not 1,176); an engine with the history refuses such a state, a standard
  engine plays a state with the history as one without.
* Nothing hidden: dealing the other seats' cards again among them changes no observation.
* The adapters (AEC, vector, single agent) give the blocks through their fused paths;
  PettingZoo's ``api_test`` and Gymnasium's ``check_env`` pass.
* The table: a policy made for the standard observation plays at a history table as at a
  standard one (it is handed the prefix); a policy made for the history observation at a
  standard table is refused.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterator
from typing import Any, Protocol

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test
from test_env import strict_api_test  # noqa: F401  (a fixture)
from test_variants_env import _shuffle_others

from agents import make_agent
from president_env import SingleAgentEnv, VectorEnv, env, raw_env
from president_env.core.actions import ActionLayout
from president_env.core.cards import NUM_CARDS, NUM_RANKS, parse_hand
from president_env.core.engine import PHASE_DONE, PHASE_EXCHANGE, PHASE_PLAY, Engine, State
from president_env.core.observe import (
    MOVE_KINDS,
    ObsBlock,
    ObservationLayout,
    history_bounds,
    move_width,
)
from president_env.core.rules import OPTIONS, PRESET_PLAYERS, PRESETS, Rules
from president_env.search import positions as P
from president_env.table import Table, check_rules, rule_differences
from president_env.testing.compare import state_differences
from president_env.testing.reference import ReferenceGame

HISTORY = ("seat_played", "seat_passed", "recent")
BLOCKS = tuple(b.name.lower() for b in (ObsBlock.SEAT_PLAYED, ObsBlock.SEAT_PASSED,
                                          ObsBlock.RECENT))
NONE = [-1, -1]


# ------------------------------------------------------------------------------ two implementations
class Game(Protocol):
    layout: ActionLayout

    def step(self, name: str) -> None: ...

    def fields(self) -> dict[str, Any]: ...

    def phase(self) -> str: ...

    def legal(self) -> list[int]: ...


class EngineGame:
    def __init__(self, rules: Rules, hands: list[str], seed: int = 0) -> None:
        self.engine = Engine(rules)
        self.layout = self.engine.layout
        self.ids = {n: i for i, n in enumerate(self.layout.names())}
        self.state = self.engine.init_from_hands(hands, seed=seed)

    def step(self, name: str) -> None:
        self.engine.step_inplace(self.state, [self.ids[name]])

    def fields(self) -> dict[str, Any]:
        return {f: getattr(self.state, f)[0].tolist() for f in HISTORY}

    def phase(self) -> str:
        return {PHASE_EXCHANGE: "exchange", PHASE_PLAY: "play", PHASE_DONE: "done"}[
            int(self.state.phase[0])]

    def legal(self) -> list[int]:
        return np.flatnonzero(self.engine.legal_action_mask(self.state)[0]).tolist()


class ReferenceGameOf:
    def __init__(self, rules: Rules, hands: list[str], seed: int = 0) -> None:
        self.ref = ReferenceGame(rules, hands=np.stack([parse_hand(h) for h in hands]), seed=seed)
        self.layout = self.ref.layout
        self.ids = {n: i for i, n in enumerate(self.layout.names())}

    def step(self, name: str) -> None:
        self.ref.step(self.ids[name])

    def fields(self) -> dict[str, Any]:
        return {f: getattr(self.ref, f) for f in HISTORY}

    def phase(self) -> str:
        return self.ref.phase

    def legal(self) -> list[int]:
        return self.ref.legal_actions()


@pytest.fixture(params=["engine", "reference"])
def make_game(request: pytest.FixtureRequest) -> type:
    return EngineGame if request.param == "engine" else ReferenceGameOf


def _cards(text: str) -> list[int]:
    return [int(n) for n in parse_hand(text)] if text else [0] * NUM_CARDS


def _passes(keys: list[int]) -> list[int]:
    row = [0] * NUM_CARDS
    for k in keys:
        row[k] = 1
    return row


# ------------------------------------------------------------------------------ scripted deals
RULES_A = Rules(num_players=3, runs=True, jokers=1, deals=2, observation="history")
HANDS_A = ["3c 4h 5h 6h 9c 9d JK Kc", "7s 10c 10d Qs", "Jc Jd 8s As 5c 6c 7c"]
NINE, JACK = 6, 8  # ranks (3 is rank 0)
SCRIPT_A = [  # (seat, action): seat 0 holds the 3 of clubs and leads
    (0, "pair of 9"), (1, "pass"), (2, "pair of J"), (0, "pass"), (1, "pass"),  # 1-5
    (2, "run 5-6-7 of clubs"), (0, "pass"), (1, "pass"),  # 6-8: passes on a run
    (2, "single 8"), (0, "single joker"), (1, "pass"), (2, "pass"),  # 9-12: on jokers alone
    (0, "run 4-5-6 of hearts"), (1, "pass"), (2, "pass"),  # 13-15
    (0, "single K"), (1, "pass"), (2, "single A"),  # 16-18: seat 2 goes out first
    (0, "pass"), (1, "pass"), (0, "single 3"),  # 19-21: seat 0 goes out, the deal ends
]


def _recent(game: Game, moves: list[tuple[int, str]]) -> list[list[int]]:
    """``recent`` after ``moves`` (oldest first): the last 8, most recent first."""
    ids = {n: i for i, n in enumerate(game.layout.names())}
    last = [[seat, ids[name]] for seat, name in reversed(moves)][:8]
    return last + [NONE] * (8 - len(last))


def test_a_scripted_deal_keeps_the_exact_history(make_game: type) -> None:
    game: Game = make_game(RULES_A, HANDS_A, seed=5)
    for n, (_seat, name) in enumerate(SCRIPT_A[:2], start=1):
        game.step(name)
        got = game.fields()
        assert got["recent"] == _recent(game, SCRIPT_A[:n])
    # after a pair of 9s and a pass on it
    got = game.fields()
    assert got["seat_played"] == [_cards("9c 9d"), _cards(""), _cards("")]
    assert got["seat_passed"] == [_passes([]), _passes([NUM_RANKS + NINE]), _passes([])]

    for _seat, name in SCRIPT_A[2:12]:
        game.step(name)
    got = game.fields()  # 12 moves: the first four have left ``recent``
    assert got["recent"] == _recent(game, SCRIPT_A[:12])
    assert got["recent"][-1] == _recent(game, SCRIPT_A[4:5])[0]  # move 5, seat 1's pass
    assert got["seat_played"] == [_cards("9c 9d JK"), _cards(""), _cards("Jc Jd 5c 6c 7c 8s")]
    pair_of_jacks = NUM_RANKS + JACK
    assert got["seat_passed"] == [
        _passes([pair_of_jacks, 52]),  # on the jacks, on the run
        _passes([NUM_RANKS + NINE, pair_of_jacks, 52]),  # nines, jacks, run (and jokers: 52)
        _passes([52]),  # on jokers alone
    ]

    for _seat, name in SCRIPT_A[12:20]:
        game.step(name)
    got = game.fields()
    assert got["seat_played"] == [_cards("9c 9d JK 4h 5h 6h Kc"), _cards(""),
                                  _cards("Jc Jd 5c 6c 7c 8s As")]
    assert got["recent"] == _recent(game, SCRIPT_A[:20])
    assert got["seat_passed"][1][NUM_RANKS * 0 + 11] == 1  # a single A (rank 11)
    assert got["seat_passed"][1][NUM_RANKS * 0 + 10] == 1  # a single K

    game.step(SCRIPT_A[20][1])  # seat 0's last card: the deal ends, the next one starts
    assert game.phase() == "exchange"
    empty = {"seat_played": [_cards("")] * 3, "seat_passed": [_passes([])] * 3,
             "recent": [NONE] * 8}
    assert game.fields() == empty
    while game.phase() == "exchange":  # the gives of the exchange are not moves
        game.step(game.layout.name(game.legal()[0]))
        assert game.fields() == empty
    first = game.layout.name(game.legal()[-1])
    game.step(first)
    assert game.fields()["recent"][0][1] == game.layout.names().index(first)
    assert game.fields()["recent"][1:] == [NONE] * 7


PASS_KEYS_CASES = [  # (the leader's play, the key of a pass on it)
    ("single 9", NINE),
    ("pair of 9", NUM_RANKS + NINE),
    ("three 9s", 2 * NUM_RANKS + NINE),
    ("four 9s", 3 * NUM_RANKS + NINE),
    ("5 x 9", 3 * NUM_RANKS + NINE),  # four and more alike
    ("single joker", 52),
    ("run 3-4-5 of clubs", 52),
]


@pytest.mark.parametrize(("play", "key"), PASS_KEYS_CASES)
def test_a_pass_sets_the_key_of_the_top_play(make_game: type, play: str, key: int) -> None:
    game: Game = make_game(Rules(num_players=3, runs=True, jokers=1, observation="history"),
                           ["3c 4c 5c 9c 9d 9h 9s JK Ah", "Kd Qd", "Kh Qh"])
    game.step(play)
    game.step("pass")
    got = game.fields()
    assert got["seat_passed"] == [_passes([]), _passes([key]), _passes([])]
    ids = game.layout.names()
    assert got["recent"][:3] == [[1, 0], [0, ids.index(play)], NONE]


def test_the_history_survives_the_last_deal(make_game: type) -> None:
    game: Game = make_game(Rules(num_players=3, observation="history"), ["3c 4c", "5c", "6c"])
    for name in ("single 3", "single 5", "single 6"):  # seats 0, 1 (out), 2 (out): over
        game.step(name)
    assert game.phase() == "done"
    got = game.fields()
    assert got["seat_played"] == [_cards("3c"), _cards("5c"), _cards("6c")]
    assert [m[0] for m in got["recent"][:4]] == [2, 1, 0, -1]


# ------------------------------------------------------------------------------ observation blocks
def test_the_blocks_of_a_scripted_position_for_every_observer() -> None:
    rules = RULES_A
    game = EngineGame(rules, HANDS_A, seed=5)
    for _seat, name in SCRIPT_A[:12]:
        game.step(name)
    layout = ObservationLayout(rules)
    p, w = 3, move_width(3)
    for me in range(p):
        blocks = layout.split(game.engine.observe(game.state, [me])[0])
        for k in range(p):
            q = (me + k) % p
            assert blocks["seat_played"][k * 53:(k + 1) * 53].tolist() == game.fields()[
                "seat_played"][q]
            assert blocks["seat_passed"][k * 53:(k + 1) * 53].tolist() == game.fields()[
                "seat_passed"][q]
        recent = blocks["recent"].reshape(8, w)
        last = recent[0]  # move 12: seat 2 passes
        assert np.flatnonzero(last).tolist() == [(2 - me) % p, p + 0]
        joker = recent[2]  # move 10: seat 0, a single joker: no rank, 1 card
        assert np.flatnonzero(joker[:p]).tolist() == [(0 - me) % p]
        assert np.flatnonzero(joker[p:p + MOVE_KINDS]).tolist() == [2]
        assert not joker[p + MOVE_KINDS:p + MOVE_KINDS + NUM_RANKS].any()
        assert joker[-1] == pytest.approx(1 / 8)
        run = recent[6]  # move 6: seat 2, run 5-6-7 of clubs
        assert np.flatnonzero(run).tolist() == [(2 - me) % p, p + 3, p + MOVE_KINDS + 2, w - 1]
        assert run[-1] == pytest.approx(3 / 8)
        on_run = recent[4]  # move 8: seat 1 passes on the run
        assert np.flatnonzero(on_run).tolist() == [(1 - me) % p, p]


def expected_blocks(state: State, b: int, me: int, layout: ActionLayout) -> np.ndarray:
    """The three history blocks of seat ``me`` in game ``b``, rebuilt from the state (seat k:
    the k-th to its left round the table, ``State.seat_of``)."""
    p = state.num_players
    seat_of = state.seat_of[b].tolist()
    order = [seat_of.index((seat_of[me] + k) % p) for k in range(p)]
    recent = np.zeros((8, move_width(p)), np.float32)
    for i, (seat, action) in enumerate(state.recent[b].tolist()):
        if seat < 0:
            continue
        kind, rank, size = (int(t[action]) for t in (layout.kind, layout.rank, layout.size))
        recent[i, (seat_of[seat] - seat_of[me]) % p] = 1
        recent[i, p + kind] = 1
        if kind in (1, 3):
            recent[i, p + MOVE_KINDS + rank] = 1
        recent[i, -1] = size / 8 if kind else 0
    return np.concatenate([state.seat_played[b, order].ravel(), state.seat_passed[b, order].ravel(),
                           recent.ravel()]).astype(np.float32)


def walk(rules: Rules, games: int, seed: int, every: int = 1) -> Iterator[tuple[Engine, State]]:
    """Random games of ``rules`` played together, yielded before every ``every``-th step."""
    engine = Engine(rules)
    state = engine.init(np.arange(games) + 100 * seed)
    rng = np.random.default_rng(seed)
    for k in range(5000):
        if (state.phase == PHASE_DONE).all():
            return
        if k % every == 0:
            yield engine, state
        actions = engine.sample_random(engine.legal_action_mask(state), rng)
        engine.step_inplace(state, np.maximum(actions, 0))
    raise AssertionError("the games did not end")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_blocks_show_the_fields_in_random_positions(preset: str) -> None:
    rules = Rules.preset(preset, num_players=5, deals=2, observation="history")
    lay = ObservationLayout(rules)
    start = lay.slices["seat_played"].start
    assert lay.slices["recent"].stop == lay.size  # the history blocks come last
    seen = np.zeros(3, np.int64)
    for engine, state in walk(rules, 6, seed=1, every=3):
        me = np.arange(state.batch_size) % rules.num_players
        obs = engine.observe(state, me)
        for b in range(state.batch_size):
            want = expected_blocks(state, b, int(me[b]), engine.layout)
            assert np.array_equal(obs[b, start:], want)
        seen += [state.seat_played.any(), state.seat_passed.any(), (state.recent >= 0).any()]
    assert (seen > 0).all()


def test_the_bounds_of_the_blocks_hold_every_entry() -> None:
    for rules in (Rules.preset("daifugo", num_players=7, observation="history"),
                  Rules.preset("runs", observation="history")):
        bounds = history_bounds(rules)
        for engine, state in walk(rules, 8, seed=2, every=5):
            blocks = engine.obs_layout.split(engine.observe(state))
            for name in BLOCKS:
                assert blocks[name].max() <= bounds[name], name
    assert history_bounds(Rules.preset("daifugo", num_players=7))["seat_played"] == 4  # jokers
    assert history_bounds(Rules.preset("runs"))["recent"] == pytest.approx(13 / 8)


# ------------------------------------------------------------------------------ nothing else changes
SAME_GAME_RULES = [
    Rules.preset("standard"),
    Rules.preset("daifugo", num_players=6, deals=3),
    Rules.preset("daifugo_full", num_players=8, deals=2, western_revolution=True,
                 president_asks=True),
    Rules.preset("cardverse", num_players=3, deals=2, runs=True, runs_mixed_suits=True),
]


@pytest.mark.parametrize("rules", SAME_GAME_RULES, ids=lambda r: r.preset_name)
def test_the_same_seeds_play_the_same_games_and_the_standard_view_is_the_prefix(
    rules: Rules,
) -> None:
    plain, hist = Engine(rules), Engine(rules.replace(observation="history"))
    a, b = plain.init(np.arange(64)), hist.init(np.arange(64))
    size = plain.obs_size
    assert hist.obs_size == size + rules.num_players * 106 + 8 * move_width(rules.num_players)
    for _ in range(12):
        assert _same_but_history(a, b)  # the history fields are kept under "history" only
        assert _history_is_reset(a)
        for seat in range(rules.num_players):
            o_plain, o_hist = plain.observe(a, np.full(64, seat)), hist.observe(b, np.full(64, seat))
            assert np.array_equal(o_hist[:, :size], o_plain)
        ra, rb = np.random.default_rng(3), np.random.default_rng(3)
        plain.play_random(a, 9, ra)
        hist.play_random(b, 9, rb)
    assert (b.recent >= 0).any() and b.seat_played.any() and b.seat_passed.any()


STATE_FIELDS = tuple(f.name for f in dataclasses.fields(State) if f.init)


def _same_but_history(a: State, b: State) -> bool:
    """Whether two states agree on every field but the three of the history."""
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in STATE_FIELDS
               if f not in HISTORY)


def _history_is_reset(state: State) -> bool:
    """Whether the history fields hold their values of a deal's start (zeros, ``recent`` -1)."""
    return (not state.seat_played.any() and not state.seat_passed.any()
            and bool((state.recent == -1).all()))


@pytest.mark.parametrize("preset", ["standard", "daifugo_full"])
def test_under_the_standard_observation_the_history_fields_are_not_kept(preset: str) -> None:
    rules = Rules.preset(preset, num_players=5, deals=3)
    assert rules.observation == "standard"
    steps = 0
    for _engine, state in walk(rules, 6, seed=6):  # batched steps, over several deals
        assert _history_is_reset(state), steps
        steps += 1
    assert steps > 100
    engine = Engine(rules)  # one game through ``advance`` (the adapters' one-call path)
    state = engine.init([11])
    mask, obs = np.zeros(engine.num_actions, np.int8), np.zeros(engine.obs_size, np.float32)
    rng = np.random.default_rng(0)
    cur, steps = engine.advance(state, -1, mask, obs), 0
    while cur >= 0:
        cur = engine.advance(state, int(rng.choice(np.flatnonzero(mask))), mask, obs)
        assert _history_is_reset(state), steps
        steps += 1
    assert steps > 50 and state.phase[0] == PHASE_DONE


def test_the_option_is_drawn_by_random_rules_and_ignored_when_comparing_rules() -> None:
    assert set(OPTIONS["observation"].test_values()) == {"standard", "history", "record"}
    with pytest.raises(ValueError, match="observation must be 'standard', 'history' or 'record', got 'full'"):
        Rules(observation="full")  # type: ignore[arg-type]
    std, hist = Rules.preset("standard"), Rules.preset("standard", observation="history")
    assert rule_differences(std, hist) == {}
    assert rule_differences(std, hist.replace(jokers=1)) == {"jokers": (0, 1)}


@pytest.mark.parametrize("observation", ["standard", "history", "record"])
def test_the_comparison_with_the_reference_reports_a_wrong_history(observation: str) -> None:
    rules = Rules(num_players=3, observation=observation)  # type: ignore[arg-type]
    hands = ["3c 4c 9d", "5c Kd", "6c Qd"]
    engine = Engine(rules)
    state = engine.init_from_hands(hands)
    ref = ReferenceGame(rules, hands=np.stack([parse_hand(h) for h in hands]))
    engine.step_inplace(state, [1])
    ref.step(1)
    assert state_differences(state, 0, ref) == []
    if observation == "standard":  # not kept, so not compared (the engine's have size 0)
        assert state.seat_played.size == state.seat_passed.size == state.recent.size == 0
        full = Engine(rules.replace(observation="history")).init_from_hands(hands)
        engine.step_inplace(full, [1])  # a standard engine leaves a full history alone
        full.recent[0, 1, 1] = 2
        full.seat_played[0, 1, 1] = 1
        assert state_differences(full, 0, ref) == []
        return
    for name, value in (("recent", 2), ("seat_played", 1), ("seat_passed", 1)):
        wrong = state.copy()
        getattr(wrong, name)[0, 1, 1] = value
        assert any(d.startswith(name) for d in state_differences(wrong, 0, ref)), name


# ------------------------------------------------------------------------------ memory
def _per_game(state: State, fields: tuple[str, ...] = STATE_FIELDS) -> float:
    return sum(getattr(state, f).nbytes for f in fields) / state.batch_size


@pytest.mark.parametrize("num_players", [4, 8])
@pytest.mark.parametrize("preset", ["standard", "daifugo"])
def test_without_the_history_option_the_state_holds_no_history(preset: str,
                                                                 num_players: int) -> None:
    rules = Rules.preset(preset, num_players=num_players)
    others = tuple(f for f in STATE_FIELDS if f not in HISTORY)
    assert len(others) == 33
    p = num_players
    states = [Engine(rules).init(np.arange(16)), Engine(rules).init_from_hands(
        Engine(rules).init(np.arange(16)).hands, seed=np.arange(16)), State.zeros(16, p, False)]
    for state in states:
        assert state.seat_played.shape == state.seat_passed.shape == (16, p, 0)
        assert state.recent.shape == (16, 0, 2)
        assert not state.keeps_history
        assert _per_game(state) == _per_game(state, others)  # the history costs nothing
    full = Engine(rules.replace(observation="history")).init(np.arange(16))
    assert full.keeps_history and State.zeros(16, p).keeps_history  # (the default keeps it)
    assert full.seat_played.shape == full.seat_passed.shape == (16, p, NUM_CARDS)
    assert full.recent.shape == (16, 8, 2)
    history_bytes = 2 * p * NUM_CARDS + 8 * 2 * 2  # int8 [P,53] twice, int16 [8,2]
    assert _per_game(full) == _per_game(states[0]) + history_bytes
    if num_players == 4:
        assert _per_game(states[0]) == 720 and _per_game(full) == 1176


def _calls_with_a_state(engine: Engine, state: State) -> list[tuple[str, Any]]:
    """Every engine call that takes a state, as (name, call)."""
    b, rng = state.batch_size, np.random.default_rng(0)
    mask = np.zeros((b, engine.num_actions), np.bool_)
    obs = np.zeros((b, engine.obs_size), np.float32)
    one_mask = np.zeros(engine.num_actions, np.int8)
    one_obs = np.zeros(engine.obs_size, np.float32)
    first = np.zeros(b, np.int64)
    return [
        ("legal_action_mask", lambda: engine.legal_action_mask(state)),
        ("step", lambda: engine.step(state, first)),
        ("step_inplace", lambda: engine.step_inplace(state, first)),
        ("step_inplace unchecked", lambda: engine.step_inplace(state, first, check=False)),
        ("advance", lambda: engine.advance(state.take(0), -1, one_mask, one_obs)),
        ("observe", lambda: engine.observe(state)),
        ("reset_where", lambda: engine.reset_where(state, np.ones(b, np.bool_), np.arange(b))),
        ("play_random", lambda: engine.play_random(state, 5, rng)),
        ("next_views", lambda: engine.next_views(state, mask, obs)),
    ]


def test_a_history_engine_refuses_a_state_without_the_history() -> None:
    rules = Rules.preset("daifugo", num_players=4)
    hist = Engine(rules.replace(observation="history"))
    for state in (Engine(rules).init(np.arange(8)), State.zeros(8, 4, history=False)):
        before = state.copy()
        for name, call in _calls_with_a_state(hist, state):
            with pytest.raises(ValueError, match="made without the history"):
                call()
            assert state.equals(before), name  # nothing changed
    with pytest.raises(ValueError, match="keeps the deal's history and the other does not"):
        hist.init(np.arange(8)).put(np.arange(2), Engine(rules).init([1, 2]))


@pytest.mark.parametrize("preset", ["standard", "daifugo_full"])
def test_a_standard_engine_plays_a_state_with_the_history_as_one_without(preset: str) -> None:
    rules = Rules.preset(preset, num_players=5, deals=2)
    plain = Engine(rules)
    a = plain.init(np.arange(32))  # without the history
    b = Engine(rules.replace(observation="history")).init(np.arange(32))  # with it
    assert not a.keeps_history and b.keeps_history
    ra, rb = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(40):
        assert _same_but_history(a, b) and _history_is_reset(b)
        assert np.array_equal(plain.legal_action_mask(a), plain.legal_action_mask(b))
        assert np.array_equal(plain.observe(a), plain.observe(b))
        acts = plain.sample_random(plain.legal_action_mask(a), ra)
        assert np.array_equal(acts, plain.sample_random(plain.legal_action_mask(b), rb))
        plain.step_inplace(a, np.maximum(acts, 0))
        plain.step_inplace(b, np.maximum(acts, 0))
    plain.play_random(a, 30, ra)
    plain.play_random(b, 30, rb)
    for s in (a, b):
        plain.next_views(s, np.zeros((32, plain.num_actions), np.bool_),
                         np.zeros((32, plain.obs_size), np.float32), s.phase == PHASE_DONE,
                         np.arange(32))
    assert _same_but_history(a, b) and _history_is_reset(b)
    one_a, one_b = plain.init([7]), b.take(0)  # one game through ``advance`` (direct calls)
    one_b.put(slice(None), Engine(rules.replace(observation="history")).init([7]))
    ma, mb = np.zeros(plain.num_actions, np.int8), np.zeros(plain.num_actions, np.int8)
    oa, ob = np.zeros(plain.obs_size, np.float32), np.zeros(plain.obs_size, np.float32)
    cur = plain.advance(one_a, -1, ma, oa)
    assert plain.advance(one_b, -1, mb, ob) == cur
    rng = np.random.default_rng(1)
    while cur >= 0:
        act = int(rng.choice(np.flatnonzero(ma)))
        cur = plain.advance(one_a, act, ma, oa)
        assert plain.advance(one_b, act, mb, ob) == cur
        assert np.array_equal(ma, mb) and np.array_equal(oa, ob)
        assert _same_but_history(one_a, one_b) and _history_is_reset(one_b)


# ------------------------------------------------------------------------------ nothing hidden
@pytest.mark.parametrize("preset", ["standard", "daifugo"])
def test_a_seats_history_observation_does_not_see_the_others_hidden_cards(preset: str) -> None:
    rules = Rules.preset(preset, num_players=4, deals=2, observation="history")
    rng = np.random.default_rng(7)
    changed = 0
    for engine, state in walk(rules, 6, seed=4, every=4):
        for seat in range(rules.num_players):
            seats = np.full(state.batch_size, seat)
            before = engine.observe(state, seats)
            for g in range(state.batch_size):
                shuffled = _shuffle_others(state, g, seat, rng)
                changed += not np.array_equal(shuffled.hands, state.hands)
                assert np.array_equal(engine.observe(shuffled, seats), before), (seat, g)
    assert changed > 100


# ------------------------------------------------------------------------------ the adapters
def test_the_aec_env_gives_the_blocks_and_the_standard_prefix() -> None:
    hist = raw_env(preset="daifugo", num_players=4, deals=2, observation="history")
    plain = raw_env(preset="daifugo", num_players=4, deals=2)
    hist.reset(seed=9)
    plain.reset(seed=9)
    assert hist._game is not None and plain._game is not None
    game, size = hist._game, plain._game.engine.obs_size
    rng = np.random.default_rng(0)
    steps = 0
    for agent in hist.agent_iter():
        obs, _r, term, trunc, _i = hist.last()
        other = plain.observe(agent)
        assert np.array_equal(obs["observation"][:size], other["observation"])
        if term or trunc:
            hist.step(None)
            plain.step(None)
            continue
        seat = int(agent.split("_")[1])
        assert np.array_equal(obs["observation"], game.engine.observe(game.state, [seat])[0])
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        hist.step(action)
        plain.step(action)
        steps += 1
    assert steps > 50


def test_the_vector_env_gives_the_blocks_after_auto_resets() -> None:
    venv = VectorEnv(16, preset="standard", seed=3, observation="history")
    plain = VectorEnv(16, preset="standard", seed=3)
    obs, mask, _ = venv.reset()
    obs_p, _, _ = plain.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(120):
        assert np.array_equal(obs[:, :plain.obs_size], obs_p)
        state = venv._state
        assert state is not None
        assert np.array_equal(obs, venv.engine.observe(state, np.maximum(state.current, 0)))
        actions = venv.engine.sample_random(mask, rng)
        obs, mask, _r, terminated, _ = venv.step(actions)
        obs_p, _, _, _, _ = plain.step(actions)
        ended += int(terminated.sum())
    assert ended > 0


def test_the_single_agent_env_seats_standard_opponents_at_a_history_table() -> None:
    std = Rules.preset("standard")
    rules = std.replace(observation="history")
    envs = [SingleAgentEnv(rules=r, seat=1, opponents=[make_agent("hard", std)] * 3)
            for r in (rules, std)]
    (obs, _), (obs_p, _) = (e.reset(seed=4) for e in envs)
    rng = np.random.default_rng(2)
    done = False
    while not done:
        assert obs.shape == (Engine(rules).obs_size,)
        assert np.array_equal(obs[:len(obs_p)], obs_p)
        table = envs[0].table
        assert table is not None
        assert np.array_equal(obs, table.engine.observe(table.state, [1])[0])
        action = int(rng.choice(np.flatnonzero(envs[0].action_masks())))
        obs, r, term, trunc, _ = envs[0].step(action)
        obs_p, r_p, term_p, _, _ = envs[1].step(action)
        assert (r, term) == (r_p, term_p)
        done = term or trunc


API_PRESETS = ["standard", "revolution", "cardverse"]


@pytest.mark.usefixtures("strict_api_test")
@pytest.mark.parametrize("observation", ["history", "record"])
@pytest.mark.parametrize("preset", API_PRESETS)
def test_pettingzoo_api_with_the_history_observations(preset: str, observation: str) -> None:
    e = env(preset=preset, num_players=PRESET_PLAYERS[preset][0] + 1, deals=2,
            observation=observation, render_mode="ansi")
    api_test(e, num_cycles=150)


@pytest.mark.parametrize("observation", ["history", "record"])
@pytest.mark.parametrize("preset", API_PRESETS)
def test_gymnasium_check_env_with_the_history_observations(preset: str, observation: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = gymnasium.make("President-v0", preset=preset, seat="random", observation=observation,
                           illegal_action="penalty", render_mode="ansi")
        check_env(e.unwrapped)


# ------------------------------------------------------------------------------ the table
def _table_actions(rules: Rules, agent_rules: Rules, games: int) -> list[tuple[int, int, int]]:
    """(game, seat, action) of every move of ``games`` games of four hard agents made for
    ``agent_rules``, at a table of ``rules``."""
    engine = Engine(rules)
    agents = [make_agent("hard", agent_rules, seed=s) for s in range(2)]
    table = Table(engine, engine.init(np.arange(games) + 40), agents, [0, 1, 0, 1])
    moves: list[tuple[int, int, int]] = []

    def note(moved: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        moves.extend((int(g), int(seats[g]), int(actions[g])) for g in np.flatnonzero(moved))

    table.play_until_external(on_step=note)
    assert (table.state.phase == PHASE_DONE).all()
    return moves


@pytest.mark.parametrize("games", [1, 6], ids=["one game", "batch"])
def test_a_standard_policy_plays_the_same_at_a_history_table(games: int) -> None:
    std = Rules.preset("daifugo", deals=2)
    hist = std.replace(observation="history")
    baseline = _table_actions(std, std, games)
    assert _table_actions(hist, std, games) == baseline  # handed the standard prefix
    assert _table_actions(hist, hist, games) == baseline  # made for the history observation
    assert len(baseline) > 50 * games


def test_a_history_policy_at_a_standard_table_is_refused() -> None:
    std = Rules.preset("standard")
    agent = make_agent("hard", std.replace(observation="history"))
    with pytest.raises(ValueError, match=r"'hard #1' was made for observation='history'.*"
                                         r"observation 'standard'"):
        check_rules(agent, std, name="'hard #1'")
    engine = Engine(std)
    with pytest.raises(ValueError, match="made for observation='history'"):
        Table(engine, engine.init([0]), [agent], [0, 0, 0, 0])
    with pytest.raises(ValueError, match="made for observation='history'"):
        SingleAgentEnv(rules=std, opponents=[agent] * 3)
    check_rules(agent, std.replace(observation="history"))  # its own rules: fine
    check_rules(make_agent("hard", std), std.replace(observation="history"))


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_record_block_is_every_move_of_the_deal(preset: str) -> None:
    """Random games of every preset, each seat's view before every step: the record block is
    the deal's every play and pass in order (the seats in that seat's frame), empty at each
    deal's start, and the rest of the observation is the history observation."""
    lo, hi = PRESET_PLAYERS[preset]
    rules = Rules.preset(preset, num_players=min(hi, max(lo, 5)), deals=2, observation="record")
    p, games = rules.num_players, 6
    engine, plain = Engine(rules), Engine(rules.replace(observation="history"))
    state, twin = engine.init(np.arange(games)), plain.init(np.arange(games))
    rng = np.random.default_rng(7)
    mine: list[list[tuple[int, int]]] = [[] for _ in range(games)]
    deal = [0] * games
    longest = 0
    for k in range(5000):
        if (state.phase == PHASE_DONE).all():
            break
        for b in range(games):
            if state.deal[b] != deal[b]:  # a new deal: its record starts empty
                mine[b], deal[b] = [], int(state.deal[b])
        me = (np.arange(games) + k) % p
        obs = engine.observe(state, me)
        np.testing.assert_array_equal(obs[:, : plain.obs_size], plain.observe(twin, me))
        moves, n = P.record_moves(rules, obs)
        for b in range(games):
            seat_of = state.seat_of[b]  # (seat k: round the table, reseat_every in uecda)
            want = [((seat_of[s] - seat_of[me[b]]) % p, a) for s, a in mine[b]]
            assert [tuple(m) for m in moves[b, : n[b]].tolist()] == want
            assert (moves[b, n[b]:] == -1).all()
        longest = max(longest, int(n.max()))
        acts = np.maximum(engine.sample_random(engine.legal_action_mask(state), rng), 0)
        for g in np.flatnonzero((state.phase == PHASE_PLAY) & ~state.terminated):
            mine[g].append((int(state.current[g]), int(acts[g])))
        engine.step_inplace(state, acts)
        plain.step_inplace(twin, acts)
    assert (state.phase == PHASE_DONE).all() and longest > 20
