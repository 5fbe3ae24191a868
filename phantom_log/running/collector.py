"""The cyclic garbage collector during work over many records.

Each record makes and drops a few hundred objects (its parsed JSON, its model, its
replay), none in a cycle that outlives it, so the collector's default (a collection every
700 allocations, and the older generations looked through ever more often as records are
kept) spends more time looking for cycles there are not than the work itself takes: with
it, loading and replaying 5,000 records in the API took four times as long.

The command line's processes set the collector for the whole run
(:func:`tune_collector_for_a_run`); the library sets it only while its own work runs
(:func:`collector_for_records`) and gives it back as it was before returning to the
caller's code.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

# The collector's first threshold for work over many records. Measured in
# benchmarks/bench_corpus.py (the command line) and benchmarks/bench_api.py (the API).
RUN_COLLECTOR_THRESHOLD: Final = 100_000


def tune_collector_for_a_run() -> None:
    """Set this process's garbage collector for a run over many records: what is loaded
    so far (modules, schemas, sheets) is moved out of its sight for good (``gc.freeze``),
    and it runs less often. A command line's process and its workers call this; the
    library only uses :func:`collector_for_records`."""
    gc.freeze()
    _, second, third = gc.get_threshold()
    gc.set_threshold(RUN_COLLECTOR_THRESHOLD, second, third)


@contextmanager
def collector_for_records() -> Iterator[None]:
    """The collector's first threshold raised to :data:`RUN_COLLECTOR_THRESHOLD` while a
    stretch of phantom-log's own work runs (a chunk of records read and checked, a record
    replayed), then set back to what it was, even when the work raises. The collector
    still runs (more rarely); one that is disabled, or already set as high, is left alone,
    so that these stretches may nest. The threshold is the process's: a thread running
    meanwhile sees it too."""
    first, second, third = gc.get_threshold()
    if first == 0 or first >= RUN_COLLECTOR_THRESHOLD:
        yield
        return
    gc.set_threshold(RUN_COLLECTOR_THRESHOLD, second, third)
    try:
        yield
    finally:
        gc.set_threshold(first, second, third)
