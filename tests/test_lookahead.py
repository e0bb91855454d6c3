"""Lookahead distillation (``train.lookahead``).

Checked: the labels equal a plain one-game-at-a-time replay of every legal action with Hard in
every seat, on positions of real games of two presets, and a hand-built position's labels; the
collection keeps legal decisions of the labelled seats only, with the behaviour's own action
(Hard's, or a checkpoint's read from its observation prefix), resumes and refuses another
behaviour's file; the fit lowers its loss, its regret is measured against the labels, and it
writes a policy that a history table plays; the opponents of ``--opponents`` play the games and
the rollouts; one command runs the DAgger and policy-iteration rounds, each fitted from the last
policy on the labels it should use, whole runs (``--lineages``) and fits on the union of their
labels (``--union``), averaged; the fits map their large buffers (glibc's heap).
"""

from __future__ import annotations

import csv
import platform
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
from agents.policy import PolicyAgent, load_policy
from president_env.core.constants import PHASE_DONE
from president_env.core.engine import Engine, State
from president_env.core.rules import Rules
from president_env.table import check_rules, policy_obs_size
from train import lookahead
from train.common.labels import FIELDS, regret_on

SHIPPED = Path(__file__).resolve().parent.parent / "agents" / "pretrained" / "standard_4p.pt"
LOOKAHEAD = SHIPPED.with_name("standard_4p_lookahead.pt")
LOOKAHEAD_AVG = SHIPPED.with_name("standard_4p_lookahead_avg.pt")
LOOKAHEAD_UNION = SHIPPED.with_name("standard_4p_lookahead_union.pt")
LOOKAHEAD_LEAGUE = SHIPPED.with_name("standard_4p_lookahead_league.pt")
LOOKAHEAD_LEAGUE2 = SHIPPED.with_name("standard_4p_lookahead_league2.pt")
LOOKAHEAD_MIX = SHIPPED.with_name("standard_4p_lookahead_mix.pt")
LOOKAHEAD_RECIPE = SHIPPED.with_name("standard_4p_lookahead_recipe.pt")


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
    ("standard", None, False), ("daifugo", None, False), ("standard", "easy", False),
    ("standard", "easy", True)])
def test_labels_equal_a_plain_replay_of_every_action(preset: str, own: str | None,
                                                     mixed: bool) -> None:
    """With ``own``, that agent plays on for the seat labelled (a step of policy iteration);
    ``mixed``: the other seats of each game are played by Hard, Normal or the shipped policy
    (a :class:`SeatMix`, as ``--opponents``)."""
    rules = Rules.preset(preset, observation="history")
    eng, hard = Engine(rules), HardAgent(rules)
    agent = None if own is None else load_agent(own, rules)
    st = eng.init(np.arange(12, dtype=np.uint64))
    rng = np.random.default_rng(3)
    mix = None
    if mixed:
        agents = [hard, load_agent("normal", rules), load_agent(str(SHIPPED), rules)]
        mix = SeatMix(agents, rng.integers(0, 3, (12, rules.num_players)), rules)
    checked = 0
    for _ in range(60):  # positions along Hard games, some rows at each step
        obs, mask = eng.observe(st), eng.legal_action_mask(st)
        live = np.flatnonzero((mask.sum(1) > 1) & (st.phase != PHASE_DONE))
        rows = rng.choice(live, min(3, len(live)), replace=False) if len(live) else live
        if len(rows):
            players = hard if mix is None else mix.take(rows)
            got = lookahead.label_places(eng, players, st, rows, mask[rows], agent)
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
    assert checked >= 60


def test_a_hand_built_position_has_the_labels_of_its_only_good_play() -> None:
    """Seat 0 holds 3c 2s and leads, the others one card each: the 2 then the 3 goes out first;
    the 3 first lets the next seat go out."""
    rules = Rules.preset("standard", num_players=3, observation="history")
    eng, hard = Engine(rules), HardAgent(rules)
    st = eng.init_from_hands(["3c 2s", "Ah", "4c"])
    st.current[:] = 0
    mask = eng.legal_action_mask(st)
    got = lookahead.label_places(eng, hard, st, np.array([0]), mask)[0]
    names = {eng.layout.name(int(a)): int(got[a]) for a in np.flatnonzero(mask[0])}
    assert names["single 2"] == 0 and names["single 3"] >= 1
    assert (got[~mask[0]] == -1).all()


