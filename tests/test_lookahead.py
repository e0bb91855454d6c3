"""Lookahead distillation (``train.lookahead``).

Checked: the labels equal a plain one-game-at-a-time replay of every legal action, on positions
of real games of two presets, and a hand-built position's labels; a collection keeps legal
decisions of the labelled seats only, with the behaviour's own action (Hard's, or a checkpoint's
read from its observation prefix), with the opponents it names, resumes and refuses another
collection's file; the fit lowers its loss, its regret is measured against the labels, and it
writes a policy that a history table plays; the one command runs the DAgger and
policy-iteration rounds, whole runs, the fits on the union of their labels, the league rounds,
the member rounds and the averages, each fitted from the policy and on the labels it should use
(or, distilled, on the outputs of its teacher), records the stages it says it makes, and
resumes a stopped run; the fits map their large buffers (glibc's heap); the docs' tables of
stages are what the command records, and ``train.curve`` plots them.
"""

from __future__ import annotations

import csv
import dataclasses
import fcntl
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents import HardAgent, load_agent
from agents.expert import SeatMix
from agents.policy import PolicyAgent, PolicyNet, load_policy, save_policy, scale_observation
from president_env.cli import parse
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.table import policy_obs_size
from train import curve
from train.lookahead import collect as collect_mod
from train.lookahead.__main__ import main
from train.lookahead.args import Args, record_args
from train.lookahead.collect import (
    UNPLAYED,
    Collection,
    collect_all,
    collect_part,
    label_places,
)
from train.lookahead.fit import average, targets, teacher_outputs
from train.lookahead.labels import DATA, Labels, read_labels, regret_on
from train.lookahead.stages import stage_names

ROOT = Path(__file__).resolve().parent.parent
PPO = ROOT / "agents" / "pretrained" / "ppo.pt"
"""A policy of the standard observation (a behaviour that reads a prefix of the history one)."""
DATA_DIR = ROOT / "docs" / "data"
HISTORY = Rules.preset("standard", observation="history")
README_RECIPE = shlex.split("--decisions 2400000 --workers 2 --epochs 4 --rounds 3 --dagger 700000 "
                 "--pi-rounds 2 --pi-decisions 800000 --eval-deals 1000 --lineages 3 --union 3 "
                 "--league 450000 --league-rounds 2 --league-weight 0.3333333")


def _reference_place(eng: Engine, hard: HardAgent, st: State, row: int, action: int,
                     own: Any = None, mix: SeatMix | None = None) -> int:
    """The place of the seat to act in game ``row`` after ``action``, then Hard everywhere
    (or the agent ``mix`` gives each seat of that game; ``own`` in the seat labelled): one
    game, one step at a time."""
    g = st.take(np.array([row]))
    seat = int(g.current[0])
    g = eng.step(g, np.array([action]))
    while True:
        if bool(g.deal_over[0]) or int(g.phase[0]) == PHASE_DONE:
            return int(g.title[0, seat])
        if int(g.place[0, seat]) >= 0:
            return int(g.place[0, seat])
        cur = int(g.current[0])
        who = hard if mix is None else mix.agents[int(mix.assign[row, cur])]
        who = who if own is None or cur != seat else own
        a = who.act_batch(eng.observe(g)[:, : policy_obs_size(who, eng.rules)],
                          eng.legal_action_mask(g))
        g = eng.step(g, a)


@pytest.mark.parametrize(("preset", "own", "mixed"), [
    ("standard", None, False), ("daifugo", None, False), ("standard", "easy", True)])
def test_labels_equal_a_plain_replay_of_every_action(preset: str, own: str | None,
                                                     mixed: bool) -> None:
    """With ``own``, that agent plays on for the seat labelled (a step of policy iteration);
    ``mixed``: the other seats of each game are played by Hard, Normal or Easy (a
    :class:`SeatMix`, as a collection's ``opponents``)."""
    rules = Rules.preset(preset, observation="history")
    eng, hard = Engine(rules), HardAgent(rules)
    agent = None if own is None else load_agent(own, rules)
    st = eng.init(np.arange(12, dtype=np.uint64))
    rng = np.random.default_rng(3)
    mix = None
    if mixed:
        agents = [hard, load_agent("normal", rules), load_agent("easy", rules)]
        mix = SeatMix(agents, rng.integers(0, 3, (12, rules.num_players)), rules)
    checked = 0
    for _ in range(60):  # positions along Hard games, some rows at each step
        obs, mask = eng.observe(st), eng.legal_action_mask(st)
        live = np.flatnonzero((mask.sum(1) > 1) & (st.phase != PHASE_DONE))
        rows = rng.choice(live, min(2, len(live)), replace=False) if len(live) else live
        if len(rows):
            players = hard if mix is None else mix.take(rows)
            got = label_places(eng, players, st, rows, mask[rows], agent)
            for i, r in enumerate(rows):
                for a in range(eng.num_actions):
                    want = (_reference_place(eng, hard, st, int(r), a, agent, mix)
                            if mask[r, a] else -1)
                    assert got[i, a] == want, (preset, int(r), a)
            checked += len(rows)
        live_all = st.phase != PHASE_DONE
        if not live_all.any():
            break
        eng.step_inplace(st, hard.act_batch(obs, mask), where=live_all)
    assert checked >= 40


def test_a_hand_built_position_has_the_labels_of_its_only_good_play() -> None:
    """Seat 0 holds 3c 2s and leads, the others one card each: the 2 then the 3 goes out first;
    the 3 first lets the next seat go out."""
    rules = Rules.preset("standard", num_players=3, observation="history")
    eng, hard = Engine(rules), HardAgent(rules)
    st = eng.init_from_hands(["3c 2s", "Ah", "4c"])
    st.current[:] = 0
    mask = eng.legal_action_mask(st)
    got = label_places(eng, hard, st, np.array([0]), mask)[0]
    names = {eng.layout.name(int(a)): int(got[a]) for a in np.flatnonzero(mask[0])}
    assert names["single 2"] == 0 and names["single 3"] >= 1
    assert (got[~mask[0]] == -1).all()


