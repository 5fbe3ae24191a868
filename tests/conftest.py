"""What every test may use: the build of the engine under test in pytest's header, and a
fresh working folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from phantom_log import engine_build


def pytest_report_header() -> str:
    # CI runs the suite twice, against the compiled engine and the pure-Python one.
    return f"phantom-log rules engine: {engine_build()}"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in a fresh folder, so that sources are named by their short relative paths."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
