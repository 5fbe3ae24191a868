"""``python -m phantom_log``: the same as the ``phantom-log`` command."""

from .cli import main

if __name__ == "__main__":
    main(prog_name="phantom-log")
