"""phantom-log's test suite, in folders as the package is in layers (``tests/rules/``,
``tests/records/``, ... ``tests/cli/``), with the documentation's checks in
``tests/docs/`` and the fuzz suite in ``tests/fuzz/``.

It is a package so that a test imports what tests share as ``tests.helpers.<module>``,
from the repository's root (pytest puts the root on ``sys.path``: pyproject.toml's
``pythonpath``), never from another test module.
"""
