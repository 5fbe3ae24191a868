"""Whatever is typed at the recorder, at whatever question, it answers without a traceback:
an entry is taken whole (and the text saved reads back as the same game) or refused with
nothing of it kept; whatever text comes on standard input, the recorder ends with a
documented exit code and leaves a file it can read again."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phantom_log.cli import main
from phantom_log.views.recording import Awaiting, Recording
from tests.helpers.recorder import walkthrough_text

#: Words a person might type, right or wrong, and what no person should.
WORDS = st.one_of(
    st.sampled_from(
        [
            "Ma5",
            "ma6",
            "Ch3",
            "Ri1",
            "Mi4",
            "Xx9",
            "Ma7",
            "P",
            "C",
            "p",
            "(",
            ")",
            "()",
            "=P",
            "=C",
            "=X",
            "{a comment}",
            "{open",
            "}",
            "3.",
            "11.",
            "deal",
            "left",
            "exchange",
            "special",
            "3",
            "0",
            "#",
            "\\",
            "undo",
            "round",
        ]
    ),
    st.text(min_size=1, max_size=6),
)
ENTRIES = st.lists(WORDS, max_size=8).map(" ".join)

_TEXT = walkthrough_text()
_LINES = _TEXT.splitlines()


def _at_question(lines_taken: int, deals: bool) -> Recording:
    """A recording of the walkthrough's first lines (its deals kept or left out)."""
    kept = [
        line for line in _LINES[:lines_taken] if deals or not line.startswith(("deal", "aside"))
    ]
    return Recording.of_text("\n".join(kept) + "\n")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines_taken=st.integers(min_value=9, max_value=len(_LINES)),
    deals=st.booleans(),
    entry=ENTRIES,
)
def test_any_entry_is_taken_whole_or_refused_leaving_nothing(
    lines_taken: int, deals: bool, entry: str
) -> None:
    recording = _at_question(lines_taken, deals)
    before = recording.text
    recording.card_choices(entry)
    recording.question()
    if recording.next_step.awaiting is Awaiting.OVER:
        return
    steps = recording.read_entry(entry)
    if not isinstance(steps, list):
        assert recording.text == before
        return
    refusal = recording.offer(steps)
    if refusal is not None:
        assert refusal.message
        assert recording.text == before
        return
    assert recording.text.startswith(before.rstrip("\n"))
    again = Recording.of_text(recording.text)
    assert again.text == recording.text
    assert again.data() == recording.data()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cut=st.integers(min_value=0, max_value=len(_TEXT)),
    noise=st.text(max_size=12),
    suffix=st.sampled_from([".json", ".ptn"]),
)
def test_any_text_on_standard_input_ends_with_a_documented_code(
    tmp_path_factory: pytest.TempPathFactory, cut: int, noise: str, suffix: str
) -> None:
    folder = tmp_path_factory.mktemp("recorder")
    path = folder / f"game{suffix}"
    text = _TEXT[:cut] + noise + _TEXT[cut:]
    result = CliRunner().invoke(main, ["record", str(path)], input=text)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output
    if path.exists() and path.stat().st_size:
        # What the recorder saved, it can go on with.
        if suffix == ".json":
            Recording.of_record(json.loads(path.read_text(encoding="utf-8")))
        else:
            Recording.of_text(path.read_text(encoding="utf-8"))
