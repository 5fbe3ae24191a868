"""The public Python API (``phantom_log.api``, ``phantom_log.positions``)."""
