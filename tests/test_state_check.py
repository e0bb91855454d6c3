"""The engine checks a State before compiled code touches it: its fields' dtypes and shapes
(when it is made), its players and history (every engine call), and the batch length of the
masks and seeds handed beside it. Each refusal changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from president_env.core import Engine, OneGame, Rules, State
from president_env.core.state import replace

E3 = Engine(Rules(num_players=3))
E8 = Engine(Rules(num_players=8))
EH = Engine(Rules(num_players=3, observation="history"))


def _calls(engine: Engine, state: State) -> dict[str, Callable[[], Any]]:
    b = state.batch_size
    return {
        "legal_action_mask": lambda: engine.legal_action_mask(state),
        "step": lambda: engine.step(state, np.zeros(b, np.int64)),
        "step_inplace": lambda: engine.step_inplace(state, np.zeros(b, np.int64)),
        "observe": lambda: engine.observe(state),
        "reset_where": lambda: engine.reset_where(state, np.ones(b, bool), np.arange(b)),
        "play_random": lambda: engine.play_random(state, 5, np.random.default_rng(0)),
        "standings": lambda: engine.standings(state),
        "one_game": lambda: OneGame(engine, state.take(0)),
    }


@pytest.mark.parametrize("call", list(_calls(E3, E3.init([1]))))
def test_a_state_of_other_players_is_refused_unchanged(call: str) -> None:
    state = E3.init([1, 2])
    before = state.copy()
    with pytest.raises(ValueError, match="3-player games but this engine's rules are for 8"):
        _calls(E8, state)[call]()
    assert state.equals(before)


@pytest.mark.parametrize("call", ["legal_action_mask", "step_inplace", "observe", "one_game"])
def test_a_state_without_history_is_refused_by_a_history_engine(call: str) -> None:
    state = E3.init([1, 2])
    with pytest.raises(ValueError, match="without the history"):
        _calls(EH, state)[call]()


@pytest.mark.parametrize(("field", "value", "match"), [
    ("hands", lambda s: s.hands[:, :2], "State.passed must be bool of shape"),
    ("phase", lambda s: s.phase.astype(np.int64), "State.phase must be int8"),
    ("scores", lambda s: s.scores[:1], r"State.scores must be int32 of shape \(2, 3\)"),
    ("recent", lambda s: s.recent[:, :3], r"State.seat_played must be int8 of shape \(2, 3, 0\)"),
    ("seed", lambda s: [1, 2], "State.seed must be a numpy array"),
])
def test_a_state_of_mismatched_fields_cannot_be_made(field: str, value: Any, match: str) -> None:
    state = EH.init([1, 2])
    with pytest.raises((ValueError, TypeError), match=match):
        replace(state, **{field: value(state)})


def test_anything_but_a_state_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="expected a State"):
        E3.legal_action_mask("a state")  # type: ignore[arg-type]


@pytest.mark.parametrize(("done", "seeds", "match"), [
    (np.ones(1, bool), [1, 2, 3], r"done must have shape \(3,\)"),
    (np.ones(3, bool), [1, 2], "seeds must be one integer per game"),
])
def test_reset_where_needs_a_mask_and_seeds_of_the_batch(done: Any, seeds: Any, match: str) -> None:
    state = E3.init([1, 2, 3])
    before = state.copy()
    with pytest.raises(ValueError, match=match):
        E3.reset_where(state, done, seeds)
    assert state.equals(before)


def test_a_scalar_seed_starts_every_game_reset() -> None:
    state = E3.init([1, 2])
    E3.reset_where(state, np.ones(2, bool), 9)
    assert state.equals(E3.init([9, 9]))
