"""Hostile input (issue 34): a model file runs no code, refused calls change nothing, and every
malformed input of a kind gets one clear error of one type, before any work is done.

Items of the issue covered here: 1 (SB3 zips are read without unpickling), 6 (a refused
``SingleAgentEnv.reset`` keeps the random streams), 7 (given hands and a seed: every interface
deals the same later deals), 8 (records), 9 (checkpoint header fields), 11 (a policy's float
action is refused at a table of any size), 12 (rules integers the engine cannot hold),
13 (inconsistent positions) and the small parts of 14 (``Engine.init([])``, a uint64 action,
float seats in ``observe``)."""

from __future__ import annotations

import base64
import io
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.errors import CheckpointError
from agents.policy import PolicyNet, load_policy, save_policy
from president_env import SingleAgentEnv, env
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.records import GameRecorder, RecordError, record_from_dict, record_from_json
from president_env.records.format import FORMAT, VERSION
from president_env.search import positions as P
from president_env.seeding import game_seed
from president_env.table import RandomPolicy, Table, as_policy

STANDARD = Rules.preset("standard")


# ---------------------------------------------------------------------------- 1. SB3 zips
class _RunsCode:
    """Unpickled, it writes ``path``: what a hostile model file would do."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple[Any, ...]:
        return (exec, (f"open({self.path!r}, 'w').close()",))


def _pickled(path: Path) -> dict[str, str]:
    """A ``":serialized:"`` entry of SB3's ``data`` that runs code when unpickled."""
    return {":type:": "<class 'type'>",
            ":serialized:": base64.b64encode(pickle.dumps(_RunsCode(path))).decode()}


