"""Masked PPO: sampling, advantages (GAE) and the clipped update, shared by the trainers.

* :func:`sample`: actions, log-probabilities and values of the policy for a batch of games;
* :func:`gae`: GAE along each game's chain of steps (one learner per game, ``train.ppo_pool``);
* :func:`seat_gae`: GAE along each (game, seat) chain of decisions, where the seats of one game
  take turns and a seat's reward may arrive while others act (``train.selfplay_ppo``);
* :func:`ppo_update`: the epochs of minibatch updates on a :class:`Batch` (clipped policy loss,
  value loss, entropy of the legal actions, gradient clipping); returns the last minibatch's
  losses and approximate KL;
* :func:`anneal` sets the learning rate of an update (linear to 0).

``sample`` and ``ppo_update`` take ``shards`` (a :class:`~train.common.threads.Shards`, for
``--threads`` above 1): the forward, and each minibatch's gradient, are then computed in fixed
slices of rows on several threads (see :mod:`train.common.threads`); without it (``--threads
1``) they are computed whole, as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agents.policy import PolicyNet
from president_env.extras import missing_extra
from train.common.args import PPOArgs
from train.common.threads import Shards, add_in_order

try:
    import torch
    from torch import nn
except ImportError:
    raise missing_extra("torch", "train", "train.common.ppo") from None


def anneal(opt: torch.optim.Optimizer, lr: float, update: int, updates: int) -> None:
    """Learning rate of update ``update`` (1-based) of ``updates``: linear from ``lr`` to 0."""
    frac = 1.0 - (update - 1) / updates
    for g in opt.param_groups:
        g["lr"] = lr * frac


@torch.no_grad()
def sample(
    net: PolicyNet, obs: torch.Tensor, mask: torch.Tensor, shards: Shards | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(action, log-probability, value)`` per row, the actions sampled from the policy (the
    forward in ``shards``' slices when given, the sampling one call over all rows)."""
    logits, value = net(obs, mask) if shards is None else shards.forward(net, obs, mask)
    dist = torch.distributions.Categorical(logits=logits)
    action = dist.sample()
    return action, dist.log_prob(action), value


def gae(
    rewards: torch.Tensor,
    dones: torch.Tensor,
    values: torch.Tensor,
    next_value: torch.Tensor,
    gamma: float,
    lam: float,
) -> torch.Tensor:
    """GAE ``[T, B]`` of one chain per game: ``rewards``/``dones``/``values`` ``[T, B]`` (step t
    ended the episode: no bootstrap across it), ``next_value [B]`` after the last step."""
    T = rewards.shape[0]
    adv = torch.zeros_like(values)
    last = torch.zeros_like(next_value)
    for t in reversed(range(T)):
        nv = next_value if t == T - 1 else values[t + 1]
        nonterm = 1.0 - dones[t]
        delta = rewards[t] + gamma * nv * nonterm - values[t]
        last = delta + gamma * lam * nonterm * last
        adv[t] = last
    return adv


def seat_gae(
    rewards: torch.Tensor,
    dones: torch.Tensor,
    values: torch.Tensor,
    seats: torch.Tensor,
    live: torch.Tensor,
    last_values: torch.Tensor,
    gamma: float,
    lam: float,
) -> torch.Tensor:
    """GAE along each (game, seat) chain of live decisions; ``[T, B]``, 0 on other rows.

    ``rewards [T, B, P]`` (every seat's reward from step t), ``dones [T, B]`` (step t ended
    the game; the game is dealt again in the same step), ``values``/``seats``/``live``
    ``[T, B]`` (value estimate, seat to act and whether the live policy decided at step t),
    ``last_values [B, P]``: every seat's value in the state after the last step. Going
    backwards, ``acc`` gathers each seat's rewards until that seat's previous live decision
    is reached, so a reward that arrives while other seats act goes to the right decision.
    """
    T, B, P = rewards.shape
    rows = torch.arange(B, device=rewards.device)
    next_val = last_values.clone()
    next_adv = torch.zeros_like(next_val)
    acc = torch.zeros_like(next_val)
    adv = torch.zeros((T, B), dtype=values.dtype, device=values.device)
    for t in reversed(range(T)):
        keep = (~dones[t].bool()).to(next_val.dtype)[:, None]
        next_val = next_val * keep  # the finished game's chains do not continue
        next_adv = next_adv * keep
        acc = acc * keep + rewards[t]
        p = seats[t].clamp(min=0).long()
        on = live[t].bool()
        nv, na, r = next_val[rows, p], next_adv[rows, p], acc[rows, p]
        delta = r + gamma * nv - values[t]
        a = delta + gamma * lam * na
        adv[t] = torch.where(on, a, torch.zeros_like(a))
        next_val[rows, p] = torch.where(on, values[t], nv)
        next_adv[rows, p] = torch.where(on, a, na)
        acc[rows, p] = torch.where(on, torch.zeros_like(r), r)
    return adv


@dataclass
class Batch:
    """The transitions of one update, flat ``[N, ...]`` tensors on the training device."""

    obs: torch.Tensor
    mask: torch.Tensor
    action: torch.Tensor
    logp: torch.Tensor
    adv: torch.Tensor
    ret: torch.Tensor

    def __len__(self) -> int:
        return int(self.action.shape[0])


