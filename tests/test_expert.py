"""The Expert (:mod:`agents.expert`) and its belief (:mod:`agents.belief`), which read the
public record of the deal from the ``record`` observation.

* The record block, replayed from the deal's start with the true hands, gives the real
  position (the block itself: :mod:`tests.test_history`).
* The record belief explains the record better than uniform deals (fewer moves Hard would not
  have made), and its deals are consistent with the observation.
* The Expert plays legal actions in every preset and player count (3-8, one and two decks), at
  a table with Hard, through a tournament; its exchange is Hard's; seeded decisions repeat.
* It finds the winning play that Hard misses in a hand-built endgame.
* With another model of the other seats (``model="kit"``, ``expert-kit``) its belief explains a
  record of that model's moves better than Hard's belief, and its rollouts play those seats as
  the model does (from the true hands they replay the real deal). Aimed swaps (``aim``)
  explain the record better than blind ones at the same number of steps.
* Bad settings get a clear error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents import ExpertAgent, HardAgent, KitAgent, KitExpertAgent, load_agent
from agents.belief import _named, record_belief, record_misses
from agents.expert import rollout_places
from president_env.core.cards import card_name
from president_env.core.engine import Engine
from president_env.core.rules import PRESET_PLAYERS, PRESETS, Rules
from president_env.search import positions as P
from president_env.table import Table
from train.eval.tournament import run_tournament


def _walk(rules: Rules, games: int, moves: int, seed: int = 0,
          agent: type[HardAgent] | type[KitAgent] = HardAgent) -> tuple[Engine, Any]:
    """``games`` deals of ``rules``, ``moves`` steps in (a game over stays so), ``agent`` (Hard)
    in every seat."""
    engine, player = Engine(rules), agent(rules)
    state = engine.init(np.arange(games) + seed)
    for _ in range(moves):
        engine.step_inplace(state, player.act_batch(engine.observe(state),
                                                    engine.legal_action_mask(state)),
                            where=state.phase != 2)
    return engine, state


def _true_hands(state: Any, rows: np.ndarray, players: int) -> np.ndarray:
    """Every seat's hand ``[rows, P, 53]`` in the frame of the seat to act (seat k: k to its
    left; the games seat player p in seat p)."""
    me = state.current[rows].astype(np.int64)
    return np.stack([state.hands[rows, (me + k) % players] for k in range(players)], axis=1)


def test_record_replays_to_the_real_position() -> None:
    """The record block replayed from the deal's start with the true hands gives the real
    position (legal actions and the observation)."""
    rules = Rules.preset("daifugo", observation="record")
    engine, st = _walk(rules, 8, 25)
    rows = np.flatnonzero(~st.terminated & (st.phase == 1))
    obs = engine.observe(st)[rows]
    moves, n = P.record_moves(rules, obs)
    assert (n > 0).all()
    hands = _true_hands(st, rows, rules.num_players)
    pos, ok = P.from_record(rules, obs, hands, moves, n, engine)
    assert ok.all()
    np.testing.assert_array_equal(engine.legal_action_mask(pos), engine.legal_action_mask(st)[rows])


def test_record_belief_explains_the_record() -> None:
    record = Rules.preset("standard", observation="record")
    rules = record.replace(observation="history")  # the belief's rules: the prefix
    engine, hard = Engine(rules), HardAgent(rules)
    rec_engine, st = _walk(record, 16, 24, seed=50)
    rows = np.flatnonzero(~st.terminated & (st.phase == 1))
    full = rec_engine.observe(st)[rows]
    rel, n = P.record_moves(record, full)
    obs = full[:, : engine.obs_size]
    rng = np.random.default_rng(0)
    uniform = P.sample_hands(rules, obs, 8, rng, 1.0)
    believed = record_belief(rules, engine, hard, obs, rel, n, 8, rng, steps=16)

    def cost(deals: np.ndarray) -> float:
        miss, ok = _deal_misses(engine, hard, obs, rel, n, deals)
        return float((miss + 10 * ~ok).mean())

    assert cost(believed) < 0.7 * cost(uniform)
    _assert_consistent(engine, obs, believed)


def _deal_misses(engine: Engine, model: Any, obs: np.ndarray, rel: np.ndarray, n: np.ndarray,
                 deals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per deal of ``deals [rows, k, P, 53]`` (for the history observations ``obs`` and their
    records): the moves of the record that ``model`` would not have made, and whether the deal
    is possible."""
    k = deals.shape[1]
    miss, ok = record_misses(engine.rules, engine, model, np.repeat(obs, k, axis=0),
                             deals.reshape(len(obs) * k, *deals.shape[2:]),
                             np.repeat(rel, k, axis=0), np.repeat(n, k))
    return miss.sum(axis=1), ok