def test_targets_centre_the_legal_values() -> None:
    place = torch.tensor([[0, 2, -1, 1], [3, -1, -1, 3]], dtype=torch.int8)
    mask = place >= 0
    t, best = targets(place, mask)
    torch.testing.assert_close(t, torch.tensor([[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]))
    torch.testing.assert_close(best, torch.tensor([0.0, -3.0]))


def _run(out: Path, decisions: int, *extra: str) -> dict[str, float]:
    """The one command, small: 16 games at once, 2 epochs, seeded."""
    return main(["--decisions", str(decisions), "--games", "16", "--epochs", "2", "--batch",
                 "64", "--seed", "1", "--no-progress", "--out", str(out), *extra])


def _labels(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def test_collection_resume_and_fit(tmp_path: Path) -> None:
    """R0 alone: Hard's labels and its own actions, a fit whose regrets are those of its greedy
    choices on the labels; the same command resumes the collection; ``--fit-only --also`` fits
    another folder's labels without collecting."""
    last = _run(tmp_path, 400)
    d = _labels(tmp_path / DATA)
    n = len(d["act"])
    assert n >= 400
    assert ((d["place"] >= 0) == d["mask"]).all() and (d["mask"].sum(1) > 1).all()
    assert d["mask"][np.arange(n), d["act"]].all() and d["place"].max() <= 3
    obs = d["obs"].astype(np.float32)
    assert (HardAgent(HISTORY).act_batch(obs, d["mask"]) == d["act"]).all()
    with open(tmp_path / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["epoch"]) for r in rows] == [0, 1, 2]
    assert float(rows[2]["loss"]) < float(rows[1]["loss"])
    p = d["place"].astype(np.int64)
    best = np.where(d["mask"], p, 99).min(1)
    m = int(round(n * 0.95))
    took = p[np.arange(n), d["act"].astype(np.int64)] - best
    assert last["train_behaviour_regret"] == pytest.approx(took[:m].mean())
    agent = load_agent(str(tmp_path / "policy.pt"), HISTORY)
    assert isinstance(agent, PolicyAgent) and agent.rules.observation == "history"
    pick = agent.act_batch(obs[m:], d["mask"][m:])
    assert last["heldout_regret"] == pytest.approx((p[m:][np.arange(n - m), pick]
                                                    - best[m:]).mean(), abs=1e-6)
    _run(tmp_path, n + 300)  # resumes: the first rows are kept
    again = _labels(tmp_path / DATA)
    assert len(again["act"]) >= n + 300 and np.array_equal(again["obs"][:n], d["obs"])
    other = _run(tmp_path / "b", 10, "--fit-only", "--epochs", "1", "--also",
                 str(tmp_path / DATA))
    assert other["decisions"] == len(again["act"]) and not (tmp_path / "b" / DATA).exists()


def test_a_checkpoint_behaviour_is_the_only_seat_labelled(tmp_path: Path) -> None:
    job = Collection(HISTORY, tmp_path, 150, seed=2, behaviour=str(PPO), games=16,
                     progress=False)
    job.check()
    collect_all(job)
    d = _labels(tmp_path / DATA)
    width = Engine(Rules.preset("standard")).obs_size
    shipped = load_agent(str(PPO), HISTORY)
    assert (shipped.act_batch(d["obs"][:, :width].astype(np.float32), d["mask"])
            == d["act"]).all()
    with pytest.raises(ValueError, match="another behaviour"):  # a file of another collection
        Collection(HISTORY, tmp_path, 10).check()


def test_labels_of_the_same_game_are_read_whatever_the_preset_name(tmp_path: Path) -> None:
    """A checkpoint records its rules without the preset's name: labels collected under them
    are read under the preset's (the command's), while labels of another game, or of rules that
    cannot be read, are refused."""
    def saved(name: str, rules: Rules, text: str | None = None) -> Path:
        eng = Engine(rules)
        labels = Labels(rules, "hard", tmp_path / name / DATA)
        if text is not None:
            labels.meta["rules"] = text
        mask = np.zeros((3, eng.num_actions), bool)
        mask[:, :2] = True
        labels.add(obs=np.ones((3, eng.obs_size), np.float16), mask=mask,
                   act=np.zeros(3, np.int8), place=np.where(mask, 1, -1).astype(np.int8))
        labels.save()
        return labels.path  # type: ignore[return-value]

    unnamed = dataclasses.replace(HISTORY, preset_name=None)
    assert read_labels(HISTORY, [saved("unnamed", unnamed)])["act"].shape == (3,)
    for name, rules, text in [("other", HISTORY.replace(num_players=5), None),
                              ("unread", HISTORY, "{'num_players': 4"),
                              ("foreign", HISTORY, "[1, 2]")]:
        with pytest.raises(ValueError, match="another rules"):
            read_labels(HISTORY, [saved(name, rules, text)])


def test_the_opponents_play_the_table(tmp_path: Path) -> None:
    """Opponents ``easy`` without a behaviour: Easy plays every seat, each labelled."""
    collect_all(Collection(HISTORY, tmp_path, 120, opponents="easy", games=16, progress=False))
    d = _labels(tmp_path / DATA)
    assert str(d["opponents"]) == "easy"
    obs = d["obs"].astype(np.float32)
    assert (load_agent("easy", HISTORY).act_batch(obs, d["mask"]) == d["act"]).all()
    assert (HardAgent(HISTORY).act_batch(obs, d["mask"]) != d["act"]).any()


@pytest.mark.parametrize(("preset", "players"), [("uecda", 5), ("daifugo", 4)])
def test_action_ids_past_127_are_kept(tmp_path: Path, preset: str, players: int) -> None:
    """Presets with runs have more actions than an int8 holds (``uecda``: 2,606, 5 players;
    ``daifugo``: 345): the labels keep Hard's own actions, ids above 127 among them (they
    wrapped to negative ids before), and a fit and its regret read them."""
    last = _run(tmp_path, 300, "--preset", preset, "--num-players", str(players), "--epochs", "1")
    rules = Rules.preset(preset, num_players=players, observation="history")
    d = _labels(tmp_path / DATA)
    assert Engine(rules).num_actions > 128 and d["act"].max() > 127
    assert d["mask"][np.arange(len(d["act"])), d["act"]].all()
    assert (HardAgent(rules).act_batch(d["obs"].astype(np.float32), d["mask"]) == d["act"]).all()
    assert last["decisions"] == len(d["act"]) and 0 <= last["train_behaviour_regret"] <= 4
    pick = PolicyAgent.load(tmp_path / "policy.pt", rules).act_batch(
        d["obs"].astype(np.float32), d["mask"])
    assert d["mask"][np.arange(len(pick)), pick].all()


@pytest.mark.parametrize("opponents", ["hard:0", "nosuch", "self:1,hard:-1"])
def test_opponents_of_no_weight_or_no_name_are_refused(tmp_path: Path, opponents: str) -> None:
    with pytest.raises(ValueError):
        Collection(HISTORY, tmp_path, 10, opponents=opponents).check()


def test_a_collection_runs_on_one_torch_thread(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Its small batches ran 40 times slower on a pool of 2 threads while another process held
    the other core; the fit after it gets the caller's threads back."""
    seen: list[int] = []
    monkeypatch.setattr(collect_mod, "collect", lambda *a: seen.append(torch.get_num_threads()))
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert collect_part(Collection(HISTORY, tmp_path, 10, progress=False), 0) == 0
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_two_workers_collect_their_own_deals(tmp_path: Path) -> None:
    """Each worker its own file and deals (run here one after the other; the processes side by
    side: the SIGTERM test below), and the fit reads both."""
    job = Collection(HISTORY, tmp_path, 200, seed=1, workers=2, games=16, progress=False)
    assert collect_part(job, 0) >= 100 and collect_part(job, 1) >= 100
    a, b = _labels(tmp_path / "labels_0.npz"), _labels(tmp_path / "labels_1.npz")
    assert not np.array_equal(a["obs"][:50], b["obs"][:50])
    last = _run(tmp_path, 200, "--workers", "2", "--fit-only", "--epochs", "1")
    assert last["decisions"] == len(a["act"]) + len(b["act"])


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (Linux ``/proc``)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_sigterm_to_the_parent_ends_the_workers(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "train.lookahead", "--workers", "2", "--decisions", "100000000",
         "--games", "8", "--no-progress", "--out", str(tmp_path)],
        cwd=ROOT, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 3 and time.monotonic() < deadline:  # 2 + the tracker
            time.sleep(0.2)
        workers = _children(proc.pid)
        assert len(workers) >= 3, workers
        time.sleep(1.0)
        proc.terminate()
        assert proc.wait(timeout=30) != 0
        deadline = time.monotonic() + 30
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [w for w in workers if _alive(w)]
    finally:
        if proc.poll() is None:
            proc.kill()
        if proc.stderr is not None:
            proc.stderr.close()


def _fitted_from(folder: Path, files: list[Path], start: Path | None = None) -> None:
    """The fit in ``folder`` started from ``start`` (``folder/behaviour.pt``): its epoch-0
    regret is that network's on the labels of ``files``."""
    agent = PolicyAgent.load(start or folder / "behaviour.pt", HISTORY)
    assert isinstance(agent, PolicyAgent)
    want = regret_on(agent.net, HISTORY, files, 0.05)
    with open(folder / "metrics.csv") as f:
        row = next(csv.DictReader(f))
    assert float(row["train_regret"]) == pytest.approx(want["train_regret"], abs=1e-6)


def _stages(out: Path) -> list[dict[str, str]]:
    with open(out / "rounds.csv") as f:
        return list(csv.DictReader(f))


def _played_by(folder: Path, rollout: str = "hard") -> dict[str, np.ndarray]:
    """The labels of a round in ``folder``: its ``behaviour.pt`` played them (and ``rollout``,
    ``"self"`` for itself, played on for it)."""
    d = _labels(folder / DATA)
    behaviour = str(folder / "behaviour.pt")
    assert str(d["behaviour"]) == behaviour
    assert str(d["rollout"]) == (behaviour if rollout == "self" else rollout)
    agent = load_agent(behaviour, HISTORY)
    assert (agent.act_batch(d["obs"].astype(np.float32), d["mask"]) == d["act"]).all()
    return d


def _logits(policies: list[Path], d: dict[str, np.ndarray]) -> list[torch.Tensor]:
    obs, mask = torch.from_numpy(d["obs"].astype(np.float32)), torch.from_numpy(d["mask"])
    return [load_policy(p, HISTORY)[0](obs, mask)[0] for p in policies]


def test_one_command_runs_dagger_then_policy_iteration_rounds(tmp_path: Path) -> None:
    """``--rounds 2 --pi-rounds 1``: the DAgger round labels the first policy's own decisions
    and refits it on every label; the policy-iteration round labels the DAgger policy's own
    decisions with it playing on, and refits it on those labels only; rounds.csv rates each."""
    extra = ("--rounds", "2", "--dagger", "150", "--pi-rounds", "1", "--pi-decisions", "150",
             "--epochs", "1", "--eval-deals", "10")
    last = _run(tmp_path, 200, *extra)
    dag, pi = tmp_path / "round_1", tmp_path / "pi_1"
    assert len(_played_by(dag)["act"]) >= 150
    assert (dag / "policy.pt").read_bytes() == (pi / "behaviour.pt").read_bytes()
    _fitted_from(dag, [tmp_path / DATA, dag / DATA])
    d = _played_by(pi, rollout="self")
    _fitted_from(pi, [pi / DATA])
    assert last["decisions"] == len(d["act"])
    assert (tmp_path / "policy.pt").read_bytes() == (pi / "policy.pt").read_bytes()
    rows = _stages(tmp_path)
    assert [r["stage"] for r in rows] == stage_names(parse(Args, list(extra))) == [
        "R0", "D1", "PI1"]
    assert all(float(r["vs_hard_lo"]) < float(r["vs_hard"]) < float(r["vs_hard_hi"])
               and 1 <= float(r["vs_hard"]) <= 4 for r in rows)
    assert (tmp_path / "rounds.png").stat().st_size > 10_000


def test_a_run_started_from_a_policy_goes_on_with_its_rounds(tmp_path: Path) -> None:
    """``--start P --pi-rounds 1``: no first collection nor fit; ``P`` plays the labelled seat
    and plays on for it, and the round refits ``P`` itself on those labels only."""
    _run(tmp_path / "a", 100, "--epochs", "1")
    start = tmp_path / "a" / "policy.pt"
    extra = ("--start", str(start), "--pi-rounds", "1", "--pi-decisions", "60",
             "--round-epochs", "1")
    last = _run(tmp_path / "b", 100, *extra)
    pi = tmp_path / "b" / "pi_1"
    assert not (tmp_path / "b" / DATA).exists()
    assert (pi / "behaviour.pt").read_bytes() == start.read_bytes()
    d = _played_by(pi, rollout="self")
    _fitted_from(pi, [pi / DATA], start)
    assert last["decisions"] == len(d["act"]) >= 60
    assert (tmp_path / "b" / "policy.pt").read_bytes() == (pi / "policy.pt").read_bytes()
    assert [r["stage"] for r in _stages(tmp_path / "b")] == stage_names(
        parse(Args, list(extra))) == ["PI1"]


def _small_average(tmp_path: Path, count: int,
                   weights: list[float] | None = None) -> tuple[list[Path], Path]:
    """``count`` runs of the one command, small (16 units, seeds 0, 1, ...), in ``tmp_path``,
    and their average (``weights``) in ``tmp_path/start.pt``."""
    runs = [tmp_path / f"run{i}" for i in range(count)]
    for i, out in enumerate(runs):
        _run(out, 60, "--epochs", "1", "--hidden", "16", "--seed", str(i))
    start = tmp_path / "start.pt"
    average([r / "policy.pt" for r in runs], start, HISTORY, weights)
    return runs, start


def test_member_rounds_refit_each_member_of_an_average_on_every_members_labels(
        tmp_path: Path) -> None:
    """``--start AVG --members 2 --member-rounds 1``: the average splits into its members; each
    plays its own labelled seat and plays on for it; each is refitted from itself on both
    members' labels; the output averages the members and their refits, equally."""
    runs, start = _small_average(tmp_path, 3, [2.0, 1.0, 1.0])
    extra = ("--start", str(start), "--members", "2", "--member-rounds", "1",
             "--member-decisions", "50", "--hidden", "16", "--round-epochs", "1")
    last = _run(tmp_path / "m", 100, *extra)
    out = tmp_path / "m"
    members = [out / "members0" / "member_0.pt", out / "members0" / "member_1.pt"]
    for member, run in zip(members, runs):  # the weights of the run it came from
        mine, theirs = (load_policy(p, HISTORY)[0].state_dict()
                        for p in (member, run / "policy.pt"))
        for key in ("trunk.0.weight", "trunk.2.weight", "pi.weight", "v.weight"):
            torch.testing.assert_close(mine[key], theirs[key], rtol=1e-5, atol=1e-6)
    pis = [out / "members1" / "pi_0", out / "members1" / "pi_1"]
    for pi, member in zip(pis, members):
        assert (pi / "behaviour.pt").read_bytes() == member.read_bytes()
        assert len(_played_by(pi, rollout="self")["act"]) >= 50
    for i, member in enumerate(members):
        _fitted_from(out / "members1" / f"fit_{i}", [pi / DATA for pi in pis], member)
    every = [*members, *(out / "members1" / f"fit_{i}" / "policy.pt" for i in range(2))]
    d = _labels(pis[0] / DATA)
    legal = torch.from_numpy(d["mask"])
    want = torch.stack(_logits(every, d)).mean(0)
    got = _logits([out / "average" / "policy.pt"], d)[0]
    torch.testing.assert_close(got[legal], want[legal], rtol=1e-4, atol=1e-4)
    assert [r["stage"] for r in _stages(out)] == stage_names(parse(Args, list(extra))) == [
        "M1.0", "M1.1", "M"]
    assert last["decisions"] == sum(len(_labels(pi / DATA)["act"]) for pi in pis)


def test_a_member_round_plays_at_the_table_it_is_given(tmp_path: Path) -> None:
    """``--member-opponents``: the round collects at that table, which its labels record, and
    a collection at another table refuses to extend them."""
    start = _small_average(tmp_path, 2)[1]
    extra = ("--start", str(start), "--members", "1", "--member-rounds", "1",
             "--member-decisions", "40", "--hidden", "16", "--round-epochs", "1")
    _run(tmp_path / "m", 100, *extra, "--member-opponents", "normal:1,self:2")
    pi = tmp_path / "m" / "members1" / "pi_0"
    assert str(_played_by(pi, rollout="self")["opponents"]) == "normal:1,self:2"
    with pytest.raises(ValueError, match="another opponents"):
        Collection(HISTORY, pi, 80, behaviour=str(pi / "behaviour.pt"),
                   rollout=str(pi / "behaviour.pt")).check()


def test_member_rounds_play_at_one_table_each_when_given_one_per_round(tmp_path: Path) -> None:
    """``--member-opponents "A;B"`` with two rounds: the first round collects at A, the second
    at B, each played by the last generation (the first round's refit plays the second)."""
    start = _small_average(tmp_path, 2)[1]
    extra = ("--start", str(start), "--members", "1", "--member-rounds", "2",
             "--member-decisions", "40", "--hidden", "16", "--round-epochs", "1")
    _run(tmp_path / "m", 100, *extra, "--member-opponents", "normal:1,self:2;hard:1,self:1")
    out = tmp_path / "m"
    for k, table in ((1, "normal:1,self:2"), (2, "hard:1,self:1")):
        assert str(_played_by(out / f"members{k}" / "pi_0", rollout="self")["opponents"]) == table
    assert ((out / "members2" / "pi_0" / "behaviour.pt").read_bytes()
            == (out / "members1" / "fit_0" / "policy.pt").read_bytes())


def _raw(path: Path, d: dict[str, np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy logits before the mask and the values of the checkpoint ``path`` on the
    positions of ``d``: the whole network at once."""
    net = load_policy(path, HISTORY)[0]
    with torch.no_grad():
        h = net.trunk(scale_observation(torch.from_numpy(d["obs"].astype(np.float32))))
        return net.pi(h), net.v(h)[:, 0]


def test_a_teacher_average_is_run_member_by_member_to_the_same_outputs(tmp_path: Path) -> None:
    eng = Engine(HISTORY)
    torch.manual_seed(3)
    paths = [tmp_path / f"n{i}.pt" for i in range(3)]
    for p in paths:
        save_policy(p, PolicyNet(eng.obs_size, eng.num_actions, 16), HISTORY)
    avg = tmp_path / "avg.pt"
    average(paths, avg, HISTORY, [2.0, 1.0, 1.0])
    d = _labels(_collected(tmp_path / "labels"))
    for path in (avg, paths[0]):
        logits, values = teacher_outputs(str(path), HISTORY, torch.from_numpy(d["obs"]), chunk=7)
        want = _raw(path, d)
        torch.testing.assert_close(logits, want[0], rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(values, want[1], rtol=1e-5, atol=1e-6)


def _collected(out: Path) -> Path:
    collect_all(Collection(HISTORY, out, 60, seed=4, games=16, progress=False))
    return out / DATA


def test_a_fit_taught_by_itself_starts_at_no_loss(tmp_path: Path) -> None:
    """``--fit-only --init NET --teacher NET``: the targets are the network's own outputs, so
    its first step's losses are rounding (on the labels' places they are not); by another
    teacher, it moves towards it. (Its weights may still move: the teacher's outputs, computed
    in other batches, differ in the last bits on some machines, and Adam scales any gradient
    to the learning rate.)"""
    labels = _collected(tmp_path / "labels")
    eng = Engine(HISTORY)
    torch.manual_seed(5)
    nets = [tmp_path / "a.pt", tmp_path / "b.pt"]
    net = PolicyNet(eng.obs_size, eng.num_actions, 16)
    save_policy(nets[0], net, HISTORY)
    with torch.no_grad():  # the other teacher: the same network, its action values spread apart
        net.pi.bias.copy_(torch.linspace(-0.3, 0.3, eng.num_actions))
    save_policy(nets[1], net, HISTORY)
    common = ("--fit-only", "--init", str(nets[0]), "--hidden", "16", "--also", str(labels),
              "--lr", "0.01", "--batch", "4096")  # 60 labels: one batch an epoch
    _run(tmp_path / "self", 10, *common, "--epochs", "3", "--teacher", str(nets[0]))
    _run(tmp_path / "other", 10, *common, "--epochs", "40", "--teacher", str(nets[1]))
    _run(tmp_path / "places", 10, *common, "--epochs", "3")
    assert load_policy(tmp_path / "self" / "policy.pt", HISTORY)[2]["teacher"] == str(nets[0])
    first = {}
    for name in ("self", "places"):  # epoch 1's losses: the one batch, before any step
        with open(tmp_path / name / "metrics.csv") as f:
            first[name] = next(r for r in csv.DictReader(f) if r["epoch"] == "1")
    assert float(first["self"]["loss"]) < 1e-10 and float(first["self"]["value_loss"]) < 1e-10
    assert float(first["places"]["loss"]) > 1e-3, first
    d = _labels(labels)
    legal = torch.from_numpy(d["mask"])
    goal = _raw(nets[1], d)[0][legal]
    gap = [float(((_raw(p, d)[0][legal] - goal) ** 2).mean())
           for p in (nets[0], tmp_path / "other" / "policy.pt")]
    assert gap[1] < gap[0] / 4, gap


def test_member_rounds_distil_their_average_into_the_start(tmp_path: Path) -> None:
    """``--distill``: after the average, the start (its width) is refitted on the average's
    outputs at the last round's positions, and decides closer to it than the start did."""
    start = _small_average(tmp_path, 2)[1]
    extra = ("--start", str(start), "--members", "2", "--member-rounds", "1",
             "--member-decisions", "50", "--hidden", "16", "--round-epochs", "5",
             "--round-lr", "0.02", "--distill", "--distill-epochs", "20", "--distill-lr", "0.01")
    _run(tmp_path / "m", 100, *extra)
    out = tmp_path / "m"
    assert [r["stage"] for r in _stages(out)] == stage_names(parse(Args, list(extra))) == [
        "M1.0", "M1.1", "M", "S"]
    student, _, meta = load_policy(out / "distilled" / "policy.pt", HISTORY)
    assert student.hidden == 32 and meta["teacher"] == str(out / "average" / "policy.pt")
    _fitted_from(out / "distilled", [out / "members1" / f"pi_{i}" / DATA for i in range(2)],
                 start)
    d = _labels(out / "members1" / "pi_1" / DATA)
    legal = torch.from_numpy(d["mask"])
    goal = _raw(out / "average" / "policy.pt", d)[0][legal]
    gap = [float(((_raw(p, d)[0][legal] - goal) ** 2).mean())
           for p in (start, out / "distilled" / "policy.pt")]
    assert gap[1] < gap[0] / 2, gap


def test_a_distillation_of_two_rounds_fits_at_both_rounds_positions(tmp_path: Path) -> None:
    """``--distill --distill-rounds 2``: the start is refitted at the positions of both member
    rounds (two tables of a schedule), not the last round's alone."""
    start = _small_average(tmp_path, 2)[1]
    extra = ("--start", str(start), "--members", "1", "--member-rounds", "2",
             "--member-decisions", "40", "--hidden", "16", "--round-epochs", "1",
             "--member-opponents", "hard;hard:1,self:1", "--distill", "--distill-rounds", "2",
             "--distill-epochs", "1")
    last = _run(tmp_path / "m", 100, *extra)
    out = tmp_path / "m"
    files = [out / f"members{k}" / "pi_0" / DATA for k in (1, 2)]
    _fitted_from(out / "distilled", files, start)
    assert last["decisions"] == sum(len(_labels(f)["act"]) for f in files)
    meta = load_policy(out / "distilled" / "policy.pt", HISTORY)[2]
    assert meta["behaviour"] == "the members of rounds 1-2"


def test_member_weights_weigh_each_generation_and_leave_out_a_weight_of_0(
        tmp_path: Path) -> None:
    """``--member-weights "0,3,1"``: the average ``M`` leaves out the start's members (weight
    0) and weighs the first round's refits three times the second's, which plays on from the
    first (checked against the members' own logits)."""
    start = _small_average(tmp_path, 2)[1]
    extra = ("--start", str(start), "--members", "2", "--member-rounds", "2",
             "--member-decisions", "30", "--hidden", "16", "--round-epochs", "1",
             "--member-weights", "0,3,1")
    _run(tmp_path / "m", 100, *extra)
    out = tmp_path / "m"
    gens = [[out / f"members{k}" / f"fit_{i}" / "policy.pt" for i in range(2)] for k in (1, 2)]
    meta = load_policy(out / "average" / "policy.pt", HISTORY)[2]
    assert meta["members"] == [str(p) for g in gens for p in g]
    assert meta["weights"] == [3.0, 3.0, 1.0, 1.0]
    d = _labels(out / "members2" / "pi_0" / DATA)
    legal = torch.from_numpy(d["mask"])
    first, second = (torch.stack(_logits(g, d)).mean(0) for g in gens)
    got = _logits([out / "average" / "policy.pt"], d)[0]
    torch.testing.assert_close(got[legal], (0.75 * first + 0.25 * second)[legal],
                               rtol=1e-4, atol=1e-4)


def test_taught_members_learn_the_average_of_the_generations_and_play_the_next_round(
        tmp_path: Path) -> None:
    """``--member-teach N``: after round 1 (not after the last) the generations so far are
    averaged at their weights (``A1``) and each refit is refitted from itself on that average's
    outputs at the round's positions, deciding closer to it than the refit did; the taught
    members play round 2, and the average ``M`` weighs the refits, not the taught members."""
    start = _small_average(tmp_path, 2)[1]
    extra = ("--start", str(start), "--members", "2", "--member-rounds", "2",
             "--member-decisions", "30", "--hidden", "16", "--round-epochs", "1",
             "--round-lr", "0.01", "--member-teach", "20", "--member-weights", "1,2,1")
    _run(tmp_path / "m", 100, *extra)
    out = tmp_path / "m"
    assert [r["stage"] for r in _stages(out)] == stage_names(parse(Args, list(extra))) == [
        "M1.0", "M1.1", "A1", "T1.0", "T1.1", "M2.0", "M2.1", "M"]
    first = [out / "members0" / f"member_{i}.pt" for i in range(2)]
    fits = [[out / f"members{k}" / f"fit_{i}" / "policy.pt" for i in range(2)] for k in (1, 2)]
    teacher = out / "members1" / "average" / "policy.pt"
    meta = load_policy(teacher, HISTORY)[2]
    assert meta["members"] == [str(p) for p in first + fits[0]]
    assert meta["weights"] == [1.0, 1.0, 2.0, 2.0]
    files = [out / "members1" / f"pi_{i}" / DATA for i in range(2)]
    d = _labels(files[0])
    legal = torch.from_numpy(d["mask"])
    goal = _raw(teacher, d)[0][legal]
    for i, refit in enumerate(fits[0]):
        taught = out / "members1" / f"taught_{i}"
        _fitted_from(taught, files, refit)
        meta = load_policy(taught / "policy.pt", HISTORY)[2]
        assert meta["teacher"] == str(teacher)
        assert meta["behaviour"] == "the members of round 1"
        gap = [float(((_raw(p, d)[0][legal] - goal) ** 2).mean())
               for p in (refit, taught / "policy.pt")]
        assert gap[1] < gap[0] / 2, gap
        assert ((out / "members2" / f"pi_{i}" / "behaviour.pt").read_bytes()
                == (taught / "policy.pt").read_bytes())
        _fitted_from(out / "members2" / f"fit_{i}",
                     [out / "members2" / f"pi_{j}" / DATA for j in range(2)],
                     taught / "policy.pt")
    meta = load_policy(out / "average" / "policy.pt", HISTORY)[2]
    assert meta["members"] == [str(p) for p in first + fits[0] + fits[1]]
    assert meta["weights"] == [1.0, 1.0, 2.0, 2.0, 1.0, 1.0]


def test_a_distillation_refits_the_student_at_its_own_plays_positions(tmp_path: Path) -> None:
    """``--distill-positions N``: the distilled network plays the labelled seat against three
    Hard for N decisions, positions only (every place -1, no rollout), and is refitted from
    itself on the average's outputs at those positions and the round's; its regrets count the
    labelled rows only."""
    start = _small_average(tmp_path, 2)[1]
    extra = ("--start", str(start), "--members", "1", "--member-rounds", "1",
             "--member-decisions", "40", "--hidden", "16", "--round-epochs", "1", "--distill",
             "--distill-epochs", "1", "--distill-positions", "50")
    last = _run(tmp_path / "m", 100, *extra)
    out = tmp_path / "m"
    assert [r["stage"] for r in _stages(out)] == stage_names(parse(Args, list(extra))) == [
        "M1.0", "M", "S", "S2"]
    play = out / "distilled" / "play"
    assert (play / "behaviour.pt").read_bytes() == (out / "distilled" / "policy.pt").read_bytes()
    d = _played_by(play, rollout=UNPLAYED)
    assert len(d["act"]) >= 50 and (d["place"] == -1).all()
    assert str(d["opponents"]) == "hard" and (d["mask"].sum(1) > 1).all()
    student = load_policy(play / "behaviour.pt", HISTORY)[0]
    alone = regret_on(student, HISTORY, [play / DATA], 0.05)  # no labelled row to count
    assert all(np.isnan(alone[k]) for k in ("train_regret", "heldout_behaviour_regret"))
    round_labels = out / "members1" / "pi_0" / DATA
    _fitted_from(out / "distilled2", [play / DATA, round_labels], play / "behaviour.pt")
    assert last["decisions"] == len(d["act"]) + len(_labels(round_labels)["act"])
    meta = load_policy(out / "distilled2" / "policy.pt", HISTORY)[2]
    assert meta["teacher"] == str(out / "average" / "policy.pt")
    assert meta["behaviour"] == "its own play and the members of round 1"
    with pytest.raises(SystemExit):  # positions without labels are no fit's targets
        _run(tmp_path / "f", 10, "--fit-only", "--hidden", "16", "--also", str(play / DATA))


@pytest.mark.parametrize(("extra", "says"), [
    (("--distill",), "--member-rounds"), (("--teacher", str(PPO)), "--fit-only"),
    (("--distill-rounds", "2"), "the positions of --distill"),
    (("--distill-positions", "9"), "the student of --distill"),
    (("--member-weights", "1,1"), "the generations of the --member-rounds"),
    (("--member-teach", "3"), "the members of the --member-rounds are taught"),
    (("--fit-only", "--teacher", str(PPO)), "reads 251 inputs")])
def test_a_teacher_without_its_fit_or_of_other_inputs_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: tuple[str, ...],
        says: str) -> None:
    with pytest.raises(SystemExit):
        _run(tmp_path / "b", 100, *extra)
    assert says in capsys.readouterr().err
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(("extra", "says"), [
    (("--member-rounds", "1"), "--start and --members"),
    (("--members", "4", "--member-rounds", "1", "--hidden", "16"), "averages 3"),
    (("--members", "2", "--member-rounds", "1"), "--hidden 16"),
    (("--members", "2", "--member-rounds", "1", "--pi-rounds", "1"), "no --rounds"),
    (("--members", "2", "--member-rounds", "1", "--hidden", "16", "--member-opponents",
      "hard:1,nobody:1"), "unknown agent 'nobody'"),
    (("--members", "2", "--member-rounds", "1", "--hidden", "16", "--member-opponents",
      "hard:0,self:0"), "weights sum to 0"),
    (("--members", "2", "--member-rounds", "1", "--hidden", "16", "--member-opponents",
      "hard;normal"), "2 tables for 1 --member-rounds"),
    (("--members", "2", "--member-rounds", "2", "--hidden", "16", "--member-opponents",
      "hard;nobody:1"), "unknown agent 'nobody'"),
    (("--members", "2", "--member-rounds", "1", "--hidden", "16", "--distill",
      "--distill-rounds", "2"), "there are 1 --member-rounds"),
    (("--members", "2", "--member-rounds", "1", "--hidden", "16", "--member-weights", "1,1,1"),
     "3 weights for 2 generations"),
    (("--members", "2", "--member-rounds", "2", "--hidden", "16", "--member-weights", "0,0,1",
      "--member-teach", "1"), "the first round's average needs a weight above 0"),
    (("--members", "2", "--member-rounds", "1", "--hidden", "16", "--member-weights", "2,x"),
     "weights are numbers"),
    (("--members", "2", "--member-rounds", "1", "--hidden", "16", "--member-weights", "1,-1"),
     "finite weights of 0 or more"),
    (("--members", "2", "--member-rounds", "1", "--hidden", "16", "--member-weights", "0,0"),
     "one above 0"),
    (("--member-opponents", "normal", "--pi-rounds", "1"), "the table of the --member-rounds")])
def test_member_rounds_out_of_an_average_they_cannot_split_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: tuple[str, ...],
        says: str) -> None:
    eng = Engine(HISTORY)
    paths = []
    for i in range(3):
        paths.append(tmp_path / f"n{i}.pt")
        save_policy(paths[-1], PolicyNet(eng.obs_size, eng.num_actions, 16), HISTORY)
    start = tmp_path / "start.pt"
    average(paths, start, HISTORY)
    with pytest.raises(SystemExit):
        _run(tmp_path / "b", 100, "--start", str(start), *extra)
    assert says in capsys.readouterr().err
    assert not list((tmp_path / "b").rglob("*.npz"))


@pytest.mark.parametrize(("extra", "says"), [
    ((), "--pi-rounds"), (("--pi-rounds", "1", "--hidden", "64"), "--hidden 256"),
    (("--pi-rounds", "1", "--union", "1"), "no --fit-only"),
    (("--pi-rounds", "1", "--init", str(PPO)), "no --fit-only")])
def test_a_start_without_rounds_or_of_another_width_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: tuple[str, ...],
        says: str) -> None:
    """``--start`` without rounds to go on with, with the first fit's options, or of another
    width than ``--hidden``: refused before anything is collected."""
    eng = Engine(HISTORY)
    start = tmp_path / "start.pt"
    save_policy(start, PolicyNet(eng.obs_size, eng.num_actions, 256), HISTORY)
    with pytest.raises(SystemExit):
        _run(tmp_path / "b", 100, "--start", str(start), *extra)
    assert says in capsys.readouterr().err
    assert not list((tmp_path / "b").rglob("*.npz"))


