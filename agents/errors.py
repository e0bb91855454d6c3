"""The errors of the agents' layer, in one place: :class:`CheckpointError` for a policy file
that cannot be used (missing, corrupt, foreign, or trained for other rules)."""

from __future__ import annotations


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used (missing, corrupt, wrong format or rules)."""
