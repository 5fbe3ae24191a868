"""What every command's ``--help`` ends with: its examples (each command line and what it
does) and its exit codes, the same words for the same codes in every command."""

from __future__ import annotations

from typing import Final

_EXIT_TAIL: Final = """\
  130  interrupted (Ctrl-C); 143 and 129 on SIGTERM and SIGHUP
  (A closed output pipe, as with | head, ends the run silently: 141.)
"""


def _exit_codes(valid: str, invalid: str, usage: str, failed: str) -> str:
    """The exit codes of a command that reads records, for its ``--help``."""
    return (
        "\b\nExit codes:\n"
        f"  0  {valid}\n"
        f"  1  {invalid}\n"
        f"  2  a usage error: {usage}\n"
        f"  3  the run could not do all its work: {failed}\n" + _EXIT_TAIL
    )


def _examples(*examples: tuple[str, str]) -> str:
    """The examples of a command's ``--help``: each command line and what it does."""
    lines = [f"  {what}:\n    $ {command}" for command, what in examples]
    return "\b\nExamples:\n" + "\n".join(lines) + "\n\n"


# The failures every command that reads records may end with (exit 3), and the usage
# errors of the commands that write tables (exit 2).
_FAILED: Final = "a source unreadable, the\n     checker failed on a record (internal-error)"

_TABLES_USAGE: Final = (
    "a bad option, a path that does not exist,\n     paths that hold no records, "
    "or an output that exists without\n     --force"
)

MAIN_EXAMPLES: Final = _examples(
    ("phantom-log verify games/", "check every record below a folder"),
    ("phantom-log annotate game.json", "every trick of a game: who won it, and why"),
    ("phantom-log show game.json --at 2.4", "the sheet and the hands after a trick"),
    ("phantom-log export games/ --tricks tricks.parquet", "a table to analyse"),
    ("phantom-log tournament check event/", "a whole event, and its standings"),
    ("phantom-log verify --help", "a command's options, examples and exit codes"),
)

MAIN_EPILOG: Final = (
    """\b
Exit codes:
  0  done, and every record is valid
  1  at least one record is invalid (the outputs are still written)
  2  a usage error: a bad option, a path that does not exist, paths
     that hold no records, or an output that exists without --force
  3  the run could not do all its work: a source unreadable, the
     checker failed on a record (internal-error), a worker process
     died or an output could not be written
"""
    + _EXIT_TAIL
    + """
\b
Shell completion (commands, options and file names):
  bash, in ~/.bashrc: eval "$(_PHANTOM_LOG_COMPLETE=bash_source phantom-log)"
  zsh, in ~/.zshrc:   eval "$(_PHANTOM_LOG_COMPLETE=zsh_source phantom-log)"
  fish, in ~/.config/fish/completions/phantom-log.fish:
                      _PHANTOM_LOG_COMPLETE=fish_source phantom-log | source
"""
)

VERIFY_EXAMPLES: Final = _examples(
    ("phantom-log verify games/", "check every record below a folder"),
    ("phantom-log verify event.jsonl --format json -o report.jsonl", "a JSON Lines report"),
    (
        "phantom-log verify event.jsonl --valid-out ok.jsonl --invalid-out bad.jsonl",
        "split the valid records from the invalid ones",
    ),
    ("phantom-log verify games/ --player 'Kim*' --event 'Seoul*'", "only some records"),
    ("cat game.json | phantom-log verify -", "a record on standard input"),
)

VERIFY_EPILOG: Final = (
    """\b
Exit codes:
  0  every record is valid (warnings allowed, unless --strict)
  1  at least one record is invalid
  2  a usage error: a bad option, a path that does not exist,
     a bad --sheets file, or paths that hold no records
  3  the run could not do all its work: a source unreadable (no
     permission, a broken link, over --max-record-size), the checker
     failed on a record (internal-error; the other records are still
     checked) or a worker process died
"""
    + _EXIT_TAIL
)

SCHEMA_EXAMPLES: Final = _examples(
    ("phantom-log schema", "the JSON Schema of a game record"),
    ("phantom-log schema manifest -o manifest.schema.json", "a tournament manifest's"),
)

SCHEMA_EPILOG: Final = (
    """\b
Exit codes:
  0  the schema was written
  2  a usage error: an unknown schema, or an -o file that exists
     without --force
  3  the -o file could not be written
"""
    + _EXIT_TAIL
)

ANNOTATE_EXAMPLES: Final = _examples(
    ("phantom-log annotate game.json", "every trick: who won it, why, and the notes"),
    ("phantom-log annotate games/ -o tricks.csv", "one CSV row per trick"),
    ("phantom-log annotate game.json --analyse", "with each trick's mistakes"),
)

ANNOTATE_EPILOG: Final = _exit_codes(
    "every record is valid",
    "at least one record is invalid (annotated up to its first problem)",
    "a bad option, a path that does not exist,\n     or paths that hold no records",
    _FAILED,
)

SHOW_EXAMPLES: Final = _examples(
    ("phantom-log show game.json", "the sheet and the hands at the end"),
    ("phantom-log show game.json --at 2.4", "after trick 4 of round 2"),
    ("phantom-log show event.jsonl --index 3", "the fourth record of several"),
    ("phantom-log show game.json -o game.svg", "a picture of the game"),
    ("phantom-log show game.json -o game.html --at 1.7", "the replay page, opening at 1.7"),
    ("phantom-log show event.jsonl --html pages/", "a replay page per record, and an index"),
)

