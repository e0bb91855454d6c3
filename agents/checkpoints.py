"""The one loader of a trained policy's file: a ``.pt`` checkpoint (:mod:`agents.policy`) or an
sb3-contrib ``model.zip`` (:mod:`agents.sb3`), picked by the file's content.

    from agents.checkpoints import load_checkpoint
    policy = load_checkpoint("runs/ppo_pool/standard_p4_seed0/policy.pt", rules)

Needs the ``train`` extra (torch). A file that cannot be used raises
:class:`agents.errors.CheckpointError` naming it. Names (``"policy"``, ``"ppo"``) of the shipped
files are resolved by :func:`agents.load_agent` (:mod:`agents.pretrained`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.policy import PolicyAgent
from agents.sb3 import SB3Policy, is_sb3_model
from president_env.core.rules import Rules


def load_checkpoint(
    path: str | Path, rules: Rules | None = None, *, greedy: bool = True, **kwargs: Any
) -> PolicyAgent | SB3Policy:
    """The policy of a checkpoint file: a :class:`PolicyAgent` for this project's format, an
    :class:`SB3Policy` (``deterministic`` for ``greedy``) for an SB3 ``model.zip``. With
    ``rules``, a :class:`~agents.errors.CheckpointError` unless it was trained for them."""
    if is_sb3_model(path):
        return SB3Policy.load(path, rules, deterministic=greedy, **kwargs)
    return PolicyAgent.load(path, rules, greedy=greedy, **kwargs)
