"""The rule-based agents: always legal, blind to hidden cards, batched = one at a time."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import numpy as np
import pytest

from agents import AGENTS, HARD_WEIGHTS, Agent, EasyAgent, HardAgent, NormalAgent, make_agent
from agents.base import BaseAgent
from agents.kernels import HardWeight
from president_env.core.constants import PHASE_DONE, PHASE_EXCHANGE
from president_env.core.engine import Engine, State
from president_env.core.rules import PRESET_PLAYERS, PRESETS, Rules
from president_env.table import Policy

NAMES = sorted(AGENTS)


def all_rules() -> Iterator[Rules]:
    """Every preset and player count, two deals (so the exchange is played too), plus a few
    combinations of options the presets do not cover."""
    for name in sorted(PRESETS):
        lo, hi = PRESET_PLAYERS[name]
        for players in range(lo, hi + 1):
            yield Rules.preset(name, num_players=players, deals=2)
    yield Rules.preset(
        "standard", num_players=5, deals=2, jokers=2, runs=True, revolution=True,
        pass_is_final=True, eight_clears=True, allow_equal=True,
    )
    yield Rules.preset("daifugo", num_players=4, decks=2, deals=2)
    yield Rules.preset("revolution", num_players=3, top_rank_clears=False, jokers=1, deals=2)
    yield Rules.preset("cardverse", num_players=4, deals=3, scoring="tally", exchange=True)
    yield Rules(num_players=5, jokers=1, runs=True, revolution=True, eight_clears=True,
                top_rank_clears=False, pass_is_final=True, deals=2, exact_plays=True, lock=True,
                spade_three_beats_joker=True, run_joker_ends=True)


RULES = list(all_rules())


def rules_id(r: Rules) -> str:
    return f"{r.preset_name}-{r.num_players}p-{r.num_decks}d-{r.num_jokers}j"


def play_games(
    rules: Rules, seats: list[BaseAgent], games: int, seed: int
) -> Iterator[tuple[Engine, State, np.ndarray, np.ndarray, np.ndarray]]:
    """Play ``games`` games to the end, seat ``s`` played by ``seats[s]``; yield
    (engine, state, live rows, observations, masks) before every step."""
    engine = Engine(rules)
    state = engine.init(np.arange(seed, seed + games))
    while not state.terminated.all():
        live = np.flatnonzero(state.phase != PHASE_DONE)
        obs = engine.observe(state)
        mask = engine.legal_action_mask(state)
        yield engine, state, live, obs, mask
        actions = np.zeros(games, np.int64)
        for s, agent in enumerate(seats):
            rows = live[state.current[live] == s]
            if len(rows):
                actions[rows] = agent.act_batch(obs[rows], mask[rows])
        engine.step_inplace(state, actions)  # checks legality


@pytest.mark.parametrize("rules", RULES, ids=rules_id)
def test_every_agent_only_plays_legal_actions(rules: Rules) -> None:
    agents = [make_agent(n, rules, seed=i) for i, n in enumerate(NAMES)]
    seats = [agents[s % len(agents)] for s in range(rules.num_players)]
    saw_exchange = False
    for _, state, live, obs, mask in play_games(rules, seats, games=6, seed=11):
        saw_exchange |= bool((state.phase[live] == PHASE_EXCHANGE).any())
        for agent in agents:  # every agent's choice in every position, not only its own
            acts = agent.act_batch(obs[live], mask[live])
            assert acts.dtype == np.int64 and acts.shape == (len(live),)
            assert mask[live, acts].all(), f"{agent.name} chose an illegal action"
    if rules.exchange_on:
        assert saw_exchange


def _swap_hidden(state: State, me: int, rng: np.random.Generator) -> State | None:
    """A copy of ``state`` with cards swapped between two opponents of ``me`` (same counts)."""
    p = state.num_players
    holders = [q for q in range(p) if q != me and state.hands[0, q].sum() > 0]
    if len(holders) < 2:
        return None
    a, b = rng.choice(holders, 2, replace=False)
    new = state.copy()
    ha, hb = new.hands[0, a], new.hands[0, b]
    k = int(min(ha.sum(), hb.sum()))
    moved = 0
    for _ in range(rng.integers(1, k + 1)):
        ca = rng.choice(np.flatnonzero(ha > 0))
        cb = rng.choice(np.flatnonzero(hb > 0))
        if ca == cb:
            continue
        ha[ca] -= 1
        hb[ca] += 1
        hb[cb] -= 1
        ha[cb] += 1
        moved += 1
    if not moved or np.array_equal(new.hands, state.hands):
        return None
    return new


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("standard", num_players=4),
        Rules.preset("cardverse", num_players=5, deals=2),
        Rules.preset("daifugo", num_players=4, deals=2),
        Rules.preset("daifugo", num_players=7),
        Rules.preset("runs", num_players=3),
    ],
    ids=rules_id,
)
def test_choices_do_not_depend_on_hidden_cards(rules: Rules) -> None:
    agents = [make_agent(n, rules, seed=3) for n in ("easy", "normal", "hard")]
    seats = [agents[s % 3] for s in range(rules.num_players)]
    rng = np.random.default_rng(0)
    checked = 0
    for engine, state, live, _obs, _mask in play_games(rules, seats, games=4, seed=5):
        for b in live[:2]:
            one = state.take(int(b))
            me = int(one.current[0])
            swapped = _swap_hidden(one, me, rng)
            if swapped is None:
                continue
            assert not np.array_equal(swapped.hands, one.hands)
            o1, o2 = engine.observe(one), engine.observe(swapped)
            m1, m2 = engine.legal_action_mask(one), engine.legal_action_mask(swapped)
            np.testing.assert_array_equal(o1, o2)
            np.testing.assert_array_equal(m1, m2)
            for agent in agents:
                assert agent.act(o1[0], m1[0]) == agent.act(o2[0], m2[0])
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "rules",
    [Rules.preset("standard", num_players=4, deals=2), Rules.preset("daifugo", num_players=6)],
    ids=rules_id,
)
def test_batched_act_equals_single_act(name: str, rules: Rules) -> None:
    driver = [make_agent("random", rules, seed=s) for s in range(rules.num_players)]
    obs_rows, mask_rows = [], []
    for _, _, live, obs, mask in play_games(rules, driver, games=8, seed=21):
        obs_rows.append(obs[live])
        mask_rows.append(mask[live])
    obs_all = np.concatenate(obs_rows)
    mask_all = np.concatenate(mask_rows)
    batched = make_agent(name, rules, seed=7).act_batch(obs_all, mask_all)
    single_agent = make_agent(name, rules, seed=7)
    single = np.array([single_agent.act(o, m) for o, m in zip(obs_all, mask_all)])
    np.testing.assert_array_equal(batched, single)
    assert mask_all[np.arange(len(batched)), batched].all()


def test_agents_follow_the_protocol() -> None:
    rules = Rules.preset("standard")
    for name in NAMES:
        agent = make_agent(name, rules)
        assert isinstance(agent, Agent)
        assert isinstance(agent, Policy)
        assert agent.name == name
    assert {w.name.lower() for w in HardWeight} == set(HARD_WEIGHTS)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("grandmaster", rules)
    assert make_agent("expert", rules).name == "expert"
    with pytest.raises(ValueError, match="unknown Hard weight"):
        HardAgent(rules, weights={"nope": 1.0})
    assert set(HardAgent(rules, weights={"alpha": 0.3}).weights) == set(HARD_WEIGHTS)


def test_bad_inputs_raise_clear_errors() -> None:
    rules = Rules.preset("standard")
    engine = Engine(rules)
    state = engine.init([0])
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    agent = EasyAgent(rules)
    with pytest.raises(ValueError, match="shape"):
        agent.act_batch(obs[:, :-1], mask)
    with pytest.raises(ValueError, match="shape"):
        agent.act(obs, mask)
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(obs[0], np.zeros_like(mask[0]))
    hard = HardAgent(rules)
    with pytest.raises(ValueError, match="shape"):
        hard.action_scores(obs[0, :-1], mask[0])
    with pytest.raises(ValueError, match="shape"):
        hard.act_batch(obs, mask[:, :-1])


def _positions(rules: Rules, games: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every live decision of a few random games."""
    driver = [make_agent("random", rules, seed=s) for s in range(rules.num_players)]
    obs_rows, mask_rows = [], []
    for _, _, live, obs, mask in play_games(rules, driver, games=games, seed=33):
        obs_rows.append(obs[live])
        mask_rows.append(mask[live])
    return np.concatenate(obs_rows), np.concatenate(mask_rows)