def ppo_update(
    net: PolicyNet,
    opt: torch.optim.Optimizer,
    b: Batch,
    args: PPOArgs,
    adv_ddof: int = 1,
    shards: Shards | None = None,
) -> tuple[float, float, float, float]:
    """``args.epochs`` passes of ``args.minibatches`` clipped PPO steps over ``b``:
    ``(policy loss, value loss, entropy, approximate KL)`` of the last minibatch.

    Advantages are normalized per minibatch (standard deviation with ``adv_ddof`` degrees of
    freedom removed: 1 in ``train.ppo_pool``, 0 in ``train.selfplay_ppo``). With ``shards``
    each minibatch's gradient is the sum of its slices' (:func:`sliced_step`).
    """
    if shards is not None:
        return _sliced_update(net, opt, b, args, adv_ddof, shards)
    net.train()
    pl = vl = ent = kl = 0.0
    for j in _minibatches(len(b), args, b.obs.device):
        logits, v = net(b.obs[j], b.mask[j])
        dist = torch.distributions.Categorical(logits=logits)
        ratio = torch.exp(dist.log_prob(b.action[j]) - b.logp[j])
        a = b.adv[j]
        a = (a - a.mean()) / (a.std(correction=adv_ddof) + 1e-8)
        p_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
        v_loss = 0.5 * ((v - b.ret[j]) ** 2).mean()
        entropy = masked_entropy(logits, b.mask[j])
        loss = p_loss + args.vf_coef * v_loss - args.ent_coef * entropy
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
        opt.step()
        with torch.no_grad():
            kl = float(((ratio - 1) - torch.log(ratio)).mean())
        pl, vl, ent = p_loss.item(), v_loss.item(), entropy.item()
    net.eval()
    return pl, vl, ent, kl


def _minibatches(n: int, args: PPOArgs, device: torch.device) -> Iterator[torch.Tensor]:
    """The row indices of every minibatch of an update: per epoch a random permutation of the
    ``n`` rows cut into ``args.minibatches`` pieces of ``n // minibatches`` (the remainder is
    left out of that epoch)."""
    mb = max(1, n // args.minibatches)
    for _ in range(args.epochs):
        perm = torch.randperm(n, device=device)
        for i in range(args.minibatches):
            j = perm[i * mb : (i + 1) * mb]
            if len(j) == 0:
                break
            yield j


def masked_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean entropy of the policies over their legal actions."""
    logp = torch.log_softmax(logits, -1)
    p = logp.exp()
    return -(torch.where(mask, p * logp, torch.zeros_like(p))).sum(-1).mean()


def _sliced_update(
    net: PolicyNet, opt: torch.optim.Optimizer, b: Batch, args: PPOArgs, adv_ddof: int,
    shards: Shards,
) -> tuple[float, float, float, float]:
    """:func:`ppo_update` with each minibatch's step by :func:`sliced_step` (same minibatches,
    same random permutations)."""
    net.train()
    out = torch.zeros(4)  # as ppo_update without minibatches
    for j in _minibatches(len(b), args, b.obs.device):
        out = sliced_step(net, opt, b, j, args, adv_ddof, shards)
    net.eval()
    pl, vl, ent, kl = out.tolist()
    return pl, vl, ent, kl


def sliced_step(
    net: PolicyNet, opt: torch.optim.Optimizer, b: Batch, j: torch.Tensor, args: PPOArgs,
    adv_ddof: int, shards: Shards,
) -> torch.Tensor:
    """One clipped PPO step on the rows ``j`` of ``b``, its gradient added up from the
    slices of ``j`` (each slice's share of the minibatch's mean losses, differentiated on its
    own, on ``shards``' threads or serially); ``[policy loss, value loss, entropy, KL]``.

    The log-probabilities are one ``log_softmax`` shared by the ratio and the entropy (no
    ``Categorical``, whose checks and second normalisation cost more than the second slice:
    serially, this step ran 6% faster than :func:`ppo_update`'s unsliced one, 231-248 against
    251-264 ms per 16,384 rows of the 251-256-256-53 network, so the one-thread fallback of
    ``--threads 2`` is not slower than ``--threads 1``)."""
    a = b.adv[j]
    a = (a - a.mean()) / (a.std(correction=adv_ddof) + 1e-8)
    params = [p for p in net.parameters() if p.requires_grad]
    n = len(j)

    def part(s: slice) -> tuple[list[torch.Tensor], torch.Tensor]:
        k = j[s]
        logits, v = net(b.obs[k], b.mask[k])
        logp = torch.log_softmax(logits, -1)  # once, for the ratio and the entropy
        ratio = torch.exp(logp.gather(1, b.action[k].unsqueeze(1)).squeeze(1) - b.logp[k])
        ak = a[s]
        p_loss = torch.max(-ak * ratio, -ak * ratio.clamp(1 - args.clip, 1 + args.clip)).sum() / n
        v_loss = 0.5 * ((v - b.ret[k]) ** 2).sum() / n
        entropy = -(logp.exp() * logp).masked_fill(~b.mask[k], 0.0).sum() / n
        loss = p_loss + args.vf_coef * v_loss - args.ent_coef * entropy
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            kl = ((ratio - 1) - torch.log(ratio)).sum() / n
            return list(grads), torch.stack([p_loss, v_loss, entropy, kl]).detach()

    parts = shards.map(part, n, shards.update)
    for p, g in zip(params, add_in_order([g for g, _ in parts])):
        p.grad = g
    nn.utils.clip_grad_norm_(params, args.max_grad_norm)
    opt.step()
    return add_in_order([[m] for _, m in parts])[0]
