"""A workspace on disk: finding it, setting a repository up, the shared brain and the
context block an agent receives."""