def _assert_consistent(engine: Engine, obs: np.ndarray, deals: np.ndarray) -> None:
    """Every deal of ``deals [rows, k, P, 53]`` gives the observer the observation ``obs``."""
    k = deals.shape[1]
    o = np.repeat(obs, k, axis=0)
    pos = P.from_observation(engine.rules, o, deals.reshape(len(o), *deals.shape[2:]))
    np.testing.assert_array_equal(engine.observe(pos, np.zeros(len(o), np.int64)), o)


def _small_tables() -> list[Any]:
    """Every preset at its smallest table (two deals: an exchange) and at a larger one (one
    deal): the largest (8 players) for every other preset, 5 players for the rest (a spread of
    the player counts). An 8-player expert deal takes about 2.5 s: the larger tables but the
    first preset's are ``long`` (``make test-long``)."""
    out: list[Any] = []
    for i, name in enumerate(PRESETS):
        lo, hi = PRESET_PLAYERS[name]
        out.append(Rules.preset(name, num_players=lo, deals=2))
        big = Rules.preset(name, num_players=hi if i % 2 == 0 else min(hi, 5), deals=1)
        out.append(big if i == 0 else pytest.param(big, marks=pytest.mark.long))
    return out


@pytest.mark.parametrize("rules", _small_tables(), ids=lambda r: f"{r.preset_name}-{r.num_players}p")
def test_expert_plays_every_preset(rules: Rules) -> None:
    p = rules.num_players
    agents: dict[str, Any] = {"expert": lambda r, s: ExpertAgent(r, s, samples=2, steps=1)}
    agents.update({f"hard#{i}": "hard" for i in range(1, p)})
    res = run_tournament(agents, rules, 1, seed=3, seating="rotate", batch_size=p,
                         progress=False, ratings=False)
    assert res.games == p and (res.places >= 0).all()


def test_seeded_decisions_repeat_and_exchange_is_hards() -> None:
    """Seeded decisions repeat, each a function of the seed and its own observation and mask:
    the batch of 32 decides as the 32 positions met one at a time, and as the batch reversed."""
    rules = Rules.preset("standard", deals=2, observation="record")
    engine = Engine(rules)
    hard = HardAgent(rules)
    state = engine.init(np.arange(32))
    while (state.deal == 0).any():  # to the exchange of the second deal
        engine.step_inplace(state, hard.act_batch(engine.observe(state),
                                                  engine.legal_action_mask(state)))
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    ex = state.phase == 0
    a1 = ExpertAgent(rules, seed=4, samples=4, steps=2).act_batch(obs, mask)
    a2 = ExpertAgent(rules, seed=4, samples=4, steps=2).act_batch(obs, mask)
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(a1[ex], hard.act_batch(obs, mask)[ex])
    assert mask[np.arange(32), a1].all()
    one = ExpertAgent(rules, seed=4, samples=4, steps=2)
    alone = [int(one.act(obs[i], mask[i])) for i in range(32)]
    np.testing.assert_array_equal(a1, alone)
    back = ExpertAgent(rules, seed=4, samples=4, steps=2).act_batch(obs[::-1], mask[::-1])
    np.testing.assert_array_equal(a1, back[::-1])
    other = ExpertAgent(rules, seed=5, samples=4, steps=2).act_batch(obs, mask)
    assert mask[np.arange(32), other].all()


