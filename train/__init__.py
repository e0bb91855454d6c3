"""Training and evaluation.

* scripts (each ``python -m train.<name> --help`` documents its options): ``ppo_pool`` (PPO of
  one learner seat against a pool: the ``ppo`` policy's trainer), ``selfplay_ppo`` (self-play
  PPO), ``maskable_ppo`` (sb3-contrib MaskablePPO), ``rllib_ppo`` (RLlib), ``lookahead`` (the
  lookahead recipe in one command: the ``policy`` file's trainer), ``tournament`` (duplicate
  tournaments between agents), ``evaluate`` (a checkpoint against the baselines), ``curve`` (a
  recipe's learning curve from its table of stages), ``demo`` (``make demo``);
* :mod:`train.common`: what the PPO trainers share (arguments, run folder and logs, PPO,
  imitation, opponent pools, the self-play collector);
* :mod:`train.lookahead`: the lookahead recipe (collection, fit, stages, the command);
* :mod:`train.eval`: tournaments, their statistics, tables and plots.
"""
