"""The web app's HTTP API (apps.web): whole games, every bad input refused with a clear 4xx
JSON error and the game unchanged, saved games surviving a restart, record replays."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents import make_agent
from apps.web.server import create_app, spec_from_request
from apps.web.session import WebError
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.records import GameRecord, GameRecorder, load_record
from president_env.table import EXTERNAL, Table


def new_game(client: TestClient, **fields: Any) -> dict[str, Any]:
    body = {"preset": "standard", "players": 4, "seat": 0, "opponents": "hard", "seed": 7}
    r = client.post("/api/games", json={**body, **fields})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def move(client: TestClient, view: dict[str, Any], action: int) -> dict[str, Any]:
    r = client.post(f"/api/games/{view['id']}/move", json={"action": action, "ply": view["ply"]})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def play_out(client: TestClient, view: dict[str, Any], pick: int = -1) -> dict[str, Any]:
    """Play the human's legal action ``legal[pick]`` until the game is over."""
    for _ in range(2000):
        if "final" in view:
            return view
        view = move(client, view, view["legal"][pick]["id"])
    raise AssertionError("the game did not end")


def refused(r: Any, status: int, words: str) -> None:
    assert r.status_code == status, r.text[:300]
    body = r.json()
    assert set(body) == {"error"} and words in body["error"], body


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(save_dir=tmp_path / "games"))


def test_whole_game_matches_the_engine(client: TestClient) -> None:
    """A whole 3-deal game through the API: the human's moves replayed on a plain table of the
    same seed with Hard agents give the same places, scores and standings."""
    view = new_game(client, deals=3, seed=11, seat=2)
    actions: list[int] = []
    while "final" not in view:
        legal = view["legal"]
        assert legal and view["state"]["current"] == 2
        for a in legal:  # the cards of each legal play come from the human's hand
            assert all(c in view["state"]["hand"] for c in a["cards"])
        a = legal[len(actions) % len(legal)]["id"]
        actions.append(a)
        view = move(client, view, a)
    rules = Rules.preset("standard", deals=3)
    engine = Engine(rules)
    others = [s for s in range(4) if s != 2]
    seat_policy = np.full(4, EXTERNAL)
    seat_policy[others] = np.arange(3)
    table = Table(engine, engine.init([11]), [make_agent("hard", rules, 11 + s + 1)
                                              for s in others], seat_policy)
    for a in actions:
        table.play_until_external()
        table.step_external([0], [a])
    table.play_until_external()
    st = table.state
    assert view["final"]["scores"] == st.scores[0].tolist()
    assert view["final"]["standings"] == engine.standings(st)[0].tolist()
    assert len(view["results"]) == 3
    assert view["results"][-1]["places"] == st.title[0].tolist()
    assert view["state"]["phase"] == "over" and view["legal"] == []


def test_exchange_the_human_returns_chosen_cards(client: TestClient) -> None:
    """With several deals, a human President returns cards of their choice (give actions)."""
    for seed in range(20):
        view = new_game(client, deals=2, seed=seed, opponents="random")
        while "final" not in view and not view["exchange"]["active"]:
            view = move(client, view, view["legal"][-1]["id"])
        if view["exchange"]["active"]:
            break
    else:
        pytest.fail("no seed of 20 made the human President")
    gives = view["legal"]
    assert all(a["name"].startswith("give ") and len(a["cards"]) == 1 for a in gives)
    top = gives[-1]
    hand_before = list(view["state"]["hand"])
    after = move(client, view, top["id"])
    card = top["cards"][0]
    assert after["state"]["hand"].count(card) == hand_before.count(card) - 1
    assert card in after["exchange"]["gave"] and after["state"]["deal"] == view["state"]["deal"]
    assert after["events"][0]["name"] == top["name"]


