"""Game records (president_env.records) and the batched recorder (train.eval.recording).

A hand-written record replays step by step; every kind of broken record gives a RecordError
that says what and where; random games of every preset and player count round-trip through
JSON to the same places and scores; the batched recorder writes the same record as the
one-game recorder; the documented example in docs/records.md replays.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents import make_agent
from president_env import raw_env
from president_env.core import Engine, Rules
from president_env.core.constants import PHASE_DONE
from president_env.core.rules import PRESET_PLAYERS, PRESETS
from president_env.records import (
    FORMAT,
    VERSION,
    GameRecord,
    GameRecorder,
    Player,
    RecordError,
    Step,
    check,
    load_record,
    record_from_dict,
    record_from_json,
    replay,
    start_state,
    top_probs,
)
from president_env.seeding import game_seed
from president_env.table import Policy, RandomPolicy, Table
from train.eval.recording import BatchRecorder, Selection, parse_selection

ROOT = Path(__file__).resolve().parent.parent

TINY: dict[str, Any] = {
    "format": "president-game",
    "version": 1,
    "preset": "standard",
    "rules": {"num_players": 3, "deals": 1},
    "seed": "0",
    "hands": ["3c 5d", "4c", "5c"],
    "players": [{"name": "you", "kind": "human"}, {"name": "hard"}, {"name": "easy"}],
    "steps": [
        {"seat": 0, "action": 1, "name": "single 3"},
        {"seat": 1, "action": 5, "name": "single 4", "probs": [[5, 0.75], [0, 0.25]]},
        {"seat": 2, "action": 0, "name": "pass"},
        {"seat": 0, "action": 9, "name": "single 5"},
    ],
    "result": {"places": [[1, 0, 2]], "scores": [0, 2, 0], "standings": [1, 0, 2]},
}
"""Seat 0 leads its 3c, seat 1 beats it with its last card (President), seat 2 passes, seat 0
goes out with 5d (second); seat 2 is left with 5c (Bum). standard: president_vp scoring."""


def tiny(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(TINY)
    doc.update(changes)
    return doc


def random_games(rules: Rules, n: int, seed: int = 0) -> tuple[Table, BatchRecorder, list[Any]]:
    """``n`` seeded games of random play, every one recorded; also the places of every deal as
    the table saw them (per row), collected apart from the recorder."""
    engine = Engine(rules)
    seeds = np.random.SeedSequence(seed).generate_state(n, np.uint64)
    table = Table(engine, engine.init(seeds), [RandomPolicy(seed)], np.zeros(rules.num_players))
    rec = BatchRecorder(table, keep=n, meta=lambda row: {"row": row}, source="test")
    deal_places: list[list[list[int]]] = [[] for _ in range(n)]

    def hook(moved: Any, seats: Any, actions: Any) -> None:
        rec.on_step(moved, seats, actions)
        for row in np.flatnonzero(moved & table.state.deal_over):
            deal_places[row].append(table.state.title[row].tolist())

    table.play_until_external(hook)
    assert (table.state.phase == PHASE_DONE).all()
    return table, rec, deal_places


def recorded_game(rules: Rules, seed: int = 3) -> GameRecord:
    _, rec, _ = random_games(rules, 1, seed)
    return rec.records()[0]


# ---------------------------------------------------------------------------- hand-written
def test_tiny_record_replays_step_by_step() -> None:
    record = record_from_dict(TINY)
    assert record.rules == Rules.preset("standard", num_players=3)
    assert record.players == (Player("you", "human"), Player("hard"), Player("easy"))
    assert record.steps[1] == Step(1, 5, ((5, 0.75), (0, 0.25)))
    frames = list(replay(record))
    assert [(f.index, f.seat, f.name, f.cards) for f in frames] == [
        (0, 0, "single 3", "3c"), (1, 1, "single 4", "4c"), (2, 2, "pass", ""),
        (3, 0, "single 5", "5d"),
    ]
    assert [f.game_over for f in frames] == [False, False, False, True]
    assert frames[1].state.hands[0, 1].sum() == 0 and frames[1].state.place[0, 1] == 0
    assert frames[1].probs == ((5, 0.75), (0, 0.25))
    final = check(record)
    assert final.scores[0].tolist() == [0, 2, 0]
    assert start_state(record).hands[0].sum(axis=1).tolist() == [2, 1, 1]


def test_json_round_trip_and_files(tmp_path: Path) -> None:
    record = record_from_dict(TINY)
    again = record_from_json(record.to_json())
    assert again == record
    assert json.loads(record.to_json())["seed"] == "0"
    path = record.save(tmp_path / "g.json")
    assert load_record(path) == record
    assert not (tmp_path / "g.json.tmp").exists()
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "missing.json")


def test_recorder_from_given_hands_keeps_them() -> None:
    rules = Rules.preset("standard", num_players=3)
    engine = Engine(rules)
    state = engine.init_from_hands(["3c 5d", "4c", "5c"], seed=0)
    rec = GameRecorder(rules, state, players=["you", Player("hard"), "easy"])
    for seat, action in [(0, 1), (1, 5), (2, 0), (0, 9)]:
        engine.step_inplace(state, [action])
        rec.add(seat, action, probs=((5, 0.75), (0, 0.25)) if seat == 1 else None)
    record = rec.finish(state)
    assert record.hands == ("3c 5d", "4c", "5c")
    assert record.to_dict()["steps"] == TINY["steps"]
    assert record.result == record_from_dict(TINY).result


# ---------------------------------------------------------------------------- broken records
@pytest.mark.parametrize(
    ("doc", "where", "pattern"),
    [
        ([1, 2], None, "a record is a JSON object"),
        (tiny(format="chess-game"), "format", "expected 'president-game'"),
        (tiny(version=2), "version", "newer"),
        (tiny(version="1"), "version", "reads version 1"),
        (tiny(rules={"num_players": 9}), "rules", "num_players must be"),
        (tiny(rules={"num_players": 3, "bogus": 1}), "rules", "unknown rule option"),
        (tiny(preset="poker"), "rules", "unknown preset"),
        (tiny(seed=-1), "seed", "an integer 0..2"),
        (tiny(seed="12a"), "seed", "an integer 0..2"),
        (tiny(hands=["3c", "4c"]), "hands", "one text per seat"),
        (tiny(hands=["3c 5d", "4c", "5x"]), "hands", "cannot parse card"),
        (tiny(players=["a", "b", "c"]), "players", "one {name, kind} object per seat"),
        (tiny(steps={"seat": 0}), "steps", "a list"),
        (tiny(result={"places": [[0, 1, 2]]}), "result", "an object"),
        (tiny(meta=[1]), "meta", "an object"),
        (tiny(extra=1), None, "unknown fields \\['extra'\\]"),
    ],
)
def test_malformed_fields_are_named(doc: Any, where: str | None, pattern: str) -> None:
    with pytest.raises(RecordError, match=pattern) as err:
        record_from_dict(doc)
    assert err.value.field == where and err.value.step is None
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("name", ["format", "version", "rules", "seed", "steps"])
def test_missing_field_is_named(name: str) -> None:
    doc = tiny()
    del doc[name]
    with pytest.raises(RecordError, match=f"^game record: {name}: missing") as err:
        record_from_dict(doc)
    assert err.value.field == name


def _with_step(k: int, **changes: Any) -> dict[str, Any]:
    doc = tiny()
    doc["steps"][k] = {**doc["steps"][k], **changes}
    return doc


@pytest.mark.parametrize(
    ("doc", "step", "pattern"),
    [
        (_with_step(1, action=9, name="single 5"), 1, r"action 9 \(single 5\) is illegal for "
         r"seat 1; legal actions: 0 \(pass\), 5 \(single 4\)"),
        (_with_step(2, action=200, name=None), 2, "out of range 0..52"),
        (_with_step(1, seat=2), 1, "seat 2 acts, but seat 1 is to act"),
        (_with_step(1, name="single 9"), 1, "'single 4' under the record's rules, but the record "
         "names it 'single 9'"),
        (_with_step(1, probs=[[5, 1.5]]), 1, "probs is a list of"),
        (_with_step(1, probs=[[999, 0.5]]), 1, "probs name actions out of range"),
        (_with_step(0, seat=True), 0, "seat and action are integers"),
        (_with_step(0, cards="3c"), 0, "unknown \\['cards'\\]"),
        (tiny(steps=[*TINY["steps"], {"seat": 0, "action": 0}]), 4, "the game ended after step 3"),
    ],
)
def test_bad_step_is_named(doc: dict[str, Any], step: int, pattern: str) -> None:
    with pytest.raises(RecordError, match=pattern) as err:
        record_from_dict(doc)
    assert err.value.step == step
    assert str(err.value).startswith(f"game record: step {step}: ")


def test_truncated_or_tampered_records() -> None:
    text = record_from_dict(TINY).to_json()
    with pytest.raises(RecordError, match="not valid JSON .* truncated"):
        record_from_json(text[: len(text) // 2])
    with pytest.raises(RecordError, match="not UTF-8"):
        record_from_json(b"\xff\xfe{")
    with pytest.raises(RecordError, match="steps: the record ends after 3 steps but the game is "
                       "not over"):
        record_from_dict(tiny(steps=TINY["steps"][:3]))
    unfinished = record_from_dict(tiny(steps=TINY["steps"][:3], result=None))
    assert not unfinished.finished and len(list(replay(unfinished))) == 3
    bad = tiny(result={"places": [[1, 0, 2]], "scores": [0, 2, 1], "standings": [1, 0, 2]})
    with pytest.raises(RecordError, match=r"result: the replay gives scores \[0, 2, 0\], the "
                       r"record says \[0, 2, 1\]"):
        record_from_dict(bad)
    assert record_from_dict(bad, verify=False).result is not None  # parsed, not replayed


def test_wrong_rules_are_found() -> None:
    record = recorded_game(Rules.preset("daifugo", num_players=4, deals=2))
    doc = record.to_dict()
    doc["rules"]["jokers"] = 0  # another action layout: the names no longer match
    with pytest.raises(RecordError, match="other rules"):
        record_from_dict(doc)
    doc = record.to_dict()
    doc["seed"] = str(record.seed + 1)  # another deal: some step does not replay
    with pytest.raises(RecordError, match="step [0-9]+: ") as err:
        record_from_dict(doc)
    assert err.value.step is not None
    for s in doc["steps"]:
        del s["name"]
    doc["seed"] = str(record.seed)
    doc["rules"]["allow_equal"] = False
    with pytest.raises(RecordError):
        record_from_dict(doc)


def test_recorder_checks_what_it_writes() -> None:
    rules = Rules.preset("standard", num_players=3)
    engine = Engine(rules)
    state = engine.init([7])
    rec = GameRecorder(rules, state)
    assert rec.record.hands is None  # dealt from the seed
    with pytest.raises(RecordError, match="not over after its 0 steps"):
        rec.finish()
    rng = np.random.default_rng(0)
    while state.phase[0] != PHASE_DONE:
        seat = int(state.current[0])
        a = engine.sample_random(engine.legal_action_mask(state), rng)
        engine.step_inplace(state, a)
        rec.add(seat, int(a[0]))
    other = engine.init([8])
    other.scores[0] = [9, 9, 9]
    other.phase[0] = PHASE_DONE
    with pytest.raises(RecordError, match="but the game ended with"):
        rec.finish(other)
    assert rec.finish(state).result is not None
    with pytest.raises(ValueError, match="players must name the 3 seats"):
        GameRecorder(rules, engine.init([1]), players=["a"])
    with pytest.raises(ValueError, match="the state has 4 players but the rules 3"):
        GameRecorder(rules, Engine(Rules()).init([1]))


def test_top_probs() -> None:
    assert top_probs([0.1, 0.0, 0.6, 0.3], k=2) == ((2, 0.6), (3, 0.3))
    assert top_probs([0.0, 1.0, 0.0], k=5) == ((1, 1.0),)
    with pytest.raises(ValueError, match="one vector"):
        top_probs([[0.5, 0.5]])


# ---------------------------------------------------------------------------- round trips
def _cases() -> list[tuple[str, int]]:
    return [(name, p) for name in PRESETS for p in range(PRESET_PLAYERS[name][0],
                                                           PRESET_PLAYERS[name][1] + 1)]


def _round_trip(rules: Rules, n: int, seed: int) -> None:
    table, rec, deal_places = random_games(rules, n, seed)
    records = rec.records()
    assert len(records) == n and rec.finished == n
    standings = table.engine.standings(table.state)
    for record in records:
        row = record.meta["row"]
        back = record_from_json(record.to_json())  # parsed and replayed
        assert back == record
        assert back.seed == int(table.state.seed[row])
        res = back.result
        assert res is not None
        assert [list(p) for p in res.places] == deal_places[row]
        assert list(res.scores) == table.state.scores[row].tolist()
        assert list(res.standings) == standings[row].tolist()


@pytest.mark.parametrize(("preset", "players"), _cases())
def test_random_games_round_trip(preset: str, players: int) -> None:
    _round_trip(Rules.preset(preset, num_players=players), 12, seed=players)


def test_several_deals_with_exchange_round_trip() -> None:
    rules = Rules.preset("daifugo", num_players=5, deals=3, target_score=None)
    _round_trip(rules, 20, seed=1)
    record = recorded_game(rules)
    names = [s["name"] for s in record.to_dict()["steps"]]
    assert any(n.startswith("give ") for n in names)  # the exchange is in the steps
    assert len(record.result.places) == 3  # type: ignore[union-attr]


@pytest.mark.long
@pytest.mark.parametrize("preset", list(PRESETS))
def test_thousand_random_games_round_trip(preset: str) -> None:
    """1,000 random games of the preset, shared among its player counts (``make test-long``:
    ``test_random_games_round_trip`` makes the same checks on 12 seeded games of every preset
    and player count in ``make test``)."""
    lo, hi = PRESET_PLAYERS[preset]
    counts = range(lo, hi + 1)
    for i, players in enumerate(counts):
        n = 1000 // len(counts) + (i < 1000 % len(counts))
        _round_trip(Rules.preset(preset, num_players=players), n, seed=players)


# ---------------------------------------------------------------------------- recorders
def test_batch_recorder_equals_one_game_recorder() -> None:
    rules = Rules.preset("revolution", num_players=4, deals=2)
    engine = Engine(rules)
    agents = [make_agent(n, rules, 0) for n in ("hard", "normal", "easy")]
    seating = np.array([[0, 1, 2, 0], [2, 2, 1, 0], [1, 0, 0, 2]] * 3)
    seeds = np.arange(100, 100 + len(seating))
    table = Table(engine, engine.init(seeds), agents, seating, names=["hard", "normal", "easy"])
    batch = BatchRecorder(table, keep=len(seeds), meta=lambda row: {"row": row})
    table.play_until_external(batch.on_step)
    by_row = {r.meta["row"]: r for r in batch.records()}
    for row, seed in enumerate(seeds):
        one = Table(engine, engine.init([seed]), agents, seating[row], names=table.names)
        names = [one.policy_name(int(k)) for k in seating[row]]
        rec = GameRecorder(rules, one.state, players=names, meta={"source": "table", "row": row})
        one.play_until_external(rec.on_step)
        assert rec.finish(one.state) == by_row[row]


def test_selection_keeps_the_worst_games() -> None:
    rules = Rules.preset("standard", num_players=4)
    engine = Engine(rules)
    hard = make_agent("hard", rules, 0)
    seating = np.array([[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]] * 10)

    def run(select: str, keep: int) -> list[GameRecord]:
        policies: list[Policy] = [RandomPolicy(1), hard]  # the same games in every run
        table = Table(engine, engine.init(np.arange(40)), policies, seating, ["rand", "hard"])
        rec = BatchRecorder(table, keep, select, meta=lambda row: {"row": row})
        table.play_until_external(rec.on_step)
        return rec.records()

    def rand_key(r: GameRecord) -> tuple[int, int]:
        seat = r.player_names().index("rand")
        assert r.result is not None
        return r.result.standings[seat], -r.result.scores[seat]

    every = run("first", 40)
    assert sorted(r.meta["row"] for r in every) == list(range(40))
    worst = run("worst:rand", 5)
    want = sorted((rand_key(r) for r in every), reverse=True)[:5]
    assert [rand_key(r) for r in worst] == want
    best = run("best:rand", 5)
    assert [rand_key(r) for r in best] == sorted(rand_key(r) for r in every)[:5]
    first = run("first", 3)
    assert [r.to_dict()["steps"] for r in first] == [r.to_dict()["steps"] for r in every[:3]]


def test_batch_recorder_bad_input() -> None:
    rules = Rules()
    engine = Engine(rules)
    table = Table(engine, engine.init([0, 1]), [RandomPolicy(0)], np.zeros(4))
    with pytest.raises(ValueError, match="no agent named 'hard' at the table"):
        BatchRecorder(table, 1, "worst:hard")
    with pytest.raises(ValueError, match="keep must be a non-negative integer"):
        BatchRecorder(table, -1)
    with pytest.raises(ValueError, match="a selection is 'first', 'worst:NAME'"):
        parse_selection("worst")
    assert parse_selection("best: random") == Selection("best", "random")
    off = BatchRecorder(table, 0)
    table.play_until_external(off.on_step)
    assert off.records() == [] and not off.active


def test_aec_game_recorded_with_its_reset_seed() -> None:
    """What the AEC env's record option does: a game of reset(seed=s) replays from
    game_seed(s); a game from given hands keeps them."""
    e = raw_env(preset="cardverse", num_players=5)
    for options in (None, {"hands": ["3c 4c", "5c", "6c 7d", "8c", "9c"]}):
        e.reset(seed=11, options=options)
        rec = GameRecorder(e.rules, e.game_state, players=e.possible_agents)
        rng = np.random.default_rng(0)
        while not all(e.terminations.values()):
            agent = e.agent_selection
            a = int(rng.choice(np.flatnonzero(e.observe(agent)["action_mask"])))
            e.step(a)
            rec.add(e.possible_agents.index(agent), a)
        record = record_from_json(rec.finish(e.game_state).to_json())
        assert record.seed == game_seed(11)
        assert record.hands == (None if options is None else tuple(options["hands"]))
        standings = [e.infos[a]["standing"] for a in e.possible_agents]
        assert list(record.result.standings) == standings  # type: ignore[union-attr]


def test_documented_example_replays() -> None:
    text = (ROOT / "docs" / "records.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    assert blocks, "docs/records.md has no json example"
    record = record_from_json(blocks[0])
    assert record.to_json() == blocks[0]  # the example is exactly what the writer writes
    assert FORMAT in text and f'"version": {VERSION}' in text


def test_standing_matches_the_engine() -> None:
    from train.eval.recording import _standing

    rules = Rules.preset("daifugo", num_players=6, deals=3)
    table, _, _ = random_games(rules, 40, seed=5)
    st = table.state
    st.scores[:5] = 7  # ties broken by the last deal's place
    want = table.engine.standings(st)
    for seat in range(6):
        got = _standing(st.scores.astype(np.int64), st.title, np.full(40, seat))
        assert got.tolist() == want[:, seat].tolist()


# ---------------------------------------------------------------------------- the writers' hooks
def _tournament() -> Any:
    from train.eval.tournament import run_tournament

    return run_tournament


def test_aec_env_record_option() -> None:
    from president_env import env

    e = env(preset="daifugo", num_players=4, deals=2, record=True)
    e.reset(seed=5)
    assert e.unwrapped.record.steps == ()
    rng = np.random.default_rng(0)
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    record = e.unwrapped.record
    assert record.finished and record.seed == game_seed(5) and record.meta["reset_seed"] == 5
    assert record_from_json(record.to_json()) == record
    assert record.player_names() == e.possible_agents
    assert raw_env().record is None


def test_tournament_keeps_the_worst_games(tmp_path: Path) -> None:
    from train.tournament import main

    run_tournament = _tournament()
    rules = Rules.preset("standard")
    agents = {n: n for n in ("hard", "normal", "easy", "random")}
    kw: dict[str, Any] = dict(seed=0, progress=False, ratings=False, batch_size=16)
    plain = run_tournament(agents, rules, 30, **kw)
    res = run_tournament(agents, rules, 30, record=5, record_select="worst:hard", **kw)
    assert (plain.places == res.places).all() and plain.records == []  # recording changes nothing
    worst = sorted(res.places[:, :, 0].ravel().tolist(), reverse=True)[:5]
    for r, place in zip(res.records, worst, strict=True):
        assert r.result.standings[r.player_names().index("hard")] == place
        assert res.places[r.meta["deal"], r.meta["replay"], 0] == place
        assert r.seed == int(res.deal_seeds[r.meta["deal"]])
        assert record_from_json(r.to_json()) == r
    out = tmp_path / "rec"
    argv = ["--deals", "10", "--no-progress", "--no-ratings", "--record", "2"]
    assert main([*argv, "--record-select", "worst:easy", "--record-dir", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["game_0000.json", "game_0001.json"]
    with pytest.raises(SystemExit):
        main([*argv, "--record-select", "worst:nobody"])
