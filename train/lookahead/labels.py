"""Lookahead labels on disk: the labelled decisions of a collection (:mod:`train.lookahead.collect`),
read back merged from several files, and the regret of a network on them (the mean place its greedy
choice loses against the best label of each decision)."""

from __future__ import annotations

import ast
import ctypes
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import PolicyNet
from president_env.core.rules import Rules
from president_env.extras import missing_extra
from president_env.table import rule_differences

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.lookahead.labels") from None

DATA = "labels.npz"
FIELDS = ("obs", "mask", "act", "place")
M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter: allocations from this size up are mapped, and unmapped when
freed."""


def same_game(text: str, rules: Rules) -> bool:
    """Whether a labels file's rules (the ``repr`` of ``Rules.to_dict()``) are ``rules``' game
    and observation. The preset's name does not count (:func:`president_env.table.
    rule_differences`): the rules a checkpoint records carry none. False for a text that is
    no valid rules."""
    try:
        have = Rules.from_dict(ast.literal_eval(text))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return have.observation == rules.observation and not rule_differences(rules, have)


def steady_heap(threshold: int = 1 << 20) -> bool:
    """Map every buffer of ``threshold`` bytes or more (with glibc; False elsewhere). glibc
    raises its threshold to the size of each mapped buffer freed, so the 28 MB batches of a fit
    or a regret pass then come from the heap, which fragments and keeps what they freed: a fit
    on 4.9M labels (9 GB) grew to 23 GB and was killed. A fixed threshold keeps it near the
    labels' size."""
    try:  # the process's own symbols: glibc's where it is the C library
        return bool(ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, threshold))
    except (OSError, AttributeError, TypeError):
        return False


def regret(net: PolicyNet, obs: torch.Tensor, mask: torch.Tensor, place: torch.Tensor,
           act: torch.Tensor, n_train: int) -> dict[str, float]:
    """Mean place lost against the best label by the greedy choice (``regret``) and by the
    action the behaviour took (``behaviour_regret``), on the training and held-out rows that
    have labels (not the positions of a collection without rollouts, every place -1)."""
    net.eval()
    with torch.no_grad():
        pick = torch.cat([net(obs[i : i + 8192].float(), mask[i : i + 8192])[0].argmax(-1)
                          for i in range(0, len(act), 8192)])
    p = place.to(torch.int16)
    best = torch.where(mask, p, 99).min(1).values
    lost = (p.gather(1, pick[:, None])[:, 0] - best).float()
    took = (p.gather(1, act[:, None])[:, 0] - best).float()
    labelled = best >= 0
    out: dict[str, float] = {}
    for name, sl in (("train", slice(0, n_train)), ("heldout", slice(n_train, None))):
        keep = labelled[sl]
        some = bool(keep.any())
        out[f"{name}_regret"] = float(lost[sl][keep].mean()) if some else float("nan")
        out[f"{name}_behaviour_regret"] = float(took[sl][keep].mean()) if some else float("nan")
    return out


class Labels:
    """The labelled decisions: ``obs`` (float16, exact for the observation's values),
    ``mask``, ``act`` (the action taken: int8, or int16 where the ids do not fit, see
    :func:`train.lookahead.collect.act_dtype`) and ``place`` (int8 per action, -1 where
    illegal)."""

    def __init__(self, rules: Rules, behaviour: str, path: Path | None,
                 rollout: str = "hard", opponents: str = "hard") -> None:
        self.path = path  # None: labels merged from files (see extend), never saved
        self.rules = rules
        self.meta = {"rules": repr(rules.to_dict()), "behaviour": behaviour, "rollout": rollout,
                     "opponents": opponents}
        self.parts: dict[str, list[np.ndarray]] = {k: [] for k in FIELDS}
        if path is not None and path.is_file():
            self.extend(path)

    def extend(self, path: Path, same_behaviour: bool = True) -> None:
        """Add the labels of the file ``path`` (ValueError for other rules or behaviour)."""
        if not path.is_file():
            raise ValueError(f"no labels file at {path}")
        with np.load(path) as f:
            for key, want in self.meta.items():
                have = str(f[key]) if key in f else "hard"  # files before --rollout
                if key == "rules":
                    differ = not same_game(have, self.rules)
                else:
                    differ = same_behaviour and have != want
                if differ:
                    raise ValueError(f"{path} holds labels of another {key}; use another --out")
            for k in FIELDS:
                self.parts[k].append(f[k])

    def __len__(self) -> int:
        return sum(len(a) for a in self.parts["act"])

    def add(self, **arrays: np.ndarray) -> None:
        for k in FIELDS:
            self.parts[k].append(arrays[k])

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.concatenate(v) for k, v in self.parts.items()}

    def take_arrays(self) -> dict[str, np.ndarray]:
        """:meth:`arrays`, emptying this object part by part (peak memory: the result and one
        part, not twice the labels)."""
        out = {}
        for k, parts in self.parts.items():
            whole = np.empty((sum(len(a) for a in parts), *parts[0].shape[1:]), parts[0].dtype)
            at = 0
            while parts:
                part = parts.pop(0)
                whole[at : at + len(part)] = part
                at += len(part)
            out[k] = whole
        return out

    def save(self) -> None:
        if self.path is None:
            raise ValueError("these labels have no file to be saved to")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp.npz")
        fields: dict[str, Any] = {**self.arrays(), **{k: np.array(v) for k, v in self.meta.items()}}
        np.savez(tmp, allow_pickle=False, **fields)
        tmp.replace(self.path)


def read_labels(rules: Rules, files: list[Path], empty: str = "no labels") -> dict[str, np.ndarray]:
    """The labels of ``files`` (any behaviour; ValueError for other rules, or ``empty`` when
    they hold none) as one set of arrays."""
    steady_heap()
    data = Labels(rules, "any", None)
    for path in files:
        data.extend(path, same_behaviour=False)
    if not len(data):
        raise ValueError(empty)
    return data.take_arrays()


def regret_on(net: PolicyNet, rules: Rules, files: list[Path], holdout: float) -> dict[str, float]:
    """The regrets of ``net`` on the labels of ``files``, the last ``holdout`` share held out as
    a fit splits them, and their number (``decisions``)."""
    d = {k: torch.from_numpy(v) for k, v in read_labels(rules, files).items()}
    n_train = int(round(len(d["act"]) * (1 - holdout)))
    return {**regret(net, d["obs"], d["mask"], d["place"], d["act"].long(), n_train),
            "decisions": float(len(d["act"]))}
