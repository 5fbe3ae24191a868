"""The console script's first step, ``phantom-log``: Ctrl-C while the command line loads
(a quarter of a second of imports) ends the run as Ctrl-C during it does, with
``phantom-log: interrupted`` and exit 130, never a traceback of the import it cut."""

from __future__ import annotations

import os
import signal
from types import FrameType
from typing import NoReturn


def entry() -> NoReturn:
    """Load the command line with Ctrl-C ending the run quietly, then run it
    (:func:`phantom_log.cli.entry`)."""
    before = signal.signal(signal.SIGINT, _interrupted_while_loading)
    from .cli import entry as run

    signal.signal(signal.SIGINT, before)
    run()


def _interrupted_while_loading(_number: int, _frame: FrameType | None) -> None:
    # Nothing is written yet, so nothing to clean up: end at once.
    try:
        os.write(2, b"phantom-log: interrupted\n")
    finally:
        os._exit(130)
