"""The ``plot`` extra missing, in a real process: ``stats --plot`` exits 2 before reading a
record, with one line naming a pip command that works where this phantom-log was
installed from (pip's record of it, ``direct_url.json``, found on the real ``sys.path``):
the checkout's folder, or the package index's name. matplotlib is hidden from the
process as an environment without it would be: its import finds nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.installs import installed_from
from tests.helpers.paths import EXAMPLES, REPO

# The console script's entry, in a process where matplotlib cannot be imported.
WITHOUT_MATPLOTLIB = (
    "import sys; sys.modules['matplotlib'] = None; "
    "from phantom_log.cli import entry; sys.argv[0] = 'phantom-log'; entry()"
)


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
    site = installed_from(tmp_path / "site", direct_url)
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


def test_a_builds_egg_info_in_the_way_does_not_hide_the_installed_metadata(
    tmp_path: Path,
) -> None:
    # Python run from a checkout finds the build's phantom_log.egg-info there first; the
    # installer's .dist-info still says where phantom-log came from.
    site = installed_from(
        tmp_path / "site", {"url": "file:///srv/src/phantom-log", "dir_info": {"editable": True}}
    )
    build = tmp_path / "checkout" / "phantom_log.egg-info"
    build.mkdir(parents=True)
    (build / "PKG-INFO").write_text(
        "Metadata-Version: 2.1\nName: phantom-log\nVersion: 1.0\n", encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_MATPLOTLIB, "stats", str(EXAMPLES), "--plot", "c.svg"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path / "checkout",
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])},
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.endswith(": pip install -e '/srv/src/phantom-log[plot]'\n"), done.stderr
