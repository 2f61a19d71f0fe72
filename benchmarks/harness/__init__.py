"""The side-by-side benchmark harness (see benchmarks/run.py).

- ``matrix``: the scenarios, their counts and the ``--only`` filter;
- ``procs``: running one scenario as separate processes, with a timeout;
- ``load``: background-load gating and accounting;
- ``machine``: what the run ran on;
- ``summary``: medians, ratios and targets from the raw attempts;
- ``report`` and ``charts``: docs/benchmarks.md and docs/img/*.png.
"""
