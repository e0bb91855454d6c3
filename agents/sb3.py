"""An sb3-contrib MaskablePPO model as a policy: a ``model.zip`` at any table.

``train.maskable_ppo`` trains sb3-contrib's ``MaskablePPO`` on the single-agent env and saves
a ``model.zip`` holding the rules it was trained for (the model attribute
``president_rules``, :data:`RULES_KEY`, a JSON object in the zip's ``data`` file).
:class:`SB3Policy` plays such a model wherever a :class:`president_env.table.Policy` goes
(tournaments, ``train.evaluate``, trainers' opponents)::

    from agents.sb3 import SB3Policy
    policy = SB3Policy.load("runs/maskable_ppo/standard_p4_seed0/model.zip")
    actions = policy.act_batch(obs, masks)          # [B, O], [B, A] -> [B], -1 without a move

The policy's ``rules`` are the model's own when it stores them, else the ``rules`` given to
:meth:`SB3Policy.load` (a model saved by another script); with both, they must agree (a
:class:`~agents.errors.CheckpointError` lists the options that differ). Decisions are
deterministic by default (the most likely legal action, as ``model.predict(...,
deterministic=True)``); with ``deterministic=False`` they are sampled from a seeded generator.
A missing, damaged or foreign file, a model of other sizes, or weights with a NaN, an infinite
value or a zeroed weight matrix give a :class:`~agents.errors.CheckpointError` naming the file.
``agents.load_agent("path/model.zip", rules)`` is the usual way in.

A model file is data: :meth:`SB3Policy.load` unpickles nothing from it. SB3 pickles the
entries of ``data`` it cannot write as JSON (``":serialized:"``: the spaces, the policy class,
schedules, buffers); the loader ignores those, reads the network's sizes from the weights
(``policy.pth``, read with ``torch.load(weights_only=True)``) and builds sb3-contrib's
``MaskableActorCriticPolicy`` (the ``"MlpPolicy"`` of ``train.maskable_ppo``) itself. A model
whose play depends on a pickled entry (``policy_kwargs`` with an activation or a feature
extractor class) is refused with a :class:`~agents.errors.CheckpointError` saying so, unless
``trust=True``: then SB3's own ``MaskablePPO.load`` reads it (and runs whatever code the file
holds: only for files you made yourself).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.base import act_one
from agents.errors import CheckpointError
from agents.policy import check_weights
from president_env.core.engine import Engine
from president_env.core.rules import Rules
from president_env.extras import missing_extra
from president_env.table import rule_differences

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "agents.sb3 (an SB3 model)") from None

RULES_KEY = "president_rules"
"""Model attribute (and key of the zip's ``data`` JSON) holding ``Rules.to_dict()``."""
_MEMBERS = ("data", "policy.pth")
_MAX_DATA = 64 << 20
"""Largest ``data`` member read (bytes); SB3 writes some tens of kB."""
_MAX_WEIGHTS = 1 << 30
"""Largest ``policy.pth`` member read (bytes)."""
_POLICY_MODULE = "sb3_contrib.common.maskable.policies"
_PLAIN_KWARGS = {"net_arch", "ortho_init", "share_features_extractor", "normalize_images"}
"""``policy_kwargs`` keys (plain JSON) the loader honours; the network's sizes come from the
weights, and ``optimizer_kwargs`` (training only) is ignored."""
_IGNORED_KWARGS = {"optimizer_kwargs"}


def is_sb3_model(path: str | Path) -> bool:
    """Whether ``path`` is a stable-baselines3 save (a zip with ``data`` and ``policy.pth``
    at its top level; a torch checkpoint is a zip too, with its files in a folder)."""
    p = Path(path)
    if not p.is_file() or not zipfile.is_zipfile(p):
        return False
    try:
        with zipfile.ZipFile(p) as z:
            names = set(z.namelist())
    except (zipfile.BadZipFile, OSError):
        return False
    return all(m in names for m in _MEMBERS)


def saved_rules(path: str | Path) -> Rules | None:
    """The rules stored in an SB3 ``model.zip`` (None when it stores none), read without
    loading the model; a :class:`CheckpointError` for a damaged file or invalid rules."""
    p = Path(path)
    try:
        with zipfile.ZipFile(p) as z:
            data = json.loads(_member(z, "data", _MAX_DATA))
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, RecursionError) as e:
        raise CheckpointError(f"{p} is not a readable SB3 model ({type(e).__name__}: {e})") from e
    stored = data.get(RULES_KEY) if isinstance(data, dict) else None
    if stored is None:
        return None
    try:
        return Rules.from_dict(dict(stored, preset_name=None))
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"{p} holds invalid rules under {RULES_KEY!r}: {e}") from e


