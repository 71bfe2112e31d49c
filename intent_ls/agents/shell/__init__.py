"""Shell commands an agent runs: what they would do to the workspace, from their parse tree."""
