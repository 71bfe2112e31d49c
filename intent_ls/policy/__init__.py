"""The governance rules: the verdict vocabulary, the judge every front door asks, the
turn state machine, optimistic locking and destructive edits."""
