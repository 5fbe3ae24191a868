"""The command line (``phantom_log.cli``): exit codes, output, one vocabulary of output
options."""
