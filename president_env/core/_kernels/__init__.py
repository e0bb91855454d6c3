"""Compiled (numba) kernels of the batched engine.

Each kernel loops over the games of a batch in compiled code (no Python loop over games) and
over the small constant axes (players, ranks, suits) inside each game. The state reaches them
as the 36 arrays of :class:`~president_env.core.engine.State` (read by name through
:class:`Arrays`), the rule options as the int64 vector of
:func:`~president_env.core.rules.rule_params` (read through
:class:`~president_env.core.rules.RuleParam`), the action layout as :class:`PlayTables` and
:class:`MaskTables`. :mod:`president_env.core.engine` calls these after validating the inputs;
the agents' kernels reuse :func:`take_cards`, :func:`play_suits`, :func:`is_bomb`, :func:`direction`,
:func:`next_active`, :func:`best_card` and :data:`SOURCES_HASH`.

==============  ===================================================================
module          concern
==============  ===================================================================
``_types``      the NamedTuples of arrays the kernels read
``_deal``       seeded shuffle, start and end of a deal, new games
``_legal``      legal actions: sets, jokers alone, runs, bombs, asks; first illegal; sampling
``_play``       one action: cards taken, clears, bombs, revolution (pending, Western),
                going out, asks, next turn (in the direction of play)
``_seats``      the seats round the table (``reseat_every``), the next seat, the direction
``_observe``    one player's observation
``_advance``    one game in one call (play, mask, observation)
``_one``        the same through one vector of array addresses; the engine's direct calls
``_fused``      many random steps in one call; reset, mask and observation in one call
``_pool``       both cores: a kernel over chunks of games on several threads
``_inputs``     the action tables, seeds and hands, built and checked in Python
``_jit``        the ``@kernel`` decorator: numba's cache keyed on all these sources
==============  ===================================================================
"""

from president_env.core._kernels._advance import advance_kernel
from president_env.core._kernels._deal import best_card, deal_into, init_kernel, reset_where
from president_env.core._kernels._fused import (
    draw_keys,
    draw_uniform,
    next_views_kernel,
    play_random_kernel,
)
from president_env.core._kernels._inputs import as_seeds, mask_tables, parse_hands, play_tables
from president_env.core._kernels._jit import SOURCES_HASH, kernel
from president_env.core._kernels._legal import first_illegal, mask_kernel, sample_legal
from president_env.core._kernels._observe import observe_kernel
from president_env.core._kernels._play import is_bomb, play_suits, step_kernel, take_cards
from president_env.core._kernels._seats import direction, next_active
from president_env.core._kernels._types import Arrays, MaskTables, Played, PlayTables

__all__ = [
    "SOURCES_HASH",
    "Arrays",
    "MaskTables",
    "PlayTables",
    "Played",
    "advance_kernel",
    "as_seeds",
    "best_card",
    "deal_into",
    "direction",
    "draw_keys",
    "draw_uniform",
    "first_illegal",
    "init_kernel",
    "is_bomb",
    "kernel",
    "mask_kernel",
    "mask_tables",
    "next_active",
    "next_views_kernel",
    "observe_kernel",
    "parse_hands",
    "play_random_kernel",
    "play_suits",
    "play_tables",
    "reset_where",
    "sample_legal",
    "step_kernel",
    "take_cards",
]
