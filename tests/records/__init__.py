"""Reading records (``phantom_log.records``): every input form, unreadable sources, the
schema against the pydantic models."""
