"""The trace ledger: Agent Trace records, the append-only JSONL store, verify, index, map.

Submodules are imported on demand so a hook that only appends a record never loads the
index (SQLite) or the schema validator (jsonschema).
"""
