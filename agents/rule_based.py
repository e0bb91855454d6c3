"""The three rule-based levels of the CardVerse rules (RULES.md section 9), for every preset.

* :class:`EasyAgent` plays the lowest legal play in the order in effect (fewer jokers, then more
  cards, break ties), passes only when it cannot play, and gives its lowest cards in the exchange.
* :class:`NormalAgent` keeps its control cards (the top rank: 2s, or 3s during a revolution;
  fours of a kind; jokers) to regain the lead, does not break pairs and triples
  without need, leads its lowest sets whole, and plays controls when needed or at the end; in
  the exchange it returns its lowest single cards.
* :class:`HardAgent` counts the cards still out per rank (the pack, less the public ``played``
  memory, less its own hand), knows when a play cannot be beaten (no set of that size that
  beats it, in the order after the play, can be made from the cards out, jokers included, by an
  opponent with enough cards left), values what is left of its hand by the number of groups to
  play and how likely each is to hold a trick, chains sure plays to go out when it can, keeps
  control cards for when they pay, and watches opponents who are down to one or two cards.

The variants of RULES.md section 12: every level plays them legally; Easy keeps a bomb for a
trick it cannot follow otherwise and asks for the highest card it lacks; Normal keeps bombs as
controls and asks for the best card it lacks; Hard knows that a bomb holds any trick (and that
any other play may be bombed), values its hand in the order after a pending revolution or a
row of four singles, folds lone cards of any suits into runs (``runs_mixed_suits``, at most
``max_run_length`` long) and asks for the card worth most to its hand (:mod:`agents.kernels`).

The UECda server's options (docs/rules.md): with ``lock`` Hard counts, in a trick that is
locked or that its play locks, only the opponents' cards of the locked suits as able to beat
its play (the observation's ``lock`` block), and with ``spade_three_beats_joker`` that an
opponent may answer its lone joker with the 3 of spades; with ``jack_back`` Easy's lowest
play is the lowest in the order in force (revolution XOR 11-back), while Normal keeps to the
order after the trick (see :mod:`agents.kernels.normal`).

:class:`KitAgent` is none of the three levels: it plays as the UECda development kit's sample
client does (the contest's baseline opponent; :mod:`agents.kernels.kit`), so that our agents
can meet it at our own table.

All four decide from the observation and the legal-action mask only (see
:mod:`agents.kernels`); they are deterministic, so ``seed`` is accepted for a uniform
constructor and ignored.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from agents.base import IntArray, RuleAgent
from agents.kernels import HardWeight, easy_kernel, hard_kernel, kit_kernel, normal_kernel
from president_env.core.rules import Rules

# numba dispatchers, typed loosely for mypy
_EASY: Any = easy_kernel
_NORMAL: Any = normal_kernel
_HARD: Any = hard_kernel
_KIT: Any = kit_kernel


class EasyAgent(RuleAgent):
    """The lowest legal play (RULES.md section 9, "Easy")."""

    name = "easy"

    def _act_batch(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        out = np.empty(len(obs), np.int64)
        _EASY(obs, mask, *self._args(), out)
        return out


class NormalAgent(RuleAgent):
    """Keeps controls and fours of a kind, does not break sets without need, leads low sets."""

    name = "normal"

    def _act_batch(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        out = np.empty(len(obs), np.int64)
        _NORMAL(obs, mask, *self._args(), out)
        return out


class KitAgent(RuleAgent):
    """The UECda development kit's sample client, as the server's logs show it plays: its
    longest run, largest set or lowest card; it follows only with a set of the exact size it
    holds (:mod:`agents.kernels.kit`): the contest's baseline opponent at our own table."""

    name = "kit"

    def _act_batch(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        out = np.empty(len(obs), np.int64)
        _KIT(obs, mask, *self._args(), out)
        return out


HARD_WEIGHTS: dict[str, float] = {
    # hand value: each group (a rank's set, a joker, a run of lone cards) is worth
    # f + v - 1 - lambda (+ mu * key / 12), where f is the chance it gets shed by following,
    # c_size * (share of the cards out that rank below it), and v the chance it holds a trick
    "lambda": 0.5,  # tempo: cost of every group still to play (each needs a trick)
    "c1": 0.9,  # how often a single can follow an opponent's play, at best
    "c2": 0.6,  # the same for a pair
    "c3": 0.3,  # for a triple
    "c4": 0.1,  # for four or more
    "crun": 0.1,  # for a run
    "mu": 0.05,  # preference for keeping high groups
    "kappa": 1.0,  # premium for keeping a sure card (it can win any trick later) ...
    "kcap": 1.0,  # ... counted for at most this many sure cards: spare ones get used
    "alpha": 0.6,  # value of taking the lead from an opponent (times the chance to hold)
    "chain": 50.0,  # bonus for a sure play after which the hand can be chained out
    "run_p": 0.25,  # chance that a possible beating run is actually held (same suit)
    "break": 0.0,  # cost of breaking a set (the hand value already prices it)
    "danger": 0.6,  # leading into an opponent with one or two cards left ...
    "danger_pass": 0.6,  # ... or passing while such an opponent holds the trick ...
    "race": 3.0,  # ... when Hard itself has at most this many groups left
    "run_p_mixed": 0.5,  # run_p when runs mix suits (runs_mixed_suits): a beating run is likelier
}


class HardAgent(RuleAgent):
    """Card counting, sure plays, planning the way out of the hand (see the module doc).

    ``weights`` overrides entries of :data:`HARD_WEIGHTS`.
    """

    name = "hard"

    def __init__(
        self, rules: Rules, seed: int | None = None, weights: dict[str, float] | None = None
    ) -> None:
        super().__init__(rules, seed)
        wts = dict(HARD_WEIGHTS)
        for key, value in (weights or {}).items():
            if key not in wts:
                raise ValueError(f"unknown Hard weight {key!r}; weights are {sorted(wts)}")
            wts[key] = float(value)
        self.weights = wts
        w = np.zeros(len(HardWeight))
        for index in HardWeight:
            w[index] = wts[index.name.lower()]
        self._w = w

    def _act_batch(self, obs: np.ndarray, mask: np.ndarray) -> IntArray:
        out = np.empty(len(obs), np.int64)
        _HARD(obs, mask, *self._args(), self._w, out, np.zeros((0, mask.shape[1])))
        return out

    def action_scores(self, observation: npt.ArrayLike, action_mask: npt.ArrayLike) -> np.ndarray:
        """The score Hard gives every legal action of one decision (-inf when illegal, and
        for the rest once a play that goes out is found: that one is taken unscored)."""
        obs, mask = self._validated(
            np.asarray(observation)[None], np.asarray(action_mask)[None]
        )
        scores = np.full(mask.shape, -np.inf)
        out = np.empty(1, np.int64)
        _HARD(obs, mask, *self._args(), self._w, out, scores)
        return scores[0]
