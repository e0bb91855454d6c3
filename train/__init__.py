"""Training and evaluation tools (tournaments between agents: :mod:`train.tournament`)."""
