"""The adapters: PettingZoo AEC env, vector env, single-agent Gymnasium env, rendering.

PettingZoo's ``api_test``/``seed_test`` and Gymnasium's ``check_env`` run over every preset and
player count with warnings turned into errors; then scripted checks of errors (each leaves the
env unchanged), rewards, seeding, given hands, rendering, and that the vector env and the AEC
env play the same games.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterator
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from president_env import Rules, SingleAgentEnv, VectorEnv, env, raw_env
from president_env.core.actions import PASS
from president_env.core.engine import PHASE_DONE
from president_env.core.rules import PRESET_PLAYERS, PRESETS
from president_env.envs.wrappers import OrderEnforcingWrapper
from president_env.render import render_hand, render_table
from president_env.table import RandomPolicy, Table, as_policy

PRESET_NAMES = list(PRESETS)
PRESET_AND_PLAYERS = [
    (preset, n)
    for preset in PRESET_NAMES
    for n in range(PRESET_PLAYERS[preset][0], PRESET_PLAYERS[preset][1] + 1)
]

VARIANT_OPTIONS: dict[str, dict[str, Any]] = {
    "next_trick": dict(allow_equal=True, revolution=True, revolution_timing="next_trick"),
    "western": dict(allow_equal=True, revolution=True, western_revolution=True),
    "bombs": dict(jokers=2, bombs=4),
    "mixed_runs": dict(runs=True, jokers=1, runs_mixed_suits=True),
    "max_run": dict(runs=True, max_run_length=4),
    "exact": dict(runs=True, jokers=1, revolution=True, exact_plays=True, lock=True,
                  spade_three_beats_joker=True, run_joker_ends=True),
    "asks": dict(deals=3, president_asks=True),
    "all": dict(
        allow_equal=True, revolution=True, runs=True, jokers=2, deals=2, bombs=4,
        revolution_timing="next_trick", western_revolution=True, runs_mixed_suits=True,
        max_run_length=5, president_asks=True,
    ),
}
"""Each further variant of RULES.md section 12 on (with the option it refines), and all of
them (``daifugo_full`` is among the presets)."""


@pytest.fixture
def strict_api_test(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Warnings are errors. PettingZoo's api_test knows the classic envs whose observations are
    ``{"observation", "action_mask"}`` dicts by name and warns for any other: register ours."""
    mod = importlib.import_module("pettingzoo.test.api_test")
    monkeypatch.setattr(mod, "env_obs_dicts", [*mod.env_obs_dicts, "president_v0"])
    monkeypatch.setattr(mod, "env_obs_space", [*mod.env_obs_space, "president_v0"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def play_random(e: Any, rng: np.random.Generator) -> int:
    """Play one game of an AEC env to its end with random legal actions; steps taken."""
    n = 0
    for _agent in e.agent_iter():
        obs, _r, term, trunc, _info = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        n += 1
    return n


def snapshot(e: Any) -> tuple[Any, ...]:
    """What an erroneous call must not change."""
    raw = e.unwrapped
    game = raw._game
    return (
        tuple(a.copy() for a in game.state.arrays()),
        raw.agent_selection,
        list(raw.agents),
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        game.mask.copy(),
        game.obs.copy(),
    )


def same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return all(
        all(np.array_equal(x, y) for x, y in zip(u, v)) if isinstance(u, tuple)
        else (np.array_equal(u, v) if isinstance(u, np.ndarray) else u == v)
        for u, v in zip(a, b)
    )


# ---------------------------------------------------------------------- API checkers
@pytest.mark.parametrize(("preset", "num_players"), PRESET_AND_PLAYERS)
def test_pettingzoo_api_and_seed(strict_api_test: None, preset: str, num_players: int) -> None:
    # num_cycles * num_players steps: enough to finish the game (random games of 8 players
    # take up to ~350 steps); the checkers stop at the end of the game
    cycles = 600 // num_players
    api_test(env(preset=preset, num_players=num_players), num_cycles=cycles)
    seed_test(lambda: env(preset=preset, num_players=num_players), num_cycles=cycles)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_pettingzoo_api_raw_env_multi_deal(strict_api_test: None, preset: str) -> None:
    # several deals: card exchange (give actions), rewards at every deal end
    api_test(raw_env(preset=preset, deals=2, render_mode="ansi"), num_cycles=100)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_gymnasium_check_env(preset: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # check_env samples the whole action space, so illegal actions must end the episode
        e = gymnasium.make(
            "President-v0",
            preset=preset,
            seat="random",
            illegal_action="penalty",
            render_mode="ansi",
        )
        assert isinstance(e.unwrapped, SingleAgentEnv)
        check_env(e.unwrapped)


@pytest.mark.parametrize("variant", list(VARIANT_OPTIONS))
@pytest.mark.parametrize("num_players", [3, 5])
def test_pettingzoo_api_and_seed_with_each_variant(
    strict_api_test: None, variant: str, num_players: int
) -> None:
    options = dict(VARIANT_OPTIONS[variant], num_players=num_players)
    cycles = 1200 // num_players
    api_test(env(**options, render_mode="ansi"), num_cycles=cycles)
    seed_test(lambda: env(**options), num_cycles=cycles)


@pytest.mark.parametrize("variant", list(VARIANT_OPTIONS))
def test_gymnasium_check_env_with_each_variant(variant: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = gymnasium.make(
            "President-v0", seat="random", illegal_action="penalty", render_mode="ansi",
            **VARIANT_OPTIONS[variant],
        )
        check_env(e.unwrapped)
        # a whole game of legal random actions: every observation lies in the space
        rng = np.random.default_rng(0)
        obs, _ = e.reset(seed=3)
        done = False
        while not done:
            assert e.observation_space.contains(obs), variant
            mask = e.unwrapped.action_masks()  # type: ignore[attr-defined]
            obs, _, term, trunc, _ = e.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
        assert e.observation_space.contains(obs)


def test_gymnasium_make() -> None:
    e = gymnasium.make("President-v0", preset="cardverse", num_players=5)
    obs, info = e.reset(seed=1)
    assert obs.shape == e.observation_space.shape
    unwrapped: Any = e.unwrapped
    assert unwrapped.rules == Rules.preset("cardverse", num_players=5)
    e.close()


def test_maskable_ppo_learns_without_wrapper() -> None:
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # many threads on a busy 2-core machine cost 10x
    try:
        model = sb3_contrib.MaskablePPO(
            "MlpPolicy",
            SingleAgentEnv(preset="standard", seat="random"),
            n_steps=256,
            batch_size=64,
            seed=0,
            device="cpu",
        )
        model.learn(2048)
    finally:
        torch.set_num_threads(threads)
    assert model.num_timesteps >= 2048


# ---------------------------------------------------------------------- AEC env
def test_metadata_agents_spaces() -> None:
    e = raw_env(preset="daifugo", num_players=6)
    assert e.metadata["name"] == "president_v0"
    assert e.metadata["is_parallelizable"] is False
    assert set(e.metadata["render_modes"]) == {"ansi", "human", "rgb_array"}
    assert e.possible_agents == [f"player_{i}" for i in range(6)]
    e.reset(seed=0)
    space: Any = e.observation_space("player_3")
    assert space["observation"].shape == (e.engine.obs_size,)
    assert space["observation"].dtype == np.float32
    assert space["action_mask"].dtype == np.int8
    assert e.action_space("player_3") == gymnasium.spaces.Discrete(e.engine.num_actions)
    obs = e.observe(e.agent_selection)
    assert obs["action_mask"].any()
    for agent in e.agents:
        if agent != e.agent_selection:
            assert not e.observe(agent)["action_mask"].any()
            assert space.contains(e.observe(agent))


def test_agent_selection_follows_engine_and_masks_match() -> None:
    e = env(preset="runs")
    e.reset(seed=5)
    raw = e.unwrapped
    rng = np.random.default_rng(0)
    for _ in range(40):
        state = raw.game_state
        seat = int(state.current[0])
        assert e.agent_selection == f"player_{seat}"
        mask = raw.engine.legal_action_mask(state)[0]
        obs = e.observe(e.agent_selection)
        assert np.array_equal(obs["action_mask"], mask.astype(np.int8))
        assert np.array_equal(obs["observation"], raw.engine.observe(state)[0])
        e.step(int(rng.choice(np.flatnonzero(mask))))


def test_rewards_per_deal_and_termination() -> None:
    e = env(preset="revolution", deals=3)
    e.reset(seed=11)
    raw = e.unwrapped
    totals = dict.fromkeys(e.possible_agents, 0.0)
    deal_ends = 0
    rng = np.random.default_rng(1)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        assert not trunc
        totals[agent] += reward
        if term:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if e.agents and any(raw.rewards.values()):
            deal_ends += 1
            assert sum(raw.rewards.values()) == pytest.approx(0.0, abs=1e-6)
            assert sorted(raw.rewards.values()) == pytest.approx([-1.0, -1 / 3, 1 / 3, 1.0])
    assert deal_ends == 3
    assert not e.agents
    # every deal's reward reached its agent through last()
    state = raw.game_state
    assert state.phase[0] == PHASE_DONE
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-5)


def test_final_infos_and_reward_options() -> None:
    cases: list[tuple[Any, list[float]]] = [
        ("scores", [4.0, 3.0, 2.0, 1.0]),
        ([5, 1, 0, -9], [5.0, 1.0, 0.0, -9.0]),
    ]
    for reward, expect in cases:
        e = raw_env(preset="cardverse", reward=reward)
        e.reset(seed=2)
        play_random(e, np.random.default_rng(2))
        # all agents stepped out; the last rewards are in the final infos' standings
        e.reset(seed=2)
        rng = np.random.default_rng(2)
        while not all(e.terminations.values()):
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
        places = e.game_state.title[0]
        assert [e.rewards[f"player_{q}"] for q in range(4)] == [expect[p] for p in places]
        scores = e.game_state.scores[0]
        for q, agent in enumerate(e.possible_agents):
            assert e.infos[agent]["score"] == scores[q]
            assert set(e.infos[agent]) == {"deal", "score", "standing"}
        standings = sorted(e.infos[a]["standing"] for a in e.possible_agents)
        assert standings == [0, 1, 2, 3]


def test_seeded_resets_repeat() -> None:
    def trace(seed: int | None, games: int) -> list[Any]:
        e = env(preset="daifugo")
        out: list[Any] = []
        for g in range(games):
            e.reset(seed=seed if g == 0 else None)
            out.append(e.unwrapped.game_state.hands.copy())
            rng = np.random.default_rng(g)
            out.append(play_random(e, rng))
        return out

    a, b = trace(3, 3), trace(3, 3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    c = trace(4, 1)
    assert not np.array_equal(a[0], c[0])
    # no seed: fresh entropy, still a valid game
    e = env()
    e.reset()
    assert e.agent_selection in e.agents


def test_reset_with_given_hands() -> None:
    hands = ["3c 4c 5c", "3d 4d 5d", "3h 4h 2s", "3s 4s 6c"]
    e = env(num_players=4)
    e.reset(seed=0, options={"hands": hands})
    state = e.unwrapped.game_state
    assert e.agent_selection == "player_0"  # holds the 3 of clubs
    assert state.hands[0].sum() == 12
    obs = e.observe("player_0")
    assert obs["observation"][:53].sum() == 3
    with pytest.raises(ValueError, match="pack holds"):
        e.reset(options={"hands": ["3c 3c", "4d", "5d", "6d"]})
    assert e.unwrapped.game_state is state  # a failed reset changed nothing
    with pytest.raises(ValueError):
        e.reset(options={"hands": ["3c", "4d"]})  # two hands for four seats
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) 'hand'; valid options: 'hands'"):
        e.reset(seed=0, options={"hand": hands})  # a misspelled key is an error
    assert e.unwrapped.game_state is state


def test_illegal_action_raises_and_changes_nothing() -> None:
    for make in (env, raw_env):
        e = make(preset="standard")
        e.reset(seed=0)
        before = snapshot(e)
        mask = e.observe(e.agent_selection)["action_mask"]
        illegal = int(np.flatnonzero(mask == 0)[0])
        with pytest.raises(ValueError, match=r"illegal for player_\d; legal actions: \d+ \("):
            e.step(illegal)
        assert same(before, snapshot(e))
        with pytest.raises(ValueError, match="pass"):
            e.step(PASS)  # leading: a pass is illegal, named in the message
        assert same(before, snapshot(e))


@pytest.mark.parametrize(
    ("action", "error", "match"),
    [
        (1.0, TypeError, "integer"),
        (True, TypeError, "bool"),
        ("1", TypeError, "integer"),
        (np.array([1]), TypeError, "shape"),
        (np.array([[1, 2]]), TypeError, "shape"),
        (np.float32(1), TypeError, "integer"),
        (-1, ValueError, "out of range"),
        (10_000, ValueError, "out of range"),
        (np.int64(10_000), ValueError, "out of range"),
        (None, ValueError, "only for terminated agents"),
    ],
)
def test_wrong_action_types(action: Any, error: type[Exception], match: str) -> None:
    for make in (env, raw_env):
        e = make(preset="daifugo")
        e.reset(seed=1)
        before = snapshot(e)
        with pytest.raises(error, match=match):
            e.step(action)
        assert same(before, snapshot(e))


def test_numpy_integer_actions_are_accepted() -> None:
    games = []
    for wrap in (int, np.int32, np.array):  # plain int, numpy scalar, 0-d array
        e = env()
        e.reset(seed=3)
        for _ in range(2):
            legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
            e.step(wrap(legal[-1]))
        games.append(e.unwrapped.game_state)
    assert int(games[0].hands.sum()) < 52  # cards were played
    assert games[0].equals(games[1]) and games[0].equals(games[2])


def test_penalty_mode_terminates_with_illegal_reward() -> None:
    for make in (env, raw_env):
        e = make(preset="standard", illegal_action="penalty")
        e.reset(seed=0)
        agent = e.agent_selection
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PettingZoo logs the illegal move
            e.step(PASS)  # illegal when leading
        assert all(e.terminations.values())
        assert e.rewards[agent] == -1.0
        assert all(r == 0.0 for a, r in e.rewards.items() if a != agent)
        _, reward, term, _, _ = e.last()
        assert term
        for _agent in e.agent_iter():
            e.step(None)
        assert not e.agents


def test_stepping_a_finished_env() -> None:
    e = raw_env(preset="cardverse")
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    while not all(e.terminations.values()):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    # a terminated agent may only step(None)
    with pytest.raises(ValueError, match="only valid action is None"):
        e.step(0)
    assert not e.observe(e.agent_selection)["action_mask"].any()
    while e.agents:
        e.step(None)
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    # the wrapped env follows PettingZoo: a warning, nothing else
    w = env(preset="cardverse")
    w.reset(seed=4)
    play_random(w, rng)
    assert not w.agents
    before = w.unwrapped.game_state.hands.copy()
    w.step(None)
    assert np.array_equal(before, w.unwrapped.game_state.hands)
    w.reset()
    assert len(w.agents) == 4


def test_wrapped_env_before_reset() -> None:
    e = env()
    with pytest.raises(AttributeError):
        _ = e.agent_selection
    r = raw_env()
    with pytest.raises(RuntimeError, match="reset"):
        r.step(0)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"preset": "nope"}, ValueError, "unknown preset"),
        ({"preset": "cardverse", "num_players": 7}, ValueError, "3-6 players"),
        ({"num_players": 9}, ValueError, "3 to 8"),
        ({"jokers": -1}, ValueError, "jokers"),
        ({"colour": "red"}, ValueError, "unknown rule option"),
        ({"preset": "standard", "rules": Rules()}, ValueError, "not both"),
        ({"rules": "standard"}, TypeError, "Rules"),
        ({"render_mode": "rgb"}, ValueError, "render_mode must be None or one of 'human'"),
        ({"illegal_action": "ignore"}, ValueError, "illegal_action"),
        ({"reward": "money"}, ValueError, "unknown reward"),
        ({"reward": [1, 0]}, ValueError, "4 finite numbers"),
    ],
)
def test_bad_options(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    makers: list[Any] = [env, raw_env, SingleAgentEnv]
    if "render_mode" not in kwargs and "illegal_action" not in kwargs:
        makers.append(lambda **kw: VectorEnv(2, **kw))
    for make in makers:
        with pytest.raises(error, match=match):
            make(**kwargs)


def test_rules_and_options_combine() -> None:
    e = raw_env(rules=Rules.preset("runs"), num_players=5)
    assert e.rules == Rules.preset("runs", num_players=5)
    assert raw_env(preset="cardverse", num_players=5).rules.pass_is_final
    assert raw_env(runs=True, jokers=2).rules.num_jokers == 2


def test_observations_are_not_reused_across_steps() -> None:
    e = env()
    e.reset(seed=0)
    first = e.observe(e.agent_selection)
    kept = first["observation"].copy()
    e.step(int(np.flatnonzero(first["action_mask"])[0]))
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert np.array_equal(first["observation"], kept)


def test_render_ansi_shows_pile_and_hand() -> None:
    e = env(preset="standard", render_mode="ansi")
    hands = ["3c 9c 9h Kd", "4c 5d 10s 2h", "6c 6d Qd Ah", "7s 8s Js Jd"]
    e.reset(seed=0, options={"hands": hands})
    e.step(e.unwrapped.layout.set_action(6, 2))  # player_0 leads a pair of 9s
    text = e.render()
    assert isinstance(text, str)
    assert "Pile: pair of 9 (9c 9h), played by seat 0" in text
    assert "Hand of seat 1: 4c 5d 10s 2h" in text
    assert "deal 1 of 1" in text and "play" in text
    raw = raw_env(render_mode=None)
    raw.reset(seed=0)
    with pytest.warns(UserWarning, match="render"):
        assert raw.render() is None


def test_render_runs_revolution_and_pure_functions() -> None:
    e = raw_env(preset="daifugo", render_mode="ansi")
    e.reset(seed=0, options={"hands": ["3c 5h 6h 7h", "4c 8d 9d 10d", "6c 6d", "7s 8s"]})
    e.step(e.layout.run_action(2, 2, 3))
    state = e.game_state
    before = tuple(a.copy() for a in state.arrays())
    text = e.render()
    assert text is not None and "Pile: run 5-6-7 of hearts (5h 6h 7h), played by seat 0" in text
    assert "usual order" in text
    table = render_table(e.rules, state, 0, show_all=True)
    assert "run 5-6-7, played by seat 0" in table  # suits are not in the state
    assert "Hand of seat 3: 7s 8s" in table
    assert all(np.array_equal(x, y) for x, y in zip(before, state.arrays()))
    assert render_hand(np.zeros(53, np.int8)) == "(no cards)"
    e.reset(seed=0, options={"hands": ["3c 3d 3h 3s", "4c", "5c", "6c"]})
    e.step(e.layout.set_action(0, 4))
    assert "REVOLUTION" in str(e.render())


def test_render_human_prints(capsys: pytest.CaptureFixture[str]) -> None:
    e = env(preset="cardverse", render_mode="human")
    e.reset(seed=0)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    out = capsys.readouterr().out
    assert "Pile:" in out and "Hand of seat" in out


# ---------------------------------------------------------------------- vector env
@pytest.mark.parametrize("preset", ["standard", "daifugo", "cardverse"])
def test_vector_env_plays_the_same_games_as_the_aec_env(preset: str) -> None:
    num, seed = 3, 17
    venv = VectorEnv(num, preset=preset, seed=seed, deals=2)
    obs, mask, info = venv.reset()
    envs = [raw_env(preset=preset, deals=2) for _ in range(num)]
    for b, e in enumerate(envs):
        e.reset(seed=seed + b)
    rng = np.random.default_rng(0)
    over = np.zeros(num, np.bool_)
    while not over.all():
        for b, e in enumerate(envs):
            if over[b]:
                continue
            o = e.observe(e.agent_selection)
            assert np.array_equal(o["observation"], obs[b])
            assert np.array_equal(o["action_mask"].astype(np.bool_), mask[b])
            assert e.agent_selection == f"player_{info['current_player'][b]}"
        actions = venv.engine.sample_random(mask, rng)
        obs, mask, rewards, terminated, info = venv.step(actions)
        assert rewards.dtype == np.float32 and rewards.shape == (num, 4)
        for b, e in enumerate(envs):
            if over[b]:
                continue
            e.step(int(actions[b]))
            assert [e.rewards[a] for a in e.possible_agents] == pytest.approx(rewards[b])
            if terminated[b]:
                over[b] = True
                assert all(e.terminations.values())
                for q, agent in enumerate(e.possible_agents):
                    assert e.infos[agent]["score"] == info["final_scores"][b, q]
                    assert e.infos[agent]["standing"] == info["final_standings"][b, q]
            else:
                assert not any(e.terminations.values())
                assert (info["final_standings"][b] == -1).all()


def test_vector_env_auto_reset_same_step() -> None:
    venv = VectorEnv(8, preset="cardverse", seed=0)
    obs, mask, info = venv.reset()
    rng = np.random.default_rng(0)
    seen_end = False
    for _ in range(400):
        old_seeds = venv.state.seed.copy()
        obs, mask, rewards, terminated, info = venv.step(venv.engine.sample_random(mask, rng))
        assert mask.any(axis=1).all()  # every game waits for a player: finished ones restarted
        assert (venv.state.phase != PHASE_DONE).all()
        assert np.array_equal(info["current_player"], venv.current_player)
        if terminated.any():
            seen_end = True
            b = int(np.flatnonzero(terminated)[0])
            assert venv.state.seed[b] != old_seeds[b]  # a new game
            assert venv.state.hands[b].sum() == 52  # freshly dealt, the obs is of the new game
            assert obs[b][:53].sum() == venv.state.hands[b, venv.current_player[b]].sum()
            assert sorted(rewards[b]) == pytest.approx([-1.0, -1 / 3, 1 / 3, 1.0])
            assert sorted(info["final_standings"][b]) == [0, 1, 2, 3]
            assert info["deal_over"][b]
        not_over = ~info["deal_over"]
        assert (rewards[not_over] == 0).all()
    assert seen_end


def test_vector_env_without_auto_reset() -> None:
    venv = VectorEnv(4, preset="standard", seed=1, auto_reset=False)
    obs, mask, info = venv.reset()
    rng = np.random.default_rng(1)
    done = np.zeros(4, np.bool_)
    for _ in range(1000):
        actions = venv.engine.sample_random(mask, rng)  # -1 for finished games: ignored
        obs, mask, rewards, terminated, info = venv.step(actions)
        assert not (terminated & done).any()  # terminated only on the step a game ends
        done |= terminated
        assert (info["current_player"][done] == -1).all()
        assert not mask[done].any()
        if done.all():
            break
    assert done.all()
    obs, mask, info = venv.reset()
    assert mask.any(axis=1).all()


def test_vector_env_seeding_repeats() -> None:
    def run(seed: int) -> list[np.ndarray]:
        venv = VectorEnv(5, preset="daifugo", seed=seed)
        obs, mask, _ = venv.reset()
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(300):
            obs, mask, *_ = venv.step(venv.engine.sample_random(mask, rng))
            out.append(obs)
        return out

    a, b, c = run(9), run(9), run(10)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])