def test_the_expert_hands_its_model_contiguous_observations(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Hard's kernels see the history prefix of the record observation as a C-contiguous
    array, as from every other caller: a strided slice is another type to numba, which
    compiled Hard's kernels a second time for it."""
    rules = Rules.preset("standard", observation="record")
    engine, state = _walk(rules, 6, 9)
    seen: list[bool] = []
    act = HardAgent._act_batch

    def spy(self: HardAgent, obs: np.ndarray, mask: np.ndarray) -> Any:
        seen.append(bool(obs.flags.c_contiguous))
        return act(self, obs, mask)

    monkeypatch.setattr(HardAgent, "_act_batch", spy)
    ExpertAgent(rules, seed=1, samples=2, steps=1).act_batch(engine.observe(state),
                                                            engine.legal_action_mask(state))
    assert seen and all(seen)


def test_expert_keeps_the_lead_to_go_out_first() -> None:
    """Seat 0 holds the 3c and the 2s and leads, the others hold one card each: leading the 2
    (nothing beats it) and then the 3 goes out first in every deal of the hidden cards; leading
    the 3 lets the next seat go out with any higher card."""
    rules = Rules.preset("standard", num_players=3, observation="record")
    engine = Engine(rules)
    state = engine.init_from_hands(["3c 2s", "Ah", "4c"])
    state.current[:] = 0
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    expert = ExpertAgent(rules, seed=0, samples=16)
    a = int(expert.act_batch(obs, mask)[0])
    assert engine.layout.name(a) == "single 2"
    inner = expert._engine  # the search's rules: the history observation
    start = inner.init_from_hands(["3c 2s", "Ah", "4c"])
    start.current[:] = 0
    games = start.take(np.zeros(16, np.int64))
    inner.step_inplace(games, np.full(16, a))
    assert (rollout_places(inner, expert._hard, games.take(np.arange(16))) == 0).all()
    # the same games seen from the other seats: seat 1 or 2 goes out second, the other last
    later = rollout_places(inner, expert._hard, games, np.arange(16) % 2 + 1)
    assert set(later.tolist()) <= {1.0, 2.0} and len(set(later.tolist())) == 2


def test_bad_settings() -> None:
    rules = Rules.preset("standard")
    with pytest.raises(ValueError, match="samples must be an integer >= 1"):
        ExpertAgent(rules, samples=0)
    with pytest.raises(ValueError, match="steps must be an integer >= 0"):
        ExpertAgent(rules, steps=-1)
    with pytest.raises(ValueError, match=r"miss must be in \(0, 1\]"):
        ExpertAgent(rules, miss=0.0)
    with pytest.raises(ValueError, match="model must be one of"):
        ExpertAgent(rules, model="expert")
    with pytest.raises(ValueError, match="aim must be True or False"):
        KitExpertAgent(rules, aim="yes")  # type: ignore[arg-type]
    expert: Any = load_agent("expert", rules)
    assert expert.rules.observation == "record"
    history = rules.replace(observation="history")
    engine = Engine(history)
    st = engine.init([0])
    with pytest.raises(ValueError, match="reads the record observation"):
        expert.act_batch(engine.observe(st), engine.legal_action_mask(st))
    with pytest.raises(ValueError, match="observation='record'"):
        Table(engine, engine.init([0]), [expert], [0, 0, 0, 0])
    rec = Engine(expert.rules)
    obs = rec.observe(rec.init([0]))
    obs[0, rec.obs_layout.slices["record"].start] = 9999  # more moves than a deal can have
    with pytest.raises(ValueError, match="number of moves must be in"):
        P.record_moves(expert.rules, obs)


def _kit_record(seed: int) -> tuple[Rules, Engine, Any, np.ndarray, np.ndarray, np.ndarray,
                                     np.ndarray]:
    """32 deals of Kit agents (``uecda``, one deal) 22 moves in: the record rules, their
    engine and state, and the rows with a choice to make, with their history observations
    and records."""
    record = Rules.preset("uecda", deals=1, observation="record", reseat_every=None)
    rec_engine, st = _walk(record, 32, 22, seed=seed, agent=KitAgent)
    rows = np.flatnonzero((st.phase == 1) & (rec_engine.legal_action_mask(st).sum(axis=1) > 1))
    full = rec_engine.observe(st)[rows]
    rel, n = P.record_moves(record, full)
    return record, rec_engine, st, rows, full, rel, n


def _kit_misses(agent: ExpertAgent, full: np.ndarray, rel: np.ndarray, n: np.ndarray,
                steps: int, k: int = 8) -> float:
    """Moves of a Kit agent that ``k`` deals per row of ``agent``'s belief (``steps`` steps)
    do not explain, per deal; every deal is possible."""
    engine = agent._engine
    obs = full[:, : engine.obs_size]
    agent.samples, agent.steps = k, steps
    deals = agent._deals(obs, rel, n, np.random.default_rng(1))
    miss, ok = _deal_misses(engine, KitAgent(agent._inner), obs, rel, n, deals)
    assert ok.all()
    return float(miss.mean())


def test_aimed_swaps_explain_the_record_better_at_the_same_steps() -> None:
    """The belief's aimed swaps (``aim``: a swap moves a card that a move the model does not
    explain names) leave under 0.6 times the unexplained moves of blind swaps at 12 steps, and
    their deals are consistent with the observation."""
    record, _e, _s, rows, full, rel, n = _kit_record(seed=90)
    aimed, blind = KitExpertAgent(record, seed=0), KitExpertAgent(record, seed=0, aim=False)
    assert aimed.describe()["aim"] and not blind.describe()["aim"]
    assert len(rows) >= 12
    assert _kit_misses(aimed, full, rel, n, 12) < 0.6 * _kit_misses(blind, full, rel, n, 12)
    obs = full[:, : aimed._engine.obs_size]
    _assert_consistent(aimed._engine, obs, aimed._deals(obs, rel, n, np.random.default_rng(2)))


def test_the_named_cards_of_an_action() -> None:
    """The cards an action names (the aimed swaps' targets): every suit of a set's rank, a
    run's cards in its suit, the joker of a play that holds it."""
    engine = Engine(Rules.preset("uecda"))
    named, names = _named(engine), engine.layout.names()

    def cards(name: str) -> set[str]:
        return {card_name(int(c)) for c in np.flatnonzero(named[names.index(name)])}

    assert cards("single 5 (5c)") == {"5c", "5d", "5h", "5s"}
    assert cards("run 3-4-5 of diamonds") == {"3d", "4d", "5d"}
    assert cards("run A-2-JK of clubs") == {"Ac", "2c", "JK"}
    assert cards("single joker") == {"JK"}
    assert not named[0].any()  # a pass names nothing


def test_the_kit_model_explains_kit_players_and_plays_their_seats() -> None:
    """At a table of Kit agents (``uecda``, one deal), ``expert-kit`` models the other seats as
    they play: its belief's deals make fewer moves the Kit agent would not have made than the
    Expert's (Hard-modelled) belief, and a rollout from the true hands with the observer's own
    seat played by Kit too (``own``) ends every deal in its real places."""
    record, rec_engine, st, rows, full, rel, n = _kit_record(seed=70)
    plain, expert = ExpertAgent(record, seed=0), KitExpertAgent(record, seed=0, aim=False)
    assert expert.describe()["model"] == "kit" and plain.describe()["model"] == "hard"
    rules, engine = expert._inner, expert._engine
    obs = full[:, : engine.obs_size]
    kit, p = KitAgent(rules), rules.num_players
    assert len(rows) >= 12 and (_kit_misses(expert, full, rel, n, 48)
                                < 0.6 * _kit_misses(plain, full, rel, n, 48))
    # the rest of each deal from the true hands: the model in the other seats, Kit in its own
    me = st.current[rows].astype(np.int64)
    hands = _true_hands(st, rows, p)
    games = P.from_observation(rules, obs, hands)
    real, kit_r = st.take(rows), KitAgent(record)
    while (real.phase != 2).any():
        rec_engine.step_inplace(real, kit_r.act_batch(rec_engine.observe(real),
                                                      rec_engine.legal_action_mask(real)),
                                where=real.phase != 2)
    truth = real.title[np.arange(len(rows)), me]
    np.testing.assert_array_equal(rollout_places(engine, expert._players(len(rows)), games,
                                                 own=kit), truth)
    hard_plays = rollout_places(engine, plain._players(len(rows)), P.from_observation(
        rules, obs, hands), own=kit)
    assert (hard_plays != truth).any()


def aec_steps(rules: Rules, hands: np.ndarray, seat_of: np.ndarray, seeds: list[int],
              samples: int, steps: int) -> list[tuple[int, int]]:
    """Every (seat, action) of one game through the AEC env, an independent loop: agent 0 (the
    Expert) in seat ``seat_of[0]``, Hard agent ``n`` in ``seat_of[n]``, each seeded
    ``seeds[n]`` and deciding from ``env.last()``'s observation and mask."""
    from president_env import env as make_env

    e = make_env(rules=rules)
    e.reset(options={"hands": hands})
    history = rules.replace(observation="history")
    width = Engine(history).obs_size
    by_seat: dict[int, Any] = {int(seat_of[0]): ExpertAgent(rules, seed=seeds[0],
                                                            samples=samples, steps=steps)}
    for n in range(1, rules.num_players):
        by_seat[int(seat_of[n])] = HardAgent(history, seed=seeds[n])
    out = []
    for name in e.agent_iter():
        obs, _r, term, trunc, _i = e.last()
        if term or trunc:
            e.step(None)
            continue
        seat = int(name.split("_")[1])
        agent = by_seat[seat]
        view = obs["observation"] if isinstance(agent, ExpertAgent) else obs["observation"][:width]
        a = int(agent.act(view, obs["action_mask"]))
        out.append((seat, a))
        e.step(a)
    return out


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_expert_decides_the_same_through_the_aec_env_and_the_tournament(preset: str) -> None:
    """The same deals and seeds, every move of every game: the tournament's table (the Expert
    among others in a batch) and the AEC env's ``last()`` / ``act(observation, mask)``. The
    env is reset from the tournament's hands, not its deal seed, which also draws the seats of
    ``reseat_every`` (``uecda``): that option is off here, every other rule of the preset on."""
    rules = Rules.preset(preset, observation="record", reseat_every=None)
    p, deals, samples, steps = rules.num_players, 2, 4, 2
    agents: dict[str, Any] = {"expert": lambda r, s: ExpertAgent(r, s, samples=samples,
                                                                  steps=steps)}
    agents.update({f"hard#{i}": "hard" for i in range(1, p)})
    res = run_tournament(agents, rules, deals, seed=11, seating="rotate", batch_size=3,
                         progress=False, ratings=False, record=deals * p)
    _, _, agent_ss = np.random.SeedSequence(11).spawn(3)  # as the tournament seeds its agents
    seeds = [int(c.generate_state(1)[0]) for c in agent_ss.spawn(p)]
    engine = Engine(rules)
    compared = 0
    for rec in res.records:
        d, r = rec.meta["deal"], rec.meta["replay"]
        start = engine.init([res.deal_seeds[d]])
        mine = aec_steps(rules, start.hands[0], res.seats[d, r], seeds, samples, steps)
        assert mine == [(s.seat, s.action) for s in rec.steps], (d, r)
        compared += len(mine)
    assert len(res.records) == deals * p and compared > 100
