"""``phantom-log show``: a game's sheet at a moment in the terminal, its SVG picture, or
its replay page (one, or a folder of them with an index)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING

import click

from ..checking.verdict import RecordReport
from ..records.number_kinds import INDEX
from ..rules.sheets import Sheet
from ..views.reports import printable, report_lines, shared_title
from .destination import say_written
from .exits import EXIT_FAILED, EXIT_INVALID, EXIT_OK, usage_error, writing_output
from .help import SHOW_EPILOG, SHOW_EXAMPLES
from .inputs import load_sheets, record_report_at, record_reports, record_title
from .options import (
    PATHS,
    NumberOption,
    analysis_options,
    colour_option,
    max_record_size_option,
    output_options,
    selection_options,
    sheets_option,
)
from .reviews import ANALYSIS_SYMBOLS, decision_reviews

if TYPE_CHECKING:
    from ..views.replay_page import Reviews
    from ..views.terminal import ColourChoice, Style
    from .destination import Destination


@click.command(epilog=SHOW_EXAMPLES + SHOW_EPILOG)
@click.argument("path", type=PATHS)
@click.option(
    "--at",
    "at_text",
    metavar="ROUND.TRICK",
    help="The moment to show: after that trick (ROUND.0: the round's start). Default: the end.",
)
@click.option(
    "--index",
    type=NumberOption(INDEX),
    default=None,
    metavar="N",
    help="Which record of PATH (from 0, in verify's order); needed when PATH holds several.",
)
@output_options(
    ["text", "svg", "html"],
    "text: the sheet at the moment for a terminal; svg: a picture of the game; html: the "
    "replay page.",
    force_help="Overwrite the output file (-o, --svg or --html) if it exists.",
    checked=False,
)
@click.option(
    "--svg",
    "svg_path",
    metavar="OUT.svg",
    type=PATHS,
    help="Write an SVG picture: -o OUT.svg --format svg.",
)
@click.option(
    "--html",
    "html_path",
    metavar="OUT.html|DIR",
    type=PATHS,
    help="Write the replay page, to step through the game in a browser: -o OUT.html "
    "--format html. A DIR (a folder, or a name not ending in .html): a page per record of "
    "PATH and an index.html.",
)
@analysis_options(
    from_file="Mark the mistakes read from FILE (as analyse --format json writes it): in the "
    "terminal, each trick's costly decisions with label and cost; with --html, each "
    "decision's cost, label and best choice.",
    analyse="Analyse each decision, as the analyse command does, and mark the mistakes as "
    "--analysis does.",
    unsolved="is not shown",
)
@colour_option
@sheets_option
@selection_options
@max_record_size_option
def show(
    path: str,
    at_text: str | None,
    index: int | None,
    output: Destination,
    svg_path: str | None,
    html_path: str | None,
    analysis_path: str | None,
    analyse_games: bool,
    time_limit: float,
    force: bool,
    colour: ColourChoice,
    sheets_path: str | None,
) -> None:
    """Show a game's sheet at a moment, or draw the game as SVG.

    The picture: the four bars, Christine's notes above the centre line and the
    Phantom's on or below it, discs on the completed notes, the super trump, the special
    number and both hands, then the trick just played and (at the end) the result. With
    --svg (or -o FILE.svg), draw the game as an SVG picture: the result, the sheet at the
    end (or at --at, marked), the notes completed after every trick and each trick's
    winner; an illegal record's picture marks where it stops.

    An illegal record is shown as far as its replay got (the empty sheet when it stops
    before round 1), and drawn so with --svg; its problems are printed (exit 1).

    With --html, write the replay page: one self-contained HTML file (no network, no
    server) that steps through every position, from each round's start, card by card,
    swap by swap, trick by trick, with the sheet, both hands (or one side's view), the
    trick, the cards played, the list of tricks, autoplay and the notes curve; an illegal
    record up to its problem, where its page opens. --at ROUND.TRICK is the position it
    opens at; the address #ROUND.TRICK (as #2.4) opens another. With --html DIR, every
    record of PATH gets a page, and DIR/index.html lists them with their players, event,
    stage, result and verdict. With --analysis FILE or --analyse, each trick's label and
    each decision's cost in notes, its label (?!, ?, ??) and the best choice are shown
    too; a page without says so. A page or SVG names the game (its id, event, players),
    not the file it was read from.

    With --analysis FILE or --analyse in the terminal, the mistakes up to the moment
    shown follow the sheet: each trick's costly decisions with their label and cost, as
    annotate --analysis marks them.
    """
    from ..files.outputs import check_writable
    from ..views.picture import parse_moment
    from ..views.terminal import detect_style
    from .destination import Destination, DestinationError, extension_format

    at = None
    if at_text is not None:
        try:
            at = parse_moment(at_text)
        except ValueError as error:
            raise usage_error(f"--at {error}") from None
    if svg_path is not None and html_path is not None:
        raise usage_error("--svg and --html: give one of them")
    for flag, given, kind in (("--svg", svg_path, "svg"), ("--html", html_path, "html")):
        if given is None:
            continue
        if output.path is not None or output.format != "text":
            raise usage_error(
                f"{flag} FILE is short for -o FILE --format {kind}: give one or the other"
            )
        try:
            extension_format(given, [kind])
        except DestinationError as error:
            raise usage_error(f"{flag} {error}") from None
        output = Destination(kind, given, force)
    svg_path = (output.path or "-") if output.format == "svg" else None
    html_path = (output.path or "-") if output.format == "html" else None
    if svg_path is not None and (analysis_path is not None or analyse_games):
        raise usage_error("--analysis and --analyse mark the terminal picture or --html, not --svg")
    if html_path is not None:
        sheets = load_sheets(sheets_path)
        reviews = decision_reviews(analysis_path, analyse_games, time_limit, sheets)
        _show_html(path, html_path, at, index, force, sheets, reviews)
    with writing_output():
        check_writable(output.path or "-", force, standard_output=True)
    sheets = load_sheets(sheets_path)
    report = record_report_at(path, sheets, index)
    style = detect_style(colour, output.to_standard_output)
    if svg_path is not None and report.log is None:
        click.echo(
            printable(
                f"phantom-log: {output.name} not written: the record cannot be replayed "
                "(its problems follow)"
            ),
            err=True,
        )
        output = Destination("text")
    with writing_output(), output.text() as stdout:
        _show_to(
            stdout,
            report,
            output,
            at,
            at_text,
            style,
            analysis_path,
            analyse_games,
            time_limit,
            sheets,
        )
    say_written(output, False)
    if report.failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if report.valid else EXIT_INVALID)


def _show_to(
    stdout: IO[str],
    report: RecordReport,
    output: Destination,
    at: tuple[int, int] | None,
    at_text: str | None,
    style: Style,
    analysis_path: str | None,
    analyse_games: bool,
    time_limit: float,
    sheets: Mapping[str, Sheet] | None,
) -> None:
    """Write what ``show`` shows of one record (the picture at a moment, or the SVG) to
    ``stdout``, and the record's problems after it."""
    from ..views.picture import (
        SHEET_SYMBOLS,
        Moment,
        MomentError,
        before_play_lines,
        game_svg,
        moment,
        moment_lines,
        story_lines,
    )

    svg = output.format == "svg"
    if report.log is None:
        pass
    elif svg:
        try:
            picture = game_svg(report.log, shared_title(report), report.problems, at)
        except MomentError as error:
            # The SVG draws a moment the replay reached, or refuses.
            raise usage_error(f"--at {at_text}: {error}") from None
        stdout.write(picture)
    else:
        shown: Moment | None = None
        missed = ""
        try:
            shown = moment(report.log, at)
        except MomentError as error:
            if report.valid:  # a moment the record does not reach
                raise usage_error(f"--at {at_text}: {error}") from None
            # An illegal record: shown where its replay stopped, its problems below.
            if at is not None:
                missed = f"--at {at_text}: {error}; shown where the replay stops"
            if report.log.rounds:
                shown = moment(report.log)
        for line in style.fit(record_title(report)):
            stdout.write(style.paint(line, bold=True) + "\n")
        if missed:
            stdout.write(style.fitted(missed))
        lines = (
            before_play_lines(report.log, style)
            if shown is None
            else moment_lines(report.log, shown, style)
        )
        story = [] if shown is None else story_lines(report.log, shown, style.text_width(88))
        if story:
            lines += ["", *(printable(line) for line in story)]
        analysed = analysis_path is not None or analyse_games
        if analysed:
            from ..analysis.coach import mistake_lines, trick_reviews

            reviews = decision_reviews(analysis_path, analyse_games, time_limit, sheets)
            marks = trick_reviews(reviews(report) or {})
            until = None if shown is None else (shown.round, shown.trick)
            lines += ["", *(printable(line) for line in mistake_lines(marks, until))]
        if shown is not None:
            symbols = [*SHEET_SYMBOLS, *(ANALYSIS_SYMBOLS if analysed else ())]
            lines += ["", *style.fit(style.legend(symbols))]
        for line in lines:
            stdout.write(style.fitted(line))
    # The problems follow the picture; an SVG's go beside it (on standard error when the
    # SVG itself is written there).
    problems = stdout
    if svg:
        problems = sys.stderr if output.to_standard_output else sys.stdout
    for line in report_lines(report):
        problems.write(line + "\n")


def _html_folder(html_path: str) -> bool:
    """Whether ``--html`` names a folder of pages (a folder, or a name not ending in
    ``.html``/``.htm``) rather than one page (or standard output)."""
    import os

    from ..files.outputs import is_standard_output

    if is_standard_output(html_path):
        return False
    return os.path.isdir(html_path) or not html_path.lower().endswith((".html", ".htm"))


def _show_html(
    path: str,
    html_path: str,
    at: tuple[int, int] | None,
    index: int | None,
    force: bool,
    sheets: Mapping[str, Sheet] | None,
    reviews: Callable[[RecordReport], Reviews | None],
) -> None:
    """``show --html``: write the replay page of one record, or a folder of them; exits."""
    from ..files.outputs import check_writable, is_standard_output, write_atomically
    from ..views.replay_page import UnknownPosition, checked_replay_page

    if _html_folder(html_path):
        context = click.get_current_context()
        for name, option in (("index", "--index"), ("at_text", "--at")):
            if context.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE:
                raise usage_error(
                    f"{option} applies to one page; --html {html_path} writes a page for "
                    "every record (give a name ending in .html for one page)"
                )
        _show_html_folder(path, html_path, force, sheets, reviews)
    to_stdout = is_standard_output(html_path)
    with writing_output():
        check_writable(html_path, force, standard_output=True)
    report = record_report_at(path, sheets, index)
    start = None if at is None else f"{at[0]}.{at[1]}"
    reviewed = reviews(report)
    try:
        page, report = checked_replay_page(report, start, reviewed)
    except UnknownPosition:
        if report.valid:
            raise usage_error(f"--at {start}: the record does not reach that moment") from None
        # An illegal record opens where its replay stopped, as show does without --html.
        page, report = checked_replay_page(report, "problem", reviewed)
    with writing_output():
        write_atomically(html_path, page, force, standard_output=True)
    messages = sys.stderr if to_stdout else sys.stdout
    if not to_stdout:
        click.echo(printable(f"wrote {html_path}"), err=True)
    for line in report_lines(report):
        messages.write(line + "\n")
    if report.failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if report.valid else EXIT_INVALID)


