"""The UECda server's logs replayed through the engine's ``uecda`` preset
(:mod:`president_env.uecda.replay`): every submission as our exact action, legal in our mask
exactly when the server accepted it, and the logged finishing orders."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from president_env.core.actions import ActionLayout
from president_env.core.constants import JOKER, JOKER_ROW
from president_env.core.rules import Rules
from president_env.records.parse import load_record
from president_env.uecda.cli import main
from president_env.uecda.game import read_refused
from president_env.uecda.log import ABOVE_TWO, BELOW_THREE, NO_SUIT, UecdaMove, read_log
from president_env.uecda.moves import ServerRules
from president_env.uecda.replay import (
    action_for,
    rejected_path,
    replay_file,
    replay_log,
    rules_for,
)

DATA = Path(__file__).parent / "data" / "uecda"
CONFIGS = tuple(sorted(p.name.removesuffix(".log.gz") for p in DATA.glob("*.log.gz")))
"""The committed logs (tests/test_uecda_log.py checks that they are its ten)."""
FIRST = 100
STALEMATES_FIRST = 28
"""Games of the first 100 of ``no_kaidan`` that 20 passes in a row end."""


def _move(cards: list[int], joker_as: tuple[tuple[int | None, int], ...] = ()) -> UecdaMove:
    counts = np.zeros(JOKER + 1, np.int8)
    counts[cards] = 1
    if joker_as:
        counts[JOKER] = 1
    return UecdaMove(0, counts, joker_as)


def test_the_preset_is_the_servers_default() -> None:
    r = Rules.preset("uecda")
    assert (r.num_players, r.num_jokers, r.max_set_size, r.allow_equal) == (5, 1, 5, False)
    assert r.pass_is_final and not r.top_rank_clears and r.eight_clears and r.revolution
    assert r.runs and not r.runs_mixed_suits and r.runs_disjoint and r.run_revolution == 5
    assert r.exact_plays and r.lock and r.run_joker_ends and r.spade_three_beats_joker
    assert r.play_on_own and r.stalemate_passes == 20 and r.lead_may_pass and r.first_lead == "three_of_diamonds"
    assert not (r.jack_back or r.six_reverses or r.exchange_on)
    assert (r.title_reset_every, r.reseat_every) == (100, 3)
    with pytest.raises(ValueError, match="uecda"):
        Rules.preset("uecda", num_players=4)


def _as_logged(**options: object) -> Rules:
    """The preset as a replay takes it: the log's seats (no ``reseat_every``), ``options``."""
    return Rules.preset("uecda", reseat_every=None, **options)


def test_the_servers_switches_map_to_options() -> None:
    assert rules_for(ServerRules()) == _as_logged()
    assert rules_for({"RULE_11BACK": "YES"}) == _as_logged(jack_back=True)
    assert rules_for({"RULE_6REVERS": "YES"}) == _as_logged(six_reverses=True)
    assert rules_for({"RULE_SHIBARI": "NO"}) == _as_logged(lock=False)
    assert rules_for({"RULE_8GIRI": "NO"}) == _as_logged(eight_clears=False)
    assert rules_for({"RULE_KAKUMEI": "NO"}) == _as_logged(revolution=False, run_revolution=None)
    assert rules_for({"RULE_KAIDAN": "NO"}) == _as_logged(
        runs=False, run_revolution=None, runs_disjoint=False, run_joker_ends=False)
    with pytest.raises(ValueError, match="RULE_KAIDAN"):
        rules_for({"RULE_KAIDAN": "maybe"})