RECIPE = ("--pi-rounds", "1", "--pi-decisions", "60", "--epochs", "1", "--lineages", "2",
          "--union", "2", "--league", "60", "--league-rounds", "2", "--league-weight", "0.25")
"""The one command's recipe, small: two runs, two union fits, two league rounds."""


@pytest.fixture(scope="session")
def recipe_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, float]]:
    """A whole small recipe (its folder and last metrics), run once for the tests below: the
    first pytest-xdist worker to ask runs it under a lock in the run's shared temporary folder,
    the other reads it (``--dist loadgroup`` does not keep the tests on one worker under
    pytest 9.2: pytest-dev/pytest-xdist#1386)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out, done = shared / "lookahead_recipe", shared / "lookahead_recipe.json"
    with open(shared / "lookahead_recipe.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            out.mkdir()
            done.write_text(json.dumps(_run(out, 60, *RECIPE)))
    return out, json.loads(done.read_text())


def test_the_recipe_records_the_stages_it_names(recipe_run: tuple[Path, dict[str, float]]
                                                ) -> None:
    out, _ = recipe_run
    rows = _stages(out)
    assert [r["stage"] for r in rows] == stage_names(parse(Args, list(RECIPE))) == [
        "L0.R0", "L0.PI1", "L1.R0", "L1.PI1", "U0", "U1", "E", "G0", "G1", "F1", "G2.0",
        "G2.1", "F"]
    elapsed = [float(r["elapsed_s"]) for r in rows]
    assert elapsed == sorted(elapsed)  # the second lineage's times count from the start
    runs = [out / "lineage_0", out / "lineage_1"]
    assert not np.array_equal(_labels(runs[0] / DATA)["obs"][:50],
                              _labels(runs[1] / DATA)["obs"][:50])  # each its own deals
    n = sum(int(r["decisions"]) for r in rows if ".PI" in r["stage"])
    assert int(rows[4]["decisions"]) == int(rows[5]["decisions"]) == n


def test_union_fits_start_from_each_run_and_are_averaged(
        recipe_run: tuple[Path, dict[str, float]]) -> None:
    """Each union fit starts from one run's last policy and fits the policy-iteration labels of
    both runs; E is their average, rated on the last run's last labels."""
    out, _ = recipe_run
    files = [out / f"lineage_{i}" / "pi_1" / DATA for i in range(2)]
    union = [out / "union_0" / "policy.pt", out / "union_1" / "policy.pt"]
    for i, fit in enumerate(union):
        _fitted_from(fit.parent, files, start=out / f"lineage_{i}" / "policy.pt")
    d = _labels(files[1])
    logits = _logits(union + [out / "ensemble" / "policy.pt"], d)
    torch.testing.assert_close(logits[2], (logits[0] + logits[1]) / 2, atol=1e-4, rtol=1e-4)
    assert not torch.allclose(logits[0], logits[1])
    e = next(r for r in _stages(out) if r["stage"] == "E")
    avg = load_policy(out / "ensemble" / "policy.pt", HISTORY)[0]
    want = regret_on(avg, HISTORY, [files[1]], 0.05)
    assert float(e["heldout_regret"]) == pytest.approx(want["heldout_regret"])