def _with_empty_rows(obs: np.ndarray, mask: np.ndarray, every: int) -> tuple[np.ndarray, ...]:
    """The rows interleaved with rows whose mask has no legal action (every ``every``-th)."""
    n = len(obs) + len(obs) // every + 1
    empty = np.zeros(n, np.bool_)
    empty[::every] = True
    full_obs = np.zeros((n, obs.shape[1]), np.float32)
    full_mask = np.zeros((n, mask.shape[1]), np.bool_)
    full_obs[~empty] = obs[: int((~empty).sum())]
    full_mask[~empty] = mask[: int((~empty).sum())]
    full_obs[empty] = obs[: int(empty.sum())]  # a real observation, but nothing legal
    return full_obs, full_mask, empty


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "rules",
    [Rules.preset("standard", num_players=4, deals=2), Rules.preset("daifugo", num_players=5)],
    ids=rules_id,
)
def test_rows_without_a_legal_action_get_minus_one(name: str, rules: Rules) -> None:
    obs, mask = _positions(rules)
    full_obs, full_mask, empty = _with_empty_rows(obs, mask, every=5)
    got = make_agent(name, rules, seed=4).act_batch(full_obs, full_mask)
    assert got.dtype == np.int64 and got.shape == (len(full_obs),)
    assert (got[empty] == -1).all()
    assert full_mask[np.flatnonzero(~empty), got[~empty]].all()
    if name != "random":  # the others decide every row alone: the same as without the gaps
        alone = make_agent(name, rules, seed=4).act_batch(full_obs[~empty], full_mask[~empty])
        np.testing.assert_array_equal(got[~empty], alone)
    only_empty = make_agent(name, rules).act_batch(full_obs[empty], full_mask[empty])
    np.testing.assert_array_equal(only_empty, -1)
    none = make_agent(name, rules).act_batch(obs[:0], mask[:0])
    assert none.dtype == np.int64 and none.shape == (0,)


