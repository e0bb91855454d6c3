"""Average policies into one checkpoint: an ensemble that every reader of a checkpoint plays.

    python -m train.ensemble runs/a/policy.pt,runs/b/policy.pt,runs/c/policy.pt \
        --out runs/ensemble/policy.pt

The members (checkpoints of the same rules, the same observation, any widths) sit side by side
in one :class:`agents.policy.PolicyNet` as wide as all of them together
(:func:`agents.policy.average_nets`): its logits and value are the mean of the members', so the
greedy policy plays the action of the best mean. Fits of ``train.lookahead`` regress the value
of every action; their errors differ from one fit to another, and averaging fits of other
labels (another run, or other rounds) cancels part of them: three lookahead policies, each
2.215-2.232 against three Hard, average to 2.166 (``docs/agents_results.md``). Fits of the same
labels from other seeds do not help (2.216). ``--weights 2,1`` weights the members' logits
(the union file at 2 and the league file at 1: 2.146, between their 2.135 and 2.226).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agents.policy import PolicyNet, average_nets, load_policy, save_policy, weight_shares
from president_env.cli import REQUIRED, arg, output_file, parse, user_errors


@dataclass
class Args:
    members: tuple[str, ...] = arg(REQUIRED)
    """Checkpoints to average (agents.policy format), comma-separated."""
    out: str = arg("runs/ensemble/policy.pt", output_file)
    """The averaged checkpoint to write (missing folders are made)."""
    weights: tuple[float, ...] = ()
    """Weights of the members (positive, one per member, comma-separated; normalised to sum to
    1): a weighted mean instead of the plain one."""

    def check(self) -> None:
        if len(self.members) < 2:
            raise ValueError(f"expected at least two checkpoints to average, got {self.members}")
        if self.weights:
            weight_shares(self.weights, len(self.members))


def merge(paths: list[str], out: str, weights: Sequence[float] | None = None) -> PolicyNet:
    """Write the average of the checkpoints ``paths`` (all trained for the rules of the first:
    a CheckpointError otherwise), weighted by ``weights`` if given, to ``out``; the averaged
    network."""
    net, rules, _ = load_policy(paths[0])
    avg = average_nets([net] + [load_policy(p, rules)[0] for p in paths[1:]], weights)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    meta = {"trainer": "train.ensemble", "members": list(paths),
            "weights": None if weights is None else [float(w) for w in weights]}
    save_policy(out, avg, rules, meta=meta)
    return avg


def main(argv: list[str] | None = None) -> None:
    args = parse(Args, argv, prog="python -m train.ensemble")
    with user_errors():
        merge(list(args.members), args.out, args.weights or None)
    print(f"{len(args.members)} policies averaged into {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