def test_bad_moves_are_refused_and_change_nothing(client: TestClient) -> None:
    view = new_game(client)
    gid, ply = view["id"], view["ply"]
    legal = {a["id"] for a in view["legal"]}
    illegal = next(a for a in range(1, 60) if a not in legal)
    url = f"/api/games/{gid}/move"
    refused(client.post(url, json={"action": illegal, "ply": ply}), 400, "is not legal now")
    refused(client.post(url, json={"action": 10**6, "ply": ply}), 400, "is not legal now")
    refused(client.post(url, json={"action": "pass", "ply": ply}), 400, "integer action id")
    refused(client.post(url, json={"action": 1.0, "ply": ply}), 400, "integer action id")
    refused(client.post(url, json={"action": True, "ply": ply}), 400, "integer action id")
    refused(client.post(url, json={"action": min(legal)}), 400, "a move is")
    refused(client.post(url, json={"action": min(legal), "ply": ply, "seat": 1}), 400, "a move is")
    refused(client.post(url, json={"action": min(legal), "ply": ply - 1}), 409, "out of turn")
    refused(client.post(url, json={"action": min(legal), "ply": ply + 5}), 409, "out of turn")
    refused(client.post(url, content=b"{not json"), 400, "not valid JSON")
    refused(client.post(url, json=[1, 2]), 400, "JSON object")
    refused(client.post("/api/games/no-such-game-id/move", json={"action": 0, "ply": 0}), 404,
            "stale id")
    refused(client.post("/api/games/bad%20id!/move", json={"action": 0, "ply": 0}), 400,
            "malformed game id")
    refused(client.get("/api/games/AAAAAAAAAAAAAAAA"), 404, "no game")
    assert client.get(f"/api/games/{gid}").json() == {**view, "events": []}
    over = play_out(client, view)
    refused(client.post(url, json={"action": 0, "ply": over["ply"]}), 409, "game is over")


def test_bad_new_games_are_refused(client: TestClient) -> None:
    refused(client.post("/api/games", json={"preset": "nope"}), 400, "unknown preset")
    refused(client.post("/api/games", json={"preset": "cardverse", "players": 7}), 400, "3-6")
    refused(client.post("/api/games", json={"players": "4"}), 400, "players must be an integer")
    refused(client.post("/api/games", json={"seat": 4}), 400, "seat must be 0..3")
    refused(client.post("/api/games", json={"opponents": ["hard"] * 2}), 400, "opponents needs")
    refused(client.post("/api/games", json={"opponents": "expertest"}), 400, "unknown agent")
    refused(client.post("/api/games", json={"colour": "red"}), 400, "unknown field")
    refused(client.post("/api/games", json={"rules": {"jokers": 9}}), 400, "jokers")
    refused(client.post("/api/games", json={"preset": "runs", "players": 5,
                                            "opponents": "policy"}), 400,
            "seat agent 'policy'")
    refused(client.post("/api/games", content=b"x" * 1_000_001), 413, "too large")


def test_oversized_body_without_length_is_refused(client: TestClient) -> None:
    def chunks() -> Any:
        for _ in range(20):
            yield b" " * 100_000

    refused(client.post("/api/replays", content=chunks()), 413, "too large")


def test_every_preset_and_mix_of_agents(client: TestClient) -> None:
    agents = client.get("/api/options").json()["agents"]
    assert agents[:4] == ["random", "easy", "normal", "hard"]
    for k, preset in enumerate(["standard", "revolution", "runs", "cardverse", "daifugo"]):
        n = 3 + k
        mix = [agents[(k + i) % 4] for i in range(n - 1)]
        view = new_game(client, preset=preset, players=n, seat=k % n, opponents=mix, deals=2)
        assert [s for s in view["spec"]["seats"] if s != "human"] == mix
        view = play_out(client, view, pick=0)
        assert sorted(view["final"]["standings"]) == list(range(n))


def test_agents_are_offered_by_name(client: TestClient) -> None:
    agents = client.get("/api/options").json()["agents"]
    assert agents == ["random", "easy", "normal", "hard", "kit", "expert", "expert-kit", "policy",
                      "ppo"]


@pytest.mark.parametrize("name", ["policy", "ppo"])
def test_a_shipped_policy_plays_its_rules(client: TestClient, name: str) -> None:
    view = new_game(client, opponents=[name, "hard", "random"])
    assert view["spec"]["seats"][1] == name
    assert "final" in play_out(client, view)