def test_the_league_rounds_refit_the_union_fits_on_their_own_table(
        recipe_run: tuple[Path, dict[str, float]]) -> None:
    """Round 1: E plays and rolls out at a table of Hard and itself, each union fit is refitted
    from itself on those labels (G0, G1), averaged (F1); round 2: F1 plays, each refit is
    refitted again (G2.0, G2.1); F is the union fits and the last refits weighted 0.75 and
    0.25 in all, rated on round 2's labels."""
    out, last = recipe_run
    league, league2 = out / "league", out / "league2"
    assert (league / "behaviour.pt").read_bytes() == (out / "ensemble" / "policy.pt").read_bytes()
    d1 = _played_by(league, rollout="self")
    assert str(d1["opponents"]) == "hard:1,self:1" and len(d1["act"]) >= 60
    union = [out / "union_0" / "policy.pt", out / "union_1" / "policy.pt"]
    refits = [out / "league_0" / "policy.pt", out / "league_1" / "policy.pt"]
    for start, refit in zip(union, refits, strict=True):
        _fitted_from(refit.parent, [league / DATA], start=start)
    first = _logits(refits + [league / "policy.pt"], d1)
    torch.testing.assert_close(first[2], (first[0] + first[1]) / 2, atol=1e-4, rtol=1e-4)
    assert (league2 / "behaviour.pt").read_bytes() == (league / "policy.pt").read_bytes()
    d2 = _played_by(league2, rollout="self")
    refits2 = [out / "league2_0" / "policy.pt", out / "league2_1" / "policy.pt"]
    for start, refit in zip(refits, refits2, strict=True):
        _fitted_from(refit.parent, [league2 / DATA], start=start)
    lg = _logits(union + refits2 + [league2 / "policy.pt"], d2)
    want = 0.375 * (lg[0] + lg[1]) + 0.125 * (lg[2] + lg[3])
    torch.testing.assert_close(lg[4], want, atol=1e-4, rtol=1e-4)
    final = load_policy(league2 / "policy.pt", HISTORY)[0]
    assert last == pytest.approx(regret_on(final, HISTORY, [league2 / DATA], 0.05))