def _collect(out: Path, decisions: int, *extra: str) -> dict[str, float]:
    return lookahead.main(["--decisions", str(decisions), "--games", "16", "--epochs", "2",
                           "--batch", "64", "--seed", "1", "--no-progress", "--out", str(out),
                           *extra])


def test_collection_resume_and_fit(tmp_path: Path) -> None:
    rules = Rules.preset("standard", observation="history")
    last = _collect(tmp_path, 400)
    with np.load(tmp_path / lookahead.DATA) as f:
        d = {k: f[k] for k in FIELDS}
    n = len(d["act"])
    assert n >= 400
    assert ((d["place"] >= 0) == d["mask"]).all() and (d["mask"].sum(1) > 1).all()
    assert d["mask"][np.arange(n), d["act"]].all()
    assert d["place"].max() <= 3
    hard = HardAgent(rules)  # the action kept is Hard's own on the stored observation
    assert (hard.act_batch(d["obs"].astype(np.float32), d["mask"]) == d["act"]).all()
    with open(tmp_path / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["epoch"]) for r in rows] == [0, 1, 2]
    assert float(rows[2]["loss"]) < float(rows[1]["loss"])
    p_all = d["place"].astype(np.int64)  # the behaviour's regret, recomputed on the training rows
    took = p_all[np.arange(n), d["act"].astype(np.int64)] - np.where(d["mask"], p_all, 99).min(1)
    assert last["train_behaviour_regret"] == pytest.approx(took[: int(round(n * 0.95))].mean())
    agent = load_agent(str(tmp_path / "policy.pt"), rules)
    assert isinstance(agent, PolicyAgent) and agent.rules.observation == "history"
    eng = Engine(rules)  # the greedy choice on the held-out rows has the regret reported
    m = int(round(n * 0.95))
    pick = agent.act_batch(d["obs"][m:].astype(np.float32), d["mask"][m:])
    p = d["place"][m:].astype(np.int64)
    best = np.where(d["mask"][m:], p, 99).min(1)
    regret = (p[np.arange(len(pick)), pick] - best).mean()
    assert last["heldout_regret"] == pytest.approx(regret, abs=1e-6)
    state = eng.init(np.arange(4, dtype=np.uint64))
    assert (agent.act_batch(eng.observe(state), eng.legal_action_mask(state)) >= 0).all()
    _collect(tmp_path, n + 300)  # resumes: the first rows are kept
    with np.load(tmp_path / lookahead.DATA) as f:
        assert len(f["act"]) >= n + 300 and np.array_equal(f["obs"][:n], d["obs"])
    with pytest.raises(SystemExit):  # another behaviour's file
        _collect(tmp_path, 10, "--behaviour", str(SHIPPED))


def test_a_checkpoint_behaviour_is_the_only_seat_labelled(tmp_path: Path) -> None:
    _collect(tmp_path, 200, "--behaviour", str(SHIPPED), "--epochs", "1")
    rules = Rules.preset("standard", observation="history")
    shipped = load_agent(str(SHIPPED), rules)
    with np.load(tmp_path / lookahead.DATA) as f:
        obs, mask, act = f["obs"].astype(np.float32), f["mask"], f["act"]
    width = Engine(Rules.preset("standard")).obs_size
    assert (shipped.act_batch(obs[:, :width], mask) == act).all()


def test_the_opponents_play_the_table(tmp_path: Path) -> None:
    """``--opponents easy`` with Hard as the behaviour: Easy plays every seat (each labelled);
    a file of other opponents is refused, and so are opponents of no weight or no name."""
    _collect(tmp_path, 150, "--opponents", "easy", "--epochs", "1")
    rules = Rules.preset("standard", observation="history")
    with np.load(tmp_path / lookahead.DATA) as f:
        assert str(f["opponents"]) == "easy"
        obs, mask, act = f["obs"].astype(np.float32), f["mask"], f["act"]
    assert (load_agent("easy", rules).act_batch(obs, mask) == act).all()
    assert (HardAgent(rules).act_batch(obs, mask) != act).any()
    for bad in ("hard", "hard:0", "nosuch", "self:1,hard:-1"):
        with pytest.raises(SystemExit):
            _collect(tmp_path, 160, "--opponents", bad)


