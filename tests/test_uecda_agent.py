"""Our agents at a UECda table (:mod:`president_env.uecda.agent`).

* **The position a view gives is the real one:** five in-process choosers play a match at our
  server, each keeping every view it was asked on; the server's log is then played through the
  engine from the real post-exchange hands (:func:`~president_env.uecda.replay.game_hands`),
  and at each of those decisions the observation and mask that
  :func:`~president_env.uecda.agent.engine_position` built from the view alone (the others'
  hands unknown) must equal the engine's own, for the standard and the record observation and
  under several switches of the server's rules.
* **What the match told:** the observation an agent reads adds every seat's class and this
  game's exchange (:func:`~president_env.uecda.agent.match_context`): checked against the
  server's log of the same match.
* **The hidden split does not show:** two different splits of the unseen cards give the same
  observation and mask.
* **Plays and actions:** every exact action of the layout goes to a table and back to itself.
* **A seat:** the Hard agent plays a match at our server with no refused play and no
  disagreement between the engine's legal set and the server's.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from president_env.core.actions import ActionLayout
from president_env.core.observe import ObservationLayout
from president_env.core.one_game import OneGame
from president_env.uecda import read_log
from president_env.uecda.agent import (
    AgentChooser,
    engine_for,
    engine_position,
    give_back,
    match_context,
)
from president_env.uecda.client import Chooser, GreedyChooser, RandomChooser, View
from president_env.uecda.game import read_refused
from president_env.uecda.match import MatchConfig
from president_env.uecda.moves import Public, ServerRules
from president_env.uecda.protocol import Hand, Play
from president_env.uecda.replay import action_for, action_play, game_hands, play_action, rules_for
from president_env.uecda.seats import TCP, make_chooser, parse_seats
from president_env.uecda.server import UecdaServer

SWITCHES = [ServerRules(), ServerRules(jack_back=True, six_reverses=True),
            ServerRules(runs=False, lock=False)]


class Keeping:
    """A chooser that plays as ``inner`` and keeps every view it is asked on."""

    def __init__(self, inner: RandomChooser | GreedyChooser) -> None:
        self.inner = inner
        self.views: list[View] = []

    def give(self, view: View, count: int) -> Play:
        return self.inner.give(view, count)

    def play(self, view: View) -> Play:
        self.views.append(view)
        return self.inner.play(view)


def kept_match(rules: ServerRules, seed: int, games: int, log: Path) -> list[View]:
    seats = [Keeping(RandomChooser(seed + p)) if p % 2 == 0 else Keeping(GreedyChooser())
             for p in range(5)]
    summary = UecdaServer(seats, MatchConfig(games=games, seed=seed, rules=rules),
                          log=log).run()
    assert summary.incidents == []
    return [v for s in seats for v in s.views]


@pytest.mark.parametrize("rules", SWITCHES)
def test_a_views_position_is_the_engines_own(rules: ServerRules, tmp_path: Path) -> None:
    views = kept_match(rules, 7, 8, tmp_path / "m.log")
    asked = {(v.game, len(v.history)): v for v in views}
    assert len(asked) == len(views)
    log = read_log(tmp_path / "m.log")
    refused = read_refused(tmp_path / "m.rejected.txt")
    for observation in ("standard", "record"):
        engine = engine_for(rules_for(rules).replace(observation=observation))
        compared = 0
        for game in log.games:
            one = OneGame(engine, engine.init_from_hands(game_hands(game)[None]))
            for k, move in enumerate(game.moves):
                view = asked[(game.number, k)]
                assert view.seats[one.current] == move.player == view.player
                pos = engine_position(view, engine.rules)
                assert np.array_equal(pos.obs, one.obs), (observation, game.number, k)
                assert np.array_equal(pos.mask, one.mask), (observation, game.number, k)
                compared += 1
                a = 0 if (game.number, k) in refused else action_for(engine.layout, move)
                assert a is not None
                one.step(a)
            assert one.current < 0
        assert compared == len(views) > 8 * 40  # every decision was compared


def test_the_agent_reads_the_classes_and_the_exchange(tmp_path: Path) -> None:
    views = kept_match(ServerRules(), 5, 12, tmp_path / "m.log")
    games = {g.number: g for g in read_log(tmp_path / "m.log").games}
    rules = rules_for(ServerRules()).replace(observation="record")
    layout = ObservationLayout(rules)
    told = 0
    for view in views:
        game = games[view.game]
        obs = match_context(view, layout, engine_position(view, rules).obs)
        title = obs[layout.slices["title"]].reshape(5, 5)
        gave, received = obs[layout.slices["gave"]], obs[layout.slices["received"]]
        if game.classes is None:
            assert not title.any() and not gave.any() and not received.any()
            continue
        ours = view.seats.index(view.player)
        left = obs[layout.slices["cards_left"]]
        for k in range(5):  # seat k of the engine's own blocks: k seats after ours
            player = view.seats[(ours + k) % 5]
            assert left[k] == view.counts[player]  # the engine's seat order is the one we use
            assert title[k].sum() == 1
            assert title[k].argmax() == game.classes[player]
        out_ = sum((c.astype(int) for g, _, c in game.exchange if g == view.player), np.zeros(53, int))
        in_ = sum((c.astype(int) for _, r, c in game.exchange if r == view.player), np.zeros(53, int))
        mine = game.classes[view.player]
        if mine < 2:  # daifugo, fugo: what it gave back; what it got is in its dealt hand
            np.testing.assert_array_equal(gave, out_)
            assert not received.any()
        else:  # the cards the server took, those given back (net of a card given back)
            np.testing.assert_array_equal(gave, np.maximum(out_ - in_, 0))
            np.testing.assert_array_equal(received, np.maximum(in_ - out_, 0))
        told += mine != 2
    assert told > 100


def test_the_hidden_split_does_not_show(tmp_path: Path) -> None:
    views = kept_match(ServerRules(), 3, 4, tmp_path / "m.log")
    rules = rules_for(ServerRules()).replace(observation="record")
    differ = 0
    for view in views:
        a, b = engine_position(view, rules, 1), engine_position(view, rules, 2)
        differ += not np.array_equal(a.hands, b.hands)
        assert np.array_equal(a.hands[a.seat], b.hands[b.seat])
        assert np.array_equal(a.obs, b.obs) and np.array_equal(a.mask, b.mask)
    assert differ > len(views) // 2


@pytest.mark.parametrize("rules", SWITCHES)
def test_every_action_goes_to_a_table_and_back(rules: ServerRules) -> None:
    layout = ActionLayout(rules_for(rules))
    plays = [action_play(layout, a) for a in range(layout.num_actions)]
    assert [play_action(layout, p) for p in plays] == list(range(layout.num_actions))
    assert len(set(plays)) == layout.num_actions
    assert plays[0] == Play()


def test_a_table_names_its_action() -> None:
    layout = ActionLayout(rules_for(ServerRules()))
    # a pair of 5s: spades and clubs (rows 0 and 3, column 3); the engine's suits clubs=0..spades=3
    assert play_action(layout, Play(((0, 3), (3, 3)))) == layout.exact_set_action(2, 0b1001)
    # the joker as the 5 of hearts beside the 5 of spades
    assert play_action(layout, Play(((0, 3),), (1, 3))) == layout.exact_set_action(2, 0b1000, 2)
    # a run of diamonds 3-4-5 with the joker as the 4
    assert play_action(layout, Play(((2, 1), (2, 3)), (2, 2))) == layout.run_action(1, 0, 3, 1)
    # the joker below the 3 of a run of clubs: J(x)-3-4
    assert play_action(layout, Play(((3, 1), (3, 2)), (3, 0))) == layout.run_action(0, -1, 3, 0)
    assert play_action(layout, Play((), (2, 7))) == layout.jokers_action(1)
    assert play_action(layout, Play(((0, 3), (1, 4)))) is None  # two ranks, no run
    assert play_action(ActionLayout(rules_for(ServerRules(runs=False))),
                       Play(((2, 1), (2, 2), (2, 3)))) is None


def test_give_back_keeps_pairs_runs_eights_and_the_joker() -> None:
    # 3S 3H (a pair), 4D 5D 6D (a run), 7C, 8S, 9H, QS, 2C and the joker
    hand = Hand(frozenset({(0, 1), (1, 1), (2, 2), (2, 3), (2, 4), (3, 5), (0, 6), (1, 7),
                           (0, 10), (3, 13)}), joker=True)
    assert give_back(hand, 2) == Play(((3, 5), (1, 7)))
    assert give_back(hand, 1) == Play(((3, 5),))
    # only pairs and runs: the weakest of them, the 8 last
    tight = Hand(frozenset({(0, 6), (1, 6), (0, 2), (1, 2)}), joker=True)
    assert give_back(tight, 2) == Play(((0, 2), (1, 2)))
    assert give_back(Hand(frozenset({(0, 6), (2, 9)})), 2) == Play(((0, 6), (2, 9)))
    with pytest.raises(ValueError, match="cannot give back 2"):
        give_back(Hand(frozenset({(0, 6)}), joker=True), 2)


def test_a_hard_seat_plays_a_match_with_no_refused_play(tmp_path: Path) -> None:
    hard = AgentChooser("hard", 0, strict=True)
    seats: list[Chooser] = [GreedyChooser(), hard, RandomChooser(1), GreedyChooser(),
                            RandomChooser(2)]
    summary = UecdaServer(seats, MatchConfig(games=20, seed=5), log=tmp_path / "m.log").run()
    assert summary.incidents == [] and summary.games == 20
    assert summary.refused[1] == 0 and summary.submissions[1] > 20 * 5
    assert hard.disagreements == [] and hard.decisions >= summary.submissions[1]
    log = read_log(tmp_path / "m.log")
    assert len(log.games) == 20


def test_a_checkpoint_seat_plays_on_one_torch_thread(tmp_path: Path) -> None:
    """A checkpoint trained for the ``uecda`` preset (an untrained network here) is seated by
    its path, plays legal tables only, and runs torch on one thread (see
    :func:`~president_env.uecda.agent.one_torch_thread`)."""
    torch = pytest.importorskip("torch")
    from agents.policy import PolicyNet, save_policy

    rules = rules_for(ServerRules())
    eng = engine_for(rules)
    torch.manual_seed(0)
    save_policy(tmp_path / "p.pt", PolicyNet(eng.obs_size, eng.num_actions, 32), rules)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        policy = AgentChooser(str(tmp_path / "p.pt"), 0, strict=True)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
    seats: list[Chooser] = [RandomChooser(1), GreedyChooser(), policy, GreedyChooser(),
                            RandomChooser(2)]
    summary = UecdaServer(seats, MatchConfig(games=6, seed=3), log=tmp_path / "m.log").run()
    assert summary.incidents == [] and summary.games == 6 and summary.refused[2] == 0
    assert policy.disagreements == [] and policy.decisions >= summary.submissions[2] > 6


def test_the_client_command_seats_an_agent_over_tcp(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from president_env.uecda.cli import main

    games = 4
    server = UecdaServer([GreedyChooser(), RandomChooser(1), TCP, GreedyChooser(),
                          RandomChooser(2)], MatchConfig(games=games, seed=9), port=0,
                         log=tmp_path / "m.log", connect_timeout=60)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    main(["client", "--port", str(server.port), "--agent", "normal", "--timeout", "60"])
    thread.join(60)
    out = json.loads(capsys.readouterr().out)
    log = read_log(tmp_path / "m.log")
    assert log.players[2] == "normal" and out["player"] == 2
    assert out["games"] == games and out["refused"] == 0 and out["plays"] > games * 3
    assert out["places"] == [g.result.index(2) + 1 for g in log.games]


def test_agent_specs_are_checked() -> None:
    assert isinstance(make_chooser("hard", 1), AgentChooser)
    assert isinstance(make_chooser("greedy", 1), GreedyChooser)
    assert parse_seats("tcp,hard,expert,normal,random:3")[1:3] == ["hard", "expert"]
    with pytest.raises(ValueError, match="one of our agents"):
        make_chooser("hardest", 0)
    with pytest.raises(ValueError, match="no checkpoint file"):
        parse_seats("tcp,tcp,tcp,tcp,runs/none/policy.pt")
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        AgentChooser("nobody")


def test_the_client_command_refuses_a_bad_agent() -> None:
    out = subprocess.run([sys.executable, "-m", "president_env.uecda.cli", "client", "--agent",
                          "hardest"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "one of our agents" in out.stderr


def test_the_adapter_refuses_a_view_no_game_gives() -> None:
    # one card held, nothing played, but nobody else holds a card: 52 cards unaccounted for
    view = View(0, 0, Hand(frozenset({(0, 1)})), Public(), (1, 0, 0, 0, 0), None,
                (0, 1, 2, 3, 4), ())
    with pytest.raises(ValueError, match="inconsistent"):
        engine_position(view, rules_for(ServerRules()))
