"""``phantom-log show``: a game's sheet at a moment in the terminal, its SVG picture, or
its replay page (one, or a folder of them with an index)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING

import click

from ..checking.verdict import RecordReport
from ..records.number_kinds import INDEX
from ..rules.sheets import Sheet
from ..views.reports import counted, printable, report_lines, shared_title
from .destination import Destination, say_written
from .exits import finish, usage_error, writing_output
from .help import SHOW_EPILOG, SHOW_EXAMPLES
from .inputs import load_sheets, record_report_at, record_reports
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
from .reviews import decision_marks, decision_reviews

if TYPE_CHECKING:
    from ..views.annotate import Marks
    from ..views.replay_page import Reviews
    from ..views.terminal import Style


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
    style: Style,
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

    at = _moment(at_text)
    analysed = analysis_path is not None or analyse_games
    output = _shown_output(output, svg_path, html_path, force, analysed)
    sheets = load_sheets(sheets_path)
    if output.format == "html":
        reviews = decision_reviews(analysis_path, analyse_games, time_limit, sheets)
        _show_html(path, output.path or "-", at, index, force, sheets, reviews)
    report = record_report_at(path, sheets, index)
    output = _drawable(output, report)
    marks = decision_marks(analysis_path, analyse_games, time_limit, sheets)
    with writing_output(), output.text() as stdout:
        _show_to(stdout, report, output, at, at_text, style, marks)
    say_written(output.path)
    finish(report.failed, not report.valid)


def _drawable(output: Destination, report: RecordReport) -> Destination:
    """The output, but for the SVG of a record that cannot be replayed: none is written
    (said on standard error), and its problems go to standard output."""
    if output.format != "svg" or report.log is not None:
        return output
    click.echo(
        printable(
            f"phantom-log: {output.name} not written: the record cannot be replayed "
            "(its problems follow)"
        ),
        err=True,
    )
    return Destination("text")


def _moment(at_text: str | None) -> tuple[int, int] | None:
    """The moment ``--at`` names; a usage error (exit 2) for one that is none."""
    from ..views.picture import parse_moment

    try:
        return None if at_text is None else parse_moment(at_text)
    except ValueError as error:
        raise usage_error(f"--at {error}") from None


def _shown_output(
    output: Destination, svg_path: str | None, html_path: str | None, force: bool, analysed: bool
) -> Destination:
    """The output of ``-o`` and ``--format``, or of ``--svg FILE`` or ``--html FILE``
    (short for ``-o FILE --format svg`` or ``html``): given with either, or both, or an
    SVG with the analysis (``analysed``), a usage error (exit 2); a picture's file that
    cannot be written is refused before any work (the replay pages', as they are
    written)."""
    from ..files.outputs import check_writable
    from .destination import DestinationError, extension_format

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
    if output.format == "svg" and analysed:
        raise usage_error("--analysis and --analyse mark the terminal picture or --html, not --svg")
    if output.format != "html":
        with writing_output():
            check_writable(output.path or "-", force, standard_output=True)
    return output


def _show_to(
    stdout: IO[str],
    report: RecordReport,
    output: Destination,
    at: tuple[int, int] | None,
    at_text: str | None,
    style: Style,
    marks: Callable[[RecordReport], Marks] | None,
) -> None:
    """Write what ``show`` shows of one record (the picture at a moment, or the SVG) to
    ``stdout``, and the record's problems after it: an SVG's beside it (on standard error
    when the SVG itself is written there)."""
    from ..analysis.coach import mistake_lines
    from ..views.picture import MomentError, game_svg, terminal_picture

    mistakes = None
    if marks is not None:

        def mistakes(until: tuple[int, int] | None) -> list[str]:
            assert marks is not None
            return mistake_lines(marks(report), until)

    try:
        if report.log is not None and output.format == "svg":
            stdout.write(game_svg(report.log, shared_title(report), report.problems, at))
        elif report.log is not None:
            stdout.writelines(terminal_picture(report, report.log, at, at_text, style, mistakes))
    except MomentError as error:
        # The picture draws a moment the replay reached, or refuses.
        raise usage_error(f"--at {at_text}: {error}") from None
    problems = stdout
    if output.format == "svg":
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
    say_written(html_path)
    (sys.stderr if to_stdout else sys.stdout).writelines(
        f"{line}\n" for line in report_lines(report)
    )
    finish(report.failed, not report.valid)


def _show_html_folder(
    path: str,
    folder_path: str,
    force: bool,
    sheets: Mapping[str, Sheet] | None,
    reviews: Callable[[RecordReport], Reviews | None],
) -> None:
    """``show --html DIR``: a replay page per record of ``path`` and an ``index.html``
    listing them, the folder put in place as a whole once all are written (see
    :func:`phantom_log.files.output_folders.folder_written`); exits."""
    import os

    from ..files.output_folders import folder_written
    from ..views.replay_page import checked_replay_page, index_entry, index_page, page_file_name

    folder = os.path.normpath(folder_path)
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise usage_error(f"--html {folder_path}: not a folder (give a name ending in .html)")
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent):
        raise usage_error(f"--html {folder_path}: the folder {parent} does not exist")
    entries, lines, failed, valid = [], [], False, True
    # Only what the index and the verdicts need is kept of each record's page.
    with writing_output(), folder_written(folder_path, force, ["index.html"]) as add:
        for number, report in enumerate(record_reports((path,), sheets), 1):
            name = page_file_name(number, report.game_id)
            page, report = checked_replay_page(report, reviews=reviews(report))
            add(name, page)
            entries.append(index_entry(report, name))
            lines += report_lines(report)
            failed, valid = failed or report.failed, valid and report.valid
        # The folder's or the file's name, not its path: the index is shared too.
        shown = os.path.basename(os.path.normpath(path)) or path
        add("index.html", index_page(f"Replay pages of {shown}", entries))
    sys.stdout.writelines(f"{line}\n" for line in lines)
    index = os.path.join(folder, "index.html")
    click.echo(printable(f"wrote {counted(len(entries), 'page')} and {index}"), err=True)
    finish(failed, not valid)
