"""Copies are found by the digests of the records that may be copies alone
(:mod:`phantom_log.tournament.copies`): a record read from a regular file, whose replay
dealt, says where its text is; its digest is made from that text read again only when
another record shares its first deal. Copies are found as before in every form of input
and on any number of jobs; a file that changed in between is said, never trusted."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import phantom_log.tournament.facts as facts_module
from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.cli import main
from phantom_log.records.chunks import FileChanged, TextFile, read_again
from phantom_log.rules.engine import Rules
from phantom_log.rules.sheets import RULEBOOK_SHEET
from phantom_log.running.outcomes import Options
from phantom_log.running.pipeline import digest_possible_copies, verify_batches
from phantom_log.tournament.copies import TEXTS_PER_TASK, texts_to_read
from phantom_log.tournament.facts import FactsTable

Record = dict[str, Any]

SIMULATION = Simulation(RULEBOOK_SHEET, Rules(), seed=21)


def games(count: int, first: int = 1) -> list[Record]:
    """Simulated games, each with players and an event."""
    records = []
    for number in range(first, first + count):
        record = simulate_game(SIMULATION, number)
        record["players"] = {"phantom": f"P{number}", "christine": f"C{number}"}
        record["event"] = "Copies Open"
        records.append(record)
    return records


def copied(record: Record, game_id: str) -> Record:
    return dict(copy.deepcopy(record), game_id=game_id)


def lines(records: list[Record]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def check(*args: str, stdin: str | None = None) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        main, ["tournament", "check", "--format", "json", *args], input=stdin
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def copies_found(document: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [
        (problem["source"], problem["index"], problem["message"])
        for problem in document["problems"]
        if problem["code"] == "duplicate-record"
    ]


def facts_table(paths: list[str], jobs: int = 1) -> FactsTable:
    """The facts of the records of ``paths``, as ``tournament check`` gathers them."""
    table = FactsTable()
    for batch in verify_batches(paths, Options(output="facts", quiet=True), jobs):
        assert batch.facts is not None
        table.extend(batch.facts)
    return table


def count_digests(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one for each content digest made in this process."""
    made: list[int] = []
    real = facts_module.content_digest

    def counted(record: dict[str, Any]) -> bytes:
        made.append(1)
        return real(record)

    monkeypatch.setattr(facts_module, "content_digest", counted)
    monkeypatch.setattr("phantom_log.tournament.copies.content_digest", counted)
    return made


