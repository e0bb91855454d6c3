"""RLlib RLModules for PettingZoo's masked observations: a trainable PPO module and fixed agents.

PettingZoo's environments with legal-action masks (the classic games, and ``president_env``'s
AEC env) observe a dict ``{"observation": ..., "action_mask": ...}``. RLlib's example
``ActionMaskingTorchRLModule`` reads the key ``"observations"`` instead, so it cannot be used on
them as is. :class:`MaskedPPOModule` reads PettingZoo's keys and is the network of
:class:`agents.policy.PolicyNet` (its weights *are* a ``PolicyNet``: :meth:`policy_net`,
:func:`policy_state`), so what RLlib trains plays in the project's evaluator and tournaments::

    RLModuleSpec(module_class=MaskedPPOModule, model_config={"hidden": 256})

:class:`FixedAgentModule` seats a project agent (a rule-based agent by name, or a
``PolicyNet`` checkpoint's weights) as a fixed, untrained policy; keep its module id out of
``policies_to_train``. Its ``model_config``: ``{"agent": "hard", "rules": Rules.to_dict()}`` or
``{"weights": policy_state(net), "hidden": h, "rules": ...}``
(:func:`~train.rllib.seats.fixed_agent_config`);
the weights travel in the config, so a checkpoint needs to be readable on the driver only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule

from agents import make_agent
from agents.policy import PolicyAgent, PolicyNet, scale_observation
from president_env.core.rules import Rules
from president_env.extras import missing_extra
from train.rllib.seats import fixed_agent_config, policy_state

try:
    import torch
except ImportError:
    raise missing_extra("torch", "train", "train.rllib.modules") from None

OBS_KEY = "observation"
MASK_KEY = "action_mask"
NET_PREFIX = "net."
"""Prefix of the ``PolicyNet`` parameters in :class:`MaskedPPOModule`'s state dict."""


def _obs_and_mask(obs: Any) -> tuple[Any, Any]:
    if not isinstance(obs, Mapping) or OBS_KEY not in obs or MASK_KEY not in obs:
        keys = sorted(obs) if isinstance(obs, Mapping) else type(obs).__name__
        raise ValueError(
            f"expected PettingZoo's masked observation dict with keys {OBS_KEY!r} and "
            f"{MASK_KEY!r}, got {keys}"
        )
    return obs[OBS_KEY], obs[MASK_KEY]


def _space_sizes(observation_space: Any, action_space: Any) -> tuple[int, int]:
    """(observation size, number of actions), checking PettingZoo's masked dict space."""
    if not isinstance(observation_space, spaces.Dict) or set(observation_space.spaces) != {
        OBS_KEY, MASK_KEY
    }:
        raise ValueError(
            f"expected a Dict observation space with keys {OBS_KEY!r} and {MASK_KEY!r} "
            f"(PettingZoo's action-masked observations), got {observation_space}"
        )
    if not isinstance(action_space, spaces.Discrete):
        raise ValueError(f"expected a Discrete action space, got {action_space}")
    box = observation_space[OBS_KEY]
    if box.shape is None or len(box.shape) != 1:
        raise ValueError(f"expected a flat {OBS_KEY!r} Box, got {box}")
    return int(box.shape[0]), int(action_space.n)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """PPO's RLModule over ``{"observation", "action_mask"}``: a :class:`PolicyNet` whose
    illegal actions get a logit of -1e9 (never sampled). ``model_config``: ``hidden`` (width of
    the two hidden layers, 256 by default) and ``weights`` (optional: a ``PolicyNet`` state dict
    to start from)."""

    def setup(self) -> None:
        obs_size, num_actions = _space_sizes(self.observation_space, self.action_space)
        cfg = dict(self.model_config or {})
        self.net = PolicyNet(obs_size, num_actions, int(cfg.get("hidden", 256)))
        if cfg.get("weights") is not None:
            self.net.load_state_dict(
                {k: torch.as_tensor(np.asarray(v)) for k, v in cfg["weights"].items()}
            )

    def _trunk(self, batch: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        obs, mask = _obs_and_mask(batch[Columns.OBS])
        return self.net.trunk(scale_observation(obs.float())), mask > 0

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        h, mask = self._trunk(batch)
        logits = self.net.pi(h).masked_fill(~mask, -1e9)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: h}

    def compute_values(
        self, batch: dict[str, Any], embeddings: torch.Tensor | None = None
    ) -> torch.Tensor:
        """State values (from ``embeddings``, the trunk's output, when given)."""
        h = self._trunk(batch)[0] if embeddings is None else embeddings
        return self.net.v(h).squeeze(-1)

    def policy_net(self) -> PolicyNet:
        """The trained network (shares its parameters with this module)."""
        return self.net


def net_from_module_state(state: Mapping[str, Any], obs_size: int, num_actions: int) -> PolicyNet:
    """A :class:`PolicyNet` from a :class:`MaskedPPOModule`'s state dict (RLlib's
    ``get_weights()[module_id]`` or a module checkpoint); a ValueError when it is not one."""
    weights = {k[len(NET_PREFIX):]: v for k, v in state.items() if k.startswith(NET_PREFIX)}
    if "trunk.0.weight" not in weights:
        raise ValueError(
            f"not a MaskedPPOModule state (no {NET_PREFIX}trunk.0.weight); keys: {sorted(state)[:6]}"
        )
    hidden = int(np.asarray(weights["trunk.0.weight"]).shape[0])
    net = PolicyNet(obs_size, num_actions, hidden)
    net.load_state_dict({k: torch.as_tensor(np.asarray(v)) for k, v in weights.items()})
    return net.eval()


class FixedAgentModule(RLModule):
    """A project agent as an untrained RLlib policy: a rule-based agent or a checkpoint's
    greedy policy deciding each row from its observation and action mask."""

    def setup(self) -> None:
        obs_size, num_actions = _space_sizes(self.observation_space, self.action_space)
        cfg = dict(self.model_config or {})
        rules = Rules.from_dict(dict(cfg["rules"], preset_name=None))
        if cfg.get("agent"):
            self.agent: Any = make_agent(str(cfg["agent"]), rules, seed=int(cfg.get("seed", 0)))
        else:
            net = PolicyNet(obs_size, num_actions, int(cfg["hidden"]))
            net.load_state_dict({k: torch.as_tensor(v) for k, v in cfg["weights"].items()})
            self.agent = PolicyAgent(net, rules)

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs, mask = _obs_and_mask(batch[Columns.OBS])
        actions = self.agent.act_batch(_numpy(obs, np.float32), _numpy(mask, np.int8))
        return {Columns.ACTIONS: np.asarray(actions, np.int64)}

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._forward_inference(batch, **kwargs)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError(
            "FixedAgentModule is not trainable: keep its module id out of policies_to_train"
        )


def _numpy(x: Any, dtype: Any) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    return np.asarray(x, dtype)


__all__ = ["FixedAgentModule", "MaskedPPOModule", "fixed_agent_config", "net_from_module_state",
           "policy_state"]