def test_random_agent_repeats_with_empty_rows() -> None:
    rules = Rules.preset("runs", num_players=4)
    obs, mask = _positions(rules, games=4)
    full_obs, full_mask, empty = _with_empty_rows(obs, mask, every=3)
    a = make_agent("random", rules, seed=9).act_batch(full_obs, full_mask)
    agent = make_agent("random", rules, seed=1)
    agent.reseed(9)
    np.testing.assert_array_equal(agent.act_batch(full_obs, full_mask), a)


def test_policy_agent_gives_minus_one_without_a_legal_action() -> None:
    torch = pytest.importorskip("torch")
    from agents.policy import PolicyAgent, PolicyNet

    rules = Rules.preset("standard", num_players=4)
    obs, mask = _positions(rules, games=4)
    full_obs, full_mask, empty = _with_empty_rows(obs, mask, every=4)
    torch.manual_seed(0)
    net = PolicyNet(obs.shape[1], mask.shape[1], hidden=32)
    for greedy in (True, False):
        agent = PolicyAgent(net, rules, greedy=greedy, seed=2)
        got = agent.act_batch(full_obs, full_mask)
        assert isinstance(agent, Policy)
        assert (got[empty] == -1).all()
        assert full_mask[np.flatnonzero(~empty), got[~empty]].all()
        if greedy:
            alone = agent.act_batch(full_obs[~empty], full_mask[~empty])
            np.testing.assert_array_equal(got[~empty], alone)
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(full_obs[0], full_mask[0])


def _decide(agent: BaseAgent, engine: Engine, state: State) -> str:
    a = agent.act(engine.observe(state)[0], engine.legal_action_mask(state)[0])
    return engine.layout.name(a)


def test_easy_plays_the_lowest_legal_play() -> None:
    rules = Rules.preset("revolution", num_players=3)
    engine = Engine(rules)
    hands = ["3c 5d 5h 9s 2c", "4c 6d 6h 7s 7h", "8c 8d Kh Ks Ac"]
    state = engine.init_from_hands(hands)
    assert _decide(EasyAgent(rules), engine, state) == "single 3"
    engine.step_inplace(state, [engine.layout.set_action(0, 1)])  # seat 0 leads its 3
    assert _decide(EasyAgent(rules), engine, state) == "single 4"
    # during a revolution the lowest play is the highest rank
    state = engine.init_from_hands(hands)
    state.revolution[:] = True
    assert _decide(EasyAgent(rules), engine, state) == "single 2"


