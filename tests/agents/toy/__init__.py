"""A toy coding agent, one folder's worth of code as a new agent would bring: its hook
shape (payload and answer) differs from every real agent's, so a test that drives it
through ``intent-ls hook``, ``hooks install`` and ``doctor`` proves those read the
profile, not the built-in agents' names (tests/agents/test_toy_agent.py)."""