def test_vector_env_errors_change_nothing() -> None:
    venv = VectorEnv(4, preset="standard", seed=2)
    obs, mask, info = venv.reset()
    before = tuple(a.copy() for a in venv.state.arrays())
    legal = venv.engine.sample_random(mask, np.random.default_rng(0))
    bad = legal.copy()
    bad[2] = int(np.flatnonzero(~mask[2])[0])
    with pytest.raises(ValueError, match=r"game 2: action \d+ \(.*\) is illegal for player \d; legal"):
        venv.step(bad)
    with pytest.raises(ValueError, match="out of range"):
        venv.step(np.array([0, 0, 0, 999]))
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        venv.step(legal[:3])
    with pytest.raises(TypeError, match="integer"):
        venv.step(legal.astype(np.float64))
    assert all(np.array_equal(x, y) for x, y in zip(before, venv.state.arrays()))
    venv.step(legal)
    with pytest.raises(RuntimeError, match="reset"):
        VectorEnv(2).step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv(0)
    assert "Hand of seat" in str(venv.render(1))


# ---------------------------------------------------------------------- single-agent env
class LowestLegal:
    """A deterministic opponent: the lowest legal action id."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[0])


def test_single_agent_rewards_are_the_learners() -> None:
    for seat in range(4):
        e = SingleAgentEnv(preset="revolution", seat=seat, deals=2, opponents=LowestLegal())
        obs, info = e.reset(seed=seat)
        assert info["seat"] == seat
        total, rng = 0.0, np.random.default_rng(seat)
        while True:
            assert int(e.game_state.current[0]) == seat
            obs, reward, term, trunc, info = e.step(int(rng.choice(np.flatnonzero(e.action_masks()))))
            total += reward
            assert not trunc
            if term:
                break
        # two deals: the learner's rewards are 1 - 2 * place / 3 by its place in each, and
        # its "places" score is the sum of 4 - place
        place_sum = 2 * 4 - info["score"]
        assert total == pytest.approx(2 - 2 * place_sum / 3)
        assert info["standing"] in range(4)
        assert not e.action_masks().any()
        with pytest.raises(RuntimeError, match="over"):
            e.step(0)


def test_single_agent_seeding_and_random_seat() -> None:
    def episode(seed: int) -> list[Any]:
        e = SingleAgentEnv(preset="daifugo", seat="random")
        obs, info = e.reset(seed=seed)
        out: list[Any] = [info["seat"], obs.copy()]
        while True:
            obs, r, term, _, info = e.step(int(np.flatnonzero(e.action_masks())[-1]))
            out += [obs.copy(), r]
            if term:
                return out

    a, b = episode(5), episode(5)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    seats = {SingleAgentEnv(seat="random").reset(seed=s)[1]["seat"] for s in range(20)}
    assert len(seats) > 1


def test_single_agent_errors() -> None:
    e = SingleAgentEnv(preset="standard", seat=1)
    obs, _ = e.reset(seed=0)
    mask = e.action_masks()
    before = e.game_state.hands.copy()
    with pytest.raises(ValueError, match="illegal for the learner"):
        e.step(int(np.flatnonzero(~mask)[0]))
    with pytest.raises(TypeError):
        e.step(0.5)
    with pytest.raises(ValueError, match="out of range"):
        e.step(-3)
    assert np.array_equal(before, e.game_state.hands)
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(seat=4)
    with pytest.raises(ValueError, match="3 agents"):
        SingleAgentEnv(opponents=[LowestLegal()])
    with pytest.raises(TypeError, match="act"):
        SingleAgentEnv(opponents=object())  # type: ignore[arg-type]

    class Cheater:
        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            return int(np.flatnonzero(action_mask == 0)[0])

    with pytest.raises(ValueError, match="illegal for the agent in seat"):
        SingleAgentEnv(seat=3, opponents=Cheater()).reset(seed=0)


def test_single_agent_render_and_given_hands() -> None:
    e = SingleAgentEnv(render_mode="ansi", seat=2)
    hands = ["3c 9c", "4c 5d", "6c 6d", "7s 8s"]
    obs, _ = e.reset(seed=0, options={"hands": hands})
    text = e.render()
    assert text is not None and "learner: seat 2" in text and "Hand of seat 2: 6c 6d" in text
    assert obs[:53].sum() == 2


def test_random_policy() -> None:
    agent = RandomPolicy(rng=np.random.default_rng(0))
    mask = np.zeros(10, np.int8)
    mask[[3, 7]] = 1
    assert {agent.act(np.zeros(4, np.float32), mask) for _ in range(50)} == {3, 7}
    with pytest.raises(ValueError):
        agent.act(np.zeros(4, np.float32), np.zeros(10, np.int8))
    masks = np.zeros((3, 10), np.bool_)
    masks[0, [1, 2]] = masks[2, 9] = True
    out = agent.act_batch(np.zeros((3, 4), np.float32), masks)
    assert out[0] in (1, 2) and out[1] == -1 and out[2] == 9  # a row with no legal action: -1


def test_penalty_wrapper_zeroes_masks_and_env_pickles() -> None:
    import pickle

    e = env(preset="standard", illegal_action="penalty")
    e.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(PASS)
    for agent in e.possible_agents:
        assert not e.observe(agent)["action_mask"].any()
    assert str(e) == "president_v0"
    clone = pickle.loads(pickle.dumps(raw_env(preset="cardverse", num_players=5)))
    assert clone.rules == Rules.preset("cardverse", num_players=5)


# ---------------------------------------------------------------- masks handed out, rollbacks
def test_editing_a_returned_mask_does_not_make_an_illegal_action_legal() -> None:
    e = env(preset="standard")
    e.reset(seed=0)
    obs, *_ = e.last()
    obs["action_mask"][:] = 1  # the caller's copy, not the env's
    with pytest.raises(ValueError, match="illegal"):
        e.step(0)  # pass while leading
    v = VectorEnv(4, preset="standard", seed=0)
    _, mask, _ = v.reset()
    mask[:] = True
    with pytest.raises(ValueError, match="illegal"):
        v.step(np.zeros(4, np.int64))


class _IllegalAgent:
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(~np.asarray(action_mask, bool))[0])


def test_an_opponents_illegal_action_changes_nothing() -> None:
    s = SingleAgentEnv(preset="standard", seat=0)
    s.reset(seed=3)
    before = s.game_state.copy()
    mask = s.action_masks()
    table = s.table
    assert isinstance(table, Table)
    table.policies.append(as_policy(_IllegalAgent()))
    table.seat_policy[0, 1] = len(table.policies) - 1
    with pytest.raises(ValueError, match="illegal for the agent in seat 1"):
        s.step(int(np.flatnonzero(mask)[0]))
    assert s.game_state.equals(before)
    np.testing.assert_array_equal(s.action_masks(), mask)


def test_hands_that_end_the_deal_before_the_learner_acts_are_refused() -> None:
    s = SingleAgentEnv(preset="cardverse", num_players=3, seat=2)
    s.reset(seed=1)
    before = s.game_state.copy()
    with pytest.raises(ValueError, match="before the learner's first turn"):
        s.reset(options={"hands": ["2c", "2d", "3c"]})
    assert s.game_state.equals(before)  # the failed reset left the old game in place


def test_single_agent_env_with_random_opponents_repeats_for_a_seed() -> None:
    from agents import RandomAgent

    rules = Rules.preset("daifugo")

    def episode() -> list[int]:
        s = SingleAgentEnv(rules=rules, seat="random", opponents=[RandomAgent(rules)] * 3)
        s.reset(seed=11)
        played, done = [], False
        while not done:
            a = int(np.flatnonzero(s.action_masks())[0])
            _, _, done, _, _ = s.step(a)
            played.append(int(s.game_state.hands.sum()))
        return played

    assert episode() == episode()


# ---------------------------------------------------------------- reset arguments, every env
def _envs_mid_game() -> list[tuple[str, Any, Any]]:
    """``(name, env, its state and generator)`` of every adapter, a few steps into a game."""
    aec, raw = env(preset="standard"), raw_env(preset="standard")
    single, vec = SingleAgentEnv(preset="standard"), VectorEnv(3, preset="standard", seed=0)
    for e in (aec, raw):
        e.reset(seed=0)
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    single.reset(seed=0)
    vec.reset()
    return [
        ("env", aec, lambda: (aec.unwrapped.game_state, aec.unwrapped.np_random)),
        ("raw_env", raw, lambda: (raw.game_state, raw.np_random)),
        ("SingleAgentEnv", single, lambda: (single.game_state, single.np_random)),
        ("VectorEnv", vec, lambda: (vec.state, vec.np_random)),
    ]


def _unchanged(before: tuple[Any, Any], after: tuple[Any, Any]) -> bool:
    (state, rng), (state2, rng2) = before, after
    return state is state2 and state.equals(before[0]) and rng is rng2


@pytest.mark.parametrize(
    ("seed", "error", "match"),
    [
        (True, TypeError, "seed must be an int >= 0 or None, got bool True"),
        ("7", TypeError, "seed must be an int >= 0 or None, got str '7'"),
        (7.0, TypeError, "got float 7.0"),
        (np.array(7), TypeError, "got ndarray"),
        (-1, ValueError, "seed must be an int >= 0 or None, got -1"),
    ],
)
def test_bad_seeds_raise_and_change_nothing(seed: Any, error: type[Exception], match: str) -> None:
    for name, e, view in _envs_mid_game():
        before = view()
        rng_state = before[1].bit_generator.state
        arrays = tuple(a.copy() for a in before[0].arrays())
        with pytest.raises(error, match=match):
            e.reset(seed=seed)
        assert _unchanged(before, view()), name
        assert before[1].bit_generator.state == rng_state, name
        assert all(np.array_equal(x, y) for x, y in zip(arrays, view()[0].arrays())), name
    with pytest.raises(TypeError, match="got bool True"):
        VectorEnv(2, seed=True)
    with pytest.raises(ValueError, match="got -3"):
        VectorEnv(2, seed=-3)
    from president_env import LearnerVecEnv

    with pytest.raises(TypeError, match="got str '7'"):
        LearnerVecEnv(Rules(), 2, [RandomPolicy(0)], seed="7")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="got -1"):
        LearnerVecEnv(Rules(), 2, [RandomPolicy(0)], seed=-1)
    numpy_seed: Any = np.int64(4)  # numpy integers are ints
    assert VectorEnv(2, seed=numpy_seed).reset()[0].shape[0] == 2


def test_bad_reset_options_raise_and_change_nothing() -> None:
    for name, e, view in _envs_mid_game():
        valid = "none" if name == "VectorEnv" else "'hands'"
        before = view()
        with pytest.raises(ValueError, match=rf"unknown reset option\(s\) 'hnads'; valid options: {valid}"):
            e.reset(seed=1, options={"hnads": ["3c", "4c", "5c", "6c"]})
        with pytest.raises(TypeError, match="options must be a dict or None, got list"):
            e.reset(seed=1, options=["hands"])
        assert _unchanged(before, view()), name
        e.reset(seed=1, options={"options": 1})  # PettingZoo's api_test probes the signature


def test_vector_env_renders_any_game_in_every_mode(capsys: pytest.CaptureFixture[str]) -> None:
    venv = VectorEnv(3, preset="standard", seed=0)
    venv.reset()
    text = venv.render(2, seat=1)
    assert isinstance(text, str) and "Hand of seat 1" in text
    frame = venv.render(2, mode="rgb_array")
    assert isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.dtype == np.uint8 and frame.shape[1] >= 640
    assert venv.render(0, mode="human") is None and "Pile:" in capsys.readouterr().out
    with pytest.raises(ValueError, match="render mode"):
        venv.render(0, mode="video")


# ---------------------------------------------------------------------- the one-call fast path
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_one_game_by_address_plays_as_engine_advance_and_copies_stay_apart(preset: str) -> None:
    """OneGame's address-vector kernel gives exactly Engine.advance's masks, observations and
    states; a deep copy and a pickled copy step their own arrays, never the original's."""
    import copy
    import pickle

    from president_env.core.engine import Engine
    from president_env.core.one_game import OneGame

    eng = Engine(Rules.preset(preset, num_players=5))
    rng = np.random.default_rng(3)
    for g in range(4):
        game, ref = OneGame(eng, eng.init([g])), eng.init([g])
        assert game.fast
        mask = np.empty(eng.num_actions, np.int8)
        obs = np.empty(eng.obs_size, np.float32)
        cur = eng.advance(ref, -1, mask, obs)
        copies: list[OneGame] = []
        while cur >= 0:
            assert game.current == cur
            np.testing.assert_array_equal(game.mask, mask)
            np.testing.assert_array_equal(game.obs, obs)
            if len(copies) < 2 and rng.random() < 0.1:
                copies = [copy.deepcopy(game), pickle.loads(pickle.dumps(game))]
                before = [a.copy() for a in game.state._flat]
                for c in copies:  # play the copies to their end: the original must not move
                    assert c.fast
                    while c.current >= 0:
                        c.step(int(rng.choice(np.flatnonzero(c.mask))))
                for now, then in zip(game.state._flat, before):
                    np.testing.assert_array_equal(now, then)
            a = int(rng.choice(np.flatnonzero(mask)))
            game.step(a)
            cur = eng.advance(ref, a, mask, obs)
        assert game.current == -1
        for mine, theirs in zip(game.state._flat, ref._flat):
            np.testing.assert_array_equal(mine, theirs)


