"""Pictures of the table (``render_mode="rgb_array"``): president_env.render.picture, render_view and the
README pictures script (train.pictures)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import numpy.typing as npt
import pytest

from president_env.core.actions import Kind
from president_env.core.cards import parse_hand
from president_env.core.engine import PHASE_DONE, PHASE_PLAY, Engine, State
from president_env.core.rules import Rules
from president_env.render import RENDER_MODES, render_table, render_view
from president_env.render.picture import FELT_LIGHT, HEADER_H, MARGIN, WIDTH, draw_table, frame_size
from president_env.table import RandomPolicy
from train import pictures

Pile = npt.NDArray[np.int8] | None


def _midgame(rules: Rules, seed: int = 0) -> tuple[State, Pile]:
    """A random game played until cards lie on the pile and a seat has passed."""
    engine = Engine(rules)
    rng = np.random.default_rng(seed)
    state = engine.init([seed])
    pile = None
    for _ in range(2000):
        if (
            state.phase[0] == PHASE_PLAY
            and state.pile_kind[0] != Kind.PASS
            and state.passed[0].any()
        ):
            return state, pile
        action = int(engine.sample_random(engine.legal_action_mask(state), rng)[0])
        if engine.layout.kind[action] in (Kind.SET, Kind.JOKERS, Kind.RUN):
            pile = engine.layout.cards_for(action, state.hands[0, state.current[0]])
        engine.step_inplace(state, np.array([action], np.int64))
    raise AssertionError("no state with a pile and a pass")


def _differs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rows ``y`` where two pictures differ."""
    return np.flatnonzero((a != b).any(axis=(1, 2)))


def _changes(frames: list[np.ndarray]) -> int:
    """Frames of a GIF of ``frames``: a frame equal to the one before only lengthens it."""
    return 1 + sum(not np.array_equal(a, b) for a, b in zip(frames, frames[1:]))


def _swap_hidden_card(state: State, s: int, t: int) -> State:
    """A copy where seats ``s`` and ``t`` trade one card each (their counts stay)."""
    out = state.copy()
    hs, ht = out.hands[0, s], out.hands[0, t]
    a = int(np.flatnonzero((hs > 0) & (ht == 0))[0])
    b = int(np.flatnonzero((ht > 0) & (hs == 0))[0])
    hs[a] -= 1
    ht[a] += 1
    ht[b] -= 1
    hs[b] += 1
    return out


@pytest.mark.parametrize("players", range(3, 9))
@pytest.mark.parametrize("decks", [1, 2])
def test_a_picture_is_640_wide_uint8_for_every_table(players: int, decks: int) -> None:
    rules = Rules.preset("daifugo", num_players=players, decks=decks)
    state, pile = _midgame(rules, seed=players)
    image = draw_table(rules, state, pile_cards=pile)
    assert image.dtype == np.uint8 and image.shape == (*frame_size(rules), 3)
    assert image.shape[1] == WIDTH == 640 and 300 <= image.shape[0] <= 520
    assert image.flags.c_contiguous
    # the hand (up to 36 cards with two decks and 3 players) stays inside the right margin
    hand_rows = image[-80:-10, WIDTH - MARGIN + 1 :]
    assert (hand_rows == FELT_LIGHT).all()
    everyone = draw_table(rules, state, show_all=True, pile_cards=pile)
    assert everyone.shape == (*frame_size(rules, show_all=True), 3)
    assert everyone.shape[0] > image.shape[0]


