"""Checking a record: the words of its problems, and the verdict."""
