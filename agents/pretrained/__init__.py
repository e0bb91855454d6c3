"""The policies shipped with the package, by name.

===========  ======================  ===========================================================
name         file                    what it is
===========  ======================  ===========================================================
``policy``   ``lookahead.pt``        the default and strongest: 4-player ``standard``, reads the
                                     history observation (a table of the default observation
                                     hands it the history it needs); ``train.lookahead``'s recipe
``ppo``      ``ppo.pt``              4-player ``standard``, the default observation: PPO after
                                     imitation of Hard (``train.ppo_pool``)
===========  ======================  ===========================================================

``agents.load_agent("policy", rules)`` loads one by name; :func:`path` is its file. Their strength: ``docs/results.md``.
"""

from __future__ import annotations

from pathlib import Path

DIR = Path(__file__).resolve().parent
"""The folder of the shipped files."""

PRETRAINED: dict[str, str] = {"policy": "lookahead.pt", "ppo": "ppo.pt"}
"""Each name of a shipped policy and its file in :data:`DIR`."""

DEFAULT = "policy"
"""The name of the default (strongest) shipped policy."""


def path(name: str = DEFAULT) -> Path:
    """The file of the shipped policy ``name`` (a ValueError for another name)."""
    key = name.strip().lower()
    if key not in PRETRAINED:
        raise ValueError(f"unknown shipped policy {name!r}; shipped: {sorted(PRETRAINED)}")
    return DIR / PRETRAINED[key]


def checkpoint_path(spec: str | Path) -> Path:
    """The file of a shipped policy's name, else ``spec`` as a path."""
    if isinstance(spec, str) and spec.strip().lower() in PRETRAINED:
        return path(spec)
    return Path(spec)