def test_normal_keeps_pairs_and_twos() -> None:
    rules = Rules.preset("standard", num_players=3)
    engine = Engine(rules)
    # seat 1 leads a single 5; seat 2 holds a pair of 6s, a lone 9 and a 2
    state = engine.init_from_hands(["5c Kh Kd Ks Jc Jd", "3c 5d 8c 8d 10h", "6c 6d 9h 2s Qh Qd"])
    engine.step_inplace(state, [engine.layout.set_action(0, 1)])  # seat 1 (3 of clubs) leads 3
    assert int(state.current[0]) == 2
    assert _decide(NormalAgent(rules), engine, state) == "single 9"  # not a 6 of the pair
    assert _decide(EasyAgent(rules), engine, state) == "single 6"


def test_hard_plays_a_sure_card_to_go_out_by_chaining() -> None:
    rules = Rules.preset("standard", num_players=3)
    engine = Engine(rules)
    # seat 0 (3 of clubs) holds two 2s and a 3: leading the 3 first would give the lead away;
    # a 2 clears the pile, so 2, 2 (or 3) go out for sure
    hands = ["3c 2s 2h", "4c 5d 6h 7s 8h 9c 10d Jc", "4d 5c 6d 7c 8d 9d 10c Jd"]
    state = engine.init_from_hands(hands)
    choice = _decide(HardAgent(rules), engine, state)
    assert choice == "single 2"
    assert _decide(NormalAgent(rules), engine, state) == "single 3"


def test_hard_knows_when_a_play_cannot_be_beaten() -> None:
    rules = Rules.preset("standard", num_players=3)
    engine = Engine(rules)
    hard = HardAgent(rules)
    # every 2 is gone: seat 0's ace is unbeatable as a single
    hands = ["3c Ah", "5c 6c 7c 8c 2c 2d", "5d 6d 7d 8d 2h 2s"]
    state = engine.init_from_hands(hands)
    state.played[0, 12] = 4  # (as if) every 2 has been played
    state.hands[0, 1, 48:52] = 0
    state.hands[0, 2, 48:52] = 0
    scores = hard.action_scores(engine.observe(state)[0], engine.legal_action_mask(state)[0])
    ace, three = engine.layout.set_action(11, 1), engine.layout.set_action(0, 1)
    # leading the sure ace keeps the lead and leaves one loser: the chain bonus applies
    assert scores[ace] > scores[three] + 10


# Digests of the decisions of Easy, Normal and Hard on every position of 24 seeded games (two
# deals each) of Hard, Normal, Easy and Random, per preset: options that a preset leaves off
# (the UECda ones, ``lock``, ``jack_back``, ...) must not change how the levels play it. A
# deliberate change of a level's play updates its digests here, and says so in its commit.
PINNED_DECISIONS = {
    "standard": ("713bd3145b191b03", "65831c5a885d686f", "91bc1ecdd64a54ea"),
    "daifugo": ("b9c360b8666e2baa", "fa20675d37091fe5", "284e39b7b604d002"),
    "daifugo_full": ("bd439faef8cf97cd", "d3453c5c207a108e", "3ca853b2e292d5ed"),
}


@pytest.mark.parametrize("preset", sorted(PINNED_DECISIONS))
def test_the_levels_decide_as_pinned_on_presets_without_the_uecda_options(preset: str) -> None:
    rules = Rules.preset(preset, num_players=4, deals=2)
    seats = [make_agent(n, rules, seed=i) for i, n in enumerate(["hard", "normal", "easy", "random"])]
    levels = [make_agent(n, rules) for n in ("easy", "normal", "hard")]
    chosen: list[list[np.ndarray]] = [[] for _ in levels]
    for _, _, live, obs, mask in play_games(rules, seats, games=24, seed=2026):
        for got, agent in zip(chosen, levels):
            got.append(agent.act_batch(obs[live], mask[live]))
    digests = tuple(
        hashlib.sha256(np.concatenate(got).astype(np.int64).tobytes()).hexdigest()[:16]
        for got in chosen
    )
    assert digests == PINNED_DECISIONS[preset]
