"""A recorder killed, or its terminal closed, loses at most the entry being typed, and the
same command goes on where it stopped; a disk that fills ends it with exit 3 and the file
as the last entry left it. Real processes, real signals, a real full disk."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pexpect

from tests.helpers.mounts import small_disk
from tests.helpers.recorder import (
    Recorder,
    enter_header,
    enter_round_1_opening,
    plays,
    record_from,
    saved,
    trick_lines,
    walkthrough,
    walkthrough_text,
)


def test_a_killed_recorder_loses_only_the_entry_being_typed_and_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    recorder = Recorder(path)
    enter_header(recorder)
    enter_round_1_opening(recorder)
    lines = trick_lines(walkthrough_text(), 1)
    recorder.answer("the Phantom leads:", lines[0])
    recorder.answer("Christine leads:", lines[1])
    recorder.wait_for("round 1, trick 3: Christine leads:")
    recorder.child.send("Ri6 Ri")  # being typed when the recorder is killed
    recorder.wait_for("Ri6 Ri")
    os.killpg(os.getpgid(recorder.child.pid), signal.SIGKILL)
    recorder.child.expect(pexpect.EOF)
    recorder.child.close()
    assert recorder.child.signalstatus == signal.SIGKILL
    assert plays(saved(path)) == ["Ma5", "Ma6", "Ch5", "Ch4"]
    assert not [name for name in os.listdir(tmp_path) if name != "game.json"]

    again = Recorder(path)
    again.wait_for(re.escape("Resumed: "))
    for line in lines[2:]:
        again.answer(r"round 1, trick \d+: .* leads:", line)
    again.answer("round 2: the Phantom's deal", "Mi4 Ch2 Ch3 Ch4 Ch6 Ri5 Ri6 Ma1 Ma2 Ma3")
    again.answer("round 2: Christine's deal", "Mi1 Mi2 Mi3 Ri1 Ri2 Ri3 Ri4 Ma4 Ma5 Ma6")
    again.answer("the exchange", "P Ri5 C Ri3")
    again.answer("the special number", "3")
    for line in trick_lines(walkthrough_text(), 2):
        again.answer(r"round 2, trick \d+: .* leads:", line)
    again.wait_for(re.escape("The game is over: Christine won, 9 notes completed"))
    assert again.ended() == 0
    record = saved(path)
    assert plays(record) == plays(walkthrough())
    assert record["result"] == {"winner": "christine", "notes": 9}

    finished = Recorder(path)
    finished.wait_for(re.escape("holds a finished game (Christine won, 9 notes"))
    assert finished.ended() == 0
    assert saved(path) == record


def test_a_closed_terminal_keeps_every_entry_taken(tmp_path: Path) -> None:
    path = tmp_path / "game.ptn"
    recorder = Recorder(path)
    enter_header(recorder)
    enter_round_1_opening(recorder, deals=False)
    recorder.answer("the Phantom leads:", "Ma5 Ma6")
    recorder.wait_for("round 1, trick 2: Christine leads:")
    # The terminal goes away: its session's processes get SIGHUP.
    os.killpg(os.getpgid(recorder.child.pid), signal.SIGHUP)
    recorder.child.expect(pexpect.EOF)
    recorder.child.close()
    assert recorder.child.exitstatus == 129 or recorder.child.signalstatus == signal.SIGHUP
    assert path.read_text(encoding="utf-8").endswith("special 3\n1. Ma5 Ma6\n")
    assert sorted(os.listdir(tmp_path)) == ["game.ptn"]


def test_a_disk_that_fills_ends_with_exit_3_and_the_last_entry_saved(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", 8192) as disk:
        path = disk / "game.json"
        done = record_from(path, walkthrough_text())
        assert done.returncode == 3, done.stderr
        assert f"cannot write {path}" in done.stderr
        assert "left as it was" in done.stderr
        kept = plays(saved(path))
        assert kept and kept == plays(walkthrough())[: len(kept)]
        assert sorted(os.listdir(disk)) == ["game.json"]
        # Room again: the same text goes on from the last entry saved.
        (tmp_path / "game.json").write_bytes(path.read_bytes())
    done = record_from(tmp_path / "game.json", walkthrough_text())
    assert done.returncode == 0, done.stderr
    assert saved(tmp_path / "game.json") == walkthrough()
