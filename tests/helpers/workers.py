"""Functions that the tests of ``phantom_log.running.pipeline`` give to worker processes,
each failing the way a real worker can: importable from the repository's root, so that a
test's own process, its workers and a separate interpreter all reach them."""

from __future__ import annotations

import os
import struct
import sys
import time


def die_on_three(item: int) -> int:
    if item == 3:
        os._exit(1)  # as if the out-of-memory killer took the worker
    return item


def half_a_result_then(item: int, end: str) -> int:
    """On item 0, the worker writes the start of a result message (a length, a few bytes of
    the result) into the pool's results pipe, then dies (or sleeps): as if it was killed
    while sending a large result."""
    if item == 0:
        # The pool's worker loop holds the results queue, a frame or two above this one.
        frame = sys._getframe(1)
        while "result_queue" not in frame.f_locals:
            assert frame.f_back is not None, "no pool worker loop above"
            frame = frame.f_back
        results = frame.f_locals["result_queue"]
        os.write(results._writer.fileno(), struct.pack("!i", 1_000_000) + b"\x80\x05" * 8)
        if end == "die":
            os._exit(1)
        time.sleep(600)
    return item
