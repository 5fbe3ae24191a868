"""Tables and statistics (``phantom_log.tabular``): ``export``, ``stats`` and batch
checking."""