def _model_rules(p: Path, rules: Rules | None) -> Rules:
    """The rules to play ``p`` under: its own, checked against ``rules``, or ``rules``."""
    stored = saved_rules(p)
    if stored is None:
        if rules is None:
            raise CheckpointError(
                f"{p} does not store its rules (not saved by train.maskable_ppo); "
                f"give the rules it was trained for (rules=...)"
            )
        return rules
    if rules is not None and rule_differences(rules, stored):
        raise CheckpointError(
            f"{p} was trained for other rules; differences (wanted, trained): "
            f"{rule_differences(rules, stored)}"
        )
    return stored if rules is None else rules.replace(observation=stored.observation)


def _member(z: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """The bytes of member ``name`` of ``z`` (a ValueError when larger than ``limit``)."""
    size = z.getinfo(name).file_size
    if size > limit:
        raise ValueError(f"member {name!r} holds {size} bytes, more than {limit}")
    return z.read(name)


def _is_pickled(value: Any) -> bool:
    return isinstance(value, dict) and ":serialized:" in value


def _layers(weights: dict[str, torch.Tensor], prefix: str) -> list[int]:
    """The widths of the Linear layers ``{prefix}.0``, ``{prefix}.2``, ... of the weights (the
    layers of SB3's MlpExtractor, an activation between each two)."""
    found = sorted(int(m.group(1)) for k in weights
                   if (m := re.fullmatch(re.escape(prefix) + r"\.(\d+)\.weight", k)))
    if found != list(range(0, 2 * len(found), 2)):
        raise ValueError(f"the layers of {prefix!r} are {found}, expected 0, 2, 4, ...")
    return [int(weights[f"{prefix}.{i}.weight"].shape[0]) for i in found]


def _shape(weights: dict[str, torch.Tensor], key: str, ndim: int) -> tuple[int, ...]:
    t = weights.get(key)
    if not isinstance(t, torch.Tensor) or t.ndim != ndim:
        raise ValueError(f"no {ndim}-D tensor {key!r} in policy.pth")
    return tuple(int(n) for n in t.shape)


class _Model:
    """What :class:`SB3Policy` uses of a MaskablePPO model: the policy and its spaces."""

    def __init__(self, policy: Any, observation_space: Any, action_space: Any) -> None:
        self.policy = policy
        self.observation_space, self.action_space = observation_space, action_space


def _read_model(p: Path, eng: Engine, device: str) -> _Model:
    """The MaskablePPO policy of ``p`` built without unpickling anything (see the module
    docstring); a :class:`CheckpointError` naming ``p`` and the reason."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    try:
        with zipfile.ZipFile(p) as z:
            data = json.loads(_member(z, "data", _MAX_DATA))
            raw = _member(z, "policy.pth", _MAX_WEIGHTS)
        weights = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as e:  # zipfile, json and torch raise many kinds for a damaged file
        raise CheckpointError(f"{p} is not a readable MaskablePPO model ({type(e).__name__}: "
                              f"{e})") from e
    trust = "pass trust=True to load it with SB3 (runs code from the file; only for files you made)"
    if not isinstance(data, dict):
        raise CheckpointError(f"{p} is not a readable MaskablePPO model (its data is no object)")
    cls = data.get("policy_class")
    module = cls.get("__module__") if isinstance(cls, dict) else None
    if module != _POLICY_MODULE:
        raise CheckpointError(f"{p}: its policy class (module {module!r}) is not sb3-contrib's "
                              f"MaskableActorCriticPolicy; {trust}")
    kwargs = data.get("policy_kwargs", {})
    if _is_pickled(kwargs):
        raise CheckpointError(f"{p}: its policy_kwargs are pickled (a class such as an activation "
                              f"or a feature extractor) and are not unpickled; {trust}")
    if not isinstance(kwargs, dict):
        raise CheckpointError(f"{p}: its policy_kwargs are not an object; {trust}")
    if extra := sorted(set(kwargs) - _PLAIN_KWARGS - _IGNORED_KWARGS):
        raise CheckpointError(f"{p}: policy_kwargs {extra} are not supported; {trust}")
    if not isinstance(weights, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in weights.items()
    ):
        raise CheckpointError(f"{p}: policy.pth is not a state dict of tensors")
    try:
        pi = _layers(weights, "mlp_extractor.policy_net")
        vf = _layers(weights, "mlp_extractor.value_net")
        n, latent = _shape(weights, "action_net.weight", 2)
        obs_size = _shape(weights, "mlp_extractor.policy_net.0.weight", 2)[1] if pi else latent
    except ValueError as e:
        raise CheckpointError(f"{p}: the weights are not a MaskablePPO MlpPolicy's ({e})") from e
    if (obs_size, n) != (eng.obs_size, eng.num_actions):
        raise CheckpointError(
            f"{p}: the model takes observations ({obs_size},) and {n} actions; these rules need "
            f"({eng.obs_size},) and {eng.num_actions}"
        )
    check_weights(weights, p)
    plain = {k: v for k, v in kwargs.items() if k in _PLAIN_KWARGS and k != "net_arch"}
    obs_space = spaces.Box(-np.inf, np.inf, (obs_size,), np.float32)
    act_space = spaces.Discrete(n)
    try:
        policy = MaskableActorCriticPolicy(
            obs_space, act_space, lambda _: 0.0, net_arch={"pi": pi, "vf": vf}, **plain
        )
        policy.load_state_dict(weights)
    except (TypeError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{p}: the weights do not fit a MaskablePPO MlpPolicy ({e})") from e
    return _Model(policy.to(device).eval(), obs_space, act_space)


class SB3Policy:
    """A MaskablePPO model playing through the agent interface (a
    :class:`president_env.table.Policy` with ``act``)."""

    name = "sb3"

    def __init__(
        self, model: Any, rules: Rules, deterministic: bool = True, seed: int | None = None
    ) -> None:
        eng = Engine(rules)
        obs_shape = tuple(getattr(model.observation_space, "shape", ()) or ())
        n = getattr(model.action_space, "n", None)
        if obs_shape != (eng.obs_size,) or n != eng.num_actions:
            raise ValueError(
                f"the model takes observations {obs_shape} and {n} actions; these rules need "
                f"({eng.obs_size},) and {eng.num_actions}"
            )
        self.model = model
        self.rules = rules
        self.deterministic = deterministic
        self.obs_size, self.num_actions = eng.obs_size, eng.num_actions
        self.gen = torch.Generator(device=model.policy.device)
        self.reseed(seed)

    @classmethod
    def load(
        cls,
        path: str | Path,
        rules: Rules | None = None,
        deterministic: bool = True,
        seed: int | None = None,
        device: str = "cpu",
        trust: bool = False,
    ) -> SB3Policy:
        """The policy of a MaskablePPO ``model.zip`` (see the module docstring for the rules),
        read without unpickling anything from the file; ``trust=True`` lets SB3's
        ``MaskablePPO.load`` read it (it unpickles the file's pickled entries: runs its code)."""
        p = Path(path)
        if not p.is_file():
            raise CheckpointError(f"no model file at {p}")
        if not is_sb3_model(p):
            raise CheckpointError(f"{p} is not a stable-baselines3 model.zip")
        play_rules = _model_rules(p, rules)
        model: Any
        if trust:
            from sb3_contrib import MaskablePPO

            try:
                model = MaskablePPO.load(p, device=device)
            except Exception as e:  # SB3 and torch raise many kinds for a damaged file
                raise CheckpointError(f"{p} is not a readable MaskablePPO model "
                                      f"({type(e).__name__}: {e})") from e
            check_weights(model.policy.state_dict(), p)
        else:
            model = _read_model(p, Engine(play_rules), device)
        try:
            return cls(model, play_rules, deterministic=deterministic, seed=seed)
        except ValueError as e:
            raise CheckpointError(f"{p}: {e}") from e

    def reseed(self, seed: int | None) -> None:
        """Restart the sampling generator (used when ``deterministic=False``)."""
        self.gen.manual_seed(0 if seed is None else seed)

    @torch.no_grad()
    def act_batch(
        self, observations: npt.ArrayLike, action_masks: npt.ArrayLike
    ) -> npt.NDArray[np.int64]:
        """One action per row of ``observations [B, O]`` and ``action_masks [B, A]``; -1 for a
        row with no legal action (the model never sees it)."""
        obs = np.asarray(observations, np.float32)
        mask = np.asarray(action_masks, bool)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"observations must have shape [B, {self.obs_size}], got {obs.shape}")
        if mask.shape != (obs.shape[0], self.num_actions):
            raise ValueError(
                f"masks must have shape [{obs.shape[0]}, {self.num_actions}], got {mask.shape}"
            )
        out = np.full(len(mask), -1, np.int64)
        rows = np.flatnonzero(mask.any(axis=1))
        if len(rows):
            out[rows] = self._decide(obs[rows], mask[rows])
        return out

    def _decide(self, obs: np.ndarray, mask: np.ndarray) -> npt.NDArray[np.int64]:
        policy = self.model.policy
        policy.set_training_mode(False)
        obs_t, _ = policy.obs_to_tensor(obs)
        dist = policy.get_distribution(obs_t, action_masks=mask)
        if self.deterministic:
            a = dist.get_actions(deterministic=True)
        else:
            probs = dist.distribution.probs
            a = torch.multinomial(probs, 1, generator=self.gen).squeeze(-1)
        return a.cpu().numpy().astype(np.int64)

    def act(self, observation: npt.ArrayLike, action_mask: npt.ArrayLike) -> int:
        """One decision; a ValueError when ``action_mask`` has no legal action."""
        return act_one(self, observation, action_mask)

    def __repr__(self) -> str:
        return f"SB3Policy(players={self.rules.num_players}, deterministic={self.deterministic})"
