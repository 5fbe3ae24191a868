"""The outputs of a run refused before any work, each by what the file is (its device and
inode), never by its name: two outputs that are one file, an output that is one of the
run's inputs (with ``--force`` it would be written over, and the input lost), standard
output redirected to an input, a file of records written where the run reads records;
then each output that cannot be written. Each refusal is an :class:`~.outputs.OutputRefused`
naming the option."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Collection, Iterable, Sequence

from .outputs import OutputRefused, check_writable, is_standard_output
from .same_files import file_identity, folders_above, same_output

#: An output: the option that names it, and its path (``None``: not asked for).
NamedOutput = tuple[str, str | None]


def check_outputs(
    inputs: Sequence[str],
    outputs: Sequence[NamedOutput],
    record_suffixes: Collection[str],
    force: bool | None = None,
    beside: Sequence[NamedOutput] = (),
    records: bool = False,
) -> None:
    """Refuse, in this order: with ``records`` (the outputs are files of records), one not
    named as JSON Lines; two of ``outputs`` and ``beside`` (the run's other outputs) that
    are one file (``--games and --tricks are the same file: PATH``); an output that is one
    of ``inputs`` (:func:`refuse_inputs_as_outputs`); with ``records``, one that lies in an
    input folder, where the next run over it would read it as records; given ``force``, a
    file that cannot be written (:func:`~.outputs.check_writable`)."""
    named = [(option, path) for option, path in outputs if path and not is_standard_output(path)]
    for option, path in outputs if records else ():
        if path is not None and os.path.splitext(path)[1].lower() not in (".jsonl", ".ndjson"):
            raise OutputRefused(
                f"{option} {path}: the records are written as JSON Lines; "
                "give a .jsonl or .ndjson file"
            )
    compared = [*named, *((o, p) for o, p in beside if p and not is_standard_output(p))]
    for number, (option, path) in enumerate(compared):
        for other, other_path in compared[number + 1 :]:
            if same_output(path, other_path):
                raise OutputRefused(f"{option} and {other} are the same file: {path}")
    refuse_inputs_as_outputs(inputs, outputs, record_suffixes)
    for option, path in named if records else ():
        folders = {identity for identity, _ in folders_above(path)}
        for given in inputs:
            if given != "-" and os.path.isdir(given) and file_identity(given) in folders:
                raise OutputRefused(
                    f"{option} {path}: it is inside the input folder {given}, where it "
                    "would be read as records; write it elsewhere"
                )
    for _, path in named if force is not None else ():
        check_writable(path, bool(force))


def refuse_inputs_as_outputs(
    inputs: Iterable[str], outputs: Iterable[NamedOutput], record_suffixes: Collection[str]
) -> None:
    """Refuse an output that is one of the files the run reads: an input given, or a
    record file (ending in one of ``record_suffixes``) the run reads below an input folder,
    so that a link, a hard link or a bind mount is seen through. Standard output
    redirected to an input (``>> games.jsonl``) is refused too."""
    read = [path for path in inputs if not is_standard_output(path)]
    for option, path in outputs:
        if path is not None and not is_standard_output(path):
            reason = _read_as_input(path, read, record_suffixes)
            if reason is not None:
                raise OutputRefused(f"{option} {path}: {reason}; write it elsewhere")
    stdout = _standard_output_file()
    if stdout is not None:
        reason = _read_as_input(stdout, read, record_suffixes)
        if reason is not None:
            raise OutputRefused(
                f"standard output is redirected to a file that {reason.removeprefix('it ')}; "
                "write it elsewhere"
            )


def _read_as_input(path: str, inputs: list[str], record_suffixes: Collection[str]) -> str | None:
    """Why the output ``path`` is one of the ``inputs`` (``None`` when it is not): one of
    them by identity, or a record file below an input folder (hidden entries are not
    read, as the search for records leaves them out)."""
    identity = file_identity(path)
    if identity is None:  # nothing there yet: no input
        return None
    # The nearest folder wins, should a bind mount show one folder twice on the way.
    folders = dict(reversed(folders_above(path)))
    for given in inputs:
        found = file_identity(given)
        if found == identity:
            return "it is an input"
        below = None if found is None else folders.get(found)
        if (
            below is not None
            and os.path.splitext(below)[1].lower() in record_suffixes
            and not any(part.startswith(".") for part in below.split(os.sep))
        ):
            return f"it is an input (a record file below the input folder {given})"
    return None


def _standard_output_file() -> str | None:
    """A path to the file standard output is redirected to (``/dev/fd/1``, which the
    system resolves to it), when it is a regular file; ``None`` for a terminal, a pipe,
    a device, or no descriptor at all."""
    try:
        descriptor = sys.stdout.fileno()
        status = os.fstat(descriptor)
    except (AttributeError, OSError, ValueError):
        return None
    return f"/dev/fd/{descriptor}" if stat.S_ISREG(status.st_mode) else None
