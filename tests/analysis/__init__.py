"""Analysis (``phantom_log.analysis``): the solver, post-game decisions, the simulator and
its balance table."""
