"""The ``plot`` extra missing, in a real process: ``stats --plot`` exits 2 before reading a
record, with one line naming a pip command that works where this phantom-log was
installed from (pip's record of it, ``direct_url.json``, found on the real ``sys.path``):
the checkout's folder, or the package index's name. matplotlib is hidden from the
process as an environment without it would be: its import finds nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import EXAMPLES, REPO

# The console script's entry, in a process where matplotlib cannot be imported.
WITHOUT_MATPLOTLIB = (
    "import sys; sys.modules['matplotlib'] = None; "
    "from phantom_log.cli import entry; sys.argv[0] = 'phantom-log'; entry()"
)


def pip_installed(site: Path, direct_url: dict[str, object] | None) -> Path:
    """phantom-log's metadata as pip writes it into ``site``."""
    info = site / "phantom_log-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: phantom-log\nVersion: 1.0\nProvides-Extra: plot\n"
        'Requires-Dist: matplotlib>=3.8; extra == "plot"\n',
        encoding="utf-8",
    )
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url), encoding="utf-8")
    return site


@pytest.mark.parametrize(
    ("direct_url", "command"),
    [
        (
            {"url": "file:///srv/src/phantom-log", "dir_info": {}},
            "pip install '/srv/src/phantom-log[plot]'",
        ),
        (
            {"url": "file:///srv/src/phantom-log", "dir_info": {"editable": True}},
            "pip install -e '/srv/src/phantom-log[plot]'",
        ),
        (None, "pip install 'phantom-log[plot]'"),
    ],
    ids=["checkout", "editable-checkout", "package-index"],
)
def test_the_hint_names_what_works_for_this_installation(
    tmp_path: Path, direct_url: dict[str, object] | None, command: str
) -> None:
    site = pip_installed(tmp_path / "site", direct_url)
    plot = tmp_path / "curve.svg"
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_MATPLOTLIB, "stats", str(EXAMPLES), "--plot", str(plot)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])},
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"phantom-log: error: --plot draws with matplotlib, which is not installed: {command}\n"
    )
    assert not plot.exists()
