"""The optional C extension; everything else is in pyproject.toml.

phantom_log._fastpath speeds up verifying valid records. It is optional: where it cannot
be compiled (no C compiler), phantom-log installs and works without it, only slower.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "phantom_log._fastpath",
            ["phantom_log/_fastpath.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
