"""``phantom-log schema``: the JSON Schemas of a game record, a sheets file and a
tournament manifest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import click

from ..records.schema import MANIFEST_SCHEMA, RECORD_SCHEMA, SHEETS_SCHEMA, schema_text
from .destination import say_written
from .exits import writing_output
from .help import SCHEMA_EPILOG, SCHEMA_EXAMPLES
from .options import output_options

if TYPE_CHECKING:
    from .destination import Destination


_SCHEMAS: Final = {
    "record": RECORD_SCHEMA,
    "sheet": SHEETS_SCHEMA,
    "sheets": SHEETS_SCHEMA,
    "manifest": MANIFEST_SCHEMA,
}


@click.command(epilog=SCHEMA_EXAMPLES + SCHEMA_EPILOG)
@click.argument("which", type=click.Choice(list(_SCHEMAS)), default="record")
@output_options(["json"], "json: the JSON Schema document.")
def schema(which: str, output: Destination, force: bool) -> None:
    """Print the JSON Schema of a game record, of a sheets file (--sheets) or of a
    tournament manifest (--manifest). WHICH is record (the default), sheet or manifest."""
    with writing_output(), output.text() as stream:
        stream.write(schema_text(_SCHEMAS[which]))
    say_written(output.path)