def _sb3_zip(path: Path, marker: Path, policy_kwargs: Any = None, weights: bytes | None = None
             ) -> Path:
    """A MaskablePPO-like ``model.zip`` (made by hand, as train.maskable_ppo's would be, in a
    fraction of the time) whose pickled entries would write ``marker``."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    eng = Engine(STANDARD)
    torch.manual_seed(0)
    policy = MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, (eng.obs_size,), np.float32), spaces.Discrete(eng.num_actions),
        lambda _: 0.0,
    )
    rules = STANDARD.to_dict()
    data = {
        "policy_class": {**_pickled(marker), "__module__": "sb3_contrib.common.maskable.policies"},
        "policy_kwargs": {} if policy_kwargs is None else policy_kwargs,
        "observation_space": {**_pickled(marker), "_shape": [eng.obs_size]},
        "action_space": {**_pickled(marker), "n": str(eng.num_actions)},
        "lr_schedule": _pickled(marker),
        "president_rules": dict(rules, preset_name=None),
    }
    if weights is None:
        buf = io.BytesIO()
        torch.save(policy.state_dict(), buf)
        weights = buf.getvalue()
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("policy.pth", weights)
        z.writestr("pytorch_variables.pth", pickle.dumps(_RunsCode(marker)))
    path.with_suffix(".policy").write_bytes(pickle.dumps(policy.state_dict()))
    return path


def test_an_sb3_zip_loads_without_unpickling_anything(tmp_path: Path) -> None:
    from agents.sb3 import SB3Policy

    marker = tmp_path / "ran"
    path = _sb3_zip(tmp_path / "model.zip", marker)
    policy = SB3Policy.load(path)  # every pickled entry is ignored
    assert not marker.exists()
    eng = Engine(STANDARD)
    state = eng.init(np.arange(8))
    obs, mask = eng.observe(state), eng.legal_action_mask(state)
    actions = policy.act_batch(obs, mask)
    assert mask[np.arange(8), actions].all()
    net = policy.model.policy  # the network is the file's, weight for weight
    own = pickle.loads(path.with_suffix(".policy").read_bytes())
    for name, t in net.state_dict().items():
        torch.testing.assert_close(t, own[name])


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_an_sb3_zip_that_needs_unpickling_is_refused_and_runs_no_code(tmp_path: Path) -> None:
    from agents import load_agent
    from agents.sb3 import SB3Policy

    marker = tmp_path / "ran"
    path = _sb3_zip(tmp_path / "model.zip", marker, policy_kwargs=_pickled(marker))
    for load in (lambda: SB3Policy.load(path), lambda: load_agent(str(path), STANDARD)):
        with pytest.raises(CheckpointError, match=r"model.zip: its policy_kwargs are pickled.*"
                                                  r"trust=True") as info:
            load()
        assert "\n" not in str(info.value)
    assert not marker.exists()
    bad = _sb3_zip(tmp_path / "weights.zip", marker, weights=pickle.dumps(_RunsCode(marker)))
    with pytest.raises(CheckpointError, match=r"weights.zip is not a readable MaskablePPO"):
        SB3Policy.load(bad)
    assert not marker.exists()


# ---------------------------------------------------------------------------- 6. env reset
@pytest.mark.parametrize("opponents", [None, RandomPolicy()], ids=["default", "random"])
def test_a_refused_single_agent_reset_keeps_the_random_stream(opponents: Any) -> None:
    def make() -> SingleAgentEnv:
        e = SingleAgentEnv(preset="standard", opponents=opponents)
        e.reset(seed=3)
        return e

    refused, plain = make(), make()
    for hands in (["3c 3c", "4c", "5c", "6c"], ["3c", "4c"]):
        with pytest.raises(ValueError):
            refused.reset(options={"hands": hands})
    np.testing.assert_array_equal(refused.action_masks(), plain.action_masks())
    for _ in range(3):  # the next seedless deals are the ones it would have dealt
        np.testing.assert_array_equal(refused.reset()[0], plain.reset()[0])
        assert refused.seat == plain.seat


# ---------------------------------------------------------------------------- 7. given hands
class _Lowest:
    """Plays the lowest legal action (as the engine and AEC loops of ``_later_deal`` do)."""

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.array([np.flatnonzero(m)[0] if m.any() else -1 for m in mask], np.int64)


def _later_deal(interface: str, hands: list[str], seed: int) -> np.ndarray:
    """The hands of the second deal after the first is played out with the lowest legal
    action, through ``interface``."""
    rules = STANDARD.replace(deals=2)
    eng = Engine(rules)
    if interface == "engine":
        state = eng.init_from_hands(hands, seed=game_seed(seed))
        while state.deal[0] == 0:
            state = eng.step(state, [int(np.flatnonzero(eng.legal_action_mask(state)[0])[0])])
        return state.hands[0].copy()
    if interface == "aec":
        e = env(rules=rules)
        e.reset(seed=seed, options={"hands": hands})
        game = e.unwrapped
    else:
        s = SingleAgentEnv(rules=rules, seat=0, opponents=_Lowest())
        s.reset(seed=seed, options={"hands": hands})
        game = s
    while True:
        state = game._game.state if interface == "aec" else game.table.state
        if state.deal[0] > 0:
            return state.hands[0].copy()
        if interface == "aec":
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(np.flatnonzero(mask)[0]))
        else:
            game.step(int(np.flatnonzero(game.action_masks())[0]))


def test_given_hands_and_a_seed_deal_the_same_later_deals_everywhere() -> None:
    hands = ["3c 5d 8h 9s Kc", "4c 6d 9h Qs", "5c 7d 10h Js", "6c 8d Jh As 2c"]
    engine = _later_deal("engine", hands, 7)
    for interface in ("aec", "single"):
        np.testing.assert_array_equal(_later_deal(interface, hands, 7), engine)


# ---------------------------------------------------------------------------- 8. records
def _nested(depth: int) -> list[Any]:
    out: list[Any] = []
    for _ in range(depth):
        out = [out]
    return out


def _record(**changes: Any) -> dict[str, Any]:
    rules = STANDARD.to_dict()
    rules.pop("preset_name")
    return {"format": FORMAT, "version": VERSION, "rules": rules, "seed": "0", "steps": [],
            **changes}


@pytest.mark.parametrize("doc", [
    _record(seed="²"), _record(seed="9" * 5000), _record(seed=10**5000), _record(version=10**5000),
    _record(meta={"deep": _nested(5000)}),
], ids=["superscript", "5000-digit-text", "5000-digit-int", "5000-digit-version", "deep"])
def test_hostile_records_are_record_errors(doc: dict[str, Any]) -> None:
    with pytest.raises(RecordError) as info:
        record_from_dict(doc)
    assert "\n" not in str(info.value) and len(str(info.value)) < 300


@pytest.mark.parametrize("change", [
    '"seed": "\\u00b2"', '"seed": "' + "9" * 5000 + '"', '"seed": ' + "9" * 5000,
    '"version": ' + "9" * 5000, '"meta": ' + "[" * 5000 + "]" * 5000,
], ids=["superscript", "5000-digit-text", "5000-digit-int", "5000-digit-version", "deep"])
def test_hostile_record_texts_are_record_errors(change: str) -> None:
    text = json.dumps(_record())[:-1] + ", " + change + "}"  # a later key wins
    with pytest.raises(RecordError) as info:
        record_from_json(text)
    assert "\n" not in str(info.value) and len(str(info.value)) < 300


def test_deeply_nested_json_is_a_record_error() -> None:
    for text in ("[" * 100_000 + "]" * 100_000, '{"a": ' * 50_000 + "1" + "}" * 50_000):
        with pytest.raises(RecordError, match="nested more deeply"):
            record_from_json(text)


# ---------------------------------------------------------------------------- 9. checkpoints
@pytest.mark.parametrize("field, value, message", [
    ("hidden", -1, r"its hidden width is -1, expected a positive integer"),
    ("hidden", 2**40, r"its hidden width is 1099511627776, but its weights"),
    ("hidden", 1.5, r"its hidden width is 1.5"),
    ("meta", 5, r"its meta is a int, expected a dict"),
    ("state_dict", 5, r"its state_dict is a int, expected a dict of named tensors"),
])
def test_checkpoint_header_fields_are_checked(
    tmp_path: Path, field: str, value: Any, message: str
) -> None:
    eng = Engine(STANDARD)
    path = tmp_path / "p.pt"
    save_policy(path, PolicyNet(eng.obs_size, eng.num_actions, hidden=8), STANDARD)
    ck = torch.load(path, weights_only=True)
    ck[field] = value
    torch.save(ck, path)
    with pytest.raises(CheckpointError, match=message) as info:
        load_policy(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


# ---------------------------------------------------------------------------- 11. tables
class _FloatPolicy:
    name = "floaty"

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.array([np.flatnonzero(m)[0] + 0.7 for m in mask])


class _FloatAgent:
    name = "floaty-row"

    def act(self, obs: np.ndarray, mask: np.ndarray) -> float:
        return float(np.flatnonzero(mask)[-1]) - 0.3


@pytest.mark.parametrize("policy", [_FloatPolicy(), as_policy(_FloatAgent())],
                         ids=["act_batch", "act"])
@pytest.mark.parametrize("games", [1, 2])
def test_a_float_action_is_refused_at_a_table_of_any_size(policy: Any, games: int) -> None:
    eng = Engine(STANDARD)
    state = eng.init(np.arange(games))
    before = [a.copy() for a in state.arrays()]
    table = Table(eng, state, [policy], np.zeros(4, np.int64))
    with pytest.raises(TypeError, match="integer") as info:
        table.play_until_external()
    assert "\n" not in str(info.value) and table.decisions == 0
    for a, b in zip(table.state.arrays(), before):
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------- 12. rules
@pytest.mark.parametrize("options", [
    {"target_score": 2**64}, {"target_score": 2**70}, {"bombs": 2**64},
    {"runs": True, "max_run_length": 2**64}, {"target_score": 10**5000}, {"deals": 10**5000},
])
def test_rules_refuse_integers_the_engine_cannot_hold(options: dict[str, Any]) -> None:
    name = next(k for k in options if k != "runs")
    with pytest.raises(ValueError, match=rf"invalid Rules: {name} must be an integer the engine "
                                         r"can hold") as info:
        Rules.preset("standard", **options)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200
    big = Rules.preset("standard", target_score=2**63 - 1, bombs=2**63 - 1)
    assert Engine(big).init([0]).batch_size == 1  # the largest that fits is fine


# ---------------------------------------------------------------------------- 13. positions
def _position(rules: Rules = STANDARD) -> tuple[Engine, Any, np.ndarray]:
    eng = Engine(rules)
    state = eng.init([4])
    for _ in range(9):  # a few cards played
        state = eng.step(state, [int(np.flatnonzero(eng.legal_action_mask(state)[0])[-1])])
    return eng, state, eng.observe(state)


def _frame(state: Any) -> np.ndarray:
    cur = int(state.current[0])
    p = state.hands.shape[1]
    return state.hands[:, [(cur + k) % p for k in range(p)]].copy()


@pytest.mark.parametrize("rules", [STANDARD, STANDARD.replace(observation="history")],
                         ids=["standard", "history"])
def test_positions_refuse_inconsistent_input(rules: Rules) -> None:
    eng, state, obs = _position(rules)
    lay = eng.obs_layout
    hands = _frame(state)
    assert P.from_observation(rules, obs, hands).batch_size == 1  # the real position is fine
    blocks = lay.split(obs)
    # a hidden hand holding a card the observation says was played (for one it holds)
    if rules.observation == "history":
        card = int(np.flatnonzero(blocks["seat_played"][0].reshape(4, -1).sum(axis=0))[0])
    else:
        card = _played_card(blocks)
    held = int(np.flatnonzero(hands[0, 1])[0])
    bad = hands.copy()
    bad[0, 1, held] -= 1
    bad[0, 1, card] += 1
    with pytest.raises(ValueError, match=r"hands\[0\] hold .* that obs\[0\] says was played"):
        P.from_observation(rules, obs, bad)
    for name, value, message in [
        ("pile_size", np.nan, r"obs\[0\] holds NaN or infinite values"),
        ("phase", None, r"obs\[0\]: the one-hot block 'phase' holds 2 1s"),
        ("cards_left", 40.0, r"obs\[0\] is inconsistent: the other seats have"),
    ]:
        o = obs.copy()
        view = lay.split(o)[name]  # a view of o
        if value is None:
            view[0, :2] = 1.0  # two phases at once
        else:
            view[0, -1] = value
        with pytest.raises(ValueError, match=message):
            P.sample_hands(rules, o, 2, np.random.default_rng(0))
        if name != "cards_left":  # (from_observation checks cards_left against the hands)
            with pytest.raises(ValueError, match=message):
                P.from_observation(rules, o, hands)


def _played_card(blocks: dict[str, np.ndarray]) -> int:
    """A card id of a rank that the standard observation counts as played four times."""
    per_rank = np.rint(blocks["played"][0]).astype(int)
    full = np.flatnonzero(per_rank[:13] == 4)
    if not len(full):
        pytest.skip("no rank played out")
    return int(full[0]) * 4


def test_sample_hands_refuses_more_cards_left_than_unseen() -> None:
    eng, state, obs = _position()
    o = obs.copy()
    eng.obs_layout.split(o)["cards_left"][0, 2] = 40.0
    with pytest.raises(ValueError, match=r"other seats have \d+ cards left"):
        P.sample_hands(STANDARD, o, 4, np.random.default_rng(0))


# ---------------------------------------------------------------------------- 14. small parts
def test_small_engine_inputs() -> None:
    eng = Engine(STANDARD)
    with pytest.raises(ValueError, match="one seed per game.*got none"):
        eng.init([])
    state = eng.init([1, 2])
    before = [a.copy() for a in state.arrays()]
    with pytest.raises(ValueError, match=r"game 0: action 18446744073709551615 is out of range"):
        eng.step_inplace(state, np.array([2**64 - 1, 0], np.uint64))
    with pytest.raises(TypeError, match="players must be integer seats, got dtype float64"):
        eng.observe(state, [0.9, 1.7])
    for a, b in zip(state.arrays(), before):
        np.testing.assert_array_equal(a, b)
    e = env(preset="standard")
    e.reset(seed=0)
    with pytest.raises(ValueError, match="action 18446744073709551615 is out of range"):
        e.step(np.uint64(2**64 - 1))


# ---------------------------------------------------------------------------- fuzz: records
FUZZ_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=3),
    max_leaves=10,
)


def _played_text() -> str:
    engine = Engine(STANDARD)
    table = Table(engine, engine.init([3]), [RandomPolicy(1)], [0, 0, 0, 0])
    rec = GameRecorder(STANDARD, table.state, players=["a", "b", "c", "d"])
    table.play_until_external(rec.on_step)
    return rec.finish(table.state).to_json()


PLAYED = _played_text()


@settings(max_examples=150, deadline=None)
@given(path=st.lists(st.sampled_from(["rules", "steps", 0, 3, "seat", "action", "seed",
                                      "result", "places", "players", "meta", "version",
                                      "target_score", "num_players", "probs"]),
                     min_size=1, max_size=3), value=FUZZ_JSON, cut=st.integers(0, 40))
def test_fuzz_record_texts_are_records_or_record_errors(path: list[Any], value: Any,
                                                       cut: int) -> None:
    doc = json.loads(PLAYED)
    node: Any = doc
    for key in path[:-1]:  # walk as far as the document goes, then put the value there
        nxt = node[key] if isinstance(node, dict) and key in node else (
            node[key] if isinstance(node, list) and isinstance(key, int) and key < len(node)
            else None)
        if not isinstance(nxt, (dict, list)):
            break
        node = nxt
    if isinstance(node, dict):
        node[str(path[-1])] = value
    elif isinstance(node, list) and node:
        node[0] = value
    text = json.dumps(doc)
    for candidate in (text, text[: len(text) - cut]):
        try:
            record_from_json(candidate)
        except RecordError as e:
            assert "\n" not in str(e)


# ---------------------------------------------------------------------------- 10. command lines
def test_a_record_into_a_folder_is_refused_before_the_game(tmp_path: Path, capsys: Any) -> None:
    from apps.play import main

    assert main(["--record", str(tmp_path), "--seed", "1"]) == 2  # stdin is never read
    assert "a folder; give a file name" in capsys.readouterr().err
    assert main(["--record", str(tmp_path / "no" / "g.json")]) == 2
    assert "no folder" in capsys.readouterr().err
    with pytest.raises(IsADirectoryError):  # a save that fails leaves no .tmp behind
        record_from_json(PLAYED).save(tmp_path)
    assert list(tmp_path.parent.glob("*.tmp")) == []


@pytest.mark.parametrize("argv, words", [
    (["--save-dir", "FILE"], "a file, not a folder"),
    (["--host", "999.1.1.1"], "cannot serve on --host 999.1.1.1"),
    (["--port", "BUSY"], "cannot serve on"),
], ids=["save-dir-file", "bad-host", "busy-port"])
def test_web_command_lines_are_usage_errors(tmp_path: Path, capsys: Any, argv: list[str],
                                            words: str) -> None:
    import socket

    from apps.play import main

    (tmp_path / "f").write_text("x")
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = str(busy.getsockname()[1])
        argv = [{"FILE": str(tmp_path / "f"), "BUSY": port}.get(a, a) for a in argv]
        assert main(["--web", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and err.count("\n") == 1, err
