"""The documentation agrees with the code: the README's commands, the docs' links, the CLI
reference, the cluster recipes."""
