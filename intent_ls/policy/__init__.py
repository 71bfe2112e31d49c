"""The governance rules: one file per verdict code under ``rules/`` (the registry the
judge walks), the judge every front door asks, the turn state machine, optimistic
locking and destructive edits."""