def test_restart_keeps_every_saved_game(tmp_path: Path) -> None:
    save = tmp_path / "games"
    first = TestClient(create_app(save_dir=save))
    views = [new_game(first, seed=s, deals=2) for s in range(3)]
    views[0] = move(first, views[0], views[0]["legal"][0]["id"])
    views[1] = play_out(first, views[1])
    (save / "junk.json").write_text("{truncated")
    second = TestClient(create_app(save_dir=save))
    assert "junk.json" in second.app.state.store.skipped[0]  # type: ignore[attr-defined]
    for v in views:
        again = second.get(f"/api/games/{v['id']}").json()
        assert again == {**v, "events": []}
    view = play_out(second, views[0])  # the game goes on after the restart
    assert "final" in view
    record = load_record(save / f"{views[1]['id']}.json")  # a saved game is a record
    assert record.result is not None and list(record.result.standings) == \
        views[1]["final"]["standings"]


def played_record(seed: int = 5) -> GameRecord:
    rules = Rules.preset("standard")
    engine = Engine(rules)
    table = Table(engine, engine.init([seed]), [make_agent("hard", rules, 1)], [0, 0, 0, 0])
    rec = GameRecorder(rules, table.state, players=["a", "b", "c", "d"])
    table.play_until_external(rec.on_step)
    return rec.finish(table.state)


def test_replay_frames_follow_the_record(tmp_path: Path) -> None:
    record = played_record()
    path = tmp_path / "game.json"
    record.save(path)
    client = TestClient(create_app(records=[tmp_path]))
    assert client.get("/api/records").json() == {"records": ["game.json"]}
    data = client.get("/api/records/game.json").json()
    frames = data["frames"]
    assert len(frames) == len(record.steps) + 1
    assert sum(len(s["hand"]) for s in frames[0]["seats"]) == 52
    for f, step in zip(frames[1:], record.steps):
        assert f["move"]["seat"] == step.seat
    assert sum(len(s["hand"]) for s in frames[-1]["seats"]) > 0 and frames[-1]["phase"] == "over"
    assert frames[-1]["deal_over"]["places"] == list(record.result.places[-1])  # type: ignore[union-attr]
    upload = client.post("/api/replays", content=record.to_json())
    assert upload.status_code == 200 and upload.json()["frames"] == frames


def test_bad_records_are_refused(tmp_path: Path) -> None:
    client = TestClient(create_app())
    doc = json.loads(played_record().to_json())
    refused(client.post("/api/replays", content=b"[1, 2]"), 400, "JSON object")
    refused(client.post("/api/replays", content=record_text(doc)[:200]), 400, "not valid JSON")
    refused(client.post("/api/replays", json={"format": "x"}), 400, "does not replay")
    bad = {**doc, "steps": doc["steps"][:3] + [{"seat": 0, "action": 9999}]}
    refused(client.post("/api/replays", json=bad), 400, "step 3")
    refused(client.post("/api/replays", json={**doc, "steps": doc["steps"][:-2]}), 400,
            "not over")
    other_rules = {**doc, "rules": {**doc["rules"], "scoring": "places"}}
    refused(client.post("/api/replays", json=other_rules), 400, "the replay gives scores")
    refused(client.get("/api/records/nothing.json"), 404, "no record")


def record_text(doc: dict[str, Any]) -> str:
    return json.dumps(doc)


def test_spec_from_request_names_what_is_wrong() -> None:
    with pytest.raises(WebError, match="deals must be an integer"):
        spec_from_request({"deals": None})
    spec = spec_from_request({"players": 5, "seat": 4, "opponents": "easy", "seed": 1})
    assert spec.seats == ("easy",) * 4 + ("human",)


# ------------------------------------------------------------------ hostile input (issue 34)
def _keys(x: Any) -> set[str]:
    """Every key of a JSON document, at any depth."""
    if isinstance(x, dict):
        return set(x) | {k for v in x.values() for k in _keys(v)}
    if isinstance(x, list):
        return {k for v in x for k in _keys(v)}
    return set()


