"""phantom-log's metadata as an installer leaves it, for the tests of what the command
line says to install an extra."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def installed_from(folder: Path, direct_url: dict[str, Any] | None) -> Path:
    """A phantom-log distribution as pip leaves it in ``folder`` (its metadata, and its
    ``direct_url.json`` when installed from a URL), to put first on ``sys.path``."""
    info = folder / "phantom_log-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: phantom-log\nVersion: 1.0\nProvides-Extra: plot\n"
        'Requires-Dist: click>=8.1\nRequires-Dist: matplotlib>=3.8; extra == "plot"\n',
        encoding="utf-8",
    )
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url), encoding="utf-8")
    return folder
