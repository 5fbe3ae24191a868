"""Where the tests find the repository's files, whatever folder a test module is in."""

from __future__ import annotations

from pathlib import Path
from typing import Final

#: The root of the repository.
REPO: Final = Path(__file__).resolve().parents[2]
#: The test suite (``tests/``).
TESTS: Final = REPO / "tests"
EXAMPLES: Final = REPO / "examples"
#: The rulebook's worked example as a record (docs/rules.md).
WALKTHROUGH: Final = EXAMPLES / "rulebook-walkthrough.json"
#: The golden outputs of ``phantom-log verify`` on the examples (tests/checking/test_examples.py).
GOLDEN: Final = TESTS / "golden"
#: The JSON test suite: the parsing tests of Nicolas Seriot's JSONTestSuite (MIT licence,
#: kept beside them), a copy in the repository.
JSON_TEST_SUITE: Final = TESTS / "data" / "json-test-suite"
