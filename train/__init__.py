"""Training and evaluation.

* scripts (each ``python -m train.<name> --help`` documents its options): ``ppo_pool`` (PPO of
  one learner seat against a pool: the shipped policy's trainer), ``selfplay_ppo`` (self-play
  PPO), ``maskable_ppo`` (sb3-contrib MaskablePPO), ``tournament`` (duplicate tournaments
  between agents), ``evaluate`` (a checkpoint against the baselines), ``demo`` (``make demo``);
* :mod:`train.common`: what the trainers share (arguments, run folder and logs, PPO,
  imitation, opponent pools, the self-play collector);
* :mod:`train.eval`: tournaments, their statistics, tables and plots.
"""
