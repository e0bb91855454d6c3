"""The Kit agent: the UECda development kit's sample client, as the server's logs show it plays.

The committed logs (``tests/data/uecda``, five sample clients per match) are the reference: at
every logged decision with a choice, the Kit agent must make the logged play (the server's
rejected submissions count as the passes they were). Hand-built positions check each rule of
:mod:`agents.kernels.kit` by itself."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from agents import load_agent
from president_env.core.engine import Engine
from president_env.core.one_game import OneGame
from president_env.core.rules import Rules
from president_env.uecda.log import read_log
from president_env.uecda.replay import (
    action_for,
    game_hands,
    read_refused,
    rejected_path,
    rules_for,
)

DATA = Path(__file__).parent / "data" / "uecda"


@cache
def agreement(config: str, agent: str, games: int) -> tuple[int, int]:
    """(decisions with a choice, how many of them ``agent`` decided as logged) over the first
    ``games`` games of the committed log ``config``."""
    path = DATA / f"{config}.log.gz"
    log = read_log(path)
    rules = rules_for(log.settings)
    engine = Engine(rules)
    refused = read_refused(rejected_path(path))
    me = load_agent(agent, rules)
    choices = same = 0
    for game in log.games[:games]:
        one = OneGame(engine, engine.init_from_hands(game_hands(game)[None]))
        for k, move in enumerate(game.moves):
            a = action_for(engine.layout, move)
            if (game.number, k) in refused or a is None:
                a = 0  # a submission the server rejected is a pass
            assert one.mask[a], (game.number, k)
            if one.mask.sum() > 1:
                choices += 1
                same += int(me.act(one.obs, one.mask)) == a
            one.step(a)
        assert one.current < 0
    return choices, same


@pytest.mark.parametrize("config", ["default", "11back", "no_kaidan", "no_shibari"])
def test_kit_makes_the_sample_clients_logged_plays(config: str) -> None:
    choices, same = agreement(config, "kit", 150)
    assert choices > 5000
    assert same / choices >= 0.985, f"{same} of {choices}"


def test_the_other_agents_do_not_pass_that_test() -> None:
    for agent in ("easy", "normal", "hard"):
        choices, same = agreement("default", agent, 150)
        assert same / choices < 0.9, f"{agent}: {same} of {choices}"


def _plays(hands: list[str], moves: int) -> list[str]:
    """The names of the first ``moves`` plays of four-to-five Kit agents from these hands (the
    ``uecda`` preset, seats as players; the 3 of diamonds leads)."""
    rules = Rules.preset("uecda", reseat_every=None)
    engine = Engine(rules)
    kit = load_agent("kit", rules)
    one = OneGame(engine, engine.init_from_hands(hands))
    out = []
    for _ in range(moves):
        a = int(kit.act(one.obs, one.mask))
        out.append(f"{one.current}: {engine.layout.name(a)}")
        one.step(a)
    return out


def test_it_leads_its_longest_run_and_follows_with_the_tail_of_its_own() -> None:
    plays = _plays(["3d 4d 5d 9c 9h Ks", "6s 7s 8s 9s 4c", "10h Jh Qh", "Kc", "Ac"], 3)
    assert plays[0] == "0: run 3-4-5 of diamonds"  # not the pair of 9s, not a single
    assert plays[1] == "1: run 7-8-9 of spades"  # 6-7-8-9 held: the run that ends it
    assert plays[2] == "1: single 4 (4c)"  # its 8 cleared the field: it leads its lowest card


def test_it_leads_its_largest_set_and_breaks_no_set_to_follow() -> None:
    plays = _plays(["3d 5c 5h", "7c 7h 7s Jc Jd Ks", "8c 9c", "Kc", "Ac 2c"], 3)
    assert plays[0] == "0: pair of 5 (5c 5h)"
    assert plays[1] == "1: pair of J (Jc Jd)"  # the exact pair, not two of its three 7s
    assert plays[2] == "2: pass"


def test_it_follows_a_single_with_a_card_of_no_set() -> None:
    plays = _plays(["3d Kh", "4c 4d 6h Ah", "7c 8c 9c Qd", "Kc", "2c"], 3)
    assert plays[0] == "0: single 3 (3d)"
    assert plays[1] == "1: single 6 (6h)"  # its 4s are a pair
    assert plays[2] == "2: single Q (Qd)"  # 7-8-9 of clubs is a run


def test_its_joker_stands_in_the_first_row_missing() -> None:
    # spades, hearts, diamonds, clubs: 3d 3s + joker puts the joker as hearts
    plays = _plays(["3d 3s 9c JK", "Kc", "Ac", "2c", "4h"], 1)
    assert plays[0] == "0: three 3s (3d 3s JKh)"  # its largest set holds its joker