def test_the_same_state_gives_the_same_pixels() -> None:
    rules = Rules.preset("standard")
    state, pile = _midgame(rules)
    first = draw_table(rules, state, pile_cards=pile)
    assert np.array_equal(
        first, draw_table(rules, state.copy(), pile_cards=None if pile is None else pile.copy())
    )
    # and in a new process (no cached sprites): the same bytes
    code = (
        "import hashlib, sys; from president_env.core.engine import Engine;"
        "from president_env.core.rules import Rules; from president_env.render.picture import draw_table;"
        "r = Rules.preset('standard'); s = Engine(r).init([3]);"
        "sys.stdout.write(hashlib.sha256(draw_table(r, s).tobytes()).hexdigest())"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    here = draw_table(rules, Engine(rules).init([3])).tobytes()
    assert run.stdout == hashlib.sha256(here).hexdigest()


def test_a_seats_picture_does_not_depend_on_hidden_cards() -> None:
    rules = Rules.preset("standard")
    state, pile = _midgame(rules, seed=1)
    seat = int(state.current[0])
    others = [q for q in range(4) if q != seat]
    swapped = _swap_hidden_card(state, others[0], others[1])
    assert not np.array_equal(state.hands, swapped.hands)
    mine = draw_table(rules, state, seat=seat, pile_cards=pile)
    assert np.array_equal(mine, draw_table(rules, swapped, seat=seat, pile_cards=pile))
    # the default view (the seat to act) hides them too
    assert np.array_equal(
        draw_table(rules, state, pile_cards=pile), draw_table(rules, swapped, pile_cards=pile)
    )
    # but the viewer's own hand is drawn: trading one of its cards changes the hand area only
    own = _swap_hidden_card(state, seat, others[0])
    rows = _differs(mine, draw_table(rules, own, seat=seat, pile_cards=pile))
    hand_top = frame_size(rules)[0] - 114
    assert len(rows) and rows.min() >= hand_top
    # and every hand with show_all
    everyone = draw_table(rules, state, show_all=True, pile_cards=pile)
    assert not np.array_equal(everyone, draw_table(rules, swapped, show_all=True, pile_cards=pile))


def test_revolution_pile_and_passes_show() -> None:
    rules = Rules.preset("revolution")
    state, pile = _midgame(rules, seed=2)
    base = draw_table(rules, state, pile_cards=pile)
    pile_top = HEADER_H + MARGIN + 78 + MARGIN

    rev = state.copy()
    rev.revolution[0] = not rev.revolution[0]
    rows = _differs(base, draw_table(rules, rev, pile_cards=pile))
    assert len(rows) and rows.min() >= pile_top  # the pile area, not the seats

    passer = int(np.flatnonzero(state.passed[0])[0])
    unpassed = state.copy()
    unpassed.passed[0, passer] = False
    rows = _differs(base, draw_table(rules, unpassed, pile_cards=pile))
    assert len(rows) and rows.min() >= HEADER_H  # the seat's panel and the list of passes

    empty = state.copy()
    empty.pile_kind[0], empty.pile_rank[0], empty.pile_size[0], empty.last_player[0] = (
        Kind.PASS,
        -1,
        0,
        -1,
    )
    assert not np.array_equal(base, draw_table(rules, empty, pile_cards=pile))
    # the exact cards, when known, are drawn instead of the ranks alone
    assert pile is not None
    assert not np.array_equal(base, draw_table(rules, state))
    # cards that do not match the top play are not believed
    wrong = np.zeros_like(pile)
    assert np.array_equal(draw_table(rules, state), draw_table(rules, state, pile_cards=wrong))


def test_exchange_jokers_and_game_over_are_drawn() -> None:
    rules = Rules.preset("daifugo", deals=2)
    engine = Engine(rules)
    hands = [
        "JK JK 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc",
        "3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd Ad 2d",
        "3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah 2h",
        "3s 4s 5s 6s 7s 8s 9s 10s Js Qs Ks As 2s",
    ]
    state = engine.init_from_hands([[parse_hand(h) for h in hands]])
    with_jokers = draw_table(rules, state, seat=0)
    without = state.copy()
    without.hands[0, 0, 52] = 0
    without.hands[0, 0, 0:2] += 1
    assert not np.array_equal(with_jokers, draw_table(rules, without, seat=0))
    rng = np.random.default_rng(0)
    frames = []
    while state.phase[0] != PHASE_DONE:
        frames.append(draw_table(rules, state))
        engine.step_inplace(state, engine.sample_random(engine.legal_action_mask(state), rng))
    frames.append(draw_table(rules, state))
    assert len({f.shape for f in frames}) == 1  # one size for a whole game: a video


def test_bad_arguments_are_named() -> None:
    rules = Rules.preset("standard")
    state = Engine(rules).init([0])
    with pytest.raises(ValueError, match="game 1 is out of range"):
        draw_table(rules, state, 1)
    with pytest.raises(ValueError, match="seat 4 is out of range"):
        draw_table(rules, state, seat=4)
    with pytest.raises(ValueError, match="5 players"):
        draw_table(Rules.preset("standard", num_players=5), state)
    with pytest.raises(
        ValueError, match=r"render mode must be one of \('human', 'ansi', 'rgb_array'\), got 'rgb'"
    ):
        render_view("rgb", rules, state)


def test_render_view_serves_every_mode(capsys: pytest.CaptureFixture[str]) -> None:
    rules = Rules.preset("standard")
    state, pile = _midgame(rules)
    assert RENDER_MODES == ("human", "ansi", "rgb_array")
    text = render_view("ansi", rules, state, seat=1, pile_cards=pile)
    assert text == render_table(rules, state, 0, 1, False, pile)
    assert render_view("human", rules, state, show_all=True) is None
    assert capsys.readouterr().out == render_table(rules, state, show_all=True) + "\n\n"
    image = render_view("rgb_array", rules, state, seat=2, pile_cards=pile)
    assert isinstance(image, np.ndarray)
    assert np.array_equal(image, draw_table(rules, state, seat=2, pile_cards=pile))


def test_the_render_module_imports_without_pillow() -> None:
    code = "import sys, president_env.render.text, president_env; assert 'PIL' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_whole_game_makes_a_gif(tmp_path: Path) -> None:
    rules = Rules.preset("standard")
    policies = [RandomPolicy(seed=q) for q in range(4)]
    steps = list(pictures.play_game(rules, policies, seed=3))
    assert steps[-1][0].phase[0] == PHASE_DONE
    frames = [draw_table(rules, st, pile_cards=pile) for st, pile in steps]
    path = tmp_path / "game.gif"
    pictures.write_gif(frames, path, frame_ms=100)
    back = iio.imread(path, index=None)
    assert back.shape[:3] == (len(frames), *frames[0].shape[:2])
    for k in (0, len(frames) // 2, len(frames) - 1):  # one palette: the same pictures
        assert np.abs(back[k, ..., :3].astype(np.int16) - frames[k]).mean() < 4
    assert iio.immeta(path)["loop"] == 0


def test_the_pictures_script_writes_the_readme_images(tmp_path: Path) -> None:
    paths = pictures.main(["--out", str(tmp_path / "img"), "--seed", "7"])
    still = iio.imread(paths["table"])
    assert still.shape == (*frame_size(Rules.preset("standard")), 3)
    gif = paths["gif"]
    assert gif.stat().st_size < 2 * 1024 * 1024
    assert iio.improps(gif, index=None).shape[0] > 20


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--frame-ms", "0"], "--frame-ms must be a positive"),
        (["--seed", "-1"], "--seed must be 0 or more"),
        (["--seat", "4"], "--seat must be in 0..3"),
        (["--agent", "wizard"], "unknown agent 'wizard'"),
    ],
)
def test_the_pictures_script_rejects_bad_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    out = tmp_path / "img"
    with pytest.raises(SystemExit) as exit_:
        pictures.main(["--out", str(out), *argv])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert not out.exists()  # checked before any work


