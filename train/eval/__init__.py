"""Evaluation: tournaments between agents and their statistics, tables and plots.

* :mod:`train.eval.stats`: per-deal t intervals, head to head, ratings (:func:`summarize`);
* :mod:`train.eval.tournament`: duplicate tournaments at a batched table
  (:func:`run_tournament`) and the benchmark of a policy against the baselines
  (:func:`evaluate_policy`);
* :mod:`train.eval.report`: markdown tables, result files and plots.

The command lines are ``python -m train.tournament`` and ``python -m train.evaluate``.
"""
