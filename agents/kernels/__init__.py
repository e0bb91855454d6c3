"""Compiled (numba) decision kernels of the rule-based agents, by concern.

Every kernel loops over the rows of a batch in compiled code and reads, per row, only the
observation vector and the legal-action mask (plus the rule options and the action tables): no
hidden card ever reaches an agent. Every row must have a legal action (the agents send only
those; see :meth:`agents.base.BaseAgent.act_batch`).

* :mod:`~agents.kernels.observation`: the observation blocks by name (:class:`ObsBlock`,
  :func:`block_offsets`) and reading one row (:func:`~agents.kernels.observation.read`);
* :mod:`~agents.kernels.plays`: the action tables (:class:`Actions`) and what a play is worth
  in the order in effect, the jokers it uses (the cards it takes are the engine's
  :func:`~president_env.core.take_cards`, shared with Hard);
* :mod:`~agents.kernels.easy`, :mod:`~agents.kernels.normal`: the two simple levels, as small
  helpers per decision (exchange return, going out, lead, follow);
* :mod:`~agents.kernels.kit`: the UECda kit's sample client, as its logged plays show it;
* :mod:`~agents.kernels.asks`: the President's asks (``president_asks``) of Normal and Hard;
* :mod:`~agents.kernels.hard_odds` (chances to hold a trick or to follow),
  :mod:`~agents.kernels.hard_value` (weights, value of a hand), :mod:`~agents.kernels.hard`
  (the look-ahead over every legal action);
* :mod:`~agents.kernels._cache`: the ``@kernel`` decorator (numba's cache keyed on all these
  sources; no reference counting outside the functions that allocate the scratch).

Each public kernel allocates its scratch (:class:`~agents.kernels.observation.Seen`, Hard's
tables) and hands it to a ``_*_rows`` loop over the rows; helpers take small named tuples
(``seen``, ``acts``, ``tab``) or the scalars of one action (kind, rank, size, suit).

Rule options come from :func:`president_env.core.rules.rule_params`, indexed by
:class:`~president_env.core.rules.RuleParam`; kinds, phases and cards from
:mod:`president_env.core.constants` (numba reads IntEnum members as constants).

The kernels take ``(obs float32 [B, O], mask bool [B, A], off, rp, acts, ..., out int64 [B])``.
"""

from agents.kernels.easy import easy_kernel
from agents.kernels.hard import hard_kernel
from agents.kernels.hard_value import HardWeight
from agents.kernels.kit import kit_kernel
from agents.kernels.normal import normal_kernel
from agents.kernels.observation import ObsBlock, block_offsets
from agents.kernels.plays import Actions, action_tables, every_row_legal

__all__ = [
    "Actions",
    "HardWeight",
    "ObsBlock",
    "action_tables",
    "block_offsets",
    "easy_kernel",
    "every_row_legal",
    "hard_kernel",
    "kit_kernel",
    "normal_kernel",
]
