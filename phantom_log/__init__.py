"""phantom-log: verify, annotate and analyse records of The Phantom of the Opera card game."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("phantom-log")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
