"""``intent-ls report``: one self-contained HTML page of intents, their records and who
wrote what, built from a workspace's ledger or from Parquet exports of many repositories.

Collecting (``ledger_source``, ``export_source``) and rendering (``page``, ``charts``) are
separate so the numbers can be tested without HTML and the page without a ledger.
"""
