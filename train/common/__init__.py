"""What the trainers share, each piece in one place.

* :mod:`train.common.args`: :class:`~train.common.args.PPOArgs`, the arguments (and their docs)
  common to ``train.ppo_pool`` and ``train.selfplay_ppo``, and the set-up they imply (rules,
  device, seeds, network, optimizer);
* :mod:`train.common.run`: a run's folder: ``args.txt``, ``metrics.csv``, TensorBoard,
  checkpoints and the progress bar;
* :mod:`train.common.ppo`: policy sampling, GAE (one chain per game, or one per seat of a game),
  and the masked PPO update;
* :mod:`train.common.imitation`: the warm start that imitates a rule-based agent;
* :mod:`train.common.pool`: opponent pools (``"hard:0.6,normal:0.4"``) and frozen snapshots;
* :mod:`train.common.selfplay`: the self-play collector (live seats external to a
  :class:`~president_env.table.Table`, pool members seated at it);
* :mod:`train.common.threads`: ``--threads`` above 1, the network's work in fixed slices of
  rows on several threads or one, whichever is timed faster (no spinning torch threads).

The trainers (``train/ppo_pool.py``, ``train/selfplay_ppo.py``) are short scripts over these.
"""