def test_only_the_records_that_share_a_first_deal_are_digested(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten records of a file, one of them copied into another file, one refused by the
    schema: the original and its copy are digested (their texts read again), and so is the
    refused record (no replay dealt it, so its deals cannot tell); no other record is."""
    records = games(10)
    refused = dict(copy.deepcopy(records[4]), players="nobody")
    (here / "a.jsonl").write_text(lines([*records, refused]), encoding="utf-8")
    (here / "b.json").write_text(json.dumps(copied(records[2], "copy")), encoding="utf-8")
    made = count_digests(monkeypatch)
    code, document = check("--jobs", "1", "a.jsonl", "b.json")
    assert code == 1  # the refused record
    assert copies_found(document) == [
        (
            "b.json",
            0,
            f"the same record as a.jsonl#2 ({records[2]['game_id']}), apart from the game id",
        )
    ]
    assert len(made) == 3


def test_records_of_standard_input_and_of_game_texts_are_digested_as_they_are_checked(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither can be read again: their digests are made at once (and a copy between one
    and a file is found all the same)."""
    records = games(3)
    (here / "a.jsonl").write_text(lines(records), encoding="utf-8")
    made = count_digests(monkeypatch)
    code, document = check("--jobs", "1", "a.jsonl", "-", stdin=lines([copied(records[1], "s")]))
    assert code == 0
    assert copies_found(document) == [
        ("-", 0, f"the same record as a.jsonl#1 ({records[1]['game_id']}), apart from the game id")
    ]
    assert len(made) == 2  # the record of standard input, then a.jsonl#1 read again


@pytest.mark.parametrize("jobs", [1, 2])
def test_copies_are_found_in_every_form_of_input(here: Path, jobs: int) -> None:
    """The original in JSON Lines; copies in an array, a one-record file, JSON Lines
    starting with a byte order mark (read line by line, not as spans), pretty-printed with
    its keys in another order, and on standard input; and a record that shares the
    original's deals but is no copy (another result claimed)."""
    records = games(12)
    original = records[5]
    (here / "a.jsonl").write_text(lines(records), encoding="utf-8")
    array = [*games(3, first=40), copied(original, "in-array"), *games(2, first=50)]
    (here / "b.json").write_text(json.dumps(array, indent=1), encoding="utf-8")
    reordered = {key: original[key] for key in reversed(list(original))}
    (here / "c.json").write_text(json.dumps(dict(reordered, game_id="one"), indent=3), "utf-8")
    (here / "d.jsonl").write_bytes(
        b"\xef\xbb\xbf" + lines([*games(2, first=60), copied(original, "bom")]).encode()
    )
    near = copied(original, "near")
    near["result"]["notes"] = (near["result"]["notes"] + 1) % 12
    (here / "e.jsonl").write_text(lines([near]), encoding="utf-8")
    stdin = lines([copied(original, "piped")])
    code, document = check(
        "--jobs", str(jobs), "a.jsonl", "b.json", "c.json", "d.jsonl", "e.jsonl", "-", stdin=stdin
    )
    assert code == 1  # the near copy's claimed notes are wrong
    first = f"the same record as a.jsonl#5 ({original['game_id']}), apart from the game id"
    assert copies_found(document) == [
        ("b.json", 3, first),
        ("c.json", 0, first),
        ("d.jsonl", 2, first),
        ("-", 0, first),
    ]
    near_codes = [p["code"] for p in document["problems"] if p["source"] == "e.jsonl"]
    assert near_codes == ["notes-mismatch", "duplicate-deal", "duplicate-deal"]


def test_a_file_changed_after_it_was_read_makes_its_possible_copies_unreadable(
    here: Path,
) -> None:
    records = games(6)
    (here / "a.jsonl").write_text(lines(records), encoding="utf-8")
    (here / "b.jsonl").write_text(lines([copied(records[0], "copy"), *games(2, first=30)]), "utf-8")
    table = facts_table(["a.jsonl", "b.jsonl"])
    assert [len(task) for task in texts_to_read(table)] == [2]
    read: list[int] = []
    with open(here / "a.jsonl", "a", encoding="utf-8") as handle:
        handle.write(lines(games(1, first=70)))  # a record added since
    problems = digest_possible_copies(table, 1, read.append)
    assert read == [2]  # a task at a time
    assert [(p.source, p.index, p.code, p.severity.value) for p in problems] == [
        ("a.jsonl", 0, "unreadable", "error")
    ]
    assert problems[0].message == (
        "the record could not be compared with the records that deal as it does: its file "
        "changed after it was read (check the event again once nothing writes to its files)"
    )
    # The copy in the unchanged file has its digest; the changed file's record has none,
    # and is compared with no other.
    assert table.has_content[6] and not table.has_content[0]


def test_a_file_removed_after_it_was_read_makes_its_possible_copies_unreadable(
    here: Path,
) -> None:
    records = games(2)
    (here / "a.jsonl").write_text(lines([*records, copied(records[1], "copy")]), "utf-8")
    table = facts_table(["a.jsonl"])
    os.remove(here / "a.jsonl")
    problems = digest_possible_copies(table, 1)
    assert [(p.index, p.code) for p in problems] == [(1, "unreadable"), (2, "unreadable")]
    assert "its file cannot be read again (no such file or directory)" in problems[0].message


def test_tournament_check_says_a_changed_file_and_exits_3(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is written to between the check of its records and the comparison of its
    possible copies: the run could not do all its work (exit 3), and says which records."""
    import phantom_log.running.runs as runs

    records = games(3)
    (here / "a.jsonl").write_text(lines([*records, copied(records[2], "copy")]), "utf-8")
    real = runs.digest_possible_copies

    def written_to_first(table: FactsTable, jobs: int, done: Any = None) -> list[Any]:
        os.utime(here / "a.jsonl", ns=(1, 1))
        return real(table, jobs, done)

    monkeypatch.setattr(runs, "digest_possible_copies", written_to_first)
    result = CliRunner().invoke(main, ["tournament", "check", "--jobs", "1", "a.jsonl"])
    assert result.exit_code == 3
    assert result.stdout.splitlines()[:2] == [
        f"a.jsonl#{index} ({game_id}): unreadable: the record could not be compared with the "
        "records that deal as it does: its file changed after it was read (check the event "
        "again once nothing writes to its files)"
        for index, game_id in ((2, records[2]["game_id"]), (3, "copy"))
    ]
    assert "duplicate-record" not in result.stdout


def test_texts_are_read_again_in_tasks_file_by_file(here: Path) -> None:
    """Many possible copies: tasks of at most TEXTS_PER_TASK records, file by file, each
    file's in the order of their places in it; on two jobs as on one."""
    records = games(3)
    many = [copied(records[number % 3], f"copy-{number}") for number in range(TEXTS_PER_TASK + 5)]
    (here / "a.jsonl").write_text(lines(many), encoding="utf-8")
    (here / "b.json").write_text(json.dumps(records), encoding="utf-8")
    table = facts_table(["b.json", "a.jsonl"], jobs=2)
    tasks = list(texts_to_read(table))
    assert [len(task) for task in tasks] == [TEXTS_PER_TASK, 8]
    texts = [text for task in tasks for text in task]
    assert [Path(text.file.path).name for text in texts] == ["b.json"] * 3 + ["a.jsonl"] * len(many)
    assert [text.offset for text in texts[3:]] == sorted(text.offset for text in texts[3:])
    code, document = check("--jobs", "2", "b.json", "a.jsonl")
    assert code == 0
    assert len(copies_found(document)) == len(many)


def test_an_event_of_a_file_a_record_is_read_again_in_one_task(here: Path) -> None:
    """Each record in a file of its own, each with a copy: one task opens every file once;
    a file removed since is said for its record alone."""
    records = games(4)
    for number, record in enumerate(records):
        (here / f"game-{number}.json").write_text(json.dumps(record), encoding="utf-8")
        (here / f"copy-{number}.json").write_text(
            json.dumps(copied(record, f"copy-{number}"), indent=2), encoding="utf-8"
        )
    paths = sorted(str(path.name) for path in here.glob("*.json"))
    table = facts_table(paths)
    tasks = list(texts_to_read(table))
    assert [len(task) for task in tasks] == [8]
    os.remove(here / "game-2.json")
    problems = digest_possible_copies(table, 1)
    assert [(p.source, p.code) for p in problems] == [("game-2.json", "unreadable")]
    assert sum(table.has_content) == 7


def test_read_again_gives_the_bytes_at_the_places_of_an_unchanged_file(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"0123456789")
    file = TextFile.of(str(path), os.stat(path))
    assert read_again(file, [(2, 3), (0, 1), (9, 1)]) == [b"234", b"0", b"9"]
    with pytest.raises(FileChanged):
        read_again(file, [(8, 3)])  # past its end
    path.write_bytes(b"0123456789")  # the same bytes, written again: another time
    os.utime(path, ns=(file.changed_ns + 1, file.changed_ns + 1))
    with pytest.raises(FileChanged):
        read_again(file, [(0, 1)])
    path.unlink()
    path.write_bytes(b"0123456789")  # another file in its place
    os.utime(path, ns=(file.changed_ns, file.changed_ns))
    if os.stat(path).st_ino != file.inode:
        with pytest.raises(FileChanged):
            read_again(file, [(0, 1)])