def _show_html_folder(
    path: str,
    folder_path: str,
    force: bool,
    sheets: Mapping[str, Sheet] | None,
    reviews: Callable[[RecordReport], Reviews | None],
) -> None:
    """``show --html DIR``: a replay page per record of ``path`` and an ``index.html``
    listing them; every file is checked before the first is written, and the folder is
    put in place as a whole once all are (see :mod:`phantom_log.files.output_folders`);
    exits."""
    import os

    from ..files.output_folders import atomic_folder, folder_target
    from ..files.outputs import failures_named
    from ..views.replay_page import checked_replay_page, index_entry, index_page, page_file_name

    folder = os.path.normpath(folder_path)
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise usage_error(f"--html {folder_path}: not a folder (give a name ending in .html)")
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent):
        raise usage_error(f"--html {folder_path}: the folder {parent} does not exist")
    # Each record's page is made as the record is read, into a folder beside DIR, and
    # only what the index and the verdicts need is kept of it: the memory taken is one
    # record's, whatever PATH holds. The pages then go into the new folder together.
    with writing_output():
        # Refused at once where the folder cannot be written (no folder, a mount point,
        # its index there without --force), before any page is made.
        target = folder_target(folder, force, ["index.html"])
    with (
        writing_output(),
        _pages_folder(os.fspath(target)) as pages,
        failures_named(folder_path, probe=pages),
    ):
        names: list[str] = []
        entries = []
        verdicts: list[tuple[list[str], bool, bool]] = []
        for number, report in enumerate(record_reports((path,), sheets), 1):
            name = page_file_name(number, report.game_id)
            page, report = checked_replay_page(report, reviews=reviews(report))
            (pages / name).write_bytes(page.encode("utf-8"))
            names.append(name)
            entries.append(index_entry(report, name))
            verdicts.append((list(report_lines(report)), report.failed, report.valid))
        # The folder is checked (refused, or a page there without --force) before any
        # page is put in it.
        with atomic_folder(folder, force, [*names, "index.html"]) as building:
            for name in names:
                os.replace(pages / name, building / name)
            # The folder's or the file's name, not its path: the index is shared too.
            shown = os.path.basename(os.path.normpath(path)) or path
            index = index_page(f"Replay pages of {shown}", entries)
            (building / "index.html").write_bytes(index.encode("utf-8"))
    stdout = sys.stdout
    for lines, _, _ in verdicts:
        for line in lines:
            stdout.write(line + "\n")
    count = f"{len(names)} page{'s' if len(names) != 1 else ''}"
    click.echo(printable(f"wrote {count} and {os.path.join(folder, 'index.html')}"), err=True)
    if any(failed for _, failed, _ in verdicts):
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if all(valid for _, _, valid in verdicts) else EXIT_INVALID)


@contextmanager
def _pages_folder(folder: str) -> Iterator[Path]:
    """A hidden folder beside ``folder`` (so on its disk) where the pages are made before
    they go into the new folder; removed at the end, whatever ends the run."""
    import os
    import shutil
    import tempfile

    from ..files import temporaries
    from ..files.outputs import signals_held

    parent = os.path.dirname(os.path.abspath(folder))
    made: str | None = None
    try:
        with signals_held():
            made = tempfile.mkdtemp(
                prefix=f".{os.path.basename(folder)}.pages.", suffix=".tmp", dir=parent
            )
            temporaries.made(made)
        yield Path(made)
    finally:
        if made is not None:
            with signals_held():
                shutil.rmtree(made, ignore_errors=True)
                temporaries.removed(made)
