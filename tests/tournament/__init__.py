"""``phantom-log tournament check`` (``phantom_log.tournament``) and the identity of game
ids and players it compares."""