def test_a_stopped_recipe_resumes_at_its_first_stage_not_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--resume``: the run stopped in its last league round (its records end at F1, the
    round's labels are saved, its fits gone) keeps every recorded stage (its policy not written
    again, its row as it was), goes on from the saved labels and makes the rest, ending with
    the same weights; resumed with other arguments it is refused and changes nothing. Its own
    run (it stops it: the shared one is read by other workers meanwhile)."""
    out, last = tmp_path, _run(tmp_path, 60, *RECIPE)
    rows = _stages(out)
    final = load_policy(out / "league2" / "policy.pt", HISTORY)[0].state_dict()
    kept = [r["stage"] for r in rows].index("F1") + 1
    with open(out / "rounds.csv", "w", newline="") as f:  # stopped after F1
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows[:kept])
    for later in ("league2_0", "league2_1"):
        shutil.rmtree(out / later)
    (out / "league2" / "policy.pt").unlink()
    labels = (out / "league2" / DATA).read_bytes()
    made = {r["folder"]: (Path(r["folder"]) / "policy.pt").stat().st_mtime_ns
            for r in rows[:kept] if not r["stage"].endswith("R0")}  # a run's root: its last
    capsys.readouterr()
    resumed = _run(out, 60, *RECIPE, "--resume")
    assert "F1: recorded in" in capsys.readouterr().err
    assert (out / "league2" / DATA).read_bytes() == labels  # nothing more to collect
    assert {f: (Path(f) / "policy.pt").stat().st_mtime_ns for f in made} == made
    again = _stages(out)
    assert [r["stage"] for r in again] == [r["stage"] for r in rows]
    assert again[:kept] == rows[:kept]
    assert float(again[kept]["elapsed_s"]) >= float(rows[kept - 1]["elapsed_s"])
    now = load_policy(out / "league2" / "policy.pt", HISTORY)[0].state_dict()
    assert now.keys() == final.keys() and all(torch.equal(now[k], final[k]) for k in now)
    assert resumed == pytest.approx(last)
    before = (out / "rounds.csv").read_bytes(), (out / "args.json").read_bytes()
    with pytest.raises(SystemExit):
        _run(out, 60, *RECIPE, "--resume", "--league-weight", "0.5")
    assert "league_weight: 0.25 there, 0.5 now" in capsys.readouterr().err
    assert before == ((out / "rounds.csv").read_bytes(), (out / "args.json").read_bytes())


def test_a_resume_takes_an_option_added_since_at_its_default(tmp_path: Path) -> None:
    """A run recorded before an option existed resumes at the option's default, and is refused
    at another value."""
    args = parse(Args, ["--pi-rounds", "1", "--out", str(tmp_path)])
    path = tmp_path / "args.json"

    def recorded_without(option: str) -> None:
        record_args(args)
        old = json.loads(path.read_text())
        del old[option]
        path.write_text(json.dumps(old))

    recorded_without("distill")
    record_args(dataclasses.replace(args, resume=True))
    assert json.loads(path.read_text())["distill"] is False
    recorded_without("member_opponents")
    with pytest.raises(ValueError, match="member_opponents: 'hard' there, 'hard:1,self:1' now"):
        record_args(dataclasses.replace(args, resume=True, member_opponents="hard:1,self:1"))


def test_a_resume_may_change_the_options_of_stages_not_made(tmp_path: Path) -> None:
    """The average's weights and the distillation's options may change on ``--resume`` while
    ``rounds.csv`` does not record their stage (``args.json`` then records the new ones), and
    are refused once it does, changing nothing."""
    start = str(ROOT / "agents" / "pretrained" / "lookahead.pt")
    args = parse(Args, ["--start", start, "--members", "1", "--member-rounds", "2",
                        "--member-weights", "1,1,1", "--distill", "--distill-positions", "100",
                        "--out", str(tmp_path)])
    path = tmp_path / "args.json"

    def made(*stages: str) -> None:
        (tmp_path / "rounds.csv").write_text("stage,folder\n"
                                             + "".join(f"{s},x\n" for s in stages))

    record_args(args)
    made("M1.0", "M2.0")
    args = dataclasses.replace(args, resume=True, member_weights="2,0,1", distill_rounds=2)
    record_args(args)
    assert json.loads(path.read_text())["member_weights"] == "2,0,1"
    made("M1.0", "M2.0", "M")
    with pytest.raises(ValueError, match="member_weights: '2,0,1' there, '1,1,1' now"):
        record_args(dataclasses.replace(args, member_weights="1,1,1"))
    made("M1.0", "M2.0", "M", "S")
    record_args(dataclasses.replace(args, distill_positions=200))
    assert json.loads(path.read_text())["distill_positions"] == 200
    before = path.read_bytes()
    for late in ({"distill_rounds": 1}, {"distill_lr": 0.1}, {"distill": False}):
        with pytest.raises(ValueError, match=f"{next(iter(late))}: "):
            record_args(dataclasses.replace(args, distill_positions=200, **late))
    assert path.read_bytes() == before
    teaching = dataclasses.replace(args, member_teach=1, out=str(tmp_path / "t"), resume=False)
    record_args(teaching)  # its rounds' teachers weigh the generations too: from A1 on
    (tmp_path / "t" / "rounds.csv").write_text("stage,folder\nM1.0,x\nA1,x\n")
    with pytest.raises(ValueError, match="member_weights: "):
        record_args(dataclasses.replace(teaching, resume=True, member_weights="1,1,1"))


@pytest.mark.parametrize("extra", [
    ["--union", "2"], ["--lineages", "2"], ["--pi-rounds", "1", "--league", "100"],
    ["--pi-rounds", "1", "--union", "1", "--league-rounds", "2"],
    ["--pi-rounds", "1", "--union", "1", "--league", "100", "--league-weight", "0"],
    ["--fit-only", "--resume"], ["--fit-only", "--pi-rounds", "1", "--union", "1"]])
def test_stages_without_what_they_build_on_are_refused(tmp_path: Path,
                                                       extra: list[str]) -> None:
    """Union fits without policy-iteration labels, runs without union fits, league rounds
    without union fits or of weight 0, and a fit on its own with stages: refused before
    anything runs."""
    with pytest.raises(SystemExit):
        _run(tmp_path / "b", 100, *extra)
    assert not (tmp_path / "b").exists()


_HEAP_PROBE = """
import ctypes
from train.lookahead.labels import steady_heap
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]
libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = Info
def mapped_mb(mb):
    before = libc.mallinfo2().hblkhd
    y = bytearray(mb << 20)
    return (libc.mallinfo2().hblkhd - before) >> 20
