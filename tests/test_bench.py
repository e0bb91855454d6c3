"""``make bench``'s engine figures: every preset it times plays, at the preset's own number of
players (``uecda`` allows only 5). Speed itself is never asserted (see docs/results.md)."""

from __future__ import annotations

import pytest

from benchmarks.bench import Args
from benchmarks.bench_engine import ALL_VARIANTS, bench_rules, measure_engine, measure_fused
from president_env.core.rules import PRESET_PLAYERS, PRESETS


def test_bench_times_every_preset_and_all_variants() -> None:
    assert set(Args().presets) == {*PRESETS, ALL_VARIANTS}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_is_timed_at_a_number_of_players_it_allows(preset: str) -> None:
    lo, hi = PRESET_PLAYERS[preset]
    assert lo <= bench_rules(preset).num_players <= hi
    assert bench_rules(preset).preset_name == preset
    assert bench_rules(ALL_VARIANTS).num_players == 4


def test_the_uecda_figures_play_whole_five_player_games() -> None:
    for figure in (measure_engine("uecda", 16, seconds=0.2), measure_fused("uecda", 16, 0.2)):
        assert "(5 players)" in figure["name"]
        assert figure["games_per_s"] > 0 and figure["steps_per_game"] >= 5
