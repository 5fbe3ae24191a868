"""Rewrite the outputs of the command examples of README.md and docs/*.md with what the
commands print now.

    python scripts/update_readme.py

Every line starting with ``$ phantom-log`` in a ``console`` block of the documents
tests/docs/test_readme.py runs (the README, and docs/ but for the generated docs/cli.md) is
run as that test runs it (from the repository's root, output files in a scratch folder)
and the lines below it, up to the block's end or the next ``$`` line, are replaced by its
output. Review the diff before committing it.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.docs.test_readme import DOCUMENTS, SCRATCH, run_pipeline  # noqa: E402

BLOCK = re.compile(r"(```console\n)(.*?)(```)", re.DOTALL)


def rewrite(body: str) -> str:
    lines = body.splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        out.append(line)
        index += 1
        if line.startswith("$ phantom-log"):
            while index < len(lines) and not lines[index].startswith("$ "):
                index += 1
            out.extend(run_pipeline(line[2:]).rstrip("\n").splitlines())
    return "\n".join(out) + "\n"


def main() -> None:
    texts = {document: document.read_text(encoding="utf-8") for document in DOCUMENTS}
    with tempfile.TemporaryDirectory() as scratch:
        for name in ("examples", "schemas"):
            (Path(scratch) / name).symlink_to(REPO / name)
        (Path(scratch) / SCRATCH).mkdir()
        os.chdir(scratch)
        for document, text in texts.items():
            texts[document] = BLOCK.sub(lambda match: match[1] + rewrite(match[2]) + match[3], text)
    for document, text in texts.items():
        document.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
