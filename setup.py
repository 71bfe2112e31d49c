"""The optional C writer of the index's cold build (intent_ls/ledger/index/_bulk.c).

Everything else is declared in pyproject.toml. ``optional=True``: without a C compiler or
SQLite's headers the install still succeeds, and cold builds use the Python writer.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "intent_ls.ledger.index._bulk",
            ["intent_ls/ledger/index/_bulk.c"],
            libraries=["sqlite3"],
            optional=True,
        )
    ]
)
