"""The rules engine (``phantom_log.rules``): RULES.md as executable spec, laws over random
games, the state machine, the rulebook's worked example."""