def test_one_game_hands_over_only_arrays_it_can() -> None:
    """The address vector only for C-contiguous, writable arrays; the others fall back to
    ``Engine.advance`` (played through in tests/test_aec_fastpath.py)."""
    from president_env.core.engine import Engine, State
    from president_env.core.one_game import address_spec

    eng = Engine(Rules.preset("standard"))
    state = eng.init([7])
    assert address_spec(eng, state) is not None
    fields = {n: getattr(state, n).copy() for n in state._arrays._fields}
    strided = np.zeros((1, 4, 106), np.int8)[:, :, ::2]  # not contiguous
    strided[...] = fields["hands"]
    assert address_spec(eng, State(**{**fields, "hands": strided})) is None
    frozen = fields["seed"].copy()
    frozen.setflags(write=False)
    assert address_spec(eng, State(**{**fields, "seed": frozen})) is None
    assert address_spec(eng, State(**fields)) is not None


@pytest.mark.parametrize("illegal_action", ["raise", "penalty"])
def test_wrapped_last_and_agent_iter_read_the_same_as_the_bare_env(illegal_action: str) -> None:
    """The wrapper's last()/step()/agent_iter(): the bare env's values, every check kept
    (before reset, in either illegal_action mode: one wrapper over the bare env in both)."""
    e = env(illegal_action=illegal_action)
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        e.last()
    assert type(e) is OrderEnforcingWrapper and type(e.env) is raw_env
    e.reset(seed=4)
    raw = e.unwrapped
    n = 0
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        assert agent == raw.agent_selection
        r_obs, r_rew, r_term, r_trunc, r_info = raw.last()
        assert obs is r_obs and (rew, term, trunc, info) == (r_rew, r_term, r_trunc, r_info)
        assert e.last(observe=False)[0] is None
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
        n += 1
    assert n > 4 and not e.agents
    with pytest.raises(AssertionError, match="need to call step"):
        e.reset(seed=4)
        it = iter(e.agent_iter())
        next(it)
        next(it)
