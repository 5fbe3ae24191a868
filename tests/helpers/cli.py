"""The command line as the tests drive it: in process, through click's CliRunner."""

from __future__ import annotations

from click.testing import CliRunner, Result

from phantom_log.cli import main


def run(*args: object, stdin: str | bytes | None = None) -> Result:
    """``phantom-log ARGS...`` (each argument as ``str()`` gives it: paths may be given as
    they are), reading ``stdin``; a crash of the command is raised, not kept on the
    result."""
    return CliRunner().invoke(main, [str(arg) for arg in args], input=stdin, catch_exceptions=False)
