"""Lookahead distillation: a network regresses the value of every legal action as a one-step
lookahead that sees all the hands would measure it, and plays from its own observation. The
recipe that made ``agents/pretrained/lookahead.pt`` is one command, ``python -m
train.lookahead`` (:mod:`train.lookahead.args`: its options and stages).

* :mod:`train.lookahead.collect`: label collection (:class:`~train.lookahead.collect.Collection`:
  who plays, who is labelled, who plays on in the rollouts);
* :mod:`train.lookahead.labels`: the labels on disk, and a network's regret on them;
* :mod:`train.lookahead.fit`: a fit on labels (:class:`~train.lookahead.fit.Fit`), and the
  average of fits;
* :mod:`train.lookahead.stages`: the stages of the recipe (rounds, lineages, union fits,
  league rounds, member rounds), recorded by :mod:`train.lookahead.record` (``rounds.csv``,
  ``rounds.png``);
* :mod:`train.lookahead.args`: the command's options; ``__main__``: the command.

Why it plays well: a network that sees only its observation ``o`` and regresses these labels
learns their mean over the hands consistent with ``o``, weighted by how often those hands occur
against these opponents: the determinized Monte-Carlo value of :class:`agents.ExpertAgent`,
with the true belief instead of a sampled one, learnt once instead of searched at every
decision. The hidden hands reach the labels only, never the network's input (as in the oracle
guiding of Suphx). With a policy playing on in the rollouts, the labels are that policy's own
action values: one step of policy iteration from it.
"""
