"""The fuzz suite, and the defects it found kept as tests."""