def test_a_collection_runs_on_one_torch_thread(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Its small batches ran 40 times slower on a pool of 2 threads while another process held
    the other core; the fit after it gets the caller's threads back."""
    seen: list[int] = []
    monkeypatch.setattr(lookahead, "collect", lambda *a: seen.append(torch.get_num_threads()))
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        args = lookahead.Args(decisions=10, out=str(tmp_path), progress=False)
        assert lookahead.collect_part(args, 0) == 0
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_two_workers_collect_their_own_deals(tmp_path: Path) -> None:
    _collect(tmp_path, 300, "--workers", "2", "--epochs", "1")
    with np.load(tmp_path / "labels_0.npz") as a, np.load(tmp_path / "labels_1.npz") as b:
        assert len(a["act"]) >= 150 and len(b["act"]) >= 150
        assert not np.array_equal(a["obs"][:50], b["obs"][:50])
        both = len(a["act"]) + len(b["act"])
    meta = torch.load(tmp_path / "policy.pt", weights_only=True)["meta"]
    assert meta["decisions"] == both


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
        cwd=Path(__file__).resolve().parent.parent, stderr=subprocess.PIPE)
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


def _fitted_from(folder: Path, files: list[Path], rules: Rules, start: Path | None = None) -> None:
    """The fit in ``folder`` started from ``start`` (``folder/behaviour.pt``): its epoch-0
    regret is that network's on the labels of ``files``."""
    agent = PolicyAgent.load(start or folder / "behaviour.pt", rules)
    assert isinstance(agent, PolicyAgent)
    want = regret_on(agent.net, rules, files, 0.05)
    with open(folder / "metrics.csv") as f:
        row = next(csv.DictReader(f))
    assert float(row["train_regret"]) == pytest.approx(want["train_regret"], abs=1e-6)