@pytest.mark.parametrize("fields", [{}, {"seed": None}], ids=["given-seed", "random-seed"])
def test_no_view_shows_the_seed_until_the_game_is_over(client: TestClient,
                                                       fields: dict[str, Any]) -> None:
    view = new_game(client, deals=2, **fields)
    seen = [view, client.get(f"/api/games/{view['id']}").json()]
    while "final" not in view:
        view = move(client, view, view["legal"][0]["id"])
        seen.append(view)
    assert all("seed" not in _keys(v) for v in seen[:-1])  # the seed deals every hand
    assert type(view["spec"]["seed"]) is int
    if fields == {}:
        assert view["spec"]["seed"] == 7


def test_a_rematch_waits_for_the_end_of_the_game(client: TestClient) -> None:
    view = new_game(client, seat=1, opponents=["random", "easy", "hard"], seed=3)
    store = client.app.state.store  # type: ignore[attr-defined]
    games = dict(store.games)
    refused(client.post(f"/api/games/{view['id']}/rematch"), 409, "finish the game first")
    assert store.games == games  # no second game of the same deal
    over = play_out(client, view)
    r = client.post(f"/api/games/{over['id']}/rematch")
    assert r.status_code == 200, r.text
    again = r.json()
    assert again["id"] != view["id"] and "seed" not in again["spec"]
    assert store.games[again["id"]].spec.seed == 3 and again["spec"]["human"] == 2
    assert again["spec"]["seats"] == ["hard", "random", "human", "easy"]


def test_games_in_progress_are_not_offered_for_replay(tmp_path: Path) -> None:
    save = tmp_path / "games"
    first = TestClient(create_app(save_dir=save))
    done = play_out(first, new_game(first, seed=1))
    going = new_game(first, seed=2)
    both = TestClient(create_app(save_dir=save, records=[save]))  # --records == --save-dir
    assert both.get("/api/records").json() == {"records": [f"{done['id']}.json"]}
    library = both.app.state.library  # type: ignore[attr-defined]
    assert library.skipped == [f"{going['id']}.json: a game still being played (no result)"]
    assert both.get(f"/api/records/{done['id']}.json").status_code == 200
    refused(both.get(f"/api/records/{going['id']}.json"), 404, "no record")
    text = (save / f"{going['id']}.json").read_text()
    refused(both.post("/api/replays", content=text), 400, "still being played")


def test_records_of_one_name_in_two_folders_each_open(tmp_path: Path) -> None:
    for folder, seed in (("recA", 5), ("recB", 6)):
        (tmp_path / folder).mkdir()
        played_record(seed).save(tmp_path / folder / "game.json")
    client = TestClient(create_app(records=[tmp_path / "recA", tmp_path / "recB"]))
    names = client.get("/api/records").json()["records"]
    assert names == ["game.json", "recB/game.json"]
    first = [client.get(f"/api/records/{n}").json()["frames"][0] for n in names]
    assert first[0] != first[1]  # two deals, each opened under its own name


def test_saved_files_that_do_not_load_are_skipped_and_the_server_starts(tmp_path: Path) -> None:
    save = tmp_path / "games"
    good = new_game(TestClient(create_app(save_dir=save)), seed=4)
    doc = json.loads((save / f"{good['id']}.json").read_text())
    bad = {
        "huge-score": json.dumps({**doc, "rules": {**doc["rules"], "target_score": 2**70}}),
        "nested": "[" * 100_000 + "]" * 100_000,
        "digits": json.dumps(doc)[:-1] + ', "seed": ' + "9" * 5000 + "}",
        "list": "[1, 2]",
        "binary": "\udcff",
        "other-id": json.dumps({**doc, "meta": {"web": {"id": "x" * 8, "human": 0}}}),
        "no-agent": json.dumps({**doc, "players": [{"name": "ghost"}] * 4}),
    }
    for name, text in bad.items():
        (save / f"{name}.json").write_text(text, errors="surrogateescape")
    (save / "folder.json").mkdir()
    store = TestClient(create_app(save_dir=save)).app.state.store  # type: ignore[attr-defined]
    assert list(store.games) == [good["id"]]
    skipped = {line.split(":")[0] for line in store.skipped}
    assert skipped == {f"{n}.json" for n in [*bad, "folder"]}
    assert all("\n" not in line and len(line) < 400 for line in store.skipped), store.skipped