SHOW_EPILOG: Final = _exit_codes(
    "the record is valid (with --html DIR: every record)",
    "the record is invalid (shown as far as the replay got)",
    "a bad option or --at, a path that does not\n     exist, no record at --index, "
    "several records without --index,\n     or an --svg or --html file that exists",
    _FAILED + "\n     or the --svg or --html file could not be written",
)

SIMULATE_EXAMPLES: Final = _examples(
    ("phantom-log simulate -n 1000 -o games.jsonl", "a thousand random games"),
    (
        "phantom-log simulate -n 50 --phantom greedy --balance --seed 7 -o greedy.json",
        "a greedy Phantom under the balance rule, as one JSON array",
    ),
)

SIMULATE_EPILOG: Final = (
    """\b
Exit codes:
  0  the games were written
  2  a usage error: a bad option, an unknown sheet, or an OUT file
     that exists without --force
  3  the OUT file could not be written
"""
    + _EXIT_TAIL
)

EXPORT_EXAMPLES: Final = _examples(
    ("phantom-log export games/ --games games.parquet --tricks tricks.parquet", "both tables"),
    ("phantom-log export games/ --tricks - --format jsonl | jq .", "tricks on standard output"),
    ("phantom-log export games/ --games all.csv --include-invalid", "invalid records too"),
)

EXPORT_EPILOG: Final = _exit_codes(
    "every record is valid",
    "at least one record is invalid (left out unless\n"
    "     --include-invalid; the tables are written)",
    _TABLES_USAGE,
    _FAILED + ", a worker\n     process died or an output could not be written",
)

STATS_EXAMPLES: Final = _examples(
    ("phantom-log stats games/", "the figures over every valid record"),
    ("phantom-log stats games/ --by sheet --by rules", "one row per sheet and rules"),
    ("phantom-log stats games/ --curve -o curve.csv", "the progress curve as CSV"),
    ("phantom-log stats games/ --plot curve.svg", "draw it (the plot extra)"),
)

STATS_EPILOG: Final = _exit_codes(
    "every record is valid",
    "at least one record is invalid (left out of the\n     figures, which are still written)",
    _TABLES_USAGE,
    _FAILED + ", a worker\n     process died or an output could not be written",
)

ANALYSE_EXAMPLES: Final = _examples(
    ("phantom-log analyse game.json", "what each decision cost, as a coach says it"),
    ("phantom-log analyse game.json --at 2 --deep", "round 2 only, with the whole matrices"),
    ("phantom-log analyse game.json --hidden --worlds 30", "by what each player could see"),
    ("phantom-log analyse games/ -j 2 -o analysis.jsonl", "a whole event, as JSON Lines"),
)

ANALYSE_EPILOG: Final = _exit_codes(
    "every record is valid (decisions not solved in time included)",
    "at least one record is invalid (analysed up to its first problem)",
    "a bad option or --from/--to/--at, a path that\n     does not exist, paths that hold no "
    "records, or an -o file that\n     exists without --force",
    _FAILED + ", a worker\n     process died or the -o file could not be written",
)

TOURNAMENT_EXAMPLES: Final = _examples(
    ("phantom-log tournament check event/", "the records, across records, and the standings"),
    ("phantom-log tournament check event/ --manifest event.json", "against the schedule"),
    ("phantom-log tournament check event/ -o standings.csv", "the standings as CSV"),
)

TOURNAMENT_EPILOG: Final = (
    """\b
Exit codes:
  0  no error (warnings allowed, unless --strict)
  1  at least one error, in a record or across records
  2  a usage error: a bad option, a path that does not exist, a bad
     --manifest or --sheets file, or paths that hold no records
  3  the run could not do all its work: a source unreadable, the
     checker failed on a record (internal-error), a worker process died
     or the -o file could not be written
"""
    + _EXIT_TAIL
)

CONVERT_EXAMPLES: Final = _examples(
    ("phantom-log convert game.json -o game.ptn", "a record as game text, to type or read"),
    ("phantom-log convert night.ptn -o night.json", "game text as records (an array)"),
    ("phantom-log convert games/ --format jsonl -o all.jsonl", "every record, text or JSON"),
)

CONVERT_EPILOG: Final = _exit_codes(
    "every record was converted",
    "a record was not converted: not JSON, not of the schema, or\n     not the "
    "notation of game text (its problems on standard error)",
    _TABLES_USAGE,
    _FAILED,
)

RECORD_EXAMPLES: Final = _examples(
    ("phantom-log record game.json", "record a game at the table, card by card"),
    ("phantom-log record game.ptn", "the same, saved as game text"),
    ("phantom-log record game.json < game.ptn", "a game text, each entry checked"),
)

RECORD_EPILOG: Final = (
    """\b
Exit codes:
  0  the game is recorded, or stopped on purpose (quit, Ctrl-D, or the
     text ended): the file holds every entry taken
  1  an illegal entry on standard input: the file keeps what came
     before it
  2  a usage error: not .json or .ptn, a file that is no game record
     the recorder can read (it is left as it is), a text that holds
     no game or several, or a bad --sheets file
  3  the file could not be written
"""
    + _EXIT_TAIL
)