def test_submissions_map_to_the_exact_actions() -> None:
    lay = ActionLayout(Rules.preset("uecda"))
    assert action_for(lay, UecdaMove(0, None)) == 0
    # a pair of 9s: 9c and the joker in the hearts' row (9 is rank 6; ids rank * 4 + suit)
    assert action_for(lay, _move([24], ((6, 2),))) == lay.exact_set_action(6, 1, 2)
    # five 5s: the joker in row 4, beside all four suits
    assert action_for(lay, _move([8, 9, 10, 11], ((2, NO_SUIT),))) == lay.exact_set_action(
        2, 15, JOKER_ROW)
    # two cards in one cell (7d, and the joker in 7d's cell) are no set
    assert action_for(lay, _move([17], ((4, 1),))) is None
    # runs: 5-JK-7 of hearts, JK-3-4 of spades, Q-K-A-2-JK of clubs
    assert action_for(lay, _move([10, 18], ((3, 2),))) == lay.run_action(2, 2, 3, 1)
    assert action_for(lay, _move([3, 7], ((BELOW_THREE, 3),))) == lay.run_action(3, -1, 3, 0)
    assert action_for(lay, _move([36, 40, 44, 48], ((ABOVE_TWO, 0),))) == lay.run_action(
        0, 9, 5, 4)
    assert action_for(lay, _move([], ((None, 3),))) == lay.jokers_action(1)
    # what no action names: two ranks, a run of two suits, a gap, the joker off the run's suit
    assert action_for(lay, _move([0, 4])) is None
    assert action_for(lay, _move([0, 5, 8])) is None
    assert action_for(lay, _move([0, 8, 12])) is None
    assert action_for(lay, _move([0, 4], ((2, 1),))) is None
    assert action_for(ActionLayout(rules_for({"RULE_KAIDAN": "NO"})), _move([0, 4, 8])) is None


@pytest.mark.parametrize("config", CONFIGS)
def test_the_first_games_of_each_log_replay_identically(config: str) -> None:
    result = replay_file(DATA / f"{config}.log.gz", FIRST)
    assert result.games == FIRST
    assert result.identical == FIRST, [str(m) for m in result.mismatches[:3]]
    if config == "no_kaidan":  # 179 of the 1,000 games end in a stalemate
        assert result.stalemates == STALEMATES_FIRST


@pytest.mark.long
@pytest.mark.parametrize("config", CONFIGS)
def test_every_game_of_each_log_replays_identically(config: str) -> None:
    result = replay_file(DATA / f"{config}.log.gz")
    assert result.games == 1000
    assert result.identical == 1000, [str(m) for m in result.mismatches[:3]]
    assert result.stalemates == (179 if config == "no_kaidan" else 0)


def test_a_rule_left_out_is_found() -> None:
    """The replay can fail: with the lock where the server had none, without the 11-back or
    without the server's refusals, games of the logs no longer replay."""
    log = read_log(DATA / "no_shibari.log.gz")
    refused = read_refused(DATA / "no_shibari.rejected.txt")
    locked = replay_log(log, refused, 40, rules=rules_for(ServerRules()))
    assert locked.identical < 40 and "illegal" in locked.kinds
    back = read_log(DATA / "11back.log.gz")
    plain = replay_log(back, read_refused(DATA / "11back.rejected.txt"), 40,
                       rules=rules_for(ServerRules()))
    assert plain.identical < 40 and {"illegal", "refused_legal"} & set(plain.kinds)
    unrefused = replay_log(back, frozenset(), 40)
    assert unrefused.identical < 40
    kaidan = read_log(DATA / "no_kaidan.log.gz")
    kaidan_refused = read_refused(DATA / "no_kaidan.rejected.txt")
    rules = rules_for(kaidan.settings)
    no_lead_pass = replay_log(kaidan, kaidan_refused, 40,
                              rules=dataclasses.replace(rules, lead_may_pass=False))
    assert "lead_pass" in no_lead_pass.kinds
    early = replay_log(kaidan, kaidan_refused, 40,
                       rules=dataclasses.replace(rules, stalemate_passes=19))
    assert "early_end" in early.kinds and early.identical < 40


def test_the_command_replays_and_writes_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                ) -> None:
    main(["replay", str(DATA / "default.log.gz"), str(DATA / "no_kaidan.log.gz"), "--games", "5",
          "--records", str(tmp_path / "rec")])
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "10 games, 10 replayed identically"
    files = sorted(p.name for p in (tmp_path / "rec").iterdir())
    assert len(files) == 10 and files[0] == "default-00000.json"
    record = load_record(tmp_path / "rec" / "default-00002.json")  # verified by a replay
    game = read_log(DATA / "default.log.gz").games[2]
    assert record.rules == _as_logged()
    assert record.result is not None
    seats_by_place = np.argsort(record.result.places[0])
    assert tuple(game.seats[s] for s in seats_by_place) == game.result
    assert rejected_path(DATA / "default.log.gz") == DATA / "default.rejected.txt"
    with pytest.raises(SystemExit):
        main(["replay", str(tmp_path / "missing.log")])
