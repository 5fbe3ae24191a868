"""``python -m phantom_log``: the same as the ``phantom-log`` command."""

from .console import entry

if __name__ == "__main__":
    entry()
