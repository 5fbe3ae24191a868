"""How a run over many records fails as a whole, whichever engine runs it: a worker lost,
no record to read, a cluster that cannot run it, options it cannot take. Each record's own
failures are its problems, not these. Nothing here imports the engines."""

from __future__ import annotations


class WorkerLost(RuntimeError):
    """A worker process died (killed, or out of memory): the run cannot be completed.
    ``done`` is how many tasks were finished and given out before; ``during`` says when, as
    the run counts its work (``after 1,200 records``)."""

    def __init__(self, done: int, during: str | None = None) -> None:
        self.done = done
        self.during = during or f"after {done} chunks of records were done"
        super().__init__(f"a worker process died {self.during}")


class NoRecords(LookupError):
    """The paths of a run hold no record (or none that is selected)."""


class ClusterFailed(RuntimeError):
    """The cluster could not do the run: the scheduler cannot be reached, or a worker
    died (the run ends; its outputs are left as they were)."""


class RunRefused(ValueError):
    """What a run is asked to do cannot be done that way (on a cluster: standard input,
    a format other than its own); said before any work."""
