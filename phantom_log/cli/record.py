"""``phantom-log record``: a game recorded as it is played, each entry checked and saved.

On a terminal the recorder asks its questions with prompt_toolkit (line editing, history,
Tab completing the cards legal now); without one it reads a game text from standard
input. What an entry does is :mod:`phantom_log.views.recording`'s; this module asks,
reads, says and saves."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

import click

from ..views.reports import printable
from .exits import EXIT_INVALID, EXIT_OK, usage_error, writing_output
from .help import RECORD_EPILOG, RECORD_EXAMPLES
from .inputs import load_sheets
from .options import PATHS, sheets_option

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import CompleteEvent, Completion
    from prompt_toolkit.document import Document

    from ..records.game_text import NotationProblem, TextGame, TextPlace
    from ..rules.sheets import Sheet
    from ..views.recording import Recording, Refusal, Step

_SUFFIXES: Final = (".json", ".ptn")
_COMMANDS: Final = ("undo", "show", "help", "quit")
_HELP: Final = """\
Type what the question asks, in the game text's notation (docs/format.md, "Game text"):
  a card            Ma5          (Tab completes the cards legal now)
  a whole trick     Ch3 (P Mi1 Ma2 C Ri1 Ri2) Ch2 {a comment} =P
  a swap            P Mi1 Ma2 C Ri1 Ri2      (the cards each side gives)
  the exchange      P Ri3 C Mi5   (or: Ri3 Mi5, the Phantom's first)
  a deal            Mi1 Mi3 Mi6 Ch2 Ch4 Ri3 Ri5 Ma2 Ma3 Ma5   (Enter: not entered)
  cards left        Mi1 Ma2      (asked when a round with hidden hands ends early)
Commands:
  undo [N]   take back the last entry (or the last N)
  show       the sheet, the notes, the special number and the hands so far
  help       this text
  quit       stop here (Ctrl-D too): every entry is saved; run the same command to go on
Ctrl-C saves and stops (exit 130). Each entry is saved the moment it is taken."""


@click.command(epilog=RECORD_EXAMPLES + RECORD_EPILOG)
@click.argument("path", metavar="GAME.json|GAME.ptn", type=PATHS)
@click.option(
    "--force",
    is_flag=True,
    help="Record a new game over a finished one (a file that is no game record the "
    "recorder can read is never written over).",
)
@sheets_option
def record(path: str, force: bool, sheets_path: str | None) -> None:
    """Record a game as it is played, checking each card as it is entered.

    GAME.json is written as a record, GAME.ptn as game text; either is saved after every
    entry, so a crash or a closed terminal loses at most the entry being typed. On a
    terminal, the recorder asks for the header, then each round: the deals (Enter: not
    entered, the hands hidden), the exchange, the special number and each card in turn,
    with Tab completing the cards legal now. An illegal card is refused at once, in the
    words verify uses. Type help for the commands (undo, show, quit).

    Run again on an unfinished game, it goes on where it stopped. Without a terminal, it
    reads the game text from standard input and stops at the first illegal entry, with
    its line and column, keeping what came before it.
    """
    from ..views.recording import Recording, warm_up

    suffix = os.path.splitext(path)[1].lower()
    if suffix not in _SUFFIXES:
        raise usage_error(f"{path}: give a file ending in .json (a record) or .ptn (game text)")
    as_json = suffix == ".json"
    sheets = load_sheets(sheets_path)
    from ..files.outputs import check_writable

    with writing_output():
        check_writable(path, True)
    recording = _existing(path, as_json, sheets)
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    if recording is not None and recording.finished and force:
        recording = None
    if recording is not None and recording.finished and terminal:
        click.echo(
            printable(
                f"{path} holds a finished game ({recording.result_line()}): it is left as it "
                "is (--force records a new game in its place)"
            )
        )
        sys.exit(EXIT_OK)
    warm_up()
    if terminal:
        sys.exit(_on_terminal(recording or Recording(sheets), path, as_json, recording is not None))
    sys.exit(_from_standard_input(recording, Recording(sheets), path, as_json))


def _existing(path: str, as_json: bool, sheets: Mapping[str, Sheet] | None) -> Recording | None:
    """The recording ``path`` holds (``None`` when there is none yet, or it is empty); a
    usage error when it is no game record the recorder can read."""
    from ..records.size_limit import read_limited
    from ..records.strictjson import JsonError, parse_json
    from ..views.recording import Recording

    if not os.path.lexists(path):
        return None
    try:
        data = read_limited(path)
    except OSError as error:
        raise usage_error(f"{path}: {error.strerror}; it is left as it is") from None
    if not data.strip():
        return None
    try:
        if as_json:
            return Recording.of_record(parse_json(data), sheets)
        return Recording.of_text(data.decode("utf-8"), sheets)
    except (JsonError, UnicodeDecodeError, ValueError) as error:
        reason = error.message if isinstance(error, JsonError) else str(error)
        raise usage_error(
            f"{path} is no game record the recorder can read ({reason}); it is left as it "
            "is: record into another file"
        ) from None


def _save(recording: Recording, path: str, as_json: bool) -> None:
    from ..files.outputs import write_atomically

    with writing_output():
        write_atomically(path, recording.saved(as_json), force=True)


# -- on a terminal -------------------------------------------------------------------------


def _on_terminal(recording: Recording, path: str, as_json: bool, resumed: bool) -> int:
    """Ask for the game, entry by entry, until it is over or the recorder is told to stop;
    the exit code."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer
    from prompt_toolkit.shortcuts import CompleteStyle

    class Cards(Completer):
        """The card codes that may come next (only those, with Tab)."""

        def get_completions(
            self, document: Document, complete_event: CompleteEvent
        ) -> list[Completion]:
            from prompt_toolkit.completion import Completion

            typed = document.text_before_cursor
            word = typed.split(" ")[-1] if typed and not typed.endswith(" ") else ""
            bare = word.lstrip("(")
            before = typed[: len(typed) - len(bare)]
            choices = recording.card_choices(before)
            return [
                Completion(code, -len(bare))
                for code in choices
                if code.casefold().startswith(bare.casefold())
            ]

    prompts: PromptSession[str] = PromptSession(
        completer=Cards(), complete_style=CompleteStyle.READLINE_LIKE, complete_while_typing=False
    )
    stem = os.path.splitext(os.path.basename(path))[0]
    say = click.echo
    say(printable(f"Recording {path}. Type help for the commands; every entry is saved at once."))
    if resumed:
        count = len(recording.steps)
        say(printable(f"Resumed: {path} holds {count} entries; it goes on from there."))
    try:
        if not recording.header_done:
            _ask_header(recording, prompts, path, as_json, stem)
        while not recording.finished:
            line = prompts.prompt(printable(recording.question()) + ": ")
            if not _entry(recording, line, path, as_json):
                return EXIT_OK
    except KeyboardInterrupt:
        say(
            printable(
                f"Interrupted: {path} holds every entry taken; run the same command to go on."
            )
        )
        return 130
    except EOFError:
        _quit_line(path)
        return EXIT_OK
    say(printable(f"The game is over: {recording.result_line()}. {path} holds the record."))
    return EXIT_OK


def _quit_line(path: str) -> None:
    click.echo(
        printable(f"Stopped: {path} holds every entry taken; run the same command to go on.")
    )


def _ask_header(
    recording: Recording, prompts: PromptSession[str], path: str, as_json: bool, stem: str
) -> None:
    """Ask each header question in turn (Enter keeps the value shown, ``-`` leaves an
    optional one out, ``undo`` goes back a question)."""
    from ..views.recording import HEADER_QUESTIONS, REQUIRED_KEYS

    index = 0
    while index < len(HEADER_QUESTIONS):
        key, what = HEADER_QUESTIONS[index]
        default = recording.header_default(key, stem)
        shown = f" [{default}]" if default else ""
        answer = prompts.prompt(printable(f"{key} ({what}){shown}: ")).strip()
        word = answer.casefold()
        if word == "undo":
            index = max(0, index - 1)
            continue
        if word in ("help", "show"):
            click.echo(_HELP if word == "help" else "Nothing to show yet: the header comes first.")
            continue
        if word == "quit":
            raise EOFError
        value = default if not answer else ("" if answer == "-" else answer)
        if not value:
            if key in REQUIRED_KEYS:
                click.echo(printable(f"  {key} is needed: a record has one"))
                continue
            recording.drop_header(key)
        else:
            refusal = recording.set_header(key, value)
            if refusal is not None:
                _say_refusal(refusal)
                continue
        _save(recording, path, as_json)
        index += 1
    recording.finish_header()


def _entry(recording: Recording, line: str, path: str, as_json: bool) -> bool:
    """Do what one line typed says; ``False`` when it says to stop."""
    from ..views.recording import Awaiting

    words = line.split()
    command = words[0].casefold() if words else ""
    if command in _COMMANDS or command == "?":
        if command == "quit":
            _quit_line(path)
            return False
        if command in ("help", "?"):
            click.echo(_HELP)
        elif command == "show":
            from ..views.terminal import detect_style

            style = detect_style("auto", True)
            for shown in recording.picture(style):
                click.echo(style.fitted(shown), nl=False)
        else:
            count = int(words[1]) if len(words) > 1 and words[1].isdigit() else 1
            taken = recording.undo(count)
            if not taken:
                click.echo("  nothing to undo")
            else:
                _save(recording, path, as_json)
                click.echo(printable(f"  took back {taken} entr{'y' if taken == 1 else 'ies'}"))
        return True
    found = recording.next_step
    if not words:
        if found.awaiting is Awaiting.DEAL and found.side == "phantom":
            recording.pass_over_deals()
            click.echo("  the deals are not entered: the hands are hidden this round")
        else:
            click.echo("  type what is asked, or help")
        return True
    steps = recording.read_entry(line)
    if not isinstance(steps, list):
        _say_refusal(steps)
        return True
    before = recording.tricks_completed()
    refusal = recording.offer(steps)
    if refusal is not None:
        _say_refusal(refusal)
        problem = refusal.problem
        if problem is not None and problem.round is not None and problem.trick is not None:
            earlier = (problem.round, problem.trick) < (found.round, found.trick)
            if earlier:
                click.echo(
                    "    found at the round's end, the hands hidden: undo back to round "
                    f"{problem.round}, trick {problem.trick} to mend it (undo N takes back N "
                    "entries)"
                )
        return True
    _save(recording, path, as_json)
    if recording.tricks_completed() != before:
        click.echo(printable(f"  {recording.trick_line()}"))
        for line in recording.round_end_lines(found.round):
            click.echo(printable(f"  {line}"))
    return True


def _say_refusal(refusal: Refusal) -> None:
    """An entry refused, and what to try, under the question that comes again."""
    where = ""
    if refusal.notation is not None and refusal.place is not None:
        where = f"column {refusal.place.column}: "
    click.echo(printable(f"  refused: {where}{refusal.message}"))
    if refusal.hint:
        click.echo(printable(f"    hint: {refusal.hint}"))


# -- from standard input -------------------------------------------------------------------


def _from_standard_input(
    saved: Recording | None, recording: Recording, path: str, as_json: bool
) -> int:
    """Record the game text of standard input, an entry a step; the exit code."""
    from ..records.text_records import text_record
    from ..views.recording import steps_of_game

    game = _standard_input_game()
    steps = steps_of_game(game)
    whole = text_record(game, recording.sheets)
    first_problem = min(game.problems, key=lambda problem: problem.place, default=None)
    start = 0
    if saved is not None:
        recording, start = _resumed_from(saved, steps, path, as_json)
        if start < 0:
            return EXIT_OK
    for step in steps[start:]:
        # A line the notation cannot read is not taken, nor anything after it.
        if first_problem is not None and step.place and step.place.line >= first_problem.place.line:
            return _stopped_at_notation(path, recording, first_problem)
        refusal = recording.offer([step])
        if refusal is not None:
            problem = refusal.problem
            place = step.place
            if problem is not None and problem.pointer:
                place = whole.place_of(problem.pointer)
            return _stopped(path, recording, place, refusal.message, refusal.hint, step.place)
        _save(recording, path, as_json)
    if first_problem is not None:
        return _stopped_at_notation(path, recording, first_problem)
    if recording.finished:
        click.echo(printable(f"recorded {path}: {recording.result_line()}"), err=True)
        return EXIT_OK
    if start == len(steps) or not steps:
        _save(recording, path, as_json)
    click.echo(
        printable(
            f"{path} holds the game so far (next: {recording.question()}): run the "
            "same command on a terminal, or with the rest of the text, to go on"
        ),
        err=True,
    )
    return EXIT_OK


def _standard_input_game() -> TextGame:
    """The one game of the text standard input holds; a usage error otherwise."""
    from ..records.game_text import read_games

    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as error:
        raise usage_error(f"standard input is not UTF-8 text ({error.reason})") from None
    games = read_games(text)
    if len(games) != 1:
        raise usage_error(
            "standard input holds no game text"
            if not games
            else f"standard input holds {len(games)} games: record one game a file"
        )
    return games[0]


def _resumed_from(
    saved: Recording, steps: list[Step], path: str, as_json: bool
) -> tuple[Recording, int]:
    """The recording of the steps that make the game ``path`` holds, and how many they
    are (-1: the game is over, as the text says, and nothing is to be recorded); a usage
    error when the text does not begin with that game, or goes on past its end."""
    resumed = _resumed_at(saved, steps, as_json)
    if resumed is None:
        raise usage_error(
            f"{path} holds a game the text does not begin with; it is left as it is "
            "(give the text of the same game from its start, or --force to record the "
            "text in its place)"
        )
    recording, start = resumed
    if saved.finished and start == len(steps):
        click.echo(printable(f"{path} holds this game, finished: nothing to record"), err=True)
        return recording, -1
    if saved.finished:
        raise usage_error(f"{path} holds a finished game; --force records the text in its place")
    return recording, start


def _resumed_at(saved: Recording, steps: list[Step], as_json: bool) -> tuple[Recording, int] | None:
    """The recording of the first steps of ``steps`` that make the game ``saved`` holds,
    and how many they are, or ``None`` when no beginning of them does."""
    from ..views.recording import Recording

    target = saved.saved(as_json)
    trial = Recording(saved.sheets)
    found = 0 if trial.saved(as_json) == target else -1
    for index, step in enumerate(steps):
        if trial.offer([step]) is not None:
            break
        if trial.saved(as_json) == target:
            found = index + 1
        elif found >= 0:
            break
    if found < 0:
        return None
    resumed = Recording(saved.sheets)
    for step in steps[:found]:
        resumed.offer([step])
    return resumed, found


def _stopped_at_notation(path: str, recording: Recording, problem: NotationProblem) -> int:
    """:func:`_stopped` at a line of standard input the notation cannot read."""
    return _stopped(path, recording, problem.place, f"notation: {problem.message}", problem.hint)


def _stopped(
    path: str,
    recording: Recording,
    place: TextPlace | None,
    message: str,
    hint: str | None,
    entry: TextPlace | None = None,
) -> int:
    where = f"-:{place}: " if place is not None else "-: "
    click.echo(printable(f"{where}{message}"), err=True)
    if hint:
        click.echo(printable(f"    hint: {hint}"), err=True)
    found_at = f" at {entry}" if entry is not None and entry != place else ""
    count = len(recording.steps)
    click.echo(
        printable(
            f"phantom-log: the recorder stops{found_at}: {path} keeps the {count} "
            f"entr{'y' if count == 1 else 'ies'} before it"
        ),
        err=True,
    )
    return EXIT_INVALID
