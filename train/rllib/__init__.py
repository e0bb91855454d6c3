"""Ray RLlib support: RLModules for PettingZoo's masked observations and the project's agents.

:mod:`train.rllib.modules` holds the RLModules (import it only where Ray is installed: the
optional extra ``rllib``); :mod:`train.rllib_ppo` is the trainer that uses them.
"""