@pytest.mark.parametrize("path, body", [
    ("/api/games", '{"seed": ' + "9" * 5000 + "}"),
    ("/api/games", "[" * 100_000 + "]" * 100_000),
    ("/api/games", '{"rules": {"target_score": 1180591620717411303424}}'),
    ("/api/games", '{"players": 1180591620717411303424}'),
    ("/api/games", '{"seed": 1180591620717411303424}'),
    ("/api/games", '{"rules": {"deep": ' + "[" * 900 + "]" * 900 + "}}"),
    ("/api/replays", '{"seed": "\\u00b2"}'),
    ("/api/replays", '{"format": "president-record", "version": ' + "9" * 5000 + "}"),
], ids=["digits", "nested", "rules-2**70", "players-2**70", "seed-2**70", "deep-rules",
        "superscript-seed", "digits-version"])
def test_hostile_bodies_get_json_4xx(client: TestClient, path: str, body: str) -> None:
    r = client.post(path, content=body)
    assert 400 <= r.status_code < 500, r.text[:300]
    assert set(r.json()) == {"error"} and "\n" not in r.json()["error"]


def test_hostile_replay_seed_names_the_field(client: TestClient) -> None:
    doc = json.loads(played_record().to_json())
    refused(client.post("/api/replays", json={**doc, "seed": "\u00b2"}), 400, "seed")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12,
)
FIELDS = {"preset": st.sampled_from(["standard", "japanese", "x", ""]) | JSON,
          "players": st.integers(-2, 10) | JSON, "deals": st.integers(-1, 3) | JSON,
          "seat": st.integers(-1, 8) | JSON, "seed": st.integers(-5, 2**64) | JSON,
          "opponents": st.sampled_from(["hard", "expert", "policy", "nobody"]) | JSON,
          "rules": st.dictionaries(st.sampled_from(["target_score", "bombs", "jokers", "deals",
                                                    "revolution", "x"]), JSON, max_size=3) | JSON}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.fixed_dictionaries({}, optional=FIELDS) | JSON)
def test_fuzz_new_games_and_moves_get_no_500(body: Any) -> None:
    client = _fuzz_client()
    r = client.post("/api/games", content=json.dumps(body))  # NaN, Infinity: Python reads them
    assert r.status_code in (200, 400), r.text[:300]
    if r.status_code == 400:
        assert set(r.json()) == {"error"}
        return
    view = r.json()
    for action, ply in ((view["legal"][0]["id"] if view["legal"] else 0, view["ply"]),
                        (body, view["ply"]), (0, body), (2**64, view["ply"])):
        r = client.post(f"/api/games/{view['id']}/move",
                        content=json.dumps({"action": action, "ply": ply}))
        assert r.status_code in (200, 400, 409), r.text[:300]


@settings(max_examples=80, deadline=None)
@given(where=st.sampled_from(["rules", "steps", "seed", "players", "result", "meta", "version",
                              "hands", "format"]), value=JSON)
def test_fuzz_replays_get_no_500(where: str, value: Any) -> None:
    doc = {**_fuzz_app()[1], where: value}
    r = _fuzz_client().post("/api/replays", content=json.dumps(doc))
    assert r.status_code in (200, 400), r.text[:300]


@functools.cache
def _fuzz_app() -> tuple[TestClient, dict[str, Any]]:
    """One app for every fuzz example (a new game each example, in memory) and a record."""
    return TestClient(create_app()), json.loads(played_record().to_json())


def _fuzz_client() -> TestClient:
    return _fuzz_app()[0]
