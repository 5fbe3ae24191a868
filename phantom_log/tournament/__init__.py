"""Checks across the records of a tournament, the manifest and the standings."""
