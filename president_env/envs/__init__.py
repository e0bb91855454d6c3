"""The adapters: President as a PettingZoo AEC env (:mod:`~president_env.envs.aec`), many games
in one object (:mod:`~president_env.envs.vector`), a Gymnasium single-agent env
(:mod:`~president_env.envs.single_agent`) and a learner's seat in many games
(:mod:`~president_env.envs.learner`). Each is re-exported by :mod:`president_env`."""
