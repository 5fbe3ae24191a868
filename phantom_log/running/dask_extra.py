"""The ``dask`` extra (``pip install 'phantom-log[dask]'``): whether Dask, distributed and
fsspec are installed, and the error that says what to install when they are not. Nothing
here imports them."""

from __future__ import annotations

import importlib.util
from typing import Final

#: What to install for the cluster front (:mod:`phantom_log.running.cluster`).
INSTALL: Final = "pip install 'phantom-log[dask]'"


class ClusterUnavailable(RuntimeError):
    """Dask is not installed (the ``dask`` extra)."""


def cluster_installed() -> bool:
    """Whether Dask, distributed and fsspec can be imported (none is imported here)."""
    try:
        return all(
            importlib.util.find_spec(name) is not None for name in ("dask", "distributed", "fsspec")
        )
    except (ImportError, ValueError):
        return False


def require_cluster() -> None:
    """Raise :class:`ClusterUnavailable`, with what to install, unless the extra is."""
    if not cluster_installed():
        raise ClusterUnavailable(f"the cluster needs Dask, which is not installed: {INSTALL}")