@pytest.mark.filterwarnings("error")
def test_gymnasiums_render_collection_records_the_single_agent_env(tmp_path: Path) -> None:
    import gymnasium
    from gymnasium.wrappers import RenderCollection

    import president_env.envs.single_agent  # noqa: F401  (registers President-v0)

    env = RenderCollection(gymnasium.make("President-v0", render_mode="rgb_array"))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, done = 0, False
    while not done:
        mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        done, steps = terminated or truncated, steps + 1
    base = env.unwrapped
    last = draw_table(base.rules, base.game_state, seat=base.seat)  # type: ignore[attr-defined]
    frames: list[np.ndarray] = env.render()  # type: ignore[assignment]
    assert isinstance(frames, list) and len(frames) == steps + 1  # reset, then every step
    assert all(isinstance(f, np.ndarray) and f.shape == last.shape for f in frames)
    assert np.array_equal(frames[-1], last)  # the learner's view of the end
    iio.imwrite(tmp_path / "learner.gif", np.stack(frames), duration=200, loop=0)
    assert iio.improps(tmp_path / "learner.gif", index=None).shape[0] == _changes(frames)
    env.close()


@pytest.mark.filterwarnings("error")
def test_the_aec_env_draws_every_step_and_passes_pettingzoos_render_test(tmp_path: Path) -> None:
    from pettingzoo.test import render_test

    from president_env.envs.aec import env as aec_env

    render_test(lambda render_mode=None: aec_env(render_mode=render_mode))
    env = aec_env(preset="revolution", num_players=5, render_mode="rgb_array")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    frames = []
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        frames.append(env.render())
    rules = Rules.preset("revolution", num_players=5)
    assert all(isinstance(f, np.ndarray) and f.shape == (*frame_size(rules), 3) for f in frames)
    assert len({f.tobytes() for f in frames}) > len(frames) // 2  # the picture follows the game
    iio.imwrite(tmp_path / "aec.gif", np.stack(frames[-20:]), duration=200, loop=0)
    assert iio.improps(tmp_path / "aec.gif", index=None).shape[0] == _changes(frames[-20:])


@pytest.mark.parametrize(
    "options",
    [
        dict(preset="daifugo_full", num_players=6),
        dict(revolution=True, allow_equal=True, western_revolution=True, num_players=5),
        dict(runs=True, jokers=1, runs_mixed_suits=True, max_run_length=4),
        dict(deals=2, president_asks=True, num_players=3),
    ],
)
def test_the_further_variants_draw_in_the_same_frame(options: dict[str, object]) -> None:
    preset = options.pop("preset", None)
    rules = Rules.preset(str(preset), **options) if preset else Rules(**options)  # type: ignore[arg-type]
    engine = Engine(rules)
    state = engine.init([4])
    rng = np.random.default_rng(4)
    frames = []
    while state.phase[0] != PHASE_DONE:
        frames.append(draw_table(rules, state))
        engine.step_inplace(state, engine.sample_random(engine.legal_action_mask(state), rng))
    assert {f.shape for f in frames} == {(*frame_size(rules), 3)}
    assert len({f.tobytes() for f in frames}) > len(frames) // 2
