"""Pictures of a game for the README: a still of the table and a GIF of a whole game.

Plays one seeded game of rule-based agents (four Hard agents in the ``standard`` preset by
default), draws every step with :func:`president_env.render.picture.draw_table` (the env's
``render_mode="rgb_array"``, the hand of the seat to act face up) and writes to ``--out``:

* ``table.png``: a frame from the middle of the game with cards on the pile and a pass;
* ``game.gif``: every step, ``--frame-ms`` each (the last frame held longer), one palette.

    python -m train.pictures --out docs/img
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image

from agents import make_agent
from president_env.cli import parse, rule_options
from president_env.core.actions import Kind
from president_env.core.engine import PHASE_DONE, PHASE_PLAY, Engine, State
from president_env.core.rules import Rules
from president_env.render.picture import draw_table
from president_env.table import Policy

Frame = npt.NDArray[np.uint8]


@dataclass
class Args:
    out: Path = Path("docs/img")
    """Output folder (created): table.png and game.gif."""
    preset: str = "standard"
    """Rule preset."""
    num_players: int = 4
    """Players at the table."""
    agent: str = "hard"
    """Rule-based agent in every seat (random, easy, normal, hard)."""
    seed: int = 7
    """Seed of the deal and the agents."""
    seat: int | None = None
    """Whose hand is face up (default: the seat to act in each frame)."""
    show_all: bool = False
    """Show every hand face up."""
    frame_ms: int = 900
    """Time each frame of the GIF is shown, in milliseconds."""
    extra: dict[str, Any] = rule_options()
    """Rule options overriding the preset."""


def play_game(
    rules: Rules, policies: Sequence[Policy], seed: int, max_steps: int = 10_000
) -> Iterator[tuple[State, npt.NDArray[np.int8] | None]]:
    """The states of one game (``policies[q]`` plays seat ``q``), from the deal to the end,
    each with the exact cards of its top play (``None`` before the first play)."""
    engine = Engine(rules)
    state = engine.init([seed])
    pile: npt.NDArray[np.int8] | None = None
    yield state.copy(), pile
    for _ in range(max_steps):
        if state.phase[0] == PHASE_DONE:
            return
        seat = int(state.current[0])
        mask = engine.legal_action_mask(state)
        action = int(policies[seat].act_batch(engine.observe(state), mask)[0])
        if engine.layout.kind[action] in (Kind.SET, Kind.JOKERS, Kind.RUN):
            pile = engine.layout.cards_for(action, state.hands[0, seat])
        engine.step_inplace(state, np.array([action], np.int64))
        yield state.copy(), pile
    raise RuntimeError(f"the game did not end within {max_steps} steps")


def still_index(states: Sequence[State]) -> int:
    """The step to show as a still: the first from the middle of the game on with cards on the
    pile and a seat that passed (else the middle step)."""
    middle = len(states) // 2
    for i in range(middle, len(states)):
        st = states[i]
        if st.phase[0] == PHASE_PLAY and st.pile_kind[0] != Kind.PASS and st.passed[0].any():
            return i
    return middle


def write_gif(frames: Sequence[Frame], path: Path, frame_ms: int, hold_ms: int = 3000) -> None:
    """``frames`` as a looping GIF with one palette (made from the middle frame), no dither."""
    if not frames:
        raise ValueError("write_gif needs at least one frame")
    palette = Image.fromarray(frames[len(frames) // 2]).quantize(
        colors=96, method=Image.Quantize.MEDIANCUT
    )
    images = [
        Image.fromarray(f).quantize(palette=palette, dither=Image.Dither.NONE) for f in frames
    ]
    durations = [frame_ms] * (len(images) - 1) + [max(frame_ms, hold_ms)]
    images[0].save(
        path, save_all=True, append_images=images[1:], duration=durations, loop=0, disposal=1
    )


def _check(args: Args) -> None:
    """Bad arguments end here, before any work, with one line and exit code 2."""
    problem = None
    if args.frame_ms <= 0:
        problem = f"--frame-ms must be a positive number of milliseconds, got {args.frame_ms}"
    elif args.seed < 0:
        problem = f"--seed must be 0 or more, got {args.seed}"
    elif args.out.exists() and not args.out.is_dir():
        problem = f"--out {args.out} exists and is not a folder"
    if problem:
        print(f"train.pictures: error: {problem}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: list[str] | None = None) -> dict[str, Path]:
    args = parse(Args, argv)
    _check(args)
    try:
        rules = Rules.preset(args.preset, num_players=args.num_players, **args.extra)
        agents = [
            make_agent(args.agent, rules, seed=args.seed + q) for q in range(rules.num_players)
        ]
        if args.seat is not None and not 0 <= args.seat < rules.num_players:
            raise ValueError(f"--seat must be in 0..{rules.num_players - 1}, got {args.seat}")
    except ValueError as e:
        print(f"train.pictures: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    args.out.mkdir(parents=True, exist_ok=True)
    steps = list(play_game(rules, agents, args.seed))
    frames = [
        draw_table(rules, st, seat=args.seat, show_all=args.show_all, pile_cards=pile)
        for st, pile in steps
    ]
    paths = {"table": args.out / "table.png", "gif": args.out / "game.gif"}
    Image.fromarray(frames[still_index([st for st, _ in steps])]).save(paths["table"])
    write_gif(frames, paths["gif"], args.frame_ms)
    for name, path in paths.items():
        print(f"{name}: {path} ({path.stat().st_size / 1024:.0f} KiB)")
    print(f"{len(frames)} frames of {frames[0].shape[1]}x{frames[0].shape[0]}")
    return paths


if __name__ == "__main__":
    main()