x = bytearray(28 << 20)
del x  # glibc raises its mmap threshold to 28 MB
print(mapped_mb(4), steady_heap(), mapped_mb(8))  # 8 MB: not the 4 MB freed in the heap
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc only")
def test_the_fits_fix_the_heap_threshold() -> None:
    """After a 28 MB buffer is freed, glibc serves a 4 MB one from the heap (where a fit's
    freed batches fragment and stay); after ``steady_heap`` (called by every fit and label
    read) it maps it, so freeing gives it back. In a fresh process: the threshold is
    process-wide."""
    out = subprocess.run([sys.executable, "-c", _HEAP_PROBE], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.split() == ["0", "True", "8"]


@pytest.mark.parametrize("table", ["recipe_stages.csv", "fifth_stages.csv", "mix_stages.csv"])
def test_the_docs_tables_of_stages_hold_each_rating_inside_its_interval(table: str) -> None:
    rows = curve.read_stages(DATA_DIR / table)
    names = [r["stage"] for r in rows]
    assert len(set(names)) == len(names)
    for r in rows:
        for who in ("hard", "expert"):
            if r.get(f"vs_{who}_lo"):
                assert float(r[f"vs_{who}_lo"]) < float(r[f"vs_{who}"]) < float(r[f"vs_{who}_hi"])


def test_the_recipe_stages_are_the_rounds_of_its_one_command(tmp_path: Path) -> None:
    """``docs/data/recipe_stages.csv`` is the ``rounds.csv`` of the README's full-size command
    (and ``fifth_stages.csv`` of it at a fifth of its size): the stages that command names, each
    rated, in the order of the clock; ``train.curve`` plots it, the docs' learning curve."""
    rows = curve.read_stages(DATA_DIR / "recipe_stages.csv")
    names = [r["stage"] for r in rows]
    assert names == stage_names(parse(Args, README_RECIPE))
    assert names == [r["stage"] for r in curve.read_stages(DATA_DIR / "fifth_stages.csv")]
    assert len(names) == 27 and all(r["vs_hard_lo"] for r in rows)
    elapsed = [float(r["elapsed_s"]) for r in rows]
    assert elapsed == sorted(elapsed) and 20_000 < elapsed[-1] < 30_000
    out = curve.main([str(DATA_DIR / "recipe_stages.csv"), "--out", str(tmp_path / "a" / "c.png")])
    assert out.stat().st_size > 20_000


@pytest.mark.parametrize("text, says", [
    ("name,vs_hard\nR0,2.4\n", "a 'stage' column"),
    ("stage,vs_hard\n", "a 'stage' column"),
    ("stage,vs_hard\nR0,2.4\nD1,two\n", "line 3: vs_hard = 'two' is not a number"),
    ("stage,decisions\nR0,100\n", "no stage has a held-out regret or a rating"),
])
def test_the_curve_refuses_a_table_it_cannot_plot(tmp_path: Path, text: str, says: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.csv").write_text(text)
    with pytest.raises(SystemExit):
        curve.main([str(tmp_path / "s.csv"), "--out", str(tmp_path / "c.png")])
    assert says in capsys.readouterr().err
    assert not (tmp_path / "c.png").exists()
