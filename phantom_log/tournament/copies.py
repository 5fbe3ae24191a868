"""Which records of a tournament may be copies of one another, and the digests of their
contents, made from their texts read again.

A worker gives a record read from a regular file the place of its text instead of the
digest of its content: the digest costs about as much as the replay, and nearly every
record is nobody's copy. A copy deals
exactly as its original does (the same content, so the same replay), so a record whose
first deal no other record repeats is no copy, and none is a copy of it. For the others
alone, the text is read again where it was read, and digested as the worker would have.

A file that changed since it was read (another file in its place, or the same one written
to) cannot give back the text that was checked: each of its records that needed a
digest is ``unreadable`` (an error: the run could not do all its work), and is compared
with no other.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Iterator
from typing import Final, NamedTuple

from ..records.chunks import FileChanged, TextFile, read_again
from ..records.strictjson import JsonError, parse_json
from ..records.unreadable import error_reason
from ..rules.problems import Code, Severity
from .columns import repeated
from .cross_checks import TournamentProblem
from .facts import DEAL_SLOTS, FactsTable, content_digest


class TextToRead(NamedTuple):
    """A record whose digest is to be made: its position in the table, and where its text
    is (``length`` bytes ``offset`` bytes into ``file``)."""

    position: int
    file: TextFile
    offset: int
    length: int


#: The most records read again as one task (a worker's, with more than one job).
TEXTS_PER_TASK: Final = 2048


def texts_to_read(table: FactsTable) -> Iterator[list[TextToRead]]:
    """The records of ``table`` whose digest is still to be made and which another record
    may copy (their first deal repeated), in tasks of at most :data:`TEXTS_PER_TASK`
    records, file by file and in the order of their places in each; each task made as it
    is taken."""
    shared_first_deal = repeated(table.deals, table.deal_counts, every=DEAL_SLOTS)
    file_ids, offsets = table.text_file_ids, table.text_offsets
    wanted = array(
        "Q",
        sorted(
            (
                position
                for position in shared_first_deal
                if file_ids[position] and not table.has_content[position]
            ),
            key=lambda position: file_ids[position] << 64 | offsets[position],
        ),
    )
    del shared_first_deal
    task: list[TextToRead] = []
    for position in wanted:
        file, offset, length = table.text_at(position)
        assert file is not None  # it has a file
        if len(task) == TEXTS_PER_TASK:
            yield task
            task = []
        task.append(TextToRead(position, file, offset, length))
    if task:
        yield task


def read_digests(task: list[TextToRead]) -> list[bytes | str]:
    """The digest of each record's content (what
    :func:`~phantom_log.tournament.facts.content_digest` made of it as it was checked),
    from its text read again; or, for a record whose text cannot be, why not. Each file
    is opened once for the records of the task it holds."""
    digests: list[bytes | str] = []
    for file, in_file in itertools.groupby(task, key=lambda text: text.file):
        places = [(text.offset, text.length) for text in in_file]
        try:
            texts = read_again(file, places)
        except FileChanged:
            digests += ["its file changed after it was read"] * len(places)
        except OSError as error:
            digests += [f"its file cannot be read again ({error_reason(error)})"] * len(places)
        else:
            digests += map(_digest, texts)
    return digests


def _digest(text: bytes) -> bytes | str:
    try:
        value = parse_json(text)
    except JsonError:
        value = None
    if not isinstance(value, dict):
        # The file was the same to the system, but not its bytes: written to within the
        # same instant, at the same size.
        return "its text in the file is no longer the one that was checked"
    return content_digest(value)


def hold_digests(
    table: FactsTable, task: list[TextToRead], digests: list[bytes | str]
) -> Iterator[TournamentProblem]:
    """Put the digests :func:`read_digests` made of a task's records into ``table``; an
    ``unreadable`` problem for each record whose text could not be read again."""
    for text, digest in zip(task, digests, strict=True):
        if isinstance(digest, bytes):
            table.set_content(text.position, digest)
            continue
        source, index = table.place(text.position)
        yield TournamentProblem(
            source,
            index,
            table.game_ids[text.position],
            Code.UNREADABLE.value,
            Severity.ERROR,
            f"the record could not be compared with the records that deal as it does: "
            f"{digest} (check the event again once nothing writes to its files)",
        )
