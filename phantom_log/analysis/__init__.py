"""Analysis: the solver, the review of a game's decisions, the coach, the simulator."""
