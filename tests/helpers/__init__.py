"""What several test modules share, one module per kind of thing: the repository's paths
(:mod:`~tests.helpers.paths`), sample records (:mod:`~tests.helpers.records`), records
built card by card and a reference player (:mod:`~tests.helpers.gamebuild`), the command
line through CliRunner (:mod:`~tests.helpers.cli`), functions run in worker processes
(:mod:`~tests.helpers.workers`), and the fuzz suite's checks and inputs
(:mod:`~tests.helpers.fuzz_harness`, :mod:`~tests.helpers.fuzz_strategies`), which
``fuzz/atheris_target.py`` uses too."""
