"""What to type to add an extra (``plot``, ``dask``) to this installation: the command
depends on where phantom-log was installed from, which pip records in the installed
package's ``direct_url.json`` (PEP 610). Nothing here imports an extra."""

from __future__ import annotations

import json
import shlex
from importlib import metadata
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlparse

DISTRIBUTION: Final = "phantom-log"


def install_command(extra: str) -> str:
    """The pip command that adds ``extra``:

    - installed from a folder (a checkout): ``pip install '/the/checkout[extra]'``, with
      ``-e`` for an editable install (``pip install -e .``), since the package index's
      name would fetch another copy, or none;
    - installed from another URL (a Git repository, an archive): the extra's own
      requirements, which pip can add whatever phantom-log came from;
    - installed from the package index: ``pip install 'phantom-log[extra]'``;
    - not installed (run from a source tree on ``PYTHONPATH``): the editable install of
      that tree, when it is a checkout (it holds ``pyproject.toml``)."""
    try:
        distribution = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return _from_source_tree(extra)
    direct = _direct_url(distribution)
    if direct is None:
        return "pip install " + shlex.quote(f"{DISTRIBUTION}[{extra}]")
    url, editable = direct
    parsed = urlparse(url)
    if parsed.scheme == "file" and editable is not None:
        folder = unquote(parsed.path)
        return "pip install " + ("-e " if editable else "") + shlex.quote(f"{folder}[{extra}]")
    requirements = _extra_requirements(distribution, extra)
    if requirements:
        return "pip install " + " ".join(shlex.quote(item) for item in requirements)
    return "pip install " + shlex.quote(f"{DISTRIBUTION}[{extra}] @ {url}")


def _direct_url(distribution: metadata.Distribution) -> tuple[str, bool | None] | None:
    """The URL phantom-log was installed from, and for a folder whether the install is
    editable (``None`` for an archive or a repository); ``None`` for the package index (no
    ``direct_url.json``, or one that cannot be read)."""
    text = distribution.read_text("direct_url.json")
    if text is None:
        return None
    try:
        direct = json.loads(text)
    except ValueError:
        return None
    if not isinstance(direct, dict) or not isinstance(direct.get("url"), str):
        return None
    folder = direct.get("dir_info")
    editable = bool(folder.get("editable", False)) if isinstance(folder, dict) else None
    return direct["url"], editable


def _extra_requirements(distribution: metadata.Distribution, extra: str) -> list[str]:
    """The requirements ``extra`` adds, as the installed metadata lists them."""
    marker = f'extra == "{extra}"'
    found = []
    for requirement in distribution.requires or []:
        name, _, condition = requirement.partition(";")
        if condition.strip() == marker:
            found.append(name.strip())
    return found


def _from_source_tree(extra: str) -> str:
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file():
        return "pip install -e " + shlex.quote(f"{root}[{extra}]")
    return "pip install " + shlex.quote(f"{DISTRIBUTION}[{extra}]")
