"""The ledger as Parquet for engines built for querying (``intent-ls export``).

The ledger in git stays the truth; an export is a derived, rebuildable copy laid out so
that many repositories' copies sit side by side and any engine that reads Parquet
(DuckDB, Spark, BigQuery, …) can query them. See ``docs/scale.md``. No pygls here.
"""


class ExportError(Exception):
    """A usage or environment problem the CLI prints as one line (exit 2)."""
