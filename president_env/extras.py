"""The optional parts of the install, and the one error for a part that is missing.

The base install (``pip install president-env``) holds what the environment needs: numpy,
numba, Gymnasium, PettingZoo, Pillow and tqdm. The rest are extras, named for what they serve:

=========== ===================================================================================
extra       what it brings, and what needs it
=========== ===================================================================================
``train``   torch, Stable-Baselines3, sb3-contrib, rich, TensorBoard, matplotlib, openskill: the
            trainers, learned policies (:mod:`agents.policy`, :mod:`agents.sb3`), plots, ratings
``web``     FastAPI and uvicorn: the browser app (:mod:`apps.web`)
``rllib``   Ray RLlib (its own venv: it pins its own Gymnasium): :mod:`train.rllib_ppo`
``dev``     the test tools, with ``train`` and ``web``
=========== ===================================================================================

A module that needs an extra imports it inside ``try`` and raises :func:`missing_extra`'s
error, an ``ImportError`` of one line naming the extra to install; a command line that ends on
it prints that line alone (no traceback) and exits with status 1.
"""

from __future__ import annotations

import sys
from types import TracebackType


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message names the extra that brings it."""


def missing_extra(package: str, extra: str, user: str) -> MissingExtra:
    """The error to raise when ``user`` (a module or feature) cannot import ``package``:
    ``"agents.policy needs torch, which is not installed: pip install 'president-env[train]'"``."""
    _print_alone()
    return MissingExtra(f"{user} needs {package}, which is not installed: "
                        f"pip install 'president-env[{extra}]'")


def _print_alone() -> None:
    """Let an uncaught :class:`MissingExtra` end a command line with its message alone."""
    previous = sys.excepthook
    if getattr(previous, "_president_env", False):
        return

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if isinstance(value, MissingExtra):
            print(f"error: {value}", file=sys.stderr)
        else:
            previous(kind, value, tb)

    hook._president_env = True  # type: ignore[attr-defined]
    sys.excepthook = hook
