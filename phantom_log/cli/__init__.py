"""The ``phantom-log`` command line."""

from .commands import entry, main

__all__ = ["entry", "main"]
