"""Agents whose hooks are an in-process JavaScript plugin rather than a command: the
plugin intent-ls ships (``plugin.js``), which hands every tool call to ``intent-ls hook
NAME`` in the PreToolUse/PostToolUse JSON (:mod:`intent_ls.agents.hook_json`) and acts
on the answer; its tools' payloads (:mod:`.adapter`), its install (:mod:`.install`) and
what doctor checks of it (:mod:`.doctor`). Each agent that loads it (one folder each)
names its own files and tools' owner; nothing here names an agent.
"""
