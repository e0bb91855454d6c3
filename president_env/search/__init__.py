"""Search support: positions (engine states of any moment of a deal, built from what one player
knows) and deals of the hidden cards consistent with an observation.

* :mod:`president_env.search.positions`: :func:`~president_env.search.positions.from_observation`,
  :func:`~president_env.search.positions.sample_hands`,
  :func:`~president_env.search.positions.positions`,
  :func:`~president_env.search.positions.record_moves`,
  :func:`~president_env.search.positions.from_record`;
* reading the history and record blocks back (:mod:`president_env.search.history`);
* the compiled sampler behind :func:`sample_hands` (:mod:`president_env.search.sampling`).

The Expert (:class:`agents.expert.ExpertAgent`) builds its positions here; so can a puzzle, an
analysis or a user's own search.
"""
