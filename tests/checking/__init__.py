"""Checking records (``phantom_log.checking``): the examples and their golden reports,
bounded wording of problems."""
