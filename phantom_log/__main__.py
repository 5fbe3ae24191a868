"""``python -m phantom_log``: the same as the ``phantom-log`` command."""

from .cli import entry

if __name__ == "__main__":
    entry()