def test_one_command_runs_dagger_then_policy_iteration_rounds(tmp_path: Path) -> None:
    """``--rounds 2 --pi-rounds 1``: the DAgger round labels the first policy's own decisions
    and refits it on every label; the policy-iteration round labels the DAgger policy's own
    decisions with it playing on, and refits it on those labels only; rounds.csv rates each."""
    last = _collect(tmp_path, 200, "--rounds", "2", "--dagger", "150", "--pi-rounds", "1",
                    "--pi-decisions", "150", "--epochs", "1", "--eval-deals", "10",
                    "--ensemble", "2")
    rules = Rules.preset("standard", observation="history")
    dag, pi = tmp_path / "round_1", tmp_path / "pi_1"
    first = load_agent(str(dag / "behaviour.pt"), rules)
    with np.load(dag / lookahead.DATA) as f:
        assert str(f["behaviour"]) == str(dag / "behaviour.pt") and str(f["rollout"]) == "hard"
        obs, mask, act = f["obs"].astype(np.float32), f["mask"], f["act"]
    assert len(act) >= 150 and (first.act_batch(obs, mask) == act).all()
    assert (dag / "policy.pt").read_bytes() == (pi / "behaviour.pt").read_bytes()
    _fitted_from(dag, [tmp_path / lookahead.DATA, dag / lookahead.DATA], rules)
    second = load_agent(str(pi / "behaviour.pt"), rules)
    with np.load(pi / lookahead.DATA) as f:
        assert str(f["behaviour"]) == str(f["rollout"]) == str(pi / "behaviour.pt")
        obs, mask, act = f["obs"].astype(np.float32), f["mask"], f["act"]
    assert len(act) >= 150 and (second.act_batch(obs, mask) == act).all()
    _fitted_from(pi, [pi / lookahead.DATA], rules)
    assert last["decisions"] == len(act)  # the ensemble is rated on the last fit's labels
    assert (tmp_path / "policy.pt").read_bytes() == (pi / "policy.pt").read_bytes()
    # --ensemble 2: D1 and PI1 averaged, rated on the labels of PI1's fit
    avg = load_policy(tmp_path / "ensemble" / "policy.pt", rules)[0]
    t_obs, t_mask = torch.from_numpy(obs), torch.from_numpy(mask)
    mean = torch.stack([load_policy(f / "policy.pt", rules)[0](t_obs, t_mask)[0]
                        for f in (dag, pi)]).mean(0)
    assert (PolicyAgent(avg, rules).act_batch(obs, mask) == mean.argmax(-1).numpy()).all()
    assert last == pytest.approx(regret_on(avg, rules, [pi / lookahead.DATA], 0.05))
    with open(tmp_path / "rounds.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["stage"] for r in rows] == ["R0", "D1", "PI1", "E"]
    assert int(rows[2]["decisions"]) == int(rows[3]["decisions"]) == len(act)
    assert all(float(r["vs_hard_lo"]) < float(r["vs_hard"]) < float(r["vs_hard_hi"])
               and 1 <= float(r["vs_hard"]) <= 4 for r in rows)
    assert (tmp_path / "rounds.png").stat().st_size > 10_000


def _is_the_average(out: Path, members: list[Path], labels: Path, rules: Rules,
                    last: dict[str, float]) -> list[torch.Tensor]:
    """``out/ensemble/policy.pt`` gives the mean of the ``members``' logits on the positions of
    ``labels``, and ``last`` is its regret on them: the members' logits."""
    with np.load(labels) as f:
        obs, mask = torch.from_numpy(f["obs"].astype(np.float32)), torch.from_numpy(f["mask"])
    logits = [load_policy(m, rules)[0](obs, mask)[0] for m in members]
    avg = load_policy(out / "ensemble" / "policy.pt", rules)[0]
    torch.testing.assert_close(avg(obs, mask)[0], torch.stack(logits).mean(0),
                               atol=1e-4, rtol=1e-4)
    assert last == pytest.approx(regret_on(avg, rules, [labels], 0.05))
    return logits


def test_lineages_average_the_last_stages_of_independent_runs(tmp_path: Path) -> None:
    """``--lineages 2 --ensemble 2``: two whole runs on their own seeds (other deals, so other
    labels), and the last two stages of each (four policies) averaged into one, rated on the
    labels of the last run's last fit; OUT/rounds.csv copies every stage of both runs."""
    last = _collect(tmp_path, 120, "--pi-rounds", "1", "--pi-decisions", "100", "--epochs", "1",
                    "--lineages", "2", "--ensemble", "2", "--eval-deals", "6")
    rules = Rules.preset("standard", observation="history")
    runs = [tmp_path / "lineage_0", tmp_path / "lineage_1"]
    firsts = []
    for run in runs:
        with np.load(run / lookahead.DATA) as f:
            firsts.append(f["obs"][:50])
    assert not np.array_equal(firsts[0], firsts[1])  # each lineage its own deals
    members = [f / "policy.pt" for r in runs for f in (r, r / "pi_1")]
    files = [r / "pi_1" / lookahead.DATA for r in runs]
    _is_the_average(tmp_path, members, files[1], rules, last)
    with open(tmp_path / "rounds.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["stage"] for r in rows] == ["L0.R0", "L0.PI1", "L1.R0", "L1.PI1", "E"]
    with np.load(files[1]) as f:
        assert int(rows[-1]["decisions"]) == len(f["act"])
    elapsed = [float(r["elapsed_s"]) for r in rows]
    assert elapsed == sorted(elapsed)  # the second lineage's times count from the start
    with pytest.raises(SystemExit):  # a fit on its own has one lineage
        _collect(tmp_path / "b", 100, "--fit-only", "--lineages", "2",
                 "--also", str(files[0]))


def test_union_fits_start_from_each_run_and_learn_every_policy_iteration_label(
        tmp_path: Path) -> None:
    """``--lineages 2 --union 2``: after both runs, each union fit starts from one run's last
    policy and fits the policy-iteration labels of both runs; the two are averaged (stage E,
    rated on the last run's last labels). A union without policy-iteration rounds, beside an
    ensemble of stages or on its own (``--fit-only``) is refused."""
    last = _collect(tmp_path, 120, "--pi-rounds", "1", "--pi-decisions", "100", "--epochs", "1",
                    "--lineages", "2", "--union", "2", "--eval-deals", "6")
    rules = Rules.preset("standard", observation="history")
    runs = [tmp_path / "lineage_0", tmp_path / "lineage_1"]
    files = [r / "pi_1" / lookahead.DATA for r in runs]
    union = [tmp_path / "union_0", tmp_path / "union_1"]
    for run, fold in zip(runs, union, strict=True):
        _fitted_from(fold, files, rules, start=run / "policy.pt")
    logits = _is_the_average(tmp_path, [u / "policy.pt" for u in union], files[1], rules, last)
    assert not torch.allclose(logits[0], logits[1])
    with open(tmp_path / "rounds.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["stage"] for r in rows] == ["L0.R0", "L0.PI1", "L1.R0", "L1.PI1", "U0", "U1", "E"]
    n = sum(int(r["decisions"]) for r in rows if ".PI" in r["stage"])
    assert int(rows[4]["decisions"]) == int(rows[5]["decisions"]) == n
    for extra in (["--union", "2"], ["--pi-rounds", "1", "--union", "2", "--ensemble", "2"],
                  ["--fit-only", "--union", "1", "--also", str(files[0])]):
        with pytest.raises(SystemExit):
            _collect(tmp_path / "b", 100, *extra)
        assert not (tmp_path / "b").exists()


def test_the_league_round_refits_the_union_fits_on_labels_of_another_table(
        tmp_path: Path) -> None:
    """``--union 2 --league N``: the union average plays the labelled seat and plays on for it
    at a table of Hard and itself; each union fit is refitted from itself on those labels only,
    and the union fits and the refits are averaged with the weights 1 - w and w (stage F, rated
    on the league labels), the refits alone by default (w = 1); ``--league-rounds 2`` repeats
    the round from the first round's refits. A league without union fits, rounds without a
    league, or a league weighted 0, are refused."""
    last = _collect(tmp_path, 100, "--pi-rounds", "1", "--pi-decisions", "100", "--epochs", "1",
                    "--union", "2", "--league", "120", "--league-weight", "0.25")
    rules = Rules.preset("standard", observation="history")
    league = tmp_path / "league"
    assert (league / "behaviour.pt").read_bytes() == (
        tmp_path / "ensemble" / "policy.pt").read_bytes()
    with np.load(league / lookahead.DATA) as f:
        assert str(f["behaviour"]) == str(f["rollout"]) == str(league / "behaviour.pt")
        assert str(f["opponents"]) == "hard:1,self:1"
        obs, mask, act = f["obs"].astype(np.float32), f["mask"], f["act"]
    assert len(act) >= 120
    assert (load_agent(str(league / "behaviour.pt"), rules).act_batch(obs, mask) == act).all()
    union = [tmp_path / "union_0" / "policy.pt", tmp_path / "union_1" / "policy.pt"]
    refits = [tmp_path / "league_0", tmp_path / "league_1"]
    for start, fold in zip(union, refits, strict=True):
        _fitted_from(fold, [league / lookahead.DATA], rules, start=start)
    t_obs, t_mask = torch.from_numpy(obs), torch.from_numpy(mask)
    logits = [load_policy(m, rules)[0](t_obs, t_mask)[0]
              for m in union + [r / "policy.pt" for r in refits]]
    want = 0.375 * (logits[0] + logits[1]) + 0.125 * (logits[2] + logits[3])
    final = load_policy(league / "policy.pt", rules)[0]
    torch.testing.assert_close(final(t_obs, t_mask)[0], want, atol=1e-4, rtol=1e-4)
    assert not torch.allclose(logits[0], logits[2], atol=1e-3)  # the refits moved
    assert last == pytest.approx(regret_on(final, rules, [league / lookahead.DATA], 0.05))
    with open(tmp_path / "rounds.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["stage"] for r in rows] == ["L0.R0", "L0.PI1", "U0", "U1", "E", "G0", "G1", "F"]
    assert int(rows[-1]["decisions"]) == len(act)
    # a second round, weight 1 (the run again resumes every collection): the first round's
    # refits alone averaged (F1) play and roll out its labels, each refit is refitted again on
    # them, and those refits alone are averaged (F)
    _collect(tmp_path, 100, "--pi-rounds", "1", "--pi-decisions", "100", "--epochs", "1",
             "--union", "2", "--league", "120", "--league-rounds", "2")
    first = load_policy(league / "policy.pt", rules)[0]
    assert first.hidden == sum(load_policy(r / "policy.pt", rules)[0].hidden for r in refits)
    torch.testing.assert_close(first(t_obs, t_mask)[0], (logits[2] + logits[3]) / 2,
                               atol=1e-4, rtol=1e-4)
    league2 = tmp_path / "league2"
    assert (league2 / "behaviour.pt").read_bytes() == (league / "policy.pt").read_bytes()
    with np.load(league2 / lookahead.DATA) as f:
        assert str(f["behaviour"]) == str(f["rollout"]) == str(league2 / "behaviour.pt")
        obs2, mask2 = f["obs"].astype(np.float32), f["mask"]
    refits2 = [tmp_path / "league2_0", tmp_path / "league2_1"]
    for start_dir, fold in zip(refits, refits2, strict=True):
        _fitted_from(fold, [league2 / lookahead.DATA], rules, start=start_dir / "policy.pt")
    t_obs2, t_mask2 = torch.from_numpy(obs2), torch.from_numpy(mask2)
    final = load_policy(league2 / "policy.pt", rules)[0]
    want2 = sum(load_policy(r / "policy.pt", rules)[0](t_obs2, t_mask2)[0] for r in refits2) / 2
    torch.testing.assert_close(final(t_obs2, t_mask2)[0], want2, atol=1e-4, rtol=1e-4)
    with open(tmp_path / "rounds.csv") as f:
        stages = [r["stage"] for r in csv.DictReader(f)]
    assert stages[-6:] == ["G0", "G1", "F1", "G2.0", "G2.1", "F"]
    for extra in (["--pi-rounds", "1", "--league", "100"],
                  ["--pi-rounds", "1", "--union", "1", "--league-rounds", "2"],
                  ["--pi-rounds", "1", "--union", "1", "--league", "100", "--league-weight", "0"],
                  ["--pi-rounds", "1", "--union", "1", "--league", "100",
                   "--league-opponents", "hard:0"]):
        with pytest.raises(SystemExit):
            _collect(tmp_path / "b", 100, *extra)
        assert not (tmp_path / "b").exists()


def test_a_stopped_run_resumes_at_its_first_stage_not_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--resume``: a run stopped after its first union fit (its records end there, the later
    stages' folders are gone) keeps every recorded stage (its policy not written again, its row
    as it was) and makes the rest, ending where the run that was not stopped ends; resumed again
    it makes nothing; resumed with other arguments it is refused and changes nothing."""
    recipe = ("--pi-rounds", "1", "--pi-decisions", "100", "--epochs", "1", "--lineages", "2",
              "--union", "2", "--league", "120", "--league-rounds", "2")
    rules = Rules.preset("standard", observation="history")
    whole = _collect(tmp_path, 100, *recipe)
    with open(tmp_path / "rounds.csv") as f:
        rows = list(csv.DictReader(f))
    names = [r["stage"] for r in rows]
    assert names == ["L0.R0", "L0.PI1", "L1.R0", "L1.PI1", "U0", "U1", "E", "G0", "G1", "F1",
                     "G2.0", "G2.1", "F"]
    final = load_policy(tmp_path / "league2" / "policy.pt", rules)[0].state_dict()
    kept = names.index("U0") + 1
    with open(tmp_path / "rounds.csv", "w", newline="") as f:  # stopped after U0
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows[:kept])
    for later in ("union_1", "ensemble", "league", "league_0", "league_1", "league2",
                  "league2_0", "league2_1"):
        shutil.rmtree(tmp_path / later)
    made = {r["folder"]: (Path(r["folder"]) / "policy.pt").stat().st_mtime_ns
            for r in rows[:kept] if not r["stage"].endswith("R0")}  # a run's root: its last
    capsys.readouterr()
    resumed = _collect(tmp_path, 100, *recipe, "--resume")
    assert "U0: recorded in" in capsys.readouterr().err
    assert {f: (Path(f) / "policy.pt").stat().st_mtime_ns for f in made} == made
    with open(tmp_path / "rounds.csv") as f:
        again = list(csv.DictReader(f))
    assert [r["stage"] for r in again] == names and again[:kept] == rows[:kept]
    assert float(again[kept]["elapsed_s"]) >= float(rows[kept - 1]["elapsed_s"])
    now = load_policy(tmp_path / "league2" / "policy.pt", rules)[0].state_dict()
    assert now.keys() == final.keys() and all(torch.equal(now[k], final[k]) for k in now)
    assert resumed == pytest.approx(whole)
    # resumed again: every stage recorded, nothing made
    made = {r["folder"]: (Path(r["folder"]) / "policy.pt").stat().st_mtime_ns for r in again
            if not r["stage"].endswith("R0")}
    assert _collect(tmp_path, 100, *recipe, "--resume") == pytest.approx(whole)
    assert {f: (Path(f) / "policy.pt").stat().st_mtime_ns for f in made} == made
    # other arguments: refused, nothing changed
    before = (tmp_path / "rounds.csv").read_bytes(), (tmp_path / "args.json").read_bytes()
    with pytest.raises(SystemExit):
        _collect(tmp_path, 100, *recipe, "--resume", "--league-weight", "0.5")
    assert "league_weight: 1.0 there, 0.5 now" in capsys.readouterr().err
    assert before == ((tmp_path / "rounds.csv").read_bytes(),
                      (tmp_path / "args.json").read_bytes())
    with pytest.raises(SystemExit):
        _collect(tmp_path / "b", 100, "--fit-only", "--resume")
    assert not (tmp_path / "b").exists()


def test_an_ensemble_of_more_stages_than_the_run_has_is_refused(tmp_path: Path) -> None:
    """Two stages cannot give three to average, and a fit on its own (``--fit-only``, whatever
    ``--rounds`` says) has one: refused before anything runs."""
    _collect(tmp_path / "a", 100, "--epochs", "1")
    labels = str(tmp_path / "a" / lookahead.DATA)
    for extra in (["--rounds", "2", "--ensemble", "3"],
                  ["--fit-only", "--rounds", "2", "--ensemble", "2", "--also", labels]):
        with pytest.raises(SystemExit):
            _collect(tmp_path / "b", 100, *extra)
        assert not (tmp_path / "b" / "policy.pt").exists()


_HEAP_PROBE = """
import ctypes, sys
from train.common.labels import steady_heap
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]
libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = Info
x = bytearray(28 << 20)
del x  # glibc raises its mmap threshold to 28 MB
ok = steady_heap() if sys.argv[1] == "fixed" else None
before = libc.mallinfo2().hblkhd
y = bytearray(4 << 20)
print(ok, (libc.mallinfo2().hblkhd - before) >> 20)
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc only")
@pytest.mark.parametrize(("mode", "want"), [("dynamic", "None 0"), ("fixed", "True 4")])
def test_the_fits_fix_the_heap_threshold(mode: str, want: str) -> None:
    """After a 28 MB buffer is freed, glibc serves a 4 MB one from the heap (where a fit's
    freed batches fragment and stay); ``steady_heap`` (called by every fit and label read)
    maps it, so freeing gives it back. In a fresh process: the threshold is process-wide."""
    out = subprocess.run([sys.executable, "-c", _HEAP_PROBE, mode], capture_output=True,
                         text=True, check=True, cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.split() == want.split()


def test_targets_centre_the_legal_values() -> None:
    place = torch.tensor([[0, 2, -1, 1], [3, -1, -1, 3]], dtype=torch.int8)
    mask = place >= 0
    t, best = lookahead.targets(place, mask)
    torch.testing.assert_close(t, torch.tensor([[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]))
    torch.testing.assert_close(best, torch.tensor([0.0, -3.0]))


@pytest.mark.parametrize(("path", "hidden", "below"), [(LOOKAHEAD, 256, 2.4),
                                                     (LOOKAHEAD_AVG, 768, 2.3),
                                                     (LOOKAHEAD_UNION, 768, 2.3),
                                                     (LOOKAHEAD_LEAGUE, 768, 2.3),
                                                     (LOOKAHEAD_LEAGUE2, 768, 2.3),
                                                     (LOOKAHEAD_MIX, 1536, 2.3),
                                                     (LOOKAHEAD_RECIPE, 1536, 2.3)])
def test_the_shipped_lookahead_policies_beat_hard_at_a_history_table(path: Path, hidden: int,
                                                                     below: float) -> None:
    """``agents/pretrained/standard_4p_lookahead.pt``, the average of three lookahead policies
    (``standard_4p_lookahead_avg.pt``), of three union fits (``standard_4p_lookahead_union.pt``)
    and of their league refits (``standard_4p_lookahead_league.pt``; a second round:
    ``standard_4p_lookahead_league2.pt``; the union file 2 : it 1,
    ``standard_4p_lookahead_mix.pt``; the one command's output,
    ``standard_4p_lookahead_recipe.pt``) read the history
    observation, refuse the standard one, and are ahead of three Hard on deals of another seed
    than the README's."""
    from train.eval.tournament import evaluate_policy

    rules = Rules.preset("standard", observation="history")
    agent = PolicyAgent.load(path, rules)
    assert isinstance(agent, PolicyAgent) and agent.net.obs_size == Engine(rules).obs_size
    assert agent.net.hidden == hidden
    with pytest.raises(ValueError, match="without the history blocks it reads"):
        check_rules(PolicyAgent.load(path), Rules.preset("standard"))
    row = evaluate_policy(agent, rules, 300, seed=777, baselines=("hard",), progress=False)[0]
    assert row["mean_place_hi"] < below, row


MIX_STAGES = SHIPPED.parent.parent.parent / "docs" / "data" / "mix_stages.csv"


def _plotted_stages(table: Path, tmp_path: Path) -> list[dict[str, Any]]:
    """The rows of a stages table, each rating inside its interval, once ``train.curve`` has
    drawn them (into a folder it makes)."""
    from train import curve

    rows = curve.read_stages(table)
    for r in rows:
        for who in ("hard", "expert"):
            if r.get(f"vs_{who}_lo"):
                assert float(r[f"vs_{who}_lo"]) < float(r[f"vs_{who}"]) < float(r[f"vs_{who}_hi"])
    out = curve.main([str(table), "--out", str(tmp_path / "a" / "curve.png")])
    assert out.stat().st_size > 20_000
    return rows


def test_the_curve_of_the_mix_plots_its_recorded_stages(tmp_path: Path) -> None:
    """``train.curve`` draws the composed table of the mix's stages (no clock: in the rows'
    order, runs ``A``, ``B``, ``C`` apart), whose last row is the mix as the README rates it."""
    rows = _plotted_stages(MIX_STAGES, tmp_path)
    names = [r["stage"] for r in rows]
    assert len(set(names)) == len(names) and names[-1] == "mix"
    readme = (MIX_STAGES.parent.parent.parent / "README.md").read_text()
    mix = rows[-1]
    assert (f"**2.139 [{mix['vs_hard_lo']}, {mix['vs_hard_hi']}]**" in readme
            and mix["vs_hard"] == "2.139")
    assert f"**2.398 [{mix['vs_expert_lo']}," in readme and mix["vs_expert"] == "2.398"


def test_the_recipe_stages_are_the_rounds_of_its_one_command(tmp_path: Path) -> None:
    """``docs/data/recipe_stages.csv`` is the ``rounds.csv`` of the README's full-size command,
    whose last stage is ``standard_4p_lookahead_recipe.pt``: the 27 stages the command makes
    (the same as at a fifth of its size), each rated, in the order of the clock, and F's rating
    as the docs report it."""
    from train import curve

    data = MIX_STAGES.parent
    rows = _plotted_stages(data / "recipe_stages.csv", tmp_path)
    names = [r["stage"] for r in rows]
    assert names == [r["stage"] for r in curve.read_stages(data / "fifth_stages.csv")]
    assert len(names) == 27 and names[-1] == "F" and all(r["vs_hard_lo"] for r in rows)
    elapsed = [float(r["elapsed_s"]) for r in rows]
    assert elapsed == sorted(elapsed) and 20_000 < elapsed[-1] < 30_000
    f = rows[-1]
    said = (f"**{float(f['vs_hard']):.3f} [{float(f['vs_hard_lo']):.3f}, "
            f"{float(f['vs_hard_hi']):.3f}]**")
    assert said in (data.parent / "agents_results.md").read_text(), said


@pytest.mark.parametrize("text, says", [
    ("name,vs_hard\nR0,2.4\n", "a 'stage' column"),
    ("stage,vs_hard\n", "a 'stage' column"),
    ("stage,vs_hard\nR0,2.4\nD1,two\n", "line 3: vs_hard = 'two' is not a number"),
    ("stage,decisions\nR0,100\n", "no stage has a held-out regret or a rating"),
])
def test_the_curve_refuses_a_table_it_cannot_plot(tmp_path: Path, text: str, says: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from train import curve

    (tmp_path / "s.csv").write_text(text)
    with pytest.raises(SystemExit):
        curve.main([str(tmp_path / "s.csv"), "--out", str(tmp_path / "c.png")])
    assert says in capsys.readouterr().err
    assert not (tmp_path / "c.png").exists()
